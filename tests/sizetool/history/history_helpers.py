"""Helpers shared by the history tests: fixture paths, reports that differ by one symbol, build identities."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
FIXTURE_OUT = REPO / "fixtures" / "firmware" / "out"
CORTEX_M4 = FIXTURE_OUT / "cortex-m4" / "firmware.elf"
CORTEX_M4_MAP = FIXTURE_OUT / "cortex-m4" / "firmware.map"
VARIANTS = FIXTURE_OUT / "variants" / "cortex-m4"


def with_symbol(report, path: tuple[str, ...], symbol: str, size: int, memory: str = "rom"):
    """A copy of the report with one more symbol (or without it when size is 0), totals kept exact."""
    from dataclasses import replace

    from sizetool.report.report_model import SizeEntry

    entries = [e for e in report.entries if not (e.memory == memory and e.path == path and e.symbol == symbol)]
    removed = sum(e.size for e in report.entries) - sum(e.size for e in entries)
    if size:
        entries.append(SizeEntry(memory=memory, path=path, symbol=symbol, section=".text", address=0x1000, size=size))
    change = size - removed
    return replace(report, entries=entries,
                   rom_total=report.rom_total + (change if memory == "rom" else 0),
                   ram_total=report.ram_total + (change if memory == "ram" else 0))


def info(commit: str, branch: str = "main", day: int = 1, **labels):
    from datetime import datetime

    from sizetool.history.build_info import BuildInfo

    return BuildInfo(commit=commit, branch=branch, built_at=datetime(2024, 1, day, 12),
                     labels=dict(labels))
