"""Read a GNU ld map file: the memory regions, the output sections, and which object each input section came from.

The "Memory Configuration" table gives the MEMORY regions (name, origin, length, attributes). The memory map lists
each output section (name, address, size and, when it is copied, its `load address`) and, under it, the input
sections: which object file (or archive member) contributed each range of bytes. That lets the report attribute
bytes that no symbol covers (string literals in `.rodata.*.str1.1`, literal data) to their object instead of leaving
them anonymous. Alignment `*fill*` is kept as fill.

Only allocated output sections own addresses: `.debug_*`, `.comment`, `.ARM.attributes`, `.stab*` and the like are
listed at address 0 too (where a firmware's flash may start), so their input sections are left out here, and the
report builder keeps only input sections of output sections the ELF allocates.

The map's first part, "Archive member included to satisfy reference by file (symbol)", says why the linker took
each archive member: which file referred to which symbol it defines (archive_inclusions). Code in a member runs only
when the member is linked; the operator analysis reads this for constructors (operators/member_constructors.py).

Zephyr's zephyr.map works the same way: many output sections, `*(SORT_BY_NAME(...))` pattern lines, `load address`
clauses and linker-generated symbol assignments (which are not input sections and are skipped). Windows paths
(`C:/...\\libgcc.a(_udivsi3.o)`) are read as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sizetool.errors import SizeToolError
from sizetool.inputs.input_files import read_input
# The names a report reads without a map, kept apart so such a report does not define this module's records
from sizetool.inputs.map_names import (  # noqa: F401 - read from here by the map readers and the analyses
    FILL, LINKER_STUBS, LazyPattern, is_allocated_name, is_merged_strings, object_path,
)

TYPE_CHECKING = False  # typing's constant, which type checkers read alike, without importing typing (~1.6 ms)
if TYPE_CHECKING:  # the armlink and IAR layout records load with their readers, not for every GNU map (~1.7 ms)
    from sizetool.inputs.map_layout import MapLayout

DEFAULT_REGION = "*default*"

_REGION = LazyPattern(r"^(\S+)\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)(?:\s+(\S.*?))?\s*$")
_OUTPUT = LazyPattern(r"^([^\s*][^\s]*)(?:\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)(?:\s+load address 0x([0-9a-fA-F]+))?)?\s*$")
_OUTPUT_CONTINUATION = LazyPattern(r"^\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)(?:\s+load address 0x([0-9a-fA-F]+))?\s*$")
# (A greedy `(.*\S)\s*$` ends at a line's last non-blank as the lazy `(\S.*?)\s*$` does, without trying `\s*$` after
# each character of an object's path: a third of reading a map.)
_ONE_LINE = LazyPattern(r"^ (\S+)\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(.*\S)\s*$")
_NAME_ONLY = LazyPattern(r"^ ([^\s*]\S*)\s*$")
_CONTINUATION = LazyPattern(r"^\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(.*\S)\s*$")
_FILL = LazyPattern(r"^ \*fill\*\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)")
_STATEMENTS = frozenset({"LOAD", "START", "END", "TARGET", "INPUT", "GROUP", "SEARCH_DIR"})


@dataclass(frozen=True)
class MapRegion:
    """A MEMORY region of the map (name, origin, length, attributes)."""

    name: str
    origin: int
    length: int
    attributes: str
    memory: str = ""  # "rom" or "ram" when the map says (armlink, IAR); else placement decides


@dataclass(frozen=True)
class OutputSection:
    """An output section as the map places it."""

    name: str
    address: int
    size: int
    load_address: int | None = None  # from a `load address` clause: where a copied section is stored


@dataclass(frozen=True)
class InputSection:
    """An input section the map lists under an output section: which object file contributed these bytes."""

    name: str  # e.g. ".rodata.main.str1.1", or "*fill*"
    address: int
    size: int
    object_file: str  # e.g. "obj/app/main.o" or "/usr/lib/.../libgcc.a(_udivsi3.o)"; "" for fill
    output_section: str = ""  # the output section it was placed in, e.g. ".rodata" or "datas"


@dataclass(frozen=True)
class ArchiveInclusion:
    """Why the linker took an archive member: `by_file` referred to `symbol` (as the map spells it, demangled)."""

    member: str  # e.g. "/usr/lib/.../libstdc++.a(eh_alloc.o)"
    by_file: str  # e.g. "libstdc++.a(guard.o)" or "out/main.o"
    symbol: str  # e.g. "__cxa_allocate_exception"


@dataclass
class LinkerMap:
    """What the report reads from a linker map: regions, output and input sections."""

    regions: list[MapRegion]  # the MEMORY regions, in declaration order (the catch-all *default* left out)
    input_sections: list[InputSection]
    output_sections: list[OutputSection] = field(default_factory=list)
    output_file: str = ""  # the OUTPUT(...) line: the file the linker wrote, as it named it
    path: str = ""
    format: str = "gnu"  # "gnu", "lld", "armlink" or "iar" (sizetool/inputs/map_formats.py)
    toolchain: str = "GNU ld"
    layout: MapLayout | None = None  # armlink and IAR: the regions and blocks the map states (map_layout.py)
    archive_inclusions: list[ArchiveInclusion] = field(default_factory=list)  # GNU ld: why each member was taken

    def output_section(self, name: str) -> OutputSection | None:
        return self._by_name().get(name)

    def _by_name(self) -> dict[str, OutputSection]:
        found = self.__dict__.get("_output_by_name")
        if found is None:
            found = self.__dict__["_output_by_name"] = {}
            for section in self.output_sections:
                found.setdefault(section.name, section)
        return found


def read_map(path: str, text: str | None = None) -> LinkerMap:
    """Read a GNU ld map (text: its contents, when already read). A file that is not one, or that is cut short (no
    OUTPUT(...) line after the memory map), is a SizeToolError naming the file."""
    if text is None:
        text = read_input(path, "a map file").decode("utf-8", "replace")
    lines = text.splitlines()
    try:
        start = lines.index("Memory Configuration")
    except ValueError:
        raise SizeToolError(f"{path}: not a GNU ld map file (no 'Memory Configuration' section)") from None

    inclusions = _archive_inclusions(lines[:start])
    regions: list[MapRegion] = []
    position = start + 1
    while position < len(lines) and not lines[position].startswith("Linker script and memory map"):
        match = _REGION.match(lines[position])
        if match and match.group(1) not in ("Name", DEFAULT_REGION):
            regions.append(
                MapRegion(match.group(1), int(match.group(2), 16), int(match.group(3), 16), match.group(4) or "")
            )
        position += 1
    if position >= len(lines):
        raise SizeToolError(f"{path}: truncated map file (it ends before 'Linker script and memory map')")

    sections: list[InputSection] = []
    outputs: list[OutputSection] = []
    output_file = ""
    current = ""  # the output section whose input sections follow
    keep = False  # whether that output section is allocated
    pending_output: str | None = None
    pending_input: str | None = None
    for line in lines[position + 1 :]:
        if not line:
            continue
        if line[0] != " ":
            pending_output = pending_input = None
            if line.startswith("OUTPUT("):
                output_file = line[len("OUTPUT(") :].rsplit(" ", 1)[0].rstrip(")")
                continue
            if line.startswith("Cross Reference Table"):
                break
            words = line.split(None, 2)
            if len(words) > 1 and not words[1].startswith("0x") and words[0].split("(")[0] in _STATEMENTS:
                continue  # LOAD obj.o, START GROUP, END GROUP
            match = _OUTPUT.match(line)
            if match:
                current = match.group(1)
                keep = is_allocated_name(current)
                if match.group(2) is None:
                    pending_output = current
                else:
                    outputs.append(_output(current, match.group(2), match.group(3), match.group(4)))
            continue
        if pending_output is not None:
            match = _OUTPUT_CONTINUATION.match(line)
            if match:
                outputs.append(_output(pending_output, match.group(1), match.group(2), match.group(3)))
            pending_output = None
            if match:
                continue
        if not keep:
            continue
        if line.startswith(" *fill*"):
            fill = _FILL.match(line)
            if fill:
                sections.append(InputSection(FILL, int(fill.group(1), 16), int(fill.group(2), 16), "", current))
            pending_input = None
            continue
        if pending_input is not None:
            match = _CONTINUATION.match(line)
            if match:
                _add(sections, pending_input, match.group(1), match.group(2), match.group(3), current)
            pending_input = None
            continue
        if line[1:2].isspace():
            continue  # a symbol's line, or an assignment: an input section's name starts in the second column
        match = _ONE_LINE.match(line)
        if match:
            _add(sections, match.group(1), match.group(2), match.group(3), match.group(4), current)
            continue
        match = _NAME_ONLY.match(line)
        if match:
            pending_input = match.group(1)
    if not output_file:
        raise SizeToolError(f"{path}: truncated map file (no OUTPUT(...) line: the memory map is cut short)")
    # Stable: pieces at one address keep the map's order, which says which of two merged string sections there holds
    # the bytes (ld lists one all of whose strings it stored elsewhere first, with its own size: string_sections.py).
    sections.sort(key=lambda s: s.address)
    return LinkerMap(regions=regions, input_sections=sections, output_sections=outputs, output_file=output_file,
                     path=path, archive_inclusions=inclusions)


_INCLUSIONS_HEADING = "Archive member included to satisfy reference by file (symbol)"
_MEMBER = LazyPattern(r"^(\S.*?\))(?:\s+(\S.*))?$")  # "lib.a(x.o)", then the referrer here or on the next line
# A referrer is an object or a member, then " (symbol)"; a path may hold " (" itself ("Program Files (x86)").
_REFERRER_END = LazyPattern(r"(?:\.o|\.obj|\.O|\.OBJ|\)) \(")


def _archive_inclusions(lines: list[str]) -> list[ArchiveInclusion]:
    """The records of the map's "Archive member included ..." part (the lines before "Memory Configuration")."""
    try:
        position = lines.index(_INCLUSIONS_HEADING) + 1
    except ValueError:
        return []
    found: list[ArchiveInclusion] = []
    member = ""
    for line in lines[position:]:
        if not line.strip():
            continue
        if not line[0].isspace():
            match = _MEMBER.match(line)
            if match is None:
                break  # the next part of the map ("Discarded input sections", "Allocating common symbols")
            member, referrer = match.group(1), match.group(2)
            if referrer is None:
                continue
        else:
            referrer = line.strip()
        if member:
            record = _referrer(member, referrer)
            if record is not None:
                found.append(record)
            member = ""
    return found


def _referrer(member: str, text: str) -> ArchiveInclusion | None:
    """`member` taken for "file (symbol)"; None when the text is not of that form."""
    match = _REFERRER_END.search(text)
    if match is None or not text.endswith(")"):
        return None
    cut = match.end() - 2
    return ArchiveInclusion(member, text[:cut], text[cut + 2 : -1])


def _output(name: str, address: str, size: str, load_address: str | None) -> OutputSection:
    return OutputSection(name, int(address, 16), int(size, 16), int(load_address, 16) if load_address else None)


def _add(sections: list[InputSection], name: str, address: str, size: str, object_file: str, output: str) -> None:
    size_value = int(size, 16)
    # Lines such as "0x... 0x... obj.o" only count when they name an object (symbol lines have no size column, data
    # statements such as LONG name an expression).
    if size_value and (
        object_file.endswith((".o", ")", ".obj", ".O", ".OBJ")) or object_file == LINKER_STUBS
    ):
        sections.append(InputSection(name, int(address, 16), size_value, object_file, output))
