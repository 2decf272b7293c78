"""Benchmark: the share of ROM (and RAM) that size-report files under a source file, not under an object, a
catch-all or fill, with and without the map.

    python benchmarks/source_share.py FIRMWARE.elf [FIRMWARE.map] [FIRMWARE2.elf [FIRMWARE2.map] ...]

Prints, per ELF and memory, the bytes under source files, under objects ((archives)/lib.a/x.o, (objects)/...,
(toolchain)/libc.a/x.o), in catch-alls ((no symbol), (no debug info)), and alignment fill between input sections
((fill) ...). The issue's figure is the first column's share. With a map, it also prints the bytes whose file
differs between the map and the references (the ELF alone): half the sum over files of |with map - without map|, a
lower bound (moves within one file cancel), and the file that differs most; a share under source files cannot hide
bytes filed under the wrong source file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sizetool.report.report_builder import build_report  # noqa: E402

OBJECT_SUFFIXES = (".o", ".obj", ".O", ".OBJ")
CATCH_ALLS = ("(no symbol)", "(no debug info)", "(reserved)", "(sections)", "(linker stubs)")


def kind_of(path: tuple[str, ...], symbol: str) -> str:
    """"source", "object", "fill" or "catch-all" for one entry of a report."""
    if symbol.startswith("(fill)"):
        return "fill"
    if not path or path[0] in CATCH_ALLS:
        return "catch-all"
    if path[0] in ("(objects)", "(archives)") or path[-1].endswith(OBJECT_SUFFIXES):
        return "object"
    return "source"


def shares(report, memory: str = "rom") -> dict[str, int]:
    out = {"source": 0, "object": 0, "catch-all": 0, "fill": 0}
    for entry in report.entries_for(memory):
        out[kind_of(entry.path, entry.symbol)] += entry.size
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="ELFs, each optionally followed by its .map")
    args = parser.parse_args()
    pairs: list[tuple[str, str | None]] = []
    for name in args.files:
        if name.endswith(".map") and pairs and pairs[-1][1] is None:
            pairs[-1] = (pairs[-1][0], name)
        else:
            pairs.append((name, None))
    for elf, map_path in pairs:
        reports = []
        for with_map in ([False, True] if map_path else [False]):
            report = build_report(elf, map_path=map_path if with_map else None, use_cache=False)
            reports.append(report)
            for memory in ("rom", "ram"):
                figures = shares(report, memory)
                total = report.total(memory) or 1
                print(f"{elf} {'--map' if with_map else 'no map'} {memory.upper()} {report.total(memory)} B: "
                      + ", ".join(f"{kind} {size} B ({100.0 * size / total:.2f}%)" for kind, size in figures.items()))
        if len(reports) == 2:
            moved, (name, without, with_map) = files_that_differ(*reports)
            print(f"{elf} ROM bytes whose file differs between the map and the references: {moved} B; most: {name} "
                  f"({without} B without the map, {with_map} B with it)")
    return 0


def source_files(report, memory: str = "rom") -> dict[tuple[str, ...], int]:
    sizes: dict[tuple[str, ...], int] = {}
    for entry in report.entries_for(memory):
        if kind_of(entry.path, entry.symbol) == "source":
            sizes[entry.path] = sizes.get(entry.path, 0) + entry.size
    return sizes


def files_that_differ(without_map, with_map) -> tuple[int, tuple[str, int, int]]:
    """(bytes whose source file differs, (the file differing most, its bytes without and with the map))."""
    a, b = source_files(without_map), source_files(with_map)
    paths = sorted(set(a) | set(b))
    if not paths:
        return 0, ("-", 0, 0)
    most = max(paths, key=lambda p: (abs(a.get(p, 0) - b.get(p, 0)), p))
    moved = sum(abs(a.get(p, 0) - b.get(p, 0)) for p in paths) // 2
    return moved, ("/".join(most), a.get(most, 0), b.get(most, 0))


if __name__ == "__main__":
    sys.exit(main())
