"""The arena facts a firmware's DWARF tells: sizeof the structs TFLM's allocator and kernels place in the arena, as the
revision that was linked has them (size-report fit's arena, when the ELF has -g).

From the types sizetool.inputs.dwarf_structs reads:
- the runtime structs of tflm_facts.kernel_memory.STRUCTS: TfLiteTensor, TfLiteEvalTensor, TfLiteAffineQuantization,
  TfLiteIntArray (C, global) and the allocator's and interpreter's classes in namespace tflite (MicroAllocator,
  SingleArenaBufferAllocator, GreedyMemoryPlanner, tflite::internal::NodeAndRegistration, ...);
- each kernel's OpData (kernel_memory's OP_DATA tables name the struct and the source defining it): a struct defined
  in a kernel's .cc (often `tflite::(anonymous)::OpData`) is looked up in that kernel's compile unit, told by the
  unit's name ending in kernels/<source> (.cc or .cpp, as distributions rename them); one defined in a header is
  `tflite::<name>`, preferably in the kernel's own unit;
- the builtin params typedefs (TfLiteConvParams, ...) and the size of TfLiteType, the enum size (1 with short enums);
- a member only some revisions' structs have, naming how that revision's kernel allocates (build_sizes.MEMBER_RULES:
  OpDataReduce.temp_buffer_idx means MEAN/SUM take only the accumulator scratch buffer), or where the allocator keeps
  its planner (allocator_generations.TELLING_MEMBERS: MicroAllocator.memory_planner_, from 2021-09-09).
Whatever the DWARF does not describe (a kernel not linked, a build without -g) stays kernel_memory's default.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from sizetool.inputs.dwarf_structs import DwarfType
from tflm_facts.allocator_generations import (STAND_INS, TELLING_CLASSES, TELLING_MEMBERS, Generation,
                                              from_struct_names)
from tflm_facts.build_sizes import MEMBER_RULES, MEMBER_STRUCTS, NOT_STRUCTS, BuildSizes
from tflm_facts.kernel_memory import KERNEL_OP_DATA, PARAM_STRUCTS, REFERENCE_OP_DATA, STRUCTS, op_data

ENUM = "TfLiteType"
# The structs whose data members are read: those whose members tell a kernel rule or an allocator generation
MEMBERS_READ = MEMBER_STRUCTS | frozenset(TELLING_MEMBERS)


@dataclass(frozen=True)
class DwarfFacts:
    sizes: BuildSizes
    from_elf: tuple[str, ...]  # the facts the DWARF gave ("TfLiteTensor", "OpData CONV_2D")
    defaults: tuple[str, ...]  # the facts the estimate uses that it did not give
    generation: Generation | None = None  # the allocator generation its classes tell (None: it names none)


def _stem(path: str) -> str:
    """'…/kernels/cmsis_nn/conv.cc' -> '…/kernels/cmsis_nn/conv' (unit names and kernel sources compared by stem)."""
    text = path.replace("\\", "/")
    return text[: -len(PurePosixPath(text).suffix)] if PurePosixPath(text).suffix else text


def _folded(source: str, units: set[str]) -> bool:
    """An optimised kernel's source ('cmsis_nn/conv.cc') in a build with no kernels/cmsis_nn/ unit at all: Edge
    Impulse's SDK, which builds its CMSIS-NN kernels from kernels/conv.cc (#if)."""
    if "/" not in source:
        return False
    kernel_dir = "kernels/" + source.rsplit("/", 1)[0] + "/"
    return not any(kernel_dir in unit.replace("\\", "/") for unit in units)


def _units_of(source: str, units: set[str]) -> set[str]:
    wanted = "kernels/" + _stem(source)
    found = {unit for unit in units if _stem(unit).endswith("/" + wanted) or _stem(unit) == wanted}
    if not found and _folded(source, units):
        return _units_of(source.rsplit("/", 1)[1], units)
    return found


def _runtime_struct(types: list[DwarfType], name: str) -> int | None:
    for entry in types:
        parts = entry.name.split("::")
        if parts[-1] == name and entry.kind != "enum" and (len(parts) == 1 or parts[0] == "tflite"):
            return entry.byte_size
    return None


def _kernel_struct(types: list[DwarfType], units: set[str], source: str, struct: str,
                   older: bool = False) -> int | None:
    """The size of a kernel's OpData struct in its own unit; older: the build is of a generation before 2022-07
    (SimpleMemoryAllocator), whose kernels define it in their .cc and call it plain OpData."""
    own = _units_of(source, units)
    if source.endswith(".h"):  # tflite::<struct>, in the kernel's own unit first
        candidates = [t for t in types if t.name == f"tflite::{struct}" and t.kind == "struct"]
        candidates.sort(key=lambda t: t.unit not in own)
        # an older revision defines it in the kernel's .cc (pad.cc's anonymous OpData before pad.h existed): that one,
        # not another kernel's tflite::<struct> of the same name
        nested = [t for t in types if t.unit in own and t.kind == "struct" and t.name.endswith("::" + struct)]
        if older and nested and not (candidates and candidates[0].unit in own):
            candidates = nested
    else:  # defined in the kernel's .cc: any namespace of that unit
        candidates = [t for t in types if t.unit in own and t.kind == "struct"
                      and (t.name == struct or t.name.endswith("::" + struct))]
    if older and not candidates and struct != "OpData":  # older revisions call it plain OpData in the kernel's .cc (mul.cc's
        # tflite::ops::micro::mul::OpData before OpDataMul): the own unit's one
        candidates = [t for t in types if t.unit in own and t.kind == "struct" and t.name.endswith("::OpData")]
    return candidates[0].byte_size if candidates else None


