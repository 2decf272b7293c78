"""esp_idf_layout.py: ESP-IDF's ROM and RAM by memory type, against esp-idf-size and against the section headers.

The fixtures are fixtures/layouts/out/esp32-like (ESP32 regions and output sections, Xtensa code, sources recorded
with Windows paths) and esp32c3-like (ESP32-C3: one SRAM on the instruction and the data bus, RV32). Their
esp-idf-size.json is esp-idf-size 2.3.2's `--format json2` output on the same ELF and map (fixtures/layouts/build.sh).
"""

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from elftools.elf.elffile import ELFFile

from sizetool.errors import SizeToolError
from sizetool.inputs.elf_reader import read_elf
from sizetool.inputs.map_file import MapRegion, read_map
from sizetool.report.esp_idf_chips import layout_chip, ram_type_spans
from sizetool.report.esp_idf_layout import (
    CHIPS, IMAGE_SUFFIX, chip_of_sections, esp_idf_placement, esp_idf_target, esp_idf_version, image_note,
    is_esp_idf_map,
)
from sizetool.report.ram_use import ram_use
from sizetool.report.placement import RAM, ROM, region_memory
from sizetool.report.report_builder import build_report
from sizetool.report.report_model import SizeReport, build_tree
from tests.conftest import FIXTURES, REPO_ROOT

LAYOUTS = FIXTURES / "layouts" / "out"
BUILDS = {"esp32-like": "esp32", "esp32c3-like": "esp32c3"}

# The address windows of each memory type, from the chips' technical reference manuals (written out here, apart from
# the module's table), and the sections the test leaves out as esp-idf-size does: NOLOAD placeholders and the
# padding-only prefetch pad.
WINDOWS = {
    "esp32": {"Flash Code": [(0x400C2000, 0x40C00000)], "Flash Data": [(0x3F400000, 0x3F800000)],
              "IRAM": [(0x40070000, 0x400C0000)], "DRAM": [(0x3FFAE000, 0x40000000)],
              "RTC SLOW": [(0x50000000, 0x50002000)]},
    "esp32c3": {"Flash Code": [(0x42000000, 0x42800000)], "Flash Data": [(0x3C000000, 0x3C800000)],
                "DRAM": [(0x3FC80000, 0x3FCE0000), (0x40380000, 0x403E0000)],  # one SRAM; esp-idf-size's name
                "RTC SLOW": [(0x50000000, 0x50002000)]},
}
LEFT_OUT = (".dram0.dummy", ".flash_rodata_dummy", ".iram0.text_end")


def paths(name):
    return str(LAYOUTS / name / f"{name}.elf"), str(LAYOUTS / name / f"{name}.map")


def from_section_headers(name):
    """(image size, {memory type: used}) computed from the ELF's section headers alone."""
    chip = BUILDS[name]
    used: dict[str, int] = {}
    image = 0
    with open(paths(name)[0], "rb") as stream:
        for section in ELFFile(stream).iter_sections():
            if not section["sh_flags"] & 2 or not section["sh_size"] or section.name in LEFT_OUT:
                continue
            if section["sh_type"] == "SHT_PROGBITS":
                image += section["sh_size"]
            kind = next(k for k, spans in WINDOWS[chip].items()
                        if any(low <= section["sh_addr"] < high for low, high in spans))
            used[kind] = used.get(kind, 0) + section["sh_size"]
    return image, used


def esp_idf_size(name):
    recorded = LAYOUTS / name / "esp-idf-size.json"
    if not recorded.exists():
        pytest.skip(f"{recorded} was not recorded (fixtures/layouts/build.sh needs ESP_IDF_SIZE_PYTHON)")
    data = json.loads(recorded.read_text())
    return data["total_size"], {part["name"]: part for part in data["layout"]}


def region_use(report):
    return {region.name: region.used for region in report.regions if not region.name.endswith(IMAGE_SUFFIX)}


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_rom_is_the_image_and_each_memory_type_is_what_the_section_headers_give(name):
    report = build_report(*paths(name)[:1], map_path=paths(name)[1], use_cache=False)
    image, used = from_section_headers(name)
    assert report.rom_total == image
    assert region_use(report) == used
    assert report.ram_total == sum(size for kind, size in used.items() if not kind.startswith("Flash"))


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_totals_per_memory_type_equal_esp_idf_size(name):
    image, theirs = esp_idf_size(name)
    report = build_report(paths(name)[0], map_path=paths(name)[1], use_cache=False)
    assert report.rom_total == image
    assert region_use(report) == {kind: part["used"] for kind, part in theirs.items()}  # names included
    # The RAM types' sizes are the memory the map's regions give them, as esp-idf-size counts it (the C3's one SRAM
    # seen through both buses counted once).
    sizes = {r.name: r.length for r in report.regions if r.memory == RAM}
    assert sizes == {kind: part["total"] for kind, part in theirs.items() if part["total"]}


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_used_reserved_free_of_each_ram_type_is_esp_idf_size_used_and_remain(name):
    _, theirs = esp_idf_size(name)
    report = build_report(paths(name)[0], map_path=paths(name)[1], use_cache=False)
    uses = {use.region: use for use in ram_use(report)}
    assert {kind: (use.static + use.reserved, use.free, use.length) for kind, use in uses.items()} == {
        kind: (part["used"], part["free"], part["total"]) for kind, part in theirs.items() if part["total"]}


