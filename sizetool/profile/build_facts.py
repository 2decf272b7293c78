"""What an ELF says about how it was built: compiler (.comment), flags (DWARF's DW_AT_producer), CPU and FPU (Arm
build attributes), for a target profile's `build` record."""

from __future__ import annotations

import struct

_MACHINES = {"EM_RISCV": "riscv", "EM_XTENSA": "xtensa", "EM_X86_64": "x86-64", "EM_ARM": "arm", "EM_AARCH64": "aarch64"}


def compiler_of(path: str) -> str:
    """The compilers named in .comment, most frequent first, joined with '; ' ("GCC: (15:12.2.rel1-1) 12.2.1 ...")."""
    from sizetool.inputs.arm_attributes import NotCommon, named_section

    try:
        _machine, _kind, data, _little_endian = named_section(path, ".comment")
    except OSError:
        return ""
    except NotCommon:
        return compiler_of_pyelftools(path)
    return _compilers(data or b"")


def compiler_of_pyelftools(path: str) -> str:
    """compiler_of through pyelftools: the reference the own reader is tested against, and its fallback."""
    from elftools.common.exceptions import ELFError, ELFParseError
    from elftools.elf.elffile import ELFFile

    try:
        with open(path, "rb") as stream:
            elf = ELFFile(stream)
            section = elf.get_section_by_name(".comment")
            if section is None:
                return ""
            data = section.data()
    except (OSError, ELFError, ELFParseError, struct.error, ValueError):
        return ""
    return _compilers(data)


def _compilers(data: bytes) -> str:
    counts: dict[str, int] = {}
    for item in data.split(b"\0"):
        text = item.decode("utf-8", "replace").strip()
        if text:
            counts[text] = counts.get(text, 0) + 1
    return "; ".join(sorted(counts, key=lambda text: (-counts[text], text)))


def producer_of(path: str, prefer: str = "") -> str:
    """DW_AT_producer of the first compile unit whose name contains `prefer` (without `prefer`, of the first unit):
    the compiler and its flags, when the build has DWARF and records them. When no unit is `prefer`'s, "": the units
    that have DWARF then are another part's (TFLM built without -g beside a C library built with it: the library's
    assembler or compiler flags would be named as the build's).

    Read by the project's own decoder (inputs/dwarf_unit_scan.py); an ELF with a construct it leaves to pyelftools is
    read by producer_of_pyelftools, which gives the same answer."""
    from sizetool.inputs.dwarf_format import CorruptDwarf, debug_sections
    from sizetool.inputs.dwarf_type_scan import NotHandled
    from sizetool.inputs.dwarf_unit_scan import UnitScan

    try:
        with open(path, "rb") as stream:
            sections, little_endian = debug_sections(stream)
        if ".debug_info" not in sections:
            return producer_of_pyelftools(path, prefer)  # (no DWARF: "" either way, unless it is compressed oddly)
        for unit_name, producer in UnitScan(sections, little_endian).producers():
            if producer is not None and (not prefer or prefer in unit_name):
                return producer
        return ""
    except OSError:
        return ""
    except (NotHandled, CorruptDwarf, IndexError, ValueError, KeyError):
        return producer_of_pyelftools(path, prefer)


def producer_of_pyelftools(path: str, prefer: str = "") -> str:
    """producer_of through pyelftools' generic DIE parser: the reference the fast reader is tested against, and its
    fallback. Linked values are final: relocations (--emit-relocs) are not applied again (pyelftools fails on them,
    and the answer was "" on such a build before the own decoder read it)."""
    from elftools.common.exceptions import DWARFError, ELFError, ELFParseError
    from elftools.elf.elffile import ELFFile

    try:
        with open(path, "rb") as stream:
            elf = ELFFile(stream)
            if not elf.has_dwarf_info():
                return ""
            dwarf = elf.get_dwarf_info(relocate_dwarf_sections=False, follow_links=False)
            for unit in dwarf.iter_CUs():
                top = unit.get_top_DIE()
                producer = top.attributes.get("DW_AT_producer")
                if producer is None:
                    continue
                text = producer.value.decode("utf-8", "replace") if isinstance(producer.value, bytes) else str(
                    producer.value)
                name = top.attributes.get("DW_AT_name")
                unit_name = name.value.decode("utf-8", "replace") if name and isinstance(name.value, bytes) else ""
                if not prefer or prefer in unit_name:
                    return text
            return ""
    except (OSError, ELFError, ELFParseError, DWARFError, struct.error, ValueError, KeyError, AttributeError):
        return ""


