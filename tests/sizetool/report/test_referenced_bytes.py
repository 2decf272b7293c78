"""Without a map, bytes no symbol covers (string literals, a names table DWARF places only inside an inline
function, constant data) go to the source file of the code or data that refers to them; what nothing refers to,
and a routine that is only called, keep their catch-all. The map of the same link is the ground truth."""

import re
from collections import Counter
from pathlib import Path

import pytest

from sizetool.inputs.elf_reader import read_elf
from sizetool.report.referenced_bytes import OwnedRange, looks_like_pointer_table, split_by_references, string_end
from sizetool.report.report_builder import build_report
from sizetool.render.regions import notes

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
STRINGS = FIXTURES / "strings" / "out"
CATCH_ALLS = ("(no symbol)", "(no debug info)")


def files(report) -> dict[str, int]:
    """ROM bytes per source file (by file name), catch-alls left out."""
    sizes: Counter = Counter()
    for entry in report.entries_for("rom"):
        if entry.path and entry.path[0] not in CATCH_ALLS and entry.path[0] != "(objects)":
            sizes[entry.path[-1]] += entry.size
    return dict(sizes)


def string_address(elf: Path, text: bytes) -> int:
    image = read_elf(str(elf))
    for section in image.sections:
        if section.is_alloc and not section.is_nobits and section.size:
            offset = image.section_data(section).find(text + b"\0")
            if offset >= 0:
                return section.address + offset
    raise AssertionError(f"{text!r} is not in {elf}")


def no_symbol_ranges(report, file_name: str) -> list[tuple[int, int]]:
    return [(e.address, e.address + e.size) for e in report.entries_for("rom")
            if e.path[-1:] == (file_name,) and e.symbol.startswith("(no symbol)")]


@pytest.mark.parametrize("build", ["armcm4", "rv32"])
def test_without_a_map_each_file_gets_the_bytes_the_map_gives_it(build):
    """armcm4 merges .rodata into .text as CMSIS's ARMCM4_gcc.ld does; rv32 keeps a .rodata of its own. Each file's
    bytes without the map equal the map's, but for the alignment padding the map calls fill."""
    elf, map_path = STRINGS / build / "firmware.elf", STRINGS / build / "firmware.map"
    without = build_report(str(elf), use_cache=False)
    with_map = build_report(str(elf), map_path=str(map_path), use_cache=False)
    assert without.rom_total == with_map.rom_total == sum(e.size for e in without.entries_for("rom"))
    a, b = files(without), files(with_map)
    assert set(a) >= {"alpha.cc", "beta.cc", "numbers.cc", "main.cc"}
    for name in set(a) | set(b):
        assert 0 <= a.get(name, 0) - b.get(name, 0) <= 2, (name, a.get(name), b.get(name))
    unplaced = sum(e.size for e in without.entries_for("rom") if e.path[0] in CATCH_ALLS)
    assert unplaced <= 40  # the uncalled-for routine (no DWARF) and a few bytes of alignment between seven files


@pytest.mark.parametrize("build", ["armcm4", "rv32"])
def test_with_a_map_merged_strings_go_to_the_files_whose_code_refers_to_them(build):
    """ld keeps a string several objects have once, in the first object's section, and tail-merges a string that
    ends another one (gamma.cc prints the end of a beta.cc string): the map lists those bytes under the first object.
    With the map they go to the file whose code refers to them, as without it, and the map's field says how many."""
    elf, map_path = STRINGS / build / "firmware.elf", STRINGS / build / "firmware.map"
    with_map = build_report(str(elf), map_path=str(map_path), use_cache=False)
    text = map_path.read_text()
    listed: Counter = Counter()  # each object's string bytes as the map lists them
    for size, name in re.findall(r"\.str1\.\d\n\s+0x[0-9a-f]+\s+0x([0-9a-f]+) (\w+)\.o", text):
        listed[name] += int(size, 16)
    strings = Counter(e.path[-1] for e in with_map.entries_for("rom") for _ in range(e.size)
                      if e.symbol.startswith("(no symbol)") and e.path[-1] in ("beta.cc", "gamma.cc"))
    tail = len(b"only beta.cc prints\0")  # gamma.cc's string, kept inside beta.o's "...a message only beta.cc prints"
    assert strings["beta.cc"] == listed["beta"] - tail and strings["gamma.cc"] == listed["gamma"] + tail
    placed, unreferenced = with_map.linker_map.merged_strings
    assert placed > 500 and unreferenced == 0
    assert not any("merged string" in w for w in with_map.warnings)


