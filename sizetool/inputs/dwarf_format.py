"""The DWARF encoding the source-path scanner reads: tag, attribute, form and operation codes, LEB128 and string
readers, the abbreviation and unit records (DWARF 2 to 5, with the GNU extensions GCC writes).

Kept apart from dwarf_paths.py, which decides what the codes mean for a report; these are the format's facts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from sizetool.inputs.elf_headers import read_headers

# Tags
TAG_COMPILE_UNIT, TAG_PARTIAL_UNIT, TAG_SKELETON_UNIT = 0x11, 0x3C, 0x4A
TAG_SUBPROGRAM, TAG_VARIABLE, TAG_MEMBER = 0x2E, 0x34, 0x0D
# Scopes that hold functions and objects with addresses; everything else with children (function bodies) is skipped.
SCOPE_TAGS = frozenset({0x39, 0x02, 0x13, 0x17, 0x1E, 0x0B})  # namespace, class, struct, union, module, lexical block
RECORD_TAGS = frozenset({TAG_SUBPROGRAM, TAG_VARIABLE, TAG_MEMBER})

# Attributes
AT_SIBLING, AT_LOCATION, AT_NAME, AT_STMT_LIST, AT_LOW_PC, AT_HIGH_PC = 0x01, 0x02, 0x03, 0x10, 0x11, 0x12
AT_COMP_DIR, AT_ABSTRACT_ORIGIN, AT_DECL_FILE, AT_SPECIFICATION, AT_RANGES = 0x1B, 0x31, 0x3A, 0x47, 0x55
AT_STR_OFFSETS_BASE, AT_ADDR_BASE, AT_RNGLISTS_BASE, AT_GNU_ADDR_BASE = 0x72, 0x73, 0x74, 0x2133
AT_PRODUCER = 0x25
RECORD_ATTRS = frozenset({AT_SIBLING, AT_LOCATION, AT_LOW_PC, AT_HIGH_PC, AT_ABSTRACT_ORIGIN, AT_DECL_FILE,
                          AT_SPECIFICATION, AT_RANGES})
UNIT_ATTRS = frozenset({AT_NAME, AT_STMT_LIST, AT_LOW_PC, AT_HIGH_PC, AT_COMP_DIR, AT_RANGES, AT_STR_OFFSETS_BASE,
                        AT_ADDR_BASE, AT_RNGLISTS_BASE, AT_GNU_ADDR_BASE, AT_PRODUCER})
SIBLING_ONLY = frozenset({AT_SIBLING})
ADDRESS_ATTRS = frozenset({AT_LOW_PC, AT_RANGES, AT_LOCATION})  # a DIE with none of them places no bytes

# Forms
F_ADDR, F_BLOCK2, F_BLOCK4, F_DATA2, F_DATA4, F_DATA8, F_STRING, F_BLOCK = 0x01, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09
F_BLOCK1, F_DATA1, F_FLAG, F_SDATA, F_STRP, F_UDATA, F_REF_ADDR = 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10
F_REF1, F_REF2, F_REF4, F_REF8, F_REF_UDATA, F_INDIRECT, F_SEC_OFFSET = 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17
F_EXPRLOC, F_FLAG_PRESENT, F_STRX, F_ADDRX, F_REF_SUP4, F_STRP_SUP, F_DATA16 = 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E
F_LINE_STRP, F_REF_SIG8, F_IMPLICIT_CONST, F_LOCLISTX, F_RNGLISTX, F_REF_SUP8 = 0x1F, 0x20, 0x21, 0x22, 0x23, 0x24
F_STRX1, F_STRX2, F_STRX3, F_STRX4, F_ADDRX1, F_ADDRX2, F_ADDRX3, F_ADDRX4 = range(0x25, 0x2D)
F_GNU_ADDR_INDEX, F_GNU_STR_INDEX, F_GNU_REF_ALT, F_GNU_STRP_ALT = 0x1F01, 0x1F02, 0x1F20, 0x1F21
ADDRESS_FORMS = frozenset({F_ADDR, F_ADDRX, F_ADDRX1, F_ADDRX2, F_ADDRX3, F_ADDRX4, F_GNU_ADDR_INDEX})
ADDRX_FORMS = frozenset({F_ADDRX, F_ADDRX1, F_ADDRX2, F_ADDRX3, F_ADDRX4, F_GNU_ADDR_INDEX})
STRX_FORMS = frozenset({F_STRX, F_STRX1, F_STRX2, F_STRX3, F_STRX4, F_GNU_STR_INDEX})
CU_REF_FORMS = frozenset({F_REF1, F_REF2, F_REF4, F_REF8, F_REF_UDATA})
LEB_FORMS = frozenset({F_SDATA, F_UDATA, F_REF_UDATA, F_STRX, F_ADDRX, F_LOCLISTX, F_RNGLISTX, F_GNU_ADDR_INDEX,
                       F_GNU_STR_INDEX})
CONSTANT_SIZES = {F_DATA1: 1, F_REF1: 1, F_FLAG: 1, F_STRX1: 1, F_ADDRX1: 1, F_DATA2: 2, F_REF2: 2, F_STRX2: 2,
                  F_ADDRX2: 2, F_STRX3: 3, F_ADDRX3: 3, F_DATA4: 4, F_REF4: 4, F_REF_SUP4: 4, F_STRX4: 4,
                  F_ADDRX4: 4, F_DATA8: 8, F_REF8: 8, F_REF_SIG8: 8, F_REF_SUP8: 8, F_DATA16: 16,
                  F_FLAG_PRESENT: 0, F_IMPLICIT_CONST: 0}
OFFSET_SIZED = frozenset({F_STRP, F_SEC_OFFSET, F_LINE_STRP, F_STRP_SUP, F_GNU_REF_ALT, F_GNU_STRP_ALT})

DW_OP_ADDR, DW_OP_ADDRX, DW_OP_GNU_ADDR_INDEX = 0x03, 0xA1, 0xFB


def read_uleb(data: bytes, pos: int) -> tuple[int, int]:
    byte = data[pos]
    pos += 1
    if byte < 0x80:
        return byte, pos
    result, shift = byte & 0x7F, 7
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def read_sleb(data: bytes, pos: int) -> tuple[int, int]:
    result, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            if byte & 0x40:
                result -= 1 << shift
            return result, pos


def read_cstring(data: bytes, pos: int) -> tuple[bytes, int]:
    end = data.index(b"\0", pos)
    return data[pos:end], end + 1


@dataclass
class Abbrev:
    """One abbreviation as the scan reads it (a docstring: without one, dataclass builds __doc__ at import)."""

    tag: int
    has_children: bool
    specs: tuple  # (attribute, form, implicit const, wanted, fixed size or -1)
    fixed_size: int  # total size when no attribute is wanted and all forms are fixed-size, else -1
    wants_any: bool
    # A function or variable without an address (a declaration in a class or namespace) is skipped by the scan and
    # decoded through this abbreviation only when a definition's DW_AT_specification leads to it (most never are:
    # every unit repeats the declarations of the headers it includes).
    on_demand: "Abbrev | None" = None
    # When DW_AT_sibling is the only attribute wanted and every form has a fixed size: its offset in the DIE and the
    # DIE's size, so the scan reads the sibling without decoding the others (-1: decode them)
    sibling_at: int = -1
    sibling_form: int = 0
    total_size: int = -1


@dataclass
class Unit:
    """One unit header of .debug_info, and what the scan learns from its unit DIE."""

    offset: int  # of the unit header in .debug_info
    end: int
    version: int
    address_size: int
    offset_size: int
    abbrevs: dict
    first_die: int
    file_names: list = field(default_factory=list)
    str_offsets_base: int = 8
    addr_base: int = 8
    rnglists_base: int = 0
    base_address: int = 0
    scope_tags: frozenset = SCOPE_TAGS  # the tags whose children the scan visits
    # code -> encoded entry (after the code) not decoded yet: a list from code 0 or a dict (dwarf_abbreviations)
    bodies: list | dict = field(default_factory=dict)
    unit_type: int = 1  # DWARF 5's DW_UT_*: 1 compile, 2 type, 4 skeleton, 5 split compile, 6 split type
    from_gcc: bool = False  # DW_AT_producer is GCC's C or C++ compiler


class CorruptDwarf(Exception):
    """Data that breaks the format (a reader says what, the scanner names the file)."""


DEBUG_SECTIONS = (".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_line_str",
                  ".debug_str_offsets", ".debug_addr", ".debug_ranges", ".debug_rnglists")
SHF_COMPRESSED = 0x800


_LAST: list = []  # [(the file's identity, the answer)]: the last ELF's DWARF sections


def debug_sections(stream) -> tuple[dict[str, bytes], bool]:
    """The DWARF sections of the ELF open in `stream`, by name, and whether the ELF is little-endian. Read by their
    headers (elf_headers.py) without loading pyelftools; an ELF outside that common case, or with compressed debug
    sections (SHF_COMPRESSED), through pyelftools, which decompresses them. A name given twice: the last section.

    The last ELF's answer is kept: the DWARF readers of one run (source paths, struct facts, resolver API, producer)
    each ask for the same ~10 MB of a -g build (~5 ms a read). The same file is known by its device, inode, size and
    modification time."""
    status = os.fstat(stream.fileno())
    identity = (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)
    if _LAST and _LAST[0][0] == identity:
        sections, little_endian = _LAST[0][1]
        return dict(sections), little_endian
    found = _debug_sections(stream, status.st_size)
    _LAST[:] = [(identity, (dict(found[0]), found[1]))]
    return found


def _debug_sections(stream, file_size: int) -> tuple[dict[str, bytes], bool]:
    headers = read_headers(stream, file_size)
    if headers is not None:
        found = {section["name"]: section for section in headers.sections if section["name"] in DEBUG_SECTIONS}
        if not any(section["sh_flags"] & SHF_COMPRESSED for section in found.values()):
            out = {}
            for name, section in found.items():
                if section["sh_type"] != "SHT_NOBITS":
                    stream.seek(section["sh_offset"])
                    out[name] = stream.read(section["sh_size"])
            return out, headers.little_endian
    from elftools.elf.elffile import ELFFile

    elf = ELFFile(stream)
    out = {}
    for name in DEBUG_SECTIONS:
        section = elf.get_section_by_name(name)
        if section is not None and section["sh_type"] != "SHT_NOBITS":
            out[name] = section.data()  # pyelftools decompresses SHF_COMPRESSED sections
    return out, elf.little_endian
