"""A cache of finished reports, keyed by the content of the ELF (and map), the options and the tool's own code, so a
second run on an unchanged build skips the DWARF walk. It can never serve a stale report: any change to the inputs
(or to sizetool itself) changes the key. The newest MAX_ENTRIES reports are kept.

Location: $SIZETOOL_CACHE_DIR, else $XDG_CACHE_HOME/sizetool, else ~/.cache/sizetool (cache_files.py).
SIZETOOL_NO_CACHE=1 or --no-cache turns it off. A cache that cannot be read or written is silently skipped: it only ever saves time.
"""

from __future__ import annotations

import json
import marshal
import os

from sizetool import __version__
from sizetool.report.cache_files import blake2b, cache_dir, cache_enabled, file_digest, tool_fingerprint, write_entry
from sizetool.report.report_model import Berkeley, EmbeddedModelRecord, MapSource, MemoryRegion, SizeEntry, SizeReport

MAX_ENTRIES = 64


def cache_key(paths: list[str | None], options: dict) -> str:
    digest = blake2b(f"size-report {__version__} {tool_fingerprint()} {json.dumps(options, sort_keys=True)}".encode(),
                     digest_size=32)
    for path in paths:
        if path is None:
            digest.update(b"\0none")
            continue
        digest.update(file_digest(path))
        digest.update(b"\0end")
    return digest.hexdigest()


def load_cached(key: str, source: str) -> SizeReport | None:
    path = os.path.join(cache_dir(), f"{key}{SUFFIX}")
    try:
        with open(path, "rb") as stream:
            return _from_plain(marshal.load(stream), source)
    except (OSError, ValueError, EOFError, TypeError, KeyError, IndexError):
        return None


def store(key: str, report: SizeReport) -> None:
    write_entry(f"{key}{SUFFIX}", _to_plain(report), (SUFFIX,), MAX_ENTRIES)


# marshal of plain tuples: it loads a 40k-symbol report several times faster than JSON, and, unlike pickle, cannot
# run code, so a cache directory someone else can write to is no worse than a corrupt file (skipped).
SUFFIX = ".report"
_FORMAT = 8  # 5: merged strings placed by references with a map, ESP-IDF names and notes; 6: entry pieces;
# 7: embedded models; 8: a model's in_ram


def _to_plain(report: SizeReport) -> tuple:
    return (
        _FORMAT,
        report.arch,
        report.rom_total,
        report.ram_total,
        [(e.memory, e.path, e.symbol, e.section, e.address, e.size, e.mangled, e.aliases, e.pieces)
         for e in report.entries],
        [(r.name, r.origin, r.length, r.used, r.attributes, r.memory, r.reserved) for r in report.regions],
        _operators_json(report),
        list(report.warnings),
        (report.berkeley.text, report.berkeley.data, report.berkeley.bss) if report.berkeley else None,
        report.input_format,
        _map_fields(report.linker_map) if report.linker_map is not None else None,
        [(m.symbol, m.section, m.address, m.size, m.sha256, m.operators, m.sized_by, m.rewritten, m.stripped,
          m.in_ram) for m in report.models],
    )


def _operators_json(report: SizeReport) -> str:
    """The operator table as JSON, "" without one (its records load only for a report that has a table)."""
    if report.operators is None:
        return ""
    from sizetool.report.operator_records import operator_table_to_dict

    return json.dumps(operator_table_to_dict(report.operators))


def _operators_from_json(text: str):
    if not text:
        return None
    from sizetool.report.operator_records import operator_table_from_dict

    return operator_table_from_dict(json.loads(text))


def _from_plain(data: tuple, source: str) -> SizeReport:
    if data[0] != _FORMAT:
        raise ValueError("another cache format")
    _, arch, rom_total, ram_total, entries, regions, operators, warnings, berkeley, input_format, linker_map, models = data
    return SizeReport(
        source=source,
        arch=arch,
        rom_total=rom_total,
        ram_total=ram_total,
        entries=[SizeEntry(*entry) for entry in entries],
        regions=[MemoryRegion(*region) for region in regions],
        operators=_operators_from_json(operators),
        warnings=list(warnings),
        berkeley=Berkeley(*berkeley) if berkeley else None,
        input_format=input_format,
        linker_map=MapSource(*linker_map[:5], tuple(linker_map[5]) if linker_map[5] else None) if linker_map else None,
        models=[EmbeddedModelRecord(*model) for model in models],
    )


def _map_fields(source: MapSource) -> tuple:
    return (source.format, source.description, source.file, source.rom_total, source.ram_total,
            source.merged_strings)