def test_code_run_from_diram_through_the_instruction_bus_counts_in_its_free_ram():
    # The C3 fixture's .iram0.text runs from the one SRAM through the instruction bus (0x4038...), above the data
    # bus origin of the type: it is used RAM all the same.
    report = build_report(paths("esp32c3-like")[0], map_path=paths("esp32c3-like")[1], use_cache=False)
    code = sum(e.size for e in report.entries_for("ram") if e.section == ".iram0.text")
    assert code > 4000
    assert all(e.address >= 0x40380000 for e in report.entries_for("ram") if e.section == ".iram0.text")
    dram = next(use for use in ram_use(report) if use.region == "DRAM")
    data = sum(e.size for e in report.entries_for("ram") if e.address < 0x3FCE0000)
    assert dram.static == data + code and dram.static + dram.reserved + dram.free == dram.length
    # A saved report gives the same split (the chip is read back from its input format).
    saved = SizeReport(report.source, report.arch, report.rom_total, report.ram_total, list(report.entries),
                       list(report.regions), input_format=report.input_format)
    assert ram_use(saved) == ram_use(report)


def test_memory_types_carry_esp_idf_size_names_for_the_chip():
    assert [t for t, _ in ram_type_spans("esp32c3", ".dram0.bss", 0x3FC80000, 4)] == ["DRAM"]
    assert [t for t, _ in ram_type_spans("esp32c2", ".dram0.bss", 0x3FCA0000, 4)] == ["DIRAM"]
    assert [t for t, _ in ram_type_spans("esp32c6", ".rtc.data", 0x50000000, 4)] == ["LP SRAM"]
    assert [t for t, _ in ram_type_spans("esp32s3", ".ext_ram.bss", 0x3C030000, 4)] == ["External RAM"]
    assert ram_type_spans("esp32s3", ".iram0.text", 0x40377FF0, 0x20) == [("IRAM", 0x10), ("DIRAM", 0x10)]
    assert layout_chip("ELF + GNU ld map (ESP-IDF layout, esp32c3, ESP-IDF v4.4.2)") == "esp32c3"
    assert layout_chip("ELF + GNU ld map") is None


