"""Read an ELF file into plain records: sections, segments and defined symbols.

This is the first step of every sizetool command. It checks that the file is a readable, linked ELF (one clear
SizeToolError otherwise: a relocatable .o has no program headers and no addresses to report) and reads the section
and program headers and the symbol table. Section contents are read on demand with `section_data`, so reading a large
ELF costs only its headers and symbol table.

Sections are described by their flags here (Berkeley `size`'s view, kept for `berkeley()` and the operator-cost
graph); where each byte physically lives (flash, RAM, or both) is decided from the program headers and the map by
sizetool/report/placement.py.
"""

from __future__ import annotations

import os
import operator
import struct
from dataclasses import dataclass, field
from functools import cached_property

from elftools.common.exceptions import ELFError, ELFParseError

from sizetool.errors import SizeToolError
from sizetool.inputs.elf_headers import ElfHeaders, read_headers
from sizetool.inputs.cxx_demangler import InvalidName
from sizetool.inputs.cxx_demangler import demangle as cxx_demangle

SHF_WRITE = 0x1
SHF_ALLOC = 0x2
SHF_EXECINSTR = 0x4
SHF_TLS = 0x400

SHN_UNDEF = 0
SHN_LORESERVE = 0xFF00
SHN_ABS = 0xFFF1
SHN_COMMON = 0xFFF2

STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_SECTION, STT_FILE, STT_COMMON, STT_TLS = range(7)
SYMBOL_KINDS = {STT_NOTYPE: "notype", STT_OBJECT: "object", STT_FUNC: "func", STT_TLS: "tls"}
BINDINGS = {0: "local", 1: "global", 2: "weak", 10: "unique"}

ARCH_NAMES = {
    "EM_ARM": "arm",
    "EM_AARCH64": "aarch64",
    "EM_RISCV": "riscv",
    "EM_X86_64": "x86_64",
    "EM_386": "x86",
    "EM_XTENSA": "xtensa",
}


@dataclass(frozen=True)
class Section:
    """One ELF section header, as the report needs it."""

    index: int
    name: str
    type: str  # e.g. "SHT_PROGBITS", "SHT_NOBITS"
    flags: int
    address: int  # VMA: where the bytes live at run time
    load_address: int  # LMA: where they are stored in the image (differs from address for .data on MCUs)
    size: int
    offset: int  # file offset of the contents (meaningless for NOBITS)
    alignment: int = 1  # sh_addralign: the linker pads up to it before the section

    @property
    def is_alloc(self) -> bool:
        return bool(self.flags & SHF_ALLOC)

    @property
    def is_nobits(self) -> bool:
        return self.type == "SHT_NOBITS"

    @property
    def is_code(self) -> bool:
        return bool(self.flags & SHF_EXECINSTR)

    @property
    def is_writable(self) -> bool:
        return bool(self.flags & SHF_WRITE)

    @property
    def is_tls(self) -> bool:
        return bool(self.flags & SHF_TLS)

    @property
    def in_rom(self) -> bool:
        """By the flags: bytes stored in the file image (code, rodata, the load image of .data): `size`'s text + data.
        Where they physically go is sizetool/report/placement.py's answer."""
        return self.is_alloc and not self.is_nobits and self.size > 0

    @property
    def in_ram(self) -> bool:
        """By the flags: an allocated writable section (.data, .bss, noinit): `size`'s data + bss."""
        return self.is_alloc and self.is_writable and self.size > 0

    @property
    def end(self) -> int:
        return self.address + self.size

    def contains(self, address: int) -> bool:
        return self.address <= address < self.address + self.size


@dataclass(frozen=True)
class Segment:
    """One program header (PT_LOAD and kin): where bytes run and where they are stored."""

    type: str
    virtual_address: int  # p_vaddr: where the segment runs
    physical_address: int  # p_paddr: where it is loaded (stored), e.g. the flash copy of .data
    file_size: int
    memory_size: int
    flags: int

    @property
    def is_load(self) -> bool:
        return self.type == "PT_LOAD" and self.memory_size > 0

    def holds(self, section: Section) -> bool:
        """Whether an allocated section lies in this segment's run addresses (sh_addr inside [p_vaddr, +p_memsz))."""
        return self.virtual_address <= section.address < self.virtual_address + max(self.memory_size, 1)


@dataclass(frozen=True)
class BerkeleySizes:
    """What Berkeley `size` (GNU size -B) prints: text = allocated code or read-only sections, data = allocated
    writable sections with contents, bss = allocated sections without contents."""

    text: int
    data: int
    bss: int


