"""Every byte of a report is in one entry: the runs of the entries of one memory never overlap, so the file of an
address is the file of the entry holding it (operators/operator_cost.node_paths reads it so).

Without a map, the bytes no symbol covers are placed per source file and summed into one entry per file; a file's
runs often lie apart with other files' bytes between them (an Ambiq Apollo4 Edge Impulse build: ns_tempco.o's
constants, then conv.o's and pooling.o's registration structs, then more of ns_tempco.o's). Such an entry keeps its
runs in `pieces`; summed into one span from its first address, it covered conv.o's and pooling.o's bytes, and `ops`
filed MAX_POOL_2D's registration struct under ns_tempco.c."""

import pytest

from sizetool.report.report_builder import build_report
from tests.conftest import FIXTURES

# No-map reports of fixtures whose symbol-less bytes of one file lie apart (string tables and constants placed by
# the code that refers to them), on RV32 and Arm.
ELFS = [
    FIXTURES / "firmware" / "out" / "riscv32" / "firmware.elf",
    FIXTURES / "firmware" / "out" / "riscv32-rodata-in-text" / "firmware.elf",
    FIXTURES / "firmware" / "out" / "cortex-m4-tflm-os" / "firmware.elf",
    FIXTURES / "real_builds" / "out" / "heap-arena" / "firmware.elf",
]


def overlapping_runs(report, memory):
    spans = sorted(
        (address, address + size, "/".join(entry.path), entry.symbol)
        for entry in report.entries
        if entry.memory == memory and entry.size
        for address, size in (entry.pieces or ((entry.address, entry.size),))
    )
    return [(first, second) for first, second in zip(spans, spans[1:]) if second[0] < first[1]]


@pytest.mark.parametrize("elf", ELFS, ids=lambda p: p.parent.name)
def test_the_entries_of_a_memory_never_overlap(elf):
    report = build_report(str(elf), use_cache=False)
    for memory in ("rom", "ram"):
        assert overlapping_runs(report, memory) == []


def test_a_files_symbol_less_runs_that_lie_apart_are_kept_apart():
    report = build_report(str(ELFS[0]), use_cache=False)
    apart = [e for e in report.entries if e.symbol.startswith("(no symbol)") and e.pieces]
    assert apart, "the RV32 fixture has a file whose symbol-less bytes lie apart"
    for entry in apart:
        assert sum(size for _, size in entry.pieces) == entry.size
        assert entry.address == entry.pieces[0][0]