def test_the_esp_idf_version_is_read_from_the_app_description(tmp_path):
    # esp_app_desc_t: magic, secure_version, reserv1[2], version[32], project_name[32], time[16], date[16],
    # idf_ver[32], ...; the fixtures name theirs esp_app_desc_like, so a copy renames it.
    elf = read_elf(paths("esp32-like")[0])
    assert esp_idf_version(elf) is None
    symbol = next(s for s in elf.symbols if s.name == "esp_app_desc_like")
    old = next(s for s in elf.sections if s.contains(symbol.address) and not s.is_nobits)
    section = dataclasses.replace(old, size=symbol.address - old.address + 256)  # the real struct's 256 bytes
    data = bytearray(elf.section_data(old).ljust(section.size, b"\0"))
    start = symbol.address - section.address
    data[start:start + 4] = (0xABCD5432).to_bytes(4, "little")
    data[start + 112:start + 144] = b"v4.4.2-dirty".ljust(32, b"\0")
    desc = dataclasses.replace(symbol, mangled="esp_app_desc", size=256)
    renamed = dataclasses.replace(elf, symbols=[desc if s is symbol else s for s in elf.symbols],
                                  sections=[section if s is old else s for s in elf.sections])
    renamed.section_data = lambda s: bytes(data) if s is section else elf.section_data(s)
    assert esp_idf_version(renamed) == "v4.4.2-dirty"
    data[start] ^= 1  # no magic word: no version
    assert esp_idf_version(renamed) is None


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_the_image_note_states_what_esptool_elf2image_stores_beside_the_rom(name, tmp_path):
    elf = paths(name)[0]
    report = build_report(elf, map_path=paths(name)[1], use_cache=False)
    note = image_note(read_elf(elf), report.rom_total)
    padded = re.search(r"would store (\d+) bytes of segment data, ([+-]\d+) against ROM (\d+)\D*?(\d+) of zero pad",
                       note)
    assert padded and int(padded[1]) - int(padded[3]) == int(padded[2]) == int(padded[4]) and int(padded[3]) == \
        report.rom_total
    assert any(note in w for w in report.warnings)
    search = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])  # the venv's scripts too
    esptool = shutil.which("esptool.py", path=search) or shutil.which("esptool", path=search)
    if esptool is None:
        pytest.skip("esptool is not installed (pip install esptool): the segments it writes are not checked")
    # elf2image writes the ELF's SHA-256 into a real esp_app_desc at 0xB0, past the fixtures' shorter one: a copy
    # whose .flash.appdesc goes by another name (same length) is left as it is.
    copy, image = tmp_path / "app.elf", tmp_path / "app.bin"
    copy.write_bytes(open(elf, "rb").read().replace(b".flash.appdesc\0", b".flash.appdesk\0"))
    subprocess.run([esptool, "--chip", BUILDS[name], "elf2image", "-o", str(image), str(copy)], check=True,
                   capture_output=True)
    info = subprocess.run([esptool, "--chip", BUILDS[name], "image_info", str(image)], check=True,
                          capture_output=True, text=True).stdout
    lengths = [int(length, 16) for length, address in  # not the padding segments (load address 0) before IROM
               re.findall(r"^\s*\d+\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+0x", info, re.M) if int(address, 16)]
    assert lengths and sum(lengths) == int(padded[1])


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_flash_code_and_rodata_are_rom_and_ram_code_is_stored_in_the_image(name):
    report = build_report(paths(name)[0], map_path=paths(name)[1], use_cache=False)
    memory = {region.name: region.memory for region in report.regions}
    assert memory["Flash Code"] == memory["Flash Data"] == ROM
    ram_code = "IRAM" if name == "esp32-like" else "DRAM"
    assert memory[ram_code] == RAM and memory[ram_code + IMAGE_SUFFIX] == ROM
    sections = {e.section for e in report.entries_for("rom")}
    assert {".flash.text", ".flash.rodata", ".flash.appdesc", ".iram0.text", ".dram0.data"} <= sections
    assert ".dram0.bss" not in sections and ".dram0.bss" in {e.section for e in report.entries_for("ram")}
    for kind in ("rom", "ram"):  # every byte once, under a named node
        assert sum(e.size for e in report.entries_for(kind)) == report.total(kind) == build_tree(report.entries,
                                                                                               kind).size


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_the_report_says_which_map_format_and_chip_it_read(name):
    report = build_report(paths(name)[0], map_path=paths(name)[1], use_cache=False)
    assert report.input_format == f"ELF + GNU ld map (ESP-IDF layout, {BUILDS[name]})"
    assert esp_idf_target(read_map(paths(name)[1])) == BUILDS[name]


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_without_the_map_the_chip_comes_from_the_section_addresses(name):
    elf = paths(name)[0]
    assert chip_of_sections(read_elf(elf)) == BUILDS[name]
    report = build_report(elf, use_cache=False)
    with_map = build_report(elf, map_path=paths(name)[1], use_cache=False)
    assert report.rom_total == with_map.rom_total
    # Without the map the padding-only prefetch pad cannot be told from real sections: it counts in RAM.
    with open(elf, "rb") as stream:
        pad = ELFFile(stream).get_section_by_name(".iram0.text_end")["sh_size"]
    assert report.ram_total == with_map.ram_total + pad
    assert "from the section addresses" in report.input_format


def test_generic_firmware_is_not_taken_for_an_esp_image():
    for elf in ("firmware/out/riscv32/firmware.elf", "firmware/out/cortex-m4/firmware.elf",
                "layouts/out/ram-only/firmware.elf"):
        assert chip_of_sections(read_elf(str(FIXTURES / elf))) is None
    assert not is_esp_idf_map(read_map(str(FIXTURES / "firmware" / "out" / "riscv32" / "firmware.map")))


def test_an_esp8266_style_map_is_read_by_region_names_and_addresses():
    firmware = FIXTURES / "firmware" / "out" / "lx106"
    report = build_report(str(firmware / "firmware.elf"), map_path=str(firmware / "firmware.map"), use_cache=False)
    assert report.input_format == "ELF + GNU ld map (ESP-IDF layout, esp8266)"
    assert {r.name: r.memory for r in report.regions if r.used} == {
        "Flash Code": ROM, "DRAM": RAM, "IRAM": RAM, "IRAM" + IMAGE_SUFFIX: ROM, "DRAM" + IMAGE_SUFFIX: ROM}


def test_windows_source_paths_get_named_roots_not_a_drive():
    report = build_report(paths("esp32-like")[0], map_path=paths("esp32-like")[1], use_cache=False)
    tops = {e.path[0] for e in report.entries_for("rom")}
    assert {"tflite-micro", "keyword-app/main"} <= tops
    assert not any(top.rstrip("/").lower() in ("c:", "c") for top in tops)
    entries = {e.path for e in report.entries_for("rom")}
    assert ("tflite-micro", "kernels", "add.cc") in entries and ("keyword-app/main", "main.cc") in entries


