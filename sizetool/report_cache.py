"""A cache of finished reports, keyed by the content of the ELF (and map) and the options, so a second run on an
unchanged build skips the DWARF walk. It can never serve a stale report: any change to the inputs changes the key.

Location: $SIZETOOL_CACHE_DIR, else $XDG_CACHE_HOME/sizetool, else ~/.cache/sizetool. SIZETOOL_NO_CACHE=1 or
--no-cache turns it off. A cache that cannot be read or written is silently skipped: it only ever saves time.
"""

from __future__ import annotations

import hashlib
import json
import os

from sizetool import __version__
from sizetool.errors import SizeToolError
from sizetool.report_model import SizeReport, dump_json, report_from_dict, report_to_dict, write_text_atomically


def cache_dir() -> str:
    explicit = os.environ.get("SIZETOOL_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "sizetool")


def cache_enabled() -> bool:
    return os.environ.get("SIZETOOL_NO_CACHE", "") in ("", "0")


def cache_key(paths: list[str | None], options: dict) -> str:
    digest = hashlib.sha256(f"size-report {__version__} {json.dumps(options, sort_keys=True)}".encode())
    for path in paths:
        if path is None:
            digest.update(b"\0none")
            continue
        with open(path, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
        digest.update(b"\0end")
    return digest.hexdigest()


def load_cached(key: str, source: str) -> SizeReport | None:
    path = os.path.join(cache_dir(), f"{key}.json")
    try:
        with open(path, encoding="utf-8") as stream:
            report = report_from_dict(json.load(stream), source)
    except (OSError, ValueError, SizeToolError):
        return None
    report.source = source
    return report


def store(key: str, report: SizeReport) -> None:
    directory = cache_dir()
    try:
        os.makedirs(directory, exist_ok=True)
        write_text_atomically(os.path.join(directory, f"{key}.json"), dump_json(report_to_dict(report)))
    except (OSError, SizeToolError):
        pass