def looked_up_names() -> frozenset[str]:
    """The last name part of every type dwarf_facts can look up, whatever the kernel set and ops: the runtime structs,
    every kernel set's OpData structs, the builtin params typedefs, the structs whose members tell a rule, the enum.
    A type list kept to these names (dwarf_structs.read_dwarf_types' names) gives the same facts as the whole list."""
    wanted = {name for name in STRUCTS if name not in NOT_STRUCTS} | set(PARAM_STRUCTS) | {ENUM}
    wanted |= {struct for struct, _member in MEMBER_RULES} | TELLING_CLASSES | set(STAND_INS)
    for table in (REFERENCE_OP_DATA, *KERNEL_OP_DATA.values()):
        wanted |= {fact.struct.rsplit("::", 1)[-1] for fact in table.values() if fact is not None}
    return frozenset(wanted)


def dwarf_facts(types: list[DwarfType], kernels: str, ops: list[str], source: str) -> DwarfFacts:
    """The sizes the DWARF gives for a kernel set and the models' ops (builtin names), and which stay defaults."""
    units = {t.unit for t in types}
    structs: dict[str, int] = {}
    data: dict[str, int] = {}
    params: dict[str, int] = {}
    from_elf: list[str] = []
    defaults: list[str] = []
    classes = {entry.name.split("::")[-1] for entry in types if entry.kind in ("struct", "typedef")
               and (entry.name.startswith("tflite::") or "::" not in entry.name)}
    members = {name: entry.members for name in TELLING_MEMBERS for entry in types
               if entry.name == f"tflite::{name}" and entry.kind == "struct" and entry.members}
    generation = from_struct_names(classes, members)
    wanted_structs = [name for name in STRUCTS if name not in NOT_STRUCTS]
    if generation is not None:  # an older generation's allocator stands in for the current one's
        for old, new in STAND_INS.items():
            if old in generation.creation and new not in generation.creation:
                wanted_structs[wanted_structs.index(new)] = old
        wanted_structs = [name for name in wanted_structs if name in generation.creation
                          or name not in ("GreedyMemoryPlanner", "MicroBuiltinDataAllocator", "SubgraphAllocations")
                          or name == "MicroBuiltinDataAllocator" and generation.arena_builtin_allocator
                          or name == "SubgraphAllocations" and generation.subgraph_allocations]
    for name in wanted_structs:
        size = _runtime_struct(types, name)
        (from_elf if size is not None else defaults).append(name)
        if size is not None:
            structs[name] = size
    table = dict(REFERENCE_OP_DATA, **KERNEL_OP_DATA.get(kernels, {}))
    older = generation is not None and "SimpleMemoryAllocator" in generation.creation
    for op in sorted(set(ops)):
        fact = op_data(op, kernels) if op in table else None
        if fact is None:
            continue
        size = _kernel_struct(types, units, fact.source, fact.struct, older)
        reference = REFERENCE_OP_DATA.get(op)
        if size is None and reference is not None and reference is not fact and _folded(fact.source, units):
            # a kernel set built into the reference kernel's unit (Edge Impulse's softmax.cc) that keeps the
            # reference OpData
            size = _kernel_struct(types, units, reference.source, reference.struct, older)
        (from_elf if size is not None else defaults).append(f"OpData {op}")
        if size is not None:
            data[op] = size
    wanted = {name for name in PARAM_STRUCTS}
    for entry in types:
        if entry.kind == "typedef" and entry.name in wanted and entry.name not in params:
            params[entry.name] = entry.byte_size
    if params:
        from_elf.append(f"{len(params)} builtin params structs")
    rules = set()
    for (struct, member), (rule, label) in MEMBER_RULES.items():
        holders = [t for t in types if t.kind == "struct" and t.name == f"tflite::{struct}"]
        if holders and member in holders[0].members:
            rules.add(rule)
            from_elf.append(f"{label} ({struct}.{member})")
    enum = next((t.byte_size for t in types if t.name == ENUM and t.kind in ("enum", "typedef")), None)
    if enum is not None:
        from_elf.append(f"enum size ({ENUM})")
    return DwarfFacts(BuildSizes(structs, data, params, enum, source, frozenset(rules)), tuple(from_elf),
                      tuple(defaults), generation)
