"""The file names of DWARF line tables (.debug_line headers), for the source-path scanner (dwarf_paths.py): indexed
the way DW_AT_decl_file counts them (from 1 before DWARF 5, from 0 after), joined to their directory and the unit's
DW_AT_comp_dir as text (never through this machine's file system), Windows separators read as `/`.

Before DWARF 5 (most units of a TFLM build with -g: 19,000 file names in 314 tables) a table is framed by bytes.find
and one regular-expression findall, and a name decoded and joined when a DIE first names it.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Callable, Sequence

from sizetool.inputs.dwarf_format import (
    CONSTANT_SIZES, F_BLOCK, F_GNU_STR_INDEX, F_LINE_STRP, F_STRING, F_STRP, F_STRX, F_UDATA, STRX_FORMS,
    CorruptDwarf, Unit, read_cstring, read_uleb,
)

# A line table header's directories and files before DWARF 5: NUL-terminated names up to an empty one; each file is
# followed by its directory index, modification time and length (ULEB128s). Tables that do not match are read byte by
# byte. The table patterns serve only headers of another layout than file_table's, and are compiled only then.
_FOLDER_TABLE = rb"(?:[^\x00]++\x00)*+\x00"
_FOLDER = rb"([^\x00]++)\x00"
_FILE_FIELDS = rb"\x00[\x80-\xff]*+[\x00-\x7f][\x80-\xff]*+[\x00-\x7f][\x80-\xff]*+[\x00-\x7f]"
_FILE_TABLE = rb"(?:[^\x00]++" + _FILE_FIELDS + rb")*+\x00"
FILE_ENTRY = re.compile(rb"[^\x00]++" + _FILE_FIELDS)  # one entry, as one string

def file_table(data: bytes, pos: int, header_end: int) -> tuple[list[bytes], list[bytes]] | None:
    """The directories and the encoded file entries of a line table header before DWARF 5 whose file table fills
    the header up to its end (header_end), as compilers write it: found with bytes.find and one findall, no
    second pass to frame the table (None: another layout)."""
    if not pos < header_end <= len(data) or data[header_end - 1] != 0:
        return None
    if data[pos] == 0:
        directories, files = [], pos + 1
    else:
        last = data.find(b"\0\0", pos, header_end)
        if last < 0:
            return None
        directories, files = data[pos:last].split(b"\0"), last + 2
    entries = FILE_ENTRY.findall(data, files, header_end - 1)
    return (directories, entries) if sum(map(len, entries)) == header_end - 1 - files else None


class LineTableNames(Sequence):
    """The file names of a line table before DWARF 5 (1-based), each joined to its directory when first asked for:
    a unit's DIEs name few of the dozens of headers its line table lists (19,000 names in a TFLM build with -g)."""

    def __init__(self, entries: list[bytes], directories: list, comp_dir: str, joined):
        self.entries = entries  # encoded file entries (name, NUL, directory index, time, length), from file 1
        self.directories = directories  # comp_dir, then the directories as encoded (decoded when first asked for)
        self.comp_dir = comp_dir
        self.joined = joined
        self.names: list[str | None] = [""] + [None] * len(entries)

    def __len__(self) -> int:
        return len(self.names)

    def __getitem__(self, number):
        name = self.names[number]
        if name is None:
            raw = self.entries[number - 1]
            end = raw.index(0)
            directory = raw[end + 1]
            if directory >= 0x80:
                directory = read_uleb(raw, end + 1)[0]
            folder = self.directories[directory] if directory < len(self.directories) else ""
            if folder.__class__ is bytes:
                folder = self.directories[directory] = folder.decode("utf-8", "replace")
            name = self.names[number] = self.joined(self.joined(self.comp_dir, folder),
                                                    raw[:end].decode("utf-8", "replace"))
        return name


