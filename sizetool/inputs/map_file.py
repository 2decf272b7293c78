"""Read a GNU ld map file: the memory regions, and which object file each input section came from.

The "Memory Configuration" table gives the MEMORY regions (name, origin, length); the input-section lines of the
memory map say which object file (or archive member) contributed each range of bytes, which lets the report attribute
bytes that no symbol covers (string literals in `.rodata.*.str1.1`, literal data) to their object instead of leaving
them anonymous. Alignment `*fill*` is kept as fill.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from sizetool.errors import SizeToolError
from sizetool.inputs.input_files import read_input

FILL = "*fill*"

_REGION = re.compile(r"^(\S+)\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)(?:\s+(\S+))?\s*$")
_ONE_LINE = re.compile(r"^ (\S+)\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(\S.*?)\s*$")
_NAME_ONLY = re.compile(r"^ (\S+)\s*$")
_CONTINUATION = re.compile(r"^\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(\S.*?)\s*$")
_FILL = re.compile(r"^ \*fill\*\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)")


@dataclass(frozen=True)
class MapRegion:
    name: str
    origin: int
    length: int
    attributes: str


@dataclass(frozen=True)
class InputSection:
    name: str  # e.g. ".rodata.main.str1.1", or "*fill*"
    address: int
    size: int
    object_file: str  # e.g. "obj/app/main.o" or "/usr/lib/.../libgcc.a(_udivsi3.o)"; "" for fill


@dataclass
class LinkerMap:
    regions: list[MapRegion]
    input_sections: list[InputSection]


def read_map(path: str) -> LinkerMap:
    lines = read_input(path, "a map file").decode("utf-8", "replace").splitlines()
    try:
        start = lines.index("Memory Configuration")
    except ValueError:
        raise SizeToolError(f"{path}: not a GNU ld map file (no 'Memory Configuration' section)") from None

    regions: list[MapRegion] = []
    position = start + 1
    while position < len(lines) and not lines[position].startswith("Linker script and memory map"):
        match = _REGION.match(lines[position])
        if match and match.group(1) not in ("Name", "*default*"):
            regions.append(
                MapRegion(match.group(1), int(match.group(2), 16), int(match.group(3), 16), match.group(4) or "")
            )
        position += 1

    sections: list[InputSection] = []
    pending_name: str | None = None
    for line in lines[position:]:
        fill = _FILL.match(line)
        if fill:
            sections.append(InputSection(FILL, int(fill.group(1), 16), int(fill.group(2), 16), ""))
            pending_name = None
            continue
        if pending_name is not None:
            match = _CONTINUATION.match(line)
            if match:
                _add(sections, pending_name, match.group(1), match.group(2), match.group(3))
            pending_name = None
            continue
        match = _ONE_LINE.match(line)
        if match:
            _add(sections, match.group(1), match.group(2), match.group(3), match.group(4))
            continue
        match = _NAME_ONLY.match(line)
        if match and match.group(1).startswith("."):
            pending_name = match.group(1)
    sections.sort(key=lambda s: (s.address, s.size))
    return LinkerMap(regions=regions, input_sections=sections)


def _add(sections: list[InputSection], name: str, address: str, size: str, object_file: str) -> None:
    size_value = int(size, 16)
    # Lines such as "0x... 0x... obj.o" only count when they name an object (symbol lines have no size column).
    if size_value and (object_file.endswith(".o") or object_file.endswith(")") or object_file.endswith(".obj")):
        sections.append(InputSection(name, int(address, 16), size_value, object_file))


def object_path(object_file: str) -> tuple[str, ...]:
    """Tree path of an object: archive members as (archive.a, member.o), plain objects by their path."""
    if object_file.endswith(")") and "(" in object_file:
        archive, _, member = object_file[:-1].partition("(")
        return ("(archives)", os.path.basename(archive), member)
    return tuple(part for part in object_file.split("/") if part and part != ".")