@pytest.mark.parametrize("build", ["armcm4", "rv32"])
def test_a_map_listing_all_merged_strings_under_the_first_object_gives_each_file_its_own(build, tmp_path):
    """binutils 2.41 and later (ESP-IDF 5.2's toolchains) list the whole merged blob of string sections under the
    first object that had one, the others at its end with their own sizes. The same link's map rewritten that way
    gives each file the bytes the map of binutils 2.40 and the ELF alone give it."""
    elf, map_path = STRINGS / build / "firmware.elf", STRINGS / build / "firmware.map"
    lines = map_path.read_text().splitlines()
    strings = [i for i, line in enumerate(lines) if re.search(r"\.str1\.\d$", line) and line.startswith(" .")]
    spans = [lines[i + 1].split() for i in strings]
    first = int(spans[0][0], 16)
    last = max(int(address, 16) + int(size, 16) for address, size, *_ in spans)
    lines[strings[0] + 1] = lines[strings[0] + 1].replace(spans[0][1], f"0x{last - first:x}", 1)
    merged_map = tmp_path / "firmware.map"
    merged_map.write_text("\n".join(lines) + "\n")
    without = files(build_report(str(elf), use_cache=False))
    with_2_40 = files(build_report(str(elf), map_path=str(map_path), use_cache=False))
    merged = build_report(str(elf), map_path=str(merged_map), use_cache=False)
    # What no code refers to (the alignment between string sections the blob now spans) stays with the map's
    # object, and the report says how much in a note (nothing a user can act on: no warning): each file's bytes are
    # the same within that.
    _, unreferenced = merged.linker_map.merged_strings
    assert 0 < unreferenced <= 16 and any(f"{unreferenced} bytes of merged string" in n for n in notes(merged))
    assert not any("merged string" in w for w in merged.warnings)
    for name in set(without) | set(with_2_40):
        assert abs(without.get(name, 0) - files(merged).get(name, 0)) <= unreferenced, name
        # the 2.40 map also calls the padding after a file's last string fill (up to 3 bytes), as the first test says
        assert abs(files(merged).get(name, 0) - with_2_40.get(name, 0)) <= unreferenced + 3, name


def test_a_string_goes_to_the_file_that_prints_it():
    elf = STRINGS / "armcm4" / "firmware.elf"
    report = build_report(str(elf), use_cache=False)
    for file_name, text in [("alpha.cc", b"alpha: the first message only alpha.cc prints"),
                            ("beta.cc", b"beta: a message only beta.cc prints"),
                            ("numbers.cc", b"numbers: calibrating"),
                            ("main.cc", b"main: starting")]:
        address = string_address(elf, text)
        assert any(low <= address and address + len(text) < high for low, high in no_symbol_ranges(report, file_name))
    # Before: all of them were one `(no symbol) .text` entry; what stays is the assembler routine and alignment.
    assert not [e for e in report.entries_for("rom") if e.path == ("(no symbol)",) and e.size > 24]


def test_a_table_dwarf_places_only_inside_an_inline_function_goes_to_the_file_that_uses_it_and_so_do_its_strings():
    """flatbuffers' EnumNamesBuiltinOperator()::names: a COMDAT static whose DWARF location sits in the inline
    function's abstract body, which the scanner skips. The code that reads it says whose it is; its pointers then
    place the names."""
    elf = STRINGS / "armcm4" / "firmware.elf"
    report = build_report(str(elf), use_cache=False)
    table = next(e for e in report.entries_for("rom") if e.symbol.endswith("EnumNamesOperator()::names"))
    assert table.path[-1] == "alpha.cc"
    address = string_address(elf, b"THETA_OPERATOR")
    assert any(low <= address < high for low, high in no_symbol_ranges(report, "alpha.cc"))


def test_a_routine_that_is_only_called_is_not_the_callers():
    """checksum_words (assembler without .size or DWARF) is called from numbers.cc: a call is no use of data, so its
    bytes stay a catch-all, as the map leaves them under their object."""
    for build in ("armcm4", "rv32"):
        elf = STRINGS / build / "firmware.elf"
        image = read_elf(str(elf))
        routine = next(s.address for s in image.symbols if s.mangled == "checksum_words")
        report = build_report(str(elf), use_cache=False)
        owner = [e for e in report.entries_for("rom") if e.address <= routine < e.address + e.size]
        assert owner and owner[0].path == ("(no symbol)",), (build, owner)


