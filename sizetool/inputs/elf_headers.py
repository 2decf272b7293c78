"""The ELF file header, program headers and section headers of a well-formed ELF, read with struct.

Importing pyelftools costs a cold report 30-50 ms of CPU (its construct library pulls in pdb, pprint and more), as
much as the rest of a report on a symbol-only ELF. The headers are a few fixed-size records, so the common case is
read here, with the names pyelftools gives the enumerated fields (e_type "ET_EXEC", p_type "PT_LOAD", sh_type
"SHT_PROGBITS", per machine as pyelftools picks them). Anything outside it (an e_machine not in MACHINES, a type
code not in the tables, extended section numbering, a header or name past the end of its table or the file,
a relocatable object) returns None: elf_reader.py then reads the file with pyelftools, which words every error as it
always has. tests/sizetool/inputs/test_elf_headers.py compares both readings on every fixture.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable
from dataclasses import dataclass

E_TYPES = {0: "ET_NONE", 2: "ET_EXEC", 3: "ET_DYN", 4: "ET_CORE"}  # ET_REL: pyelftools' path refuses it
MACHINES = {40: "EM_ARM", 183: "EM_AARCH64", 243: "EM_RISCV", 62: "EM_X86_64", 3: "EM_386", 94: "EM_XTENSA"}
_SH_TYPES = {0: "SHT_NULL", 1: "SHT_PROGBITS", 2: "SHT_SYMTAB", 3: "SHT_STRTAB", 4: "SHT_RELA", 5: "SHT_HASH",
             6: "SHT_DYNAMIC", 7: "SHT_NOTE", 8: "SHT_NOBITS", 9: "SHT_REL", 10: "SHT_SHLIB", 11: "SHT_DYNSYM",
             14: "SHT_INIT_ARRAY", 15: "SHT_FINI_ARRAY", 16: "SHT_PREINIT_ARRAY", 17: "SHT_GROUP",
             18: "SHT_SYMTAB_SHNDX", 0x6FFFFFF5: "SHT_GNU_ATTRIBUTES", 0x6FFFFFF6: "SHT_GNU_HASH",
             0x6FFFFFFD: "SHT_GNU_verdef", 0x6FFFFFFE: "SHT_GNU_verneed", 0x6FFFFFFF: "SHT_GNU_versym"}
SH_TYPES = {
    "EM_ARM": {**_SH_TYPES, 0x70000001: "SHT_ARM_EXIDX", 0x70000002: "SHT_ARM_PREEMPTMAP",
               0x70000003: "SHT_ARM_ATTRIBUTES", 0x70000004: "SHT_ARM_DEBUGOVERLAY"},
    "EM_AARCH64": {**_SH_TYPES, 0x70000003: "SHT_AARCH64_ATTRIBUTES"},
    "EM_X86_64": {**_SH_TYPES, 0x70000001: "SHT_AMD64_UNWIND"},
    "EM_RISCV": {**_SH_TYPES, 0x70000003: "SHT_RISCV_ATTRIBUTES"},
}
_P_TYPES = {0: "PT_NULL", 1: "PT_LOAD", 2: "PT_DYNAMIC", 3: "PT_INTERP", 4: "PT_NOTE", 5: "PT_SHLIB", 6: "PT_PHDR",
            7: "PT_TLS", 0x6474E550: "PT_GNU_EH_FRAME", 0x6474E551: "PT_GNU_STACK", 0x6474E552: "PT_GNU_RELRO",
            0x6474E553: "PT_GNU_PROPERTY"}
P_TYPES = {
    "EM_ARM": {**_P_TYPES, 0x70000000: "PT_ARM_ARCHEXT", 0x70000001: "PT_ARM_EXIDX"},
    "EM_AARCH64": {**_P_TYPES, 0x70000000: "PT_AARCH64_ARCHEXT", 0x70000001: "PT_AARCH64_UNWIND"},
    "EM_RISCV": {**_P_TYPES, 0x70000003: "PT_RISCV_ATTRIBUTES"},
}
SEGMENT_FIELDS = ("p_type", "p_offset", "p_vaddr", "p_paddr", "p_filesz", "p_memsz", "p_flags", "p_align")
SECTION_FIELDS = ("sh_name", "sh_type", "sh_flags", "sh_addr", "sh_offset", "sh_size", "sh_link", "sh_info",
                  "sh_addralign", "sh_entsize")
SHN_LORESERVE = 0xFF00


@dataclass
class ElfHeaders:
    """What elf_reader.py takes from the headers, with pyelftools' field names and enumeration names."""

    elf_class: int
    little_endian: bool
    header: dict  # e_type, e_machine (names), e_entry, e_flags, e_shoff, e_shnum, e_shentsize, e_phnum
    segments: list[dict]
    sections: list[dict]  # each with "name" besides the sh_* fields