def cpu_and_fpu(path: str) -> tuple[str, str]:
    """(CPU, FPU) from the Arm build attributes (Tag_CPU_name, Tag_FP_arch); other architectures give their
    machine name and "". Read by inputs/arm_attributes.py; what it leaves to pyelftools, by cpu_and_fpu_pyelftools."""
    from sizetool.inputs.arm_attributes import (
        TAG_CPU_NAME, TAG_FP_ARCH, TAG_MVE_ARCH, NotCommon, arm_attributes, named_section,
    )

    try:
        machine, kind, data, little_endian = named_section(path, ".ARM.attributes")
        if machine != "EM_ARM":
            return _MACHINES.get(machine, str(machine).lower()), ""
        if data is None:
            return "arm", ""
        if kind != "SHT_ARM_ATTRIBUTES":
            raise NotCommon(kind)
        attributes = arm_attributes(data, little_endian)
    except OSError:
        return "", ""
    except NotCommon:
        return cpu_and_fpu_pyelftools(path)
    cpu, fpu = "arm", ""
    for tag, value in attributes:
        if tag == TAG_CPU_NAME:
            cpu = str(value).lower()
        elif tag == TAG_FP_ARCH and value:
            fpu = _FP_ARCH.get(value, f"FP arch {value}")
        elif tag == TAG_MVE_ARCH and value:
            fpu = (fpu + " + " if fpu else "") + ("MVE-I" if value == 1 else "MVE-F")
    return cpu, fpu


def cpu_and_fpu_pyelftools(path: str) -> tuple[str, str]:
    """cpu_and_fpu through pyelftools: the reference the own reader is tested against, and its fallback."""
    from elftools.common.exceptions import ELFError, ELFParseError
    from elftools.elf.elffile import ELFFile

    try:
        with open(path, "rb") as stream:
            elf = ELFFile(stream)
            machine = elf["e_machine"]
            if machine != "EM_ARM":
                return _MACHINES.get(machine, str(machine).lower()), ""
            section = elf.get_section_by_name(".ARM.attributes")
            if section is None:
                return "arm", ""
            cpu, fpu = "arm", ""
            for subsection in section.iter_subsections():
                for subsubsection in subsection.iter_subsubsections():
                    for attribute in subsubsection.iter_attributes():
                        if attribute.tag == "TAG_CPU_NAME":
                            cpu = str(attribute.value).lower()
                        elif attribute.tag == "TAG_FP_ARCH" and attribute.value:
                            fpu = _FP_ARCH.get(attribute.value, f"FP arch {attribute.value}")
                        elif attribute.tag == "TAG_MVE_ARCH" and attribute.value:
                            fpu = (fpu + " + " if fpu else "") + ("MVE-I" if attribute.value == 1 else "MVE-F")
            return cpu, fpu
    except (OSError, ELFError, ELFParseError, struct.error, ValueError, KeyError, AttributeError):
        return "", ""


# Tag_FP_arch values (ARM IHI 0045, "Addenda to the ABI for the Arm architecture").
_FP_ARCH = {1: "VFPv1", 2: "VFPv2", 3: "VFPv3", 4: "VFPv3-D16", 5: "VFPv4", 6: "VFPv4-D16", 7: "FP-ARMv8",
            8: "FP-ARMv8-D16"}
