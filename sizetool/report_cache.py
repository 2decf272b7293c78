"""A cache of finished reports, keyed by the content of the ELF (and map), the options and the tool's own code, so a
second run on an unchanged build skips the DWARF walk. It can never serve a stale report: any change to the inputs
(or to sizetool itself) changes the key. The newest MAX_ENTRIES reports are kept.

Location: $SIZETOOL_CACHE_DIR, else $XDG_CACHE_HOME/sizetool, else ~/.cache/sizetool. SIZETOOL_NO_CACHE=1 or
--no-cache turns it off. A cache that cannot be read or written is silently skipped: it only ever saves time.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

from sizetool import __version__
from sizetool.errors import SizeToolError
from sizetool.report_model import SizeReport, report_from_dict, report_to_dict, write_text_atomically

MAX_ENTRIES = 64


def cache_dir() -> str:
    explicit = os.environ.get("SIZETOOL_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "sizetool")


def cache_enabled() -> bool:
    return os.environ.get("SIZETOOL_NO_CACHE", "") in ("", "0")


def cache_key(paths: list[str | None], options: dict) -> str:
    digest = hashlib.sha256(f"size-report {__version__} {tool_fingerprint()} {json.dumps(options, sort_keys=True)}".encode())
    for path in paths:
        if path is None:
            digest.update(b"\0none")
            continue
        with open(path, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
        digest.update(b"\0end")
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def tool_fingerprint() -> str:
    """A digest of sizetool's own source, so a report cached by another version of the code is never reused."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent
    for source in sorted(package.rglob("*.py")):
        digest.update(source.relative_to(package).as_posix().encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()[:16]


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
        # Compact JSON: the C encoder writes it in a fraction of the time of an indented dump.
        write_text_atomically(os.path.join(directory, f"{key}.json"), json.dumps(report_to_dict(report)))
        _prune(directory)
    except (OSError, SizeToolError):
        pass


def _prune(directory: str) -> None:
    entries = [e for e in os.scandir(directory) if e.name.endswith(".json") and e.is_file()]
    if len(entries) <= MAX_ENTRIES:
        return
    entries.sort(key=lambda e: (e.stat().st_mtime, e.name))
    for entry in entries[: len(entries) - MAX_ENTRIES]:
        try:
            os.unlink(entry.path)
        except OSError:
            pass
