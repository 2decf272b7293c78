"""Struct sizes read from one build of TFLM (its firmware's DWARF), standing in for kernel_memory's tables.

kernel_memory holds sizeof() of the structs the arena rules use as TFLM 90b983c has them. Another revision (a
distribution's sync, a vendor's fork) may add or drop fields: then the arena is exact only with that build's own
sizes. BuildSizes carries them (the names are kernel_memory's); whatever a build does not tell stays the default.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tflm_facts.kernel_memory import PARAM_STRUCTS, REDUCE_ACCUMULATOR_ONLY, STRUCTS, op_data

# STRUCTS entries that are C types, not structs a build describes
NOT_STRUCTS = ("size_t", "void*")
# A struct member only some revisions have -> the kernel_memory rule it tells (the member holds the scratch buffer
# index of the one request that revision's kernel makes), and how the answer names it
MEMBER_RULES: dict[tuple[str, str], tuple[str, str]] = {
    ("OpDataReduce", "temp_buffer_idx"): (REDUCE_ACCUMULATOR_ONLY, "MEAN/SUM scratch: the accumulator only"),
}
MEMBER_STRUCTS = frozenset(struct for struct, _member in MEMBER_RULES)


@dataclass(frozen=True)
class BuildSizes:
    structs: dict[str, int] = field(default_factory=dict)  # STRUCTS name -> sizeof
    op_data: dict[str, int] = field(default_factory=dict)  # op -> sizeof its kernel's OpData (the kernel set's)
    params: dict[str, int] = field(default_factory=dict)  # PARAM_STRUCTS name -> sizeof
    enum_bytes: int | None = None  # sizeof an enum of small values (TfLiteType): 1 with short enums
    source: str = ""  # where they were read, e.g. "firmware.elf DWARF"
    rules: frozenset[str] = frozenset()  # kernel_memory.REVISION_RULES the build's structs tell (MEMBER_RULES)

    def struct(self, name: str, abi: str) -> tuple[int, int]:
        """(sizeof, alignof) of a STRUCTS entry: the build's size, kernel_memory's alignment."""
        size, align = STRUCTS[name][abi]
        return self.structs.get(name, size), align

    def param(self, name: str, abi: str) -> tuple[int, int]:
        size, align = PARAM_STRUCTS[name][abi]
        return self.params.get(name, size), align


def default_sizes(abi: str, kernels: str, ops: list[str]) -> BuildSizes:
    """kernel_memory's own sizes as a BuildSizes (for comparing a build's with)."""
    structs = {name: sizes[abi][0] for name, sizes in STRUCTS.items() if name not in NOT_STRUCTS}
    data = {op: op_data(op, kernels).bytes[abi] for op in ops if op_data(op, kernels) is not None}
    return BuildSizes(structs, data, {name: sizes[abi][0] for name, sizes in PARAM_STRUCTS.items()},
                      1 if abi == "eabi" else 4, "tflm_facts")


def differences(sizes: BuildSizes, abi: str, kernels: str) -> list[str]:
    """'TfLiteTensor 32 -> 36' for each size the build tells that differs from kernel_memory's (sorted)."""
    defaults = default_sizes(abi, kernels, sorted(sizes.op_data))
    out = []
    for label, ours, theirs in (("", sizes.structs, defaults.structs), ("OpData ", sizes.op_data, defaults.op_data),
                                ("", sizes.params, defaults.params)):
        out += [f"{label}{name} {theirs[name]} -> {size}" for name, size in sorted(ours.items())
                if name in theirs and theirs[name] != size]
    if sizes.enum_bytes is not None and sizes.enum_bytes != defaults.enum_bytes:
        out.append(f"enum {defaults.enum_bytes} -> {sizes.enum_bytes}")
    out += [label for rule, label in sorted(MEMBER_RULES.values()) if rule in sizes.rules]
    return out