def test_a_piece_several_files_refer_to_goes_to_the_neighbours_file_among_them():
    a, b, c = ("a.cc",), ("b.cc",), ("c.cc",)
    referrers = {100: Counter({a: 1}), 120: Counter({a: 1, b: 3}), 140: Counter({a: 1}), 160: Counter({b: 1}),
                 180: Counter({b: 2, c: 2})}
    assert split_by_references(200, referrers) == [OwnedRange(100, 160, a), OwnedRange(160, 200, b)]


def test_without_a_neighbour_among_them_the_file_referring_most_then_the_first_by_name():
    a, b, c = ("a.cc",), ("b.cc",), ("c.cc",)
    assert split_by_references(50, {10: Counter({c: 1}), 20: Counter({a: 1, b: 4})}) == [
        OwnedRange(10, 20, c), OwnedRange(20, 50, b)]
    assert split_by_references(50, {20: Counter({b: 2, a: 2})}) == [OwnedRange(20, 50, a)]


def test_a_table_of_numbers_is_not_a_table_of_pointers():
    in_flash = lambda value: 0x100 <= value < 0x8000  # noqa: E731
    assert looks_like_pointer_table([0x200, 0x340, 0, 0x1F00], in_flash)
    assert not looks_like_pointer_table([0x200, 0x9000_0000, 0x1234_5678, 0x4000_0000], in_flash)
    assert not looks_like_pointer_table([0, 0, 0], in_flash)


@pytest.mark.parametrize("byte_order", ["<", ">"])
def test_the_top_byte_bound_says_no_only_where_the_word_by_word_test_does(byte_order):
    """_too_few_in_image is a bound on the safe side of looks_like_pointer_table: it answers "no pointer table" only
    where the word-by-word test does, on tables of every mix of pointers, zeros and numbers."""
    import random
    import struct
    from types import SimpleNamespace

    from sizetool.report.referenced_bytes import _too_few_in_image, _top_bytes_outside

    section = lambda address, size: SimpleNamespace(is_alloc=True, address=address, size=size)  # noqa: E731
    image = SimpleNamespace(sections=[section(0x0800_0000, 0x10_0000), section(0x2000_0000, 0x2_0000)])
    ranges = [(0x0800_0000, 0x0810_0000), (0x2000_0000, 0x2002_0000)]
    in_image = lambda value: any(low <= value < high for low, high in ranges)  # noqa: E731
    outside = _top_bytes_outside(image, 4)
    assert set(range(256)) - set(outside) == {0x08, 0x20}
    chooser = random.Random(43)
    said_no = 0
    for _ in range(400):
        count = chooser.randrange(1, 90)
        makers = chooser.choices([lambda: chooser.randrange(0x0800_0000, 0x0810_0000), lambda: 0,
                                  lambda: chooser.randrange(0x0800_0000, 0x0900_0000),  # top byte in, value out
                                  lambda: chooser.getrandbits(32)], [chooser.random() for _ in range(4)], k=count)
        values = tuple(make() for make in makers)
        data = struct.pack(f"{byte_order}{count}I", *values)
        bound_says_no = _too_few_in_image(values, data, 3 if byte_order == "<" else 0, 4, outside)
        if bound_says_no:
            said_no += 1
            assert not looks_like_pointer_table(values, in_image), values
    assert 10 < said_no < 390  # both answers were met


def test_a_pieces_alignment_padding_after_its_last_string_is_left_out():
    data = b"hello\0\0\0" + b"ABCD"
    assert string_end(data, 0, 8) == 6  # the string and its NUL; two bytes of padding before an aligned end
    assert string_end(b"\x01\x02\x03\x04\0\0\0\0", 0, 8) == 8  # not a string: a table keeps its zeros
    assert string_end(b"hi\0" + b"\0" * 9, 0, 12) == 12  # more than alignment: not padding
    assert string_end(b"tail-merged\0", 0, 4) == 4  # the next piece starts inside this string: nothing to trim


@pytest.mark.parametrize("build", ["cortex-m4", "riscv32"])
def test_without_a_map_almost_all_of_the_fixture_firmware_is_under_a_source_file(build):
    report = build_report(str(FIXTURES / "firmware" / "out" / build / "firmware.elf"), use_cache=False)
    under_files = sum(e.size for e in report.entries_for("rom") if e.path and e.path[0] not in CATCH_ALLS)
    assert sum(e.size for e in report.entries_for("rom")) == report.rom_total
    assert under_files >= 0.995 * report.rom_total  # 88.5% before: string literals were `(no symbol) .rodata`


