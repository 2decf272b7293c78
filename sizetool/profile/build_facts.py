"""What an ELF says about how it was built: compiler (.comment), flags (DWARF's DW_AT_producer), CPU and FPU (Arm
build attributes), for a target profile's `build` record."""

from __future__ import annotations

import struct

from elftools.common.exceptions import DWARFError, ELFError, ELFParseError
from elftools.elf.elffile import ELFFile

_MACHINES = {"EM_RISCV": "riscv", "EM_XTENSA": "xtensa", "EM_X86_64": "x86-64", "EM_ARM": "arm", "EM_AARCH64": "aarch64"}


def compiler_of(path: str) -> str:
    """The compilers named in .comment, most frequent first, joined with '; ' ("GCC: (15:12.2.rel1-1) 12.2.1 ...")."""
    try:
        with open(path, "rb") as stream:
            elf = ELFFile(stream)
            section = elf.get_section_by_name(".comment")
            if section is None:
                return ""
            data = section.data()
    except (OSError, ELFError, ELFParseError, struct.error, ValueError):
        return ""
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
    assembler or compiler flags would be named as the build's)."""
    try:
        with open(path, "rb") as stream:
            elf = ELFFile(stream)
            if not elf.has_dwarf_info():
                return ""
            for unit in elf.get_dwarf_info().iter_CUs():
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
    machine name and ""."""
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
