"""An image loaded whole into RAM (fixtures/real_builds/out/ram-image: RV32, one RAM region, as LiteX/VexRiscv Zephyr
builds run from main_ram): the default command shows the tree of what it stores, and `ops` names files as that tree
does, with one total and no ROM figure."""

import json
import re

from sizetool import cli
from sizetool.inputs.elf_reader import read_elf
from tests.conftest import FIXTURES

ELF = FIXTURES / "real_builds" / "out" / "ram-image" / "firmware.elf"


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    return status, capsys.readouterr().out


def test_the_default_command_shows_the_ram_tree(capsys):
    status, out = run(capsys, ELF)
    _, ram = run(capsys, ELF, "--ram")
    assert status == 0
    assert out.startswith("ROM firmware.elf: 0 bytes (no ROM: the whole image is placed in RAM; what it stores is in the "
                          "RAM tree below)\n")
    assert ram.splitlines()[0] in out.splitlines() and "kernels" in out and "add.cc" in out


def test_ops_names_files_as_the_tree_does_and_gives_one_total(capsys):
    status, out = run(capsys, "ops", ELF)
    assert status == 0
    stored = sum(s.size for s in read_elf(str(ELF)).sections if s.in_rom)
    assert f"1 registration, loaded image {stored} bytes" in out
    assert not re.search(r"\bROM \d+ bytes", out) and f"loaded image {stored} bytes = runtime" in out
    _, tree = run(capsys, ELF, "--ram", "--format", "json")
    paths = {"/".join(e["path"]) for e in json.loads(tree)["entries"]} if "entries" in json.loads(tree) else set()
    status, ops_json = run(capsys, "ops", ELF, "--format", "json")
    operator = json.loads(ops_json)["operators"][0]
    files = [f["path"] for f in operator["files"]]
    assert operator["op"] == "ADD" and files and "(no symbol)" not in files[0]
    assert any(path.endswith("kernels/add.cc") for path in files)
    if paths:
        assert set(files) - {"(no symbol)"} <= paths


def test_library_code_without_dwarf_stays_under_no_debug_info():
    # The fixture's memcpy and memset are built without -g (as newlib ships them) and called from files with DWARF.
    from sizetool.report.report_builder import build_report

    report = build_report(str(ELF), use_cache=False)
    paths = {e.symbol: e.path for e in report.entries_for("ram") if e.symbol in ("memcpy", "memset")}
    assert set(paths) == {"memcpy", "memset"} and set(paths.values()) == {("(no debug info)",)}


def test_without_a_map_the_ram_headline_separates_reservations(capsys):
    # CMSIS's ARMCM4_gcc.ld layout: .heap and .stack sections in RAM. With the map, ram_use splits them out; without
    # it the headline does the same from the sections, and both give the same static and reserved figures.
    layout = FIXTURES / "layouts" / "out" / "cmsis-armcm4"
    status, out = run(capsys, layout / "firmware.elf", "--ram")
    from sizetool.report.report_builder import build_report
    from sizetool.report.ram_use import ram_use

    (use,) = ram_use(build_report(str(layout / "firmware.elf"), map_path=str(layout / "firmware.map"), use_cache=False))
    sizes = {s.name: s.size for s in read_elf(str(layout / "firmware.elf")).sections}
    headline = out.splitlines()[0]
    assert status == 0 and headline.endswith(f" = static data {use.static} + reserved {use.reserved} "
                                             f"(.heap {sizes['.heap']}, .stack {sizes['.stack']})")


def test_fit_names_its_figure_the_image_not_flash(capsys):
    # The tree says the image has no ROM; fit's line of the same bytes says what they are instead of "flash".
    status, out = run(capsys, "fit", ELF)
    stored = sum(s.size for s in read_elf(str(ELF)).sections if s.in_rom)
    second = out.splitlines()[1]
    assert status == 0
    assert second.startswith("image (loads whole into RAM, no ROM): ") and f"{stored:,} B now" in second
    assert not any(line.startswith("flash:") for line in out.splitlines())


def test_without_a_map_alignment_gaps_in_bss_are_static_data_not_reservations(capsys):
    # The RAM-only RV32 layout: two 4-byte gaps in .bss before 8-aligned objects, and the linker script's ALIGN(16)
    # before .noinit (cortex_m4.ld) in a firmware whose .noinit holds nothing. Without the map they are alignment fill
    # (static data), so the headline equals the map's split; they were "reserved (.bss 8)" and "(.noinit 12)".
    from sizetool.report.ram_use import ram_use
    from sizetool.report.report_builder import build_report

    layout = FIXTURES / "layouts" / "out" / "ram-only"
    (use,) = ram_use(build_report(str(layout / "firmware.elf"), map_path=str(layout / "firmware.map"), use_cache=False))
    stack = {s.name: s.size for s in read_elf(str(layout / "firmware.elf")).sections}[".stack"]
    status, out = run(capsys, layout / "firmware.elf", "--ram")
    assert status == 0 and out.splitlines()[0].endswith(
        f" = static data {use.static} + reserved {use.reserved} (.stack {stack})")
    assert use.reserved == stack

    two_models = FIXTURES / "embedded_models" / "out" / "two-models" / "firmware.elf"
    noinit = next(s for s in read_elf(str(two_models)).sections if s.name == ".noinit")
    assert noinit.size and (noinit.address + noinit.size) % 16 == 0  # only the script's ALIGN(16)
    status, out = run(capsys, two_models, "--ram")
    assert status == 0 and "reserved" not in out.splitlines()[0] and "(fill) .noinit" in out