def test_damaged_code_symbols_and_debug_info_never_crash_the_placement(tmp_path):
    """Bytes flipped in the code, the symbol table and the DWARF (fixed seed): every report still adds up to its
    totals, or the ELF is refused with a SizeToolError (one line, exit 2); never another exception."""
    import random

    from sizetool.errors import SizeToolError

    rng = random.Random(18)
    for build in ("armcm4", "rv32"):
        path = STRINGS / build / "firmware.elf"
        source = path.read_bytes()
        image = read_elf(str(path))
        targets = [(s.offset, s.size) for s in image.sections
                   if s.name in (".symtab", ".text", ".rodata", ".debug_info", ".debug_aranges") and s.size]
        for attempt in range(40):
            data = bytearray(source)
            for _ in range(rng.randint(1, 12)):
                offset, size = rng.choice(targets)
                data[offset + rng.randrange(size)] = rng.randrange(256)
            damaged = tmp_path / f"{build}-{attempt}.elf"
            damaged.write_bytes(bytes(data))
            try:
                report = build_report(str(damaged), use_cache=False)
            except SizeToolError:
                continue
            assert sum(e.size for e in report.entries_for("rom")) == report.rom_total


def test_unreferenced_merged_strings_are_a_note_of_the_report_not_a_warning_on_every_run(tmp_path, capsys):
    from sizetool import cli

    # the hello_serial-shaped case: with a map, a few bytes of merged strings no code refers to (every --map run of a
    # real pico-sdk build printed the same 44-byte warning on stderr)
    elf, map_path = STRINGS / "armcm4" / "firmware.elf", STRINGS / "armcm4" / "firmware.map"
    lines = map_path.read_text().splitlines()
    strings = [i for i, line in enumerate(lines) if re.search(r"\.str1\.\d$", line) and line.startswith(" .")]
    spans = [lines[i + 1].split() for i in strings]
    last = max(int(address, 16) + int(size, 16) for address, size, *_ in spans)
    lines[strings[0] + 1] = lines[strings[0] + 1].replace(spans[0][1], f"0x{last - int(spans[0][0], 16):x}", 1)
    merged_map = tmp_path / "firmware.map"
    merged_map.write_text("\n".join(lines) + "\n")
    for argv in ([], ["ops"], ["--format", "json"]):
        assert cli.main([*argv, str(elf), "--map", str(merged_map), "--no-cache"]) == 0
        out, err = capsys.readouterr()
        assert "merged string" not in err
    assert cli.main([str(elf), "--map", str(merged_map), "--no-cache"]) == 0
    assert "note: " in capsys.readouterr().out


@pytest.mark.parametrize("build", ["armcm4", "rv32"])
def test_code_decoded_ahead_is_the_code_the_placement_decodes_and_changes_nothing(build):
    """decode_ahead (run while the DWARF scan runs in a second process) decodes exactly the runs the placement
    reads, and the placement's answer from them is its own."""
    from sizetool.report.referenced_bytes import decode_ahead, find_reference_owners
    from sizetool.report.placement import place
    from sizetool.inputs.dwarf_paths import read_source_index
    from sizetool.report.report_builder import _path_finder, _placed_sections, _with_owner_fallback
    from sizetool.report.source_roots import find_roots, tree_path_finder

    elf = str(STRINGS / build / "firmware.elf")

    def owners(image):
        index = read_source_index(elf)
        tree_path = tree_path_finder(find_roots(index, [], image.kconfig_symbols))
        path_of = _with_owner_fallback(_path_finder(index, tree_path, "file", None, lambda _: None), image.symbols)

        def unit_path_of(address):
            unit = index.unit_of.get(address) or index.unit_covering(address)
            return tree_path(unit) if unit else None

        return find_reference_owners(image, _placed_sections(place(image, None)), path_of, unit_path_of,
                                     lambda path: path == ("(no debug info)",))

    ahead = read_elf(elf)
    decode_ahead(ahead, _placed_sections(place(ahead, None)))
    decoded_ahead = dict(ahead.decoded_runs)
    assert decoded_ahead
    with_ahead = owners(ahead)
    assert ahead.decoded_runs == decoded_ahead  # nothing more was decoded
    alone = read_elf(elf)
    assert owners(alone) == with_ahead and with_ahead.ranges
    assert alone.decoded_runs == decoded_ahead