@dataclass(frozen=True)
class Symbol:
    """A defined symbol with bytes in some section. `address` has the Thumb bit cleared for functions."""

    mangled: str
    address: int
    size: int
    kind: str  # "func", "object", "notype", "tls"
    binding: str  # "local", "global", "weak", ...
    section_index: int
    thumb: bool = False  # an ARM function whose symbol value had the low bit set
    file_symbol: str = ""  # for local symbols: the STT_FILE entry before them (their translation unit's name)

    @cached_property
    def name(self) -> str:
        return demangle(self.mangled)


@dataclass
class ElfImage:
    """What the report reads from an ELF: sections, segments, symbols, and the bytes of sections on demand."""

    path: str
    arch: str  # "arm", "riscv", "x86_64", ... (see ARCH_NAMES), or the raw e_machine
    elf_class: int  # 32 or 64
    little_endian: bool
    entry: int
    e_flags: int
    sections: list[Section]
    segments: list[Segment]
    symbols: list[Symbol]  # defined, sized-or-not, excluding section/file/undefined/absolute/common symbols
    mapping_symbols: list[tuple[int, str]] = field(default_factory=list)  # ARM/AArch64 $a/$t/$d/$x markers, sorted
    has_symtab: bool = True
    has_dwarf: bool = False
    elf_type: str = "ET_EXEC"
    kconfig_symbols: int = 0  # absolute CONFIG_* symbols: Zephyr writes its Kconfig values into the image this way
    # What code_graph/disassembly.py decoded from each code run, (mode, start, end) -> references, so the report's
    # placement and the operator graph of one run decode the code once.
    decoded_runs: dict = field(default_factory=dict, repr=False, compare=False)

    def section_by_name(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)

    def section_data(self, section: Section) -> bytes:
        """The stored bytes of a section (b"" for NOBITS), read from the file on demand."""
        if section.is_nobits or section.size == 0:
            return b""
        with open(self.path, "rb") as stream:
            stream.seek(section.offset)
            data = stream.read(section.size)
        if len(data) != section.size:
            raise SizeToolError(f"{self.path}: section {section.name} runs past the end of the file (truncated ELF?)")
        return data

    @property
    def rom_total(self) -> int:
        """Stored bytes of the allocated sections (`size`'s text + data), the flash figure of the operator-cost graph."""
        return sum(s.size for s in self.sections if s.in_rom)

    @property
    def ram_total(self) -> int:
        """Allocated writable bytes (`size`'s data + bss)."""
        return sum(s.size for s in self.sections if s.in_ram)

    @property
    def is_hosted(self) -> bool:
        """A program for an operating system (dynamic linking, an interpreter, a shared object): it has no flash and
        RAM of its own, so its sizes stay the file-image view."""
        return self.elf_type == "ET_DYN" or any(s.type in ("PT_INTERP", "PT_DYNAMIC") for s in self.segments)

    def berkeley(self) -> BerkeleySizes:
        """GNU size's Berkeley figures, with its rule (binutils size.c: code or read-only is text, else contents are
        data, else bss)."""
        text = data = bss = 0
        for section in self.sections:
            if not section.is_alloc:
                continue
            if section.is_code or not section.is_writable:
                text += section.size
            elif not section.is_nobits:
                data += section.size
            else:
                bss += section.size
        return BerkeleySizes(text, data, bss)


def demangle(mangled: str) -> str:
    """C++ names demangled by the C++ runtime (cxx_demangler.py); C names and names it rejects are returned unchanged."""
    if not mangled.startswith("_Z"):
        return mangled
    # GCC clone suffixes (.constprop.0, .isra.0, .part.0, .cold) are not part of the mangling grammar for all
    # demanglers: demangle the base name and keep the suffix visible.
    base, dot, suffix = mangled.partition(".")
    try:
        demangled = cxx_demangle(base)
    except InvalidName:
        return mangled
    return f"{demangled} [clone .{suffix}]" if dot else demangled


