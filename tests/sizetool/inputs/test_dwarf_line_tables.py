"""Line-table file names before DWARF 5: the usual layout (the file table fills the header) framed in one pass, other
layouts read as before, both giving the names DW_AT_decl_file counts, joined to their directory and DW_AT_comp_dir."""

from collections import Counter

import pytest

from sizetool.inputs.dwarf_format import CorruptDwarf, Unit
from sizetool.inputs.dwarf_line_tables import LineTables, file_table

DIRECTORIES = [b"include", b"../lib"] + [b"gen/d%d" % n for n in range(200)]  # 202: two-byte directory indices
FILES = [(b"a.h", 1, 0, 0), (b"main.c", 0, 1234567, 300), (b"b.h", 2, 0, 0), (b"/abs/c.h", 5, 0, 0),
         (b"z.h", 201, 0, 0), (b"lost.h", 999, 0, 0)]


def _uleb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _line_table(padding: bytes = b"", version: int = 3) -> bytes:
    """A 32-bit line table header (no line program) whose file table is followed by padding before the header's end."""
    tables = b"".join(name + b"\0" for name in DIRECTORIES) + b"\0"
    tables += b"".join(name + b"\0" + _uleb(d) + _uleb(t) + _uleb(n) for name, d, t, n in FILES) + b"\0" + padding
    fields = bytes([2, 1]) + (bytes([1]) if version >= 4 else b"") + bytes([0xFB, 14, 13]) + bytes(12)  # opcodes
    header = fields + tables
    body = version.to_bytes(2, "little") + len(header).to_bytes(4, "little") + header
    return len(body).to_bytes(4, "little") + body


EXPECTED = ["", "/build/include/a.h", "/build/main.c", "/lib/b.h", "/abs/c.h", "/build/gen/d198/z.h", "/build/lost.h"]


@pytest.mark.parametrize("version", [2, 3, 4])
@pytest.mark.parametrize("padding", [b"", b"\0\0\0"])  # padding: not the usual layout, framed table by table
def test_file_names_are_counted_from_1_and_joined(version, padding):
    data = _line_table(padding, version)
    versions: Counter = Counter()
    tables = LineTables(data, "little", versions, lambda unit, value: "")
    names = tables.files(Unit(0, 0, 4, 4, 4, {}, 0), 0, "/build")
    assert [names[number] for number in range(len(names))] == EXPECTED
    assert versions == {version: 1}


def test_the_usual_layout_is_framed_in_one_pass_and_others_are_not():
    data = _line_table()
    header_end = len(data)
    start = data.index(b"include\0")
    directories, entries = file_table(data, start, header_end)
    assert directories == DIRECTORIES and [entry.split(b"\0")[0] for entry in entries] == [f[0] for f in FILES]
    assert file_table(_line_table(b"\0"), start, header_end + 1) is None  # padding after the table
    assert file_table(data, start, header_end - 1) is None  # a header that ends inside the table
    assert file_table(data, start, header_end + 1) is None  # past the section


def test_a_header_cut_short_raises_what_the_scan_words_as_corrupt_dwarf():
    data = _line_table()[:40]
    with pytest.raises((CorruptDwarf, IndexError, ValueError)):  # read_source_index catches each
        names = LineTables(data, "little", Counter(), lambda unit, value: "").files(Unit(0, 0, 4, 4, 4, {}, 0), 0, "/b")
        [names[number] for number in range(len(names))]
