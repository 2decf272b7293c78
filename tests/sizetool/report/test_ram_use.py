"""Each RAM region split into static data, reserved and free bytes, from the report's entries (fresh or saved)."""

from pathlib import Path

from elftools.elf.elffile import ELFFile

from sizetool.report.ram_use import RegionUse, ram_use, use_text
from sizetool.report.report_builder import build_report
from sizetool.report.report_model import MemoryRegion, SizeEntry, SizeReport, load_report, save_report

LAYOUTS = Path(__file__).resolve().parents[3] / "fixtures" / "layouts" / "out"


def sections(elf: Path) -> dict[str, tuple[int, int]]:
    with open(elf, "rb") as stream:
        return {s.name: (s["sh_addr"], s["sh_size"]) for s in ELFFile(stream).iter_sections()}


def test_on_the_cmsis_layout_static_is_data_bss_and_noinit_reserved_the_heap_and_stack_free_the_rest():
    elf = LAYOUTS / "cmsis-armcm4" / "firmware.elf"
    report = build_report(str(elf), map_path=str(elf.with_suffix(".map")), use_cache=False)
    found = sections(elf)
    [use] = ram_use(report)
    assert use.region == "RAM" and use.length == use.used == 131072  # ld: 100% used
    assert use.reserved == found[".heap"][1] + found[".stack"][1]
    statics = sum(found[name][1] for name in (".data", ".bss", ".noinit"))
    heap_start = found[".heap"][0]
    # Static data ends where the heap starts (alignment fill between sections included).
    assert statics <= use.static == heap_start - found[".data"][0]
    assert use.free == found[".stack"][0] - (heap_start + found[".heap"][1])
    assert use.static + use.reserved + use.free == use.length
    assert use_text(use) == f"used {use.static} / reserved {use.reserved} / free {use.free} of 131072"


def test_free_counts_the_region_past_lds_use_too(tmp_path):
    elf = LAYOUTS / "zephyr-like" / "zephyr.elf"
    report = build_report(str(elf), map_path=str(elf.with_suffix(".map")), use_cache=False)
    uses = ram_use(report)
    # SRAM0 (over RAM) and IDT_LIST hold nothing: only RAM is split.
    assert [u.region for u in uses] == ["RAM"]
    assert uses[0].free == 131072 - uses[0].used and uses[0].static == uses[0].used
    # A saved report gives the same split.
    save_report(report, tmp_path / "r.json")
    assert ram_use(load_report(tmp_path / "r.json")) == uses


def test_reserved_is_the_reservations_and_whole_heap_or_stack_sections_and_free_the_free_gap():
    entries = [
        SizeEntry("ram", ("app", "main.cc"), "buffer", ".bss", 0x100, 0x40),
        SizeEntry("ram", ("(reserved)",), ".heap", ".heap", 0x140, 0x100),
        SizeEntry("ram", ("startup",), "__stack", ".stack", 0xF00, 0x100),  # a sized symbol in a stack section
        SizeEntry("ram", ("kernel", "kheap.c"), "_system_heap", "k_heap_area", 0x240, 0xC),  # not a heap: data
        SizeEntry("ram", ("(free)",), "(free) RAM", "", 0x24C, 0xCB4),
        SizeEntry("ram", ("app",), "in_tcm", ".dtcm", 0x10000, 0x10),
    ]
    report = SizeReport("a.elf", "arm", 0, 0x1000, entries,
                        regions=[MemoryRegion("RAM", 0x100, 0x1000, 0x1000, "", "ram"),
                                 MemoryRegion("DTCM", 0x10000, 0x100, 0x10, "", "ram"),
                                 MemoryRegion("EMPTY", 0x20000, 0x100, 0, "", "ram")])
    assert ram_use(report) == [RegionUse("RAM", 0x1000, 0x1000, 0x40 + 0xC, 0x200, 0x1000 - 0x4C - 0x200),
                               RegionUse("DTCM", 0x100, 0x10, 0x10, 0, 0xF0)]


def test_without_region_lengths_there_is_no_split():
    report = SizeReport("a.elf", "arm", 0, 16, [SizeEntry("ram", ("a",), "x", ".bss", 0, 16)])
    assert ram_use(report) == []


def test_without_a_map_ram_size_gives_the_region_and_the_gap_below_the_stack_is_free_too():
    elf = LAYOUTS / "flash0" / "firmware.elf"  # CMSIS-style: heap after the data, stack at the top of 256K
    with_map = ram_use(build_report(str(elf), map_path=str(elf.with_suffix(".map")), use_cache=False))
    without = ram_use(build_report(str(elf), ram_size=256 * 1024, use_cache=False))
    # The program headers do not count the gap (the total is smaller than ld's), the split is the same.
    assert [(u.static, u.reserved, u.free) for u in without] == [(u.static, u.reserved, u.free) for u in with_map]
    assert without[0].used < with_map[0].used == 256 * 1024


def test_a_stack_the_script_places_in_its_own_region_without_the_alloc_flag_is_reserved_there(tmp_path):
    # fixtures/startup_layout, laid out as pico-sdk's memmap_default.ld: crt0's flagless `.section .stack` (2 KB) in
    # `.stack_dummy (NOLOAD)` alone in SCRATCH_Y, `.heap` (1 KB) after .bss in RAM; ld counts neither in its use
    elf = Path(__file__).resolve().parents[3] / "fixtures" / "startup_layout" / "out" / "firmware.elf"
    report = build_report(str(elf), map_path=str(elf.with_suffix(".map")), use_cache=False)
    found = sections(elf)
    uses = {use.region: use for use in ram_use(report)}
    scratch_y = next(r for r in report.regions if r.name == "SCRATCH_Y")
    assert scratch_y.used == 0  # ld's Used Size, unchanged
    assert uses["SCRATCH_Y"] == RegionUse("SCRATCH_Y", 4096, 0, 0, found[".stack_dummy"][1], 4096 - 2048)
    assert found[".stack_dummy"][1] == 2048
    assert uses["RAM"].reserved == found[".heap"][1] == 1024
    assert report.ram_total == uses["RAM"].static == uses["RAM"].used  # the RAM total stays ld's
    assert "SCRATCH_X" not in uses  # core 1's stack is not linked
    saved = tmp_path / "report.json"
    save_report(report, str(saved))
    assert {use.region: use for use in ram_use(load_report(str(saved)))} == uses