def read_elf(path: str | os.PathLike) -> ElfImage:
    """Read an ELF's headers and symbol table. Raises SizeToolError naming the file for anything unreadable."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise SizeToolError(f"{path}: no such file")
    if os.path.isdir(path):
        raise SizeToolError(f"{path}: is a directory, not an ELF file")
    try:
        file_size = os.path.getsize(path)
        with open(path, "rb") as stream:
            magic = stream.read(4)
            if file_size == 0:
                raise SizeToolError(f"{path}: empty file, not an ELF file")
            if magic != b"\x7fELF":
                raise SizeToolError(f"{path}: not an ELF file (bad magic bytes)")
            return _read_open_elf(path, stream, file_size)
    except SizeToolError:
        raise
    except (ELFError, ELFParseError, struct.error, ValueError, KeyError, IndexError, OverflowError) as error:
        raise SizeToolError(f"{path}: corrupt or truncated ELF ({_short(error)})") from None
    except OSError as error:
        raise SizeToolError(f"{path}: cannot read ({error.strerror or error})") from None


def _short(error: Exception) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return text[:160]


def _read_open_elf(path: str, stream, file_size: int) -> ElfImage:
    headers = read_headers(stream, file_size) or _headers_by_pyelftools(path, stream, file_size)
    header = headers.header
    segments = [
        Segment(
            type=str(seg["p_type"]),
            virtual_address=seg["p_vaddr"],
            physical_address=seg["p_paddr"],
            file_size=seg["p_filesz"],
            memory_size=seg["p_memsz"],
            flags=seg["p_flags"],
        )
        for seg in headers.segments
    ]

    sections: list[Section] = []
    symtab_index = None
    for index, header_fields in enumerate(headers.sections):
        section = Section(
            index=index,
            name=header_fields["name"],
            type=str(header_fields["sh_type"]),
            flags=header_fields["sh_flags"],
            address=header_fields["sh_addr"],
            load_address=_load_address(header_fields, segments),
            size=header_fields["sh_size"],
            offset=header_fields["sh_offset"],
            alignment=max(1, header_fields["sh_addralign"]),
        )
        if section.type != "SHT_NOBITS" and section.size and section.offset + section.size > file_size:
            raise SizeToolError(
                f"{path}: corrupt or truncated ELF (section {section.name or index} lies past the end of the file)"
            )
        sections.append(section)
        if section.type == "SHT_SYMTAB":
            symtab_index = index

    machine = header["e_machine"]
    arch = ARCH_NAMES.get(machine, str(machine).removeprefix("EM_").lower())
    has_dwarf = any(s.name in (".debug_info", ".zdebug_info") for s in sections)

    symbols: list[Symbol] = []
    mapping: list[tuple[int, str]] = []
    kconfig = 0
    if symtab_index is not None:
        symbols, mapping, kconfig = _read_symbols(headers, sections, symtab_index, arch, path, stream)

    return ElfImage(
        path=path,
        arch=arch,
        elf_class=headers.elf_class,
        little_endian=headers.little_endian,
        entry=header["e_entry"],
        e_flags=header["e_flags"],
        sections=sections,
        segments=segments,
        symbols=symbols,
        mapping_symbols=mapping,
        has_symtab=symtab_index is not None,
        has_dwarf=has_dwarf,
        elf_type=str(header["e_type"]),
        kconfig_symbols=kconfig,
    )


def _headers_by_pyelftools(path: str, stream, file_size: int) -> ElfHeaders:
    """The headers read by pyelftools, for any ELF elf_headers.py leaves to it; every refusal is worded here."""
    from elftools.elf.elffile import ELFFile

    elf = ELFFile(stream)
    header = elf.header
    if header["e_type"] == "ET_REL":
        raise SizeToolError(
            f"{path}: a relocatable object (.o), not a linked image: it has no program headers and no final addresses "
            "(give the linked ELF, e.g. firmware.elf or zephyr.elf)"
        )
    if header["e_shoff"] == 0 or elf.num_sections() == 0:
        raise SizeToolError(f"{path}: ELF has no section headers")
    if header["e_phnum"] == 0:
        raise SizeToolError(f"{path}: ELF has no program headers, so where its bytes are loaded is unknown (not a linked image?)")
    if header["e_shoff"] + header["e_shnum"] * header["e_shentsize"] > file_size:
        raise SizeToolError(f"{path}: corrupt or truncated ELF (section header table lies past the end of the file)")
    segments = [{field: seg[field] for field in ("p_type", "p_vaddr", "p_paddr", "p_filesz", "p_memsz", "p_flags")}
                for seg in elf.iter_segments()]
    sections = []
    for raw in elf.iter_sections():
        fields = {field: raw.header[field] for field in ("sh_type", "sh_flags", "sh_addr", "sh_size", "sh_offset",
                                                         "sh_addralign", "sh_link")}
        fields["name"] = raw.name
        sections.append(fields)
    return ElfHeaders(elf.elfclass, elf.little_endian, {key: header[key] for key in ("e_type", "e_machine", "e_entry",
                                                                                    "e_flags")}, segments, sections)


def _load_address(section_header, segments: list[Segment]) -> int:
    """Where a section's bytes sit in the stored image: the LMA of the PT_LOAD segment holding it."""
    address = section_header["sh_addr"]
    if not section_header["sh_flags"] & SHF_ALLOC or section_header["sh_type"] == "SHT_NOBITS":
        return address
    for seg in segments:
        if seg.type == "PT_LOAD" and seg.virtual_address <= address < seg.virtual_address + max(seg.memory_size, 1):
            return seg.physical_address + (address - seg.virtual_address)
    return address


