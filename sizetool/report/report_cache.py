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
import marshal
import os

from sizetool import __version__
from sizetool.report.report_model import (
    Berkeley, MapSource, MemoryRegion, SizeEntry, SizeReport, operator_table_from_dict, operator_table_to_dict,
)

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


SIZETOOL_SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # every stage shapes a report or graph
TFLM_FACTS_SOURCE = os.path.join(os.path.dirname(SIZETOOL_SOURCE), "tflm_facts")  # names shape the operator graph


@functools.lru_cache(maxsize=1)
def tool_fingerprint() -> str:
    """A digest of all of sizetool's source and the TFLM facts it uses, so a report or graph cached by other code is
    never reused."""
    return source_fingerprint(SIZETOOL_SOURCE) + source_fingerprint(TFLM_FACTS_SOURCE)


def source_fingerprint(package: str) -> str:
    """A digest of every .py file below a directory: its name, size and modification time, as Python itself decides
    whether a .pyc is stale (reading every file's contents would cost a cached run more than the rest of its work)."""
    digest = hashlib.sha256()
    pending = [package]
    while pending:
        directory = pending.pop()
        with os.scandir(directory) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.is_dir() and entry.name != "__pycache__":
                    pending.append(entry.path)
                elif entry.name.endswith(".py"):
                    status = entry.stat()
                    name = os.path.relpath(entry.path, package).replace(os.sep, "/")
                    digest.update(f"{name}\0{status.st_size}\0{status.st_mtime_ns}\0".encode())
    return digest.hexdigest()[:16]


def load_cached(key: str, source: str) -> SizeReport | None:
    path = os.path.join(cache_dir(), f"{key}{SUFFIX}")
    try:
        with open(path, "rb") as stream:
            return _from_plain(marshal.load(stream), source)
    except (OSError, ValueError, EOFError, TypeError, KeyError, IndexError):
        return None


def store(key: str, report: SizeReport) -> None:
    write_entry(f"{key}{SUFFIX}", _to_plain(report), (SUFFIX,), MAX_ENTRIES)


def write_entry(name: str, payload, kinds: tuple[str, ...], max_entries: int) -> None:
    """Write one marshal'd cache entry atomically (temp file + rename), then keep only the newest `max_entries` files
    whose names end in one of `kinds`. A cache that cannot be written is skipped: it only ever saves time."""
    directory = cache_dir()
    try:
        os.makedirs(directory, exist_ok=True)
        import tempfile

        handle, temp_path = tempfile.mkstemp(prefix=".tmp-", dir=directory)
        try:
            with os.fdopen(handle, "wb") as stream:
                marshal.dump(payload, stream)
            os.replace(temp_path, os.path.join(directory, name))
        except BaseException:
            os.unlink(temp_path)
            raise
        _prune(directory, kinds, max_entries)
    except (OSError, ValueError):
        pass


# marshal of plain tuples: it loads a 40k-symbol report several times faster than JSON, and, unlike pickle, cannot
# run code, so a cache directory someone else can write to is no worse than a corrupt file (skipped).
SUFFIX = ".report"
_FORMAT = 6  # 5: merged strings placed by references with a map, ESP-IDF names and notes; 6: entry pieces


def _to_plain(report: SizeReport) -> tuple:
    return (
        _FORMAT,
        report.arch,
        report.rom_total,
        report.ram_total,
        [(e.memory, e.path, e.symbol, e.section, e.address, e.size, e.mangled, e.aliases, e.pieces)
         for e in report.entries],
        [(r.name, r.origin, r.length, r.used, r.attributes, r.memory) for r in report.regions],
        json.dumps(operator_table_to_dict(report.operators)) if report.operators is not None else "",
        list(report.warnings),
        (report.berkeley.text, report.berkeley.data, report.berkeley.bss) if report.berkeley else None,
        report.input_format,
        _map_fields(report.linker_map) if report.linker_map is not None else None,
    )


def _from_plain(data: tuple, source: str) -> SizeReport:
    if data[0] != _FORMAT:
        raise ValueError("another cache format")
    _, arch, rom_total, ram_total, entries, regions, operators, warnings, berkeley, input_format, linker_map = data
    return SizeReport(
        source=source,
        arch=arch,
        rom_total=rom_total,
        ram_total=ram_total,
        entries=[SizeEntry(*entry) for entry in entries],
        regions=[MemoryRegion(*region) for region in regions],
        operators=operator_table_from_dict(json.loads(operators)) if operators else None,
        warnings=list(warnings),
        berkeley=Berkeley(*berkeley) if berkeley else None,
        input_format=input_format,
        linker_map=MapSource(*linker_map[:5], tuple(linker_map[5]) if linker_map[5] else None) if linker_map else None,
    )


def _prune(directory: str, kinds: tuple[str, ...], max_entries: int) -> None:
    entries = [e for e in os.scandir(directory) if e.name.endswith(kinds) and e.is_file()]
    if len(entries) <= max_entries:
        return
    entries.sort(key=lambda e: (e.stat().st_mtime, e.name))
    for entry in entries[: len(entries) - max_entries]:
        try:
            os.unlink(entry.path)
        except OSError:
            pass


def _map_fields(source: MapSource) -> tuple:
    return (source.format, source.description, source.file, source.rom_total, source.ram_total,
            source.merged_strings)