def test_a_section_crossing_two_memory_types_counts_in_each():
    # ESP32-S3: IRAM is the 32 KB below the D/IRAM; code from 0x40374000 runs on into the D/IRAM's instruction view.
    from types import SimpleNamespace

    from sizetool.report.esp_idf_layout import _split

    s3 = {t.name: t for t in CHIPS["esp32s3"]}
    assert s3["IRAM"].offset_of(0x40377FFF) == 0x7FFF and s3["DIRAM"].offset_of(0x40378000) == 0
    assert s3["DIRAM"].offset_of(0x3FC88000) == 0
    code = SimpleNamespace(name=".iram0.text", address=0x40374404, size=0x5000)
    assert _split(code, CHIPS["esp32s3"], [], {}) == [("IRAM", 0x3BFC), ("DIRAM", 0x5000 - 0x3BFC)]
    # PSRAM and flash data share the 0x3C000000 window on the S3: ESP-IDF's PSRAM sections are told by name.
    psram = SimpleNamespace(name=".ext_ram.bss", address=0x3C030000, size=0x100)
    rodata = SimpleNamespace(name=".flash.rodata", address=0x3C030000, size=0x100)
    assert _split(psram, CHIPS["esp32s3"], [], {}) == [("SPI RAM", 0x100)]
    assert _split(rodata, CHIPS["esp32s3"], [], {}) == [("Flash Data", 0x100)]


def test_a_map_from_another_build_is_refused():
    elf, _ = paths("esp32-like")
    with pytest.raises(SizeToolError, match="does not belong to"):
        esp_idf_placement(read_elf(elf), read_map(paths("esp32c3-like")[1]))


@pytest.mark.parametrize("problem", ["mismatched", "truncated"])
def test_bad_esp_idf_maps_exit_2_with_one_line(tmp_path, problem):
    elf, linker_map = paths("esp32-like")
    if problem == "mismatched":
        given = paths("esp32c3-like")[1]
    else:
        text = open(linker_map).read()
        given = str(tmp_path / "cut.map")
        open(given, "w").write(text[: text.index(".flash.rodata")])
    result = subprocess.run([sys.executable, "-m", "sizetool.cli", elf, "--map", given], cwd=REPO_ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1 and given in result.stderr


def test_a_memory_mapped_qspi_flash_region_is_rom():
    # Zephyr's nRF5340 and nRF52840 boards map external QSPI flash at 0x10000000 / 0x12000000 (writable attributes).
    assert region_memory(MapRegion("QSPI", 0x10000000, 0x800000, "xrw")) == ROM
    assert region_memory(MapRegion("EXTFLASH", 0x12000000, 0x800000, "rw")) == ROM
    assert region_memory(MapRegion("SRAM", 0x20000000, 0x40000, "xrw")) == RAM


@pytest.mark.skipif(shutil.which("xtensa-lx106-elf-size") is None, reason="needs xtensa-lx106-elf-size")
def test_berkeley_figures_still_ride_along():
    elf, linker_map = paths("esp32-like")
    report = build_report(elf, map_path=linker_map, use_cache=False)
    line = subprocess.run(["xtensa-lx106-elf-size", "-B", elf], capture_output=True, text=True).stdout.splitlines()[-1]
    text, data, bss = (int(v) for v in line.split()[:3])
    assert (report.berkeley.text, report.berkeley.data, report.berkeley.bss) == (text, data, bss)


def test_what_was_read_survives_the_cache_and_a_saved_report(tmp_path):
    from sizetool.report.report_model import load_report, report_to_dict

    elf, linker_map = paths("esp32c3-like")
    fresh = build_report(elf, map_path=linker_map)
    cached = build_report(elf, map_path=linker_map)  # the second run is read back from the cache
    assert cached.input_format == fresh.input_format == "ELF + GNU ld map (ESP-IDF layout, esp32c3)"
    saved = tmp_path / "report.json"
    saved.write_text(json.dumps(report_to_dict(fresh)))
    assert load_report(saved).input_format == fresh.input_format


def test_json_and_markdown_say_what_was_read():
    from sizetool.render.json_output import render_json
    from sizetool.render.markdown import render_markdown

    report = build_report(paths("esp32-like")[0], map_path=paths("esp32-like")[1], use_cache=False)
    assert json.loads(render_json(report, ["rom"]))["input_format"] == "ELF + GNU ld map (ESP-IDF layout, esp32)"
    assert "read: ELF + GNU ld map (ESP-IDF layout, esp32)" in render_markdown(report, ["rom"], 1)