def _read_symbols(headers: ElfHeaders, sections: list[Section], symtab_index: int, arch: str, path: str, stream):
    # Unpack the symbol table with struct in one pass: pyelftools builds a container per symbol, which is far too
    # slow for the 100k+ symbols of a large C++ ELF.
    symtab = sections[symtab_index]
    strtab_index = headers.sections[symtab_index]["sh_link"]
    if not 0 < strtab_index < len(sections):
        raise SizeToolError(f"{path}: corrupt ELF (symbol table links to string table {strtab_index}, which is not there)")
    strtab = sections[strtab_index]
    stream.seek(symtab.offset)
    table = stream.read(symtab.size)
    stream.seek(strtab.offset)
    strings = stream.read(strtab.size)

    endian = "<" if headers.little_endian else ">"
    if headers.elf_class == 32:
        layout = struct.Struct(endian + "IIIBBH")  # name, value, size, info, other, shndx
        order = (0, 1, 2, 3, 5)
    else:
        layout = struct.Struct(endian + "IBBHQQ")  # name, info, other, shndx, value, size
        order = (0, 4, 5, 1, 3)
    usable = len(table) - len(table) % layout.size

    is_arm = arch == "arm"
    symbols: list[Symbol] = []
    mapping: list[tuple[int, str]] = []
    current_file = ""
    kconfig = 0
    fields = operator.itemgetter(*order)
    for entry in layout.iter_unpack(table[:usable]):
        name_offset, value, size, info, shndx = fields(entry)
        kind = info & 0xF
        if kind == STT_FILE:
            end = strings.find(b"\0", name_offset) if name_offset < len(strings) else -1
            current_file = strings[name_offset:end].decode("utf-8", "replace") if end >= 0 else ""
            continue
        if shndx == SHN_ABS:
            kconfig += strings.startswith(b"CONFIG_", name_offset)
            continue
        if shndx in (SHN_UNDEF, SHN_COMMON) or shndx >= SHN_LORESERVE or shndx >= len(sections):
            continue
        if kind in (STT_SECTION, STT_FILE):
            continue
        if name_offset >= len(strings):
            raise SizeToolError(f"{path}: corrupt ELF (a symbol name lies outside the string table)")
        end = strings.find(b"\0", name_offset)
        name = strings[name_offset : end if end >= 0 else len(strings)].decode("utf-8", "replace")
        if name.startswith("$") and (len(name) == 2 or name[2] == "."):
            # ARM mapping symbols mark code ($a/$t) and data ($d) runs. Only those of sections in the image count:
            # a `$d` in .debug_frame (libgcc's Thumb-1 assembly has them) sits at an offset that reads as a code
            # address, and would end a function's instructions there.
            if sections[shndx].is_alloc:
                mapping.append((value, name[:2]))
            continue
        thumb = False
        if is_arm and kind == STT_FUNC and value & 1:
            value &= ~1
            thumb = True
        symbols.append(
            Symbol(
                mangled=name,
                address=value,
                size=size,
                kind=SYMBOL_KINDS.get(kind, "notype"),
                binding=BINDINGS.get(info >> 4, str(info >> 4)),
                section_index=shndx,
                thumb=thumb,
                file_symbol=current_file if info >> 4 == 0 else "",
            )
        )
    mapping.sort()
    return symbols, mapping, kconfig


def arm_short_enums(path: str | os.PathLike) -> bool:
    """Whether an Arm ELF was built with short enums (the build attribute Tag_ABI_enum_size = small, arm-none-eabi
    GCC's default on Cortex-M): it changes the size of TFLM's structs. False for other architectures and for an ELF
    without build attributes. Read by arm_attributes.py; what it leaves to pyelftools, by arm_short_enums_pyelftools."""
    from sizetool.inputs.arm_attributes import TAG_ABI_ENUM_SIZE, NotCommon, arm_attributes, named_section

    try:
        machine, kind, data, little_endian = named_section(path, ".ARM.attributes")
        if machine != "EM_ARM" or data is None:
            return False
        if kind != "SHT_ARM_ATTRIBUTES":
            raise NotCommon(str(kind))
        attributes = arm_attributes(data, little_endian)
    except OSError:
        return False
    except NotCommon:
        return arm_short_enums_pyelftools(path)
    return next((value == 1 for tag, value in attributes if tag == TAG_ABI_ENUM_SIZE), False)


def arm_short_enums_pyelftools(path: str | os.PathLike) -> bool:
    """arm_short_enums through pyelftools: the reference the own reader is tested against, and its fallback."""
    from elftools.elf.elffile import ELFFile

    try:
        with open(path, "rb") as stream:
            elf = ELFFile(stream)
            section = elf.get_section_by_name(".ARM.attributes") if elf["e_machine"] == "EM_ARM" else None
            if section is None:
                return False
            for subsection in section.iter_subsections():
                for subsubsection in subsection.iter_subsubsections():
                    for attribute in subsubsection.iter_attributes():
                        if attribute.tag == "TAG_ABI_ENUM_SIZE":
                            return attribute.value == 1
    except (OSError, ELFError, ELFParseError, struct.error, ValueError, KeyError):
        return False
    return False