def read_headers(stream, file_size: int) -> ElfHeaders | None:
    """The headers of the ELF open in `stream` (binary, any position), or None when they are not the common case."""
    stream.seek(0)
    data = stream.read(64)
    if len(data) < 52 or data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2) or data[6] != 1:
        return None
    wide, endian = data[4] == 2, "<" if data[5] == 1 else ">"
    layout = struct.Struct(endian + ("HHIQQQIHHHHHH" if wide else "HHIIIIIHHHHHH"))
    if len(data) < 16 + layout.size:
        return None
    (e_type, e_machine, _version, e_entry, e_phoff, e_shoff, e_flags, _ehsize, e_phentsize, e_phnum, e_shentsize,
     e_shnum, e_shstrndx) = layout.unpack_from(data, 16)
    type_name, machine = E_TYPES.get(e_type), MACHINES.get(e_machine)
    segment_layout = struct.Struct(endian + ("IIQQQQQQ" if wide else "IIIIIIII"))
    section_layout = struct.Struct(endian + ("IIQQQQIIQQ" if wide else "IIIIIIIIII"))
    if (type_name is None or machine is None or not e_phnum or e_phnum == 0xFFFF or not e_shoff or not e_shnum
            or e_phentsize != segment_layout.size or e_shentsize != section_layout.size
            or not 0 < e_shstrndx < min(e_shnum, SHN_LORESERVE)
            or e_phoff + e_phnum * e_phentsize > file_size or e_shoff + e_shnum * e_shentsize > file_size):
        return None
    segments = _records(stream, e_phoff, e_phnum, segment_layout,
                        ("p_type", "p_flags", "p_offset", "p_vaddr", "p_paddr", "p_filesz", "p_memsz", "p_align")
                        if wide else SEGMENT_FIELDS)
    sections = _records(stream, e_shoff, e_shnum, section_layout, SECTION_FIELDS)
    p_types, sh_types = P_TYPES.get(machine, _P_TYPES), SH_TYPES.get(machine, _SH_TYPES)
    for segment in segments:
        segment["p_type"] = p_types.get(segment["p_type"])
        if segment["p_type"] is None:
            return None
    names = sections[e_shstrndx]
    if names["sh_type"] != 3 or names["sh_offset"] + names["sh_size"] > file_size:
        return None
    stream.seek(names["sh_offset"])
    strings = stream.read(names["sh_size"])
    for section in sections:
        section["sh_type"] = sh_types.get(section["sh_type"])
        end = strings.find(b"\0", section["sh_name"])
        if section["sh_type"] is None or section["sh_name"] >= len(strings) or end < 0:
            return None
        section["name"] = strings[section["sh_name"] : end].decode("utf-8", "replace")
        if section["sh_type"] != "SHT_NOBITS" and section["sh_size"] and \
                section["sh_offset"] + section["sh_size"] > file_size:
            return None
    header = {"e_type": type_name, "e_machine": machine, "e_entry": e_entry, "e_flags": e_flags, "e_shoff": e_shoff,
              "e_shnum": e_shnum, "e_shentsize": e_shentsize, "e_phnum": e_phnum}
    return ElfHeaders(64 if wide else 32, endian == "<", header, segments, sections)


def _records(stream, offset: int, count: int, layout: struct.Struct, fields: tuple[str, ...]) -> list[dict]:
    stream.seek(offset)
    table = stream.read(count * layout.size)
    return [dict(zip(fields, values)) for values in layout.iter_unpack(table)]


def section_readers(stream) -> list[tuple[dict, Callable[[], bytes]]]:
    """Each section header of the ELF open in `stream` (pyelftools' field names, "name" besides) and a function
    reading its bytes: by read_headers in the common case (without loading pyelftools, ~40 ms), else through
    pyelftools."""
    headers = read_headers(stream, os.fstat(stream.fileno()).st_size)
    if headers is not None:
        def reader(header: dict) -> Callable[[], bytes]:
            def read() -> bytes:
                if header["sh_type"] == "SHT_NOBITS":
                    return b""
                stream.seek(header["sh_offset"])
                return stream.read(header["sh_size"])
            return read

        return [(header, reader(header)) for header in headers.sections]
    from elftools.elf.elffile import ELFFile

    return [(dict(raw.header, name=raw.name), raw.data) for raw in ELFFile(stream).iter_sections()]