class LineTables:
    """The line tables of one scan (.debug_line), and the paths joined so far."""

    def __init__(self, data: bytes, endian: str, versions: Counter, string: Callable[[Unit, tuple], str]):
        self.data = data
        self.endian = endian
        self.versions = versions  # line table version -> tables read
        self.string = string  # (unit, (form, value)) -> the string a string form names
        self.paths: dict[tuple[str, str], str] = {}  # (directory, name) -> join_path(directory, name)

    def _int(self, data: bytes, pos: int, size: int) -> int:
        if pos + size > len(data):
            raise CorruptDwarf(f"a value at offset {pos:#x} runs past the end of its section")
        return int.from_bytes(data[pos : pos + size], self.endian)

    def files(self, unit: Unit, offset: int, comp_dir: str) -> Sequence[str]:
        """File names indexed the way DW_AT_decl_file counts them for the line table at offset (unit's)."""
        data = self.data
        if offset + 4 > len(data):
            return []
        length, offset_size, pos = self._int(data, offset, 4), 4, offset + 4
        if length == 0xFFFFFFFF:
            length, offset_size, pos = self._int(data, pos, 8), 8, pos + 8
        version = self._int(data, pos, 2)
        pos += 2
        self.versions[version] += 1
        if version >= 5:
            pos += 2  # address size, segment selector size
        header_end = pos + offset_size + int.from_bytes(data[pos : pos + offset_size], self.endian)
        pos += offset_size  # header length
        pos += 1 + (1 if version >= 4 else 0) + 4  # min inst length, [max ops], default_is_stmt, line base/range
        opcode_base = data[pos - 1]
        pos += opcode_base - 1
        if version < 5:
            # the usual encoding: names decoded and joined when first asked for (LineTableNames)
            table = file_table(data, pos, header_end)
            if table is not None:
                return LineTableNames(table[1], [comp_dir, *table[0]], comp_dir, self.joined)
            directories = [comp_dir]
            folders = re.compile(_FOLDER_TABLE).match(data, pos)
            files = folders and re.compile(_FILE_TABLE).match(data, folders.end())
            if files:
                directories += re.compile(_FOLDER).findall(data, pos, folders.end() - 1)
                return LineTableNames(FILE_ENTRY.findall(data, folders.end(), files.end() - 1), directories,
                                      comp_dir, self.joined)
            while data[pos] != 0:
                name, pos = read_cstring(data, pos)
                directories.append(name.decode("utf-8", "replace"))
            pos += 1
            names = [""]  # 1-based before DWARF 5
            while data[pos] != 0:
                name, pos = read_cstring(data, pos)
                directory, pos = read_uleb(data, pos)
                pos = read_uleb(data, read_uleb(data, pos)[1])[1]  # modification time, length
                folder = directories[directory] if directory < len(directories) else ""
                names.append(self.joined(self.joined(comp_dir, folder), name.decode("utf-8", "replace")))
            return names
        directory_entries, pos = self._v5_entries(unit, data, pos, offset_size)
        directories = [self.joined(comp_dir, entry.get(1, "")) for entry in directory_entries]
        file_entries, pos = self._v5_entries(unit, data, pos, offset_size)
        names = []
        for entry in file_entries:
            directory = entry.get(2, 0)
            folder = directories[directory] if isinstance(directory, int) and directory < len(directories) else ""
            names.append(self.joined(self.joined(comp_dir, folder), entry.get(1, "")))
        return names

    def joined(self, directory: str, name: str) -> str:
        """join_path, remembered: every unit's line table names the headers all units include (19,000 names, most of
        them repeats, in a TFLM build with -g)."""
        path = self.paths.get((directory, name))
        if path is None:
            path = self.paths[directory, name] = join_path(directory, name)
        return path

    def _v5_entries(self, unit: Unit, data: bytes, pos: int, offset_size: int) -> tuple[list[dict], int]:
        format_count = data[pos]
        pos += 1
        formats = []
        for _ in range(format_count):
            content, pos = read_uleb(data, pos)
            form, pos = read_uleb(data, pos)
            formats.append((content, form))
        count, pos = read_uleb(data, pos)
        entries = []
        for _ in range(count):
            entry = {}
            for content, form in formats:
                if form in (F_STRING, F_LINE_STRP, F_STRP) or form in STRX_FORMS:
                    if form == F_STRING:
                        value, pos = read_cstring(data, pos)
                        value = value.decode("utf-8", "replace")
                    else:
                        size = offset_size if form in (F_LINE_STRP, F_STRP) else None
                        if size is None:
                            raw, pos = self._line_form(unit, form, data, pos)
                        else:
                            raw, pos = self._int(data, pos, size), pos + size
                        value = self.string(unit, (form, raw))
                else:
                    value, pos = self._line_form(unit, form, data, pos)
                entry[content] = value
            entries.append(entry)
        return entries, pos

    def _line_form(self, unit: Unit, form: int, data: bytes, pos: int):
        if form in (F_UDATA, F_STRX, F_GNU_STR_INDEX):
            return read_uleb(data, pos)
        size = CONSTANT_SIZES.get(form)
        if size is not None:
            return self._int(data, pos, size) if size <= 8 else data[pos : pos + size], pos + size
        if form == F_BLOCK:
            length, pos = read_uleb(data, pos)
            return data[pos : pos + length], pos + length
        raise CorruptDwarf(f"unsupported form {form:#x} in a line table header")


def join_path(directory: str, name: str) -> str:
    """`name` taken relative to `directory`, normalised as text (Windows separators read as `/`)."""
    if "\\" in directory:
        directory = directory.replace("\\", "/")
    if "\\" in name:
        name = name.replace("\\", "/")
    if not name:
        return posixpath.normpath(directory) if directory else ""
    if not directory or is_absolute(name):
        return posixpath.normpath(name)
    return posixpath.normpath(posixpath.join(directory, name))


def is_absolute(path: str) -> bool:
    """A POSIX absolute path, or a Windows one with a drive letter (`C:/...`)."""
    return path.startswith("/") or (len(path) > 2 and path[1] == ":" and path[2] == "/" and path[0].isalpha())
