"""Find the tensor arena a firmware links: the static array whose address is passed to the interpreter.

TFLM apps construct `tflite::MicroInterpreter interpreter(model, resolver, tensor_arena, kTensorArenaSize)`. The
constructor is found by its demangled name (`...Interpreter::...Interpreter(` with an `unsigned char*` parameter:
the arena; the parameter after it is the arena's size). Its callers come from the reference graph
(reference_graph.py); each is decoded again with capstone, following the registers and stack slots that receive
constant addresses and numbers (ARM/Thumb: literal-pool loads, MOVW/MOVT, ADR, MOV and ADD immediates, stores to the
stack; RISC-V: LUI/AUIPC + ADDI, LI, MV; x86-64: LEA rip-relative, MOV immediates), up to the call. The argument
registers of the calling convention (AAPCS r0-r3 then the stack, RISC-V a0-a7, System V rdi, rsi, rdx, rcx, r8, r9)
then hold the interpreter object, the model, the resolver, the arena and its size. The arena is the RAM object
(`.bss`, `.noinit`) holding the address passed; the size passed is kept too when it was a constant.

When no constructor call gives an address (the constructor inlined, the arena allocated at run time, an unsupported
architecture) the arena is the largest RAM object named like `*tensor_arena*`, else like `*arena*`. `--arena-symbol
NAME` names it outright. With several interpreters, a model is matched to its own when the model's bytes are linked
into the image and the code building that interpreter refers to them; otherwise the largest arena answers and a
note says which others were found.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field

from sizetool.errors import SizeToolError
from sizetool.inputs.elf_reader import ElfImage, Section, Symbol
from sizetool.code_graph.disassembly import global_pointer
from sizetool.code_graph.reference_graph import ReferenceGraph, function_code_runs

FOUND_BY_CONSTRUCTOR = "interpreter"  # the address passed to the interpreter's constructor
FOUND_BY_NAME = "name"  # a RAM object named like a tensor arena
FOUND_BY_OPTION = "--arena-symbol"
FOUND_BY_HEAP = "heap"  # a pointer set at run time (an allocation) and passed to the interpreter, or named like one

_CONSTRUCTOR = re.compile(r"(?:^|::)(\w*Interpreter)::\1\((.*)\)(?: \[clone [^\]]*\])*$")
_ARENA_NAMES = (re.compile(r"tensor_arena", re.IGNORECASE), re.compile(r"arena", re.IGNORECASE))


@dataclass(frozen=True)
class LinkedArena:
    """A tensor arena the firmware links."""

    symbol: str  # demangled name of the RAM object
    address: int
    size: int  # the object's bytes
    section: str
    found_by: str  # FOUND_BY_CONSTRUCTOR, FOUND_BY_NAME or FOUND_BY_OPTION
    passed_size: int | None = None  # the size given to the interpreter, when it was a constant
    caller: str = ""  # the function constructing the interpreter
    call_address: int = 0
    references: tuple[int, ...] = ()  # constant addresses the caller loads for this construction (model matching)
    # A heap arena (found_by FOUND_BY_HEAP): `symbol`/`address` are the pointer variable holding it ("" / 0 when the
    # allocation's result goes straight to the interpreter), `size` the size the firmware states (0: none found)
    allocation: str = ""  # where it is allocated: "ei_aligned_calloc(16, 20480) in AllocateArena()"
    size_from: str = ""  # where the stated size was read: "the allocation's argument", "kTensorArenaSize (DWARF)"

    @property
    def on_heap(self) -> bool:
        return self.found_by == FOUND_BY_HEAP

    @property
    def size_known(self) -> bool:
        """False for a heap arena whose size the firmware does not state (then nothing is compared with it)."""
        return self.size > 0 or self.passed_size is not None

    @property
    def usable_bytes(self) -> int:
        """What the interpreter may use: the size passed to it when known (never more than the array), else the
        array."""
        if self.on_heap and self.size == 0:
            return self.passed_size or 0
        return min(self.size, self.passed_size) if self.passed_size is not None else self.size


def find_arenas(image: ElfImage, graph: ReferenceGraph | None) -> list[LinkedArena]:
    """Every arena passed to an interpreter constructor, in call order; else the arena-named RAM objects (largest
    first, at most the ones of the most specific name pattern)."""
    found = _passed_to_constructors(image, graph) if graph is not None and graph.decoded else []
    return found or _by_name(image)


def arena_by_symbol(image: ElfImage, name: str) -> LinkedArena:
    """The RAM object named `name` (demangled or mangled; a unique `::name` suffix also matches)."""
    objects = _ram_objects(image)
    exact = [s for s, section in objects if name in (s.name, s.mangled)]
    matches = exact or [s for s, section in objects if s.name.endswith("::" + name)]
    if not matches:
        raise SizeToolError(f"{image.path}: no RAM object named {name!r} (--arena-symbol; give the array's name as "
                            "nm -C prints it)")
    by_address = {s.address: s for s in matches}
    if len(by_address) > 1:
        raise SizeToolError(f"{image.path}: --arena-symbol {name!r} names {len(by_address)} objects: "
                            + ", ".join(sorted(s.name for s in by_address.values())))
    symbol = matches[0]
    section = next(sec for s, sec in objects if s is symbol)
    return LinkedArena(symbol.name, symbol.address, symbol.size, section.name, FOUND_BY_OPTION)


def model_location(image: ElfImage, model_bytes: bytes) -> tuple[int, int] | None:
    """(address, size) of a model's bytes linked into the image (a `g_model[]` array), if they are."""
    if len(model_bytes) < 16:
        return None
    for section in image.sections:
        if not section.is_alloc or section.is_nobits or section.size < len(model_bytes):
            continue
        offset = image.section_data(section).find(model_bytes)
        if offset >= 0:
            return section.address + offset, len(model_bytes)
    return None


def arena_for_models(arenas: list[LinkedArena], locations: list[tuple[int, int]]) -> tuple[LinkedArena | None,
                                                                                             list[str]]:
    """The arena the models' interpreter uses, and notes on the choice. An interpreter whose construction refers to
    a linked model wins; else the only one; else the largest, with a note naming the others."""
    if not arenas:
        return None, []
    if len(arenas) == 1:
        return arenas[0], []
    matched = [a for a in arenas
               if any(start <= reference < start + size for reference in a.references for start, size in locations)]
    if len({a.address for a in matched}) == 1:
        return matched[0], [f"{len(arenas)} interpreters: the one built in {matched[0].caller} refers to the "
                            "model's data"]
    pool = matched or arenas
    chosen = max(pool, key=lambda a: (a.usable_bytes, a.symbol))
    others = sorted({a.symbol for a in arenas if a.address != chosen.address})
    return chosen, [f"{len(arenas)} interpreters, each with its own arena; compared with the largest, {chosen.symbol}"
                    f" (others: {', '.join(others)}); name one with --arena-symbol"]


# --- constructor calls ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Constructor:
    addresses: frozenset[int]
    arena_argument: int  # argument index counting `this` as 0
    nodes: frozenset[int]


def _constructors(image: ElfImage, graph: ReferenceGraph) -> list[_Constructor]:
    """The interpreter constructors taking an arena (`unsigned char*`), grouped by the arena's argument position."""
    by_argument: dict[int, set[int]] = {}
    for index, node in enumerate(graph.nodes):
        if node.kind != "func":
            continue
        for name in (node.name, *node.aliases):
            match = _CONSTRUCTOR.search(name)
            if not match:
                continue
            parameters = _split_parameters(match.group(2))
            arena = next((i for i, p in enumerate(parameters) if p.replace(" ", "") in ("unsignedchar*", "uint8_t*")),
                         None)
            if arena is not None:
                by_argument.setdefault(arena + 1, set()).add(index)  # argument 0 is `this`
    return [_Constructor(frozenset(graph.nodes[n].address for n in nodes), argument, frozenset(nodes))
            for argument, nodes in sorted(by_argument.items())]


def _split_parameters(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "<(":
            depth += 1
        elif char in ">)":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def _passed_to_constructors(image: ElfImage, graph: ReferenceGraph) -> list[LinkedArena]:
    tracker = _TRACKERS.get(image.arch)
    if tracker is None:
        return []
    objects = _ram_objects(image)
    starts = sorted((s.address, s.address + s.size, s, section) for s, section in objects)
    arenas = []
    for constructor in _constructors(image, graph):
        callers = sorted({index for index, targets in enumerate(graph.edges)
                          if graph.nodes[index].kind == "func" and index not in constructor.nodes
                          and any(t in constructor.nodes for t in targets)})
        for caller in callers:
            node = graph.nodes[caller]
            for call in tracker(image, function_code_runs(image, node), constructor.addresses):
                arena_address = call.arguments.get(constructor.arena_argument)
                size = call.arguments.get(constructor.arena_argument + 1)
                holder = _holding(starts, arena_address)
                if holder is not None and holder[0].size <= image.elf_class // 8:
                    holder = None  # the address of a pointer: not an arena
                if holder is None:
                    heap = _heap_construction(image, starts, call.sources.get(constructor.arena_argument))
                    if heap is not None:
                        pointer, allocation = heap
                        arenas.append(LinkedArena(pointer.name if pointer else "", pointer.address if pointer else 0,
                                                  0, "heap", FOUND_BY_HEAP, size, node.name, call.address,
                                                  tuple(sorted(call.loaded)), allocation))
                    continue
                symbol, section = holder
                arenas.append(LinkedArena(symbol.name, symbol.address, symbol.size, section.name,
                                          FOUND_BY_CONSTRUCTOR, size, node.name, call.address,
                                          tuple(sorted(call.loaded))))
    arenas.sort(key=lambda a: a.call_address)
    return arenas


def _heap_construction(image: ElfImage, starts, source) -> tuple[Symbol | None, str] | None:
    """What a non-constant arena argument came from: a pointer variable it was loaded from (its symbol), or an
    allocation call whose result is passed on directly ((None, "name(...)"))."""
    if source is None:
        return None
    if source[0] == "load":
        holder = _holding(starts, source[1])
        if holder is not None and holder[0].size <= image.elf_class // 8:
            return holder[0], ""
        return None
    if source[0] == "call":
        return None, describe_call(image, source[1], source[2])
    return None


def describe_call(image: ElfImage, target: int | None, arguments: dict[int, int], count: int = 2) -> str:
    """"malloc(20480)", "an indirect call (16, 20480)": a call with its first `count` arguments (? where not a
    constant)."""
    name = "an indirect call "
    if target is not None:
        symbol = next((s for s in image.symbols if s.kind == "func" and s.address == target), None)
        name = symbol.name.split("(")[0] if symbol is not None else f"0x{target:x}"
    return f"{name}({', '.join(str(arguments[i]) if i in arguments else '?' for i in range(count))})"


def _holding(starts, address: int | None) -> tuple[Symbol, Section] | None:
    if address is None:
        return None
    for start, end, symbol, section in starts:
        if start <= address < end:
            return symbol, section
    return None


def arena_pointers(image: ElfImage) -> list[Symbol]:
    """Pointer-sized RAM objects named like a tensor arena (`uint8_t* tensor_arena`): where a heap arena is kept."""
    pointer = image.elf_class // 8
    objects = [s for s, _ in _ram_objects(image) if s.size == pointer and not s.name.startswith("guard variable")]
    for pattern in _ARENA_NAMES:
        named = {s.address: s for s in objects if pattern.search(s.name)}
        if named:
            return sorted(named.values(), key=lambda s: (s.name, s.address))
    return []


def _ram_objects(image: ElfImage) -> list[tuple[Symbol, Section]]:
    """Sized data objects in writable sections without contents (.bss, .noinit) or, on hosted builds, .data."""
    sections = {s.index: s for s in image.sections if s.is_alloc and s.is_writable and not s.is_code}
    return [(s, sections[s.section_index]) for s in image.symbols
            if s.size > 0 and s.kind in ("object", "notype") and s.section_index in sections]


def _by_name(image: ElfImage) -> list[LinkedArena]:
    objects = [(s, section) for s, section in _ram_objects(image) if section.is_nobits]
    pointer = image.elf_class // 8
    for pattern in _ARENA_NAMES:
        named = [(s, section) for s, section in objects if pattern.search(s.name) and s.size > pointer
                 and not s.name.startswith("guard variable")]
        if named:
            unique = {s.address: (s, section) for s, section in named}
            ordered = sorted(unique.values(), key=lambda item: (-item[0].size, item[0].name))
            return [LinkedArena(s.name, s.address, s.size, section.name, FOUND_BY_NAME) for s, section in ordered]
    return []


# --- register tracking ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Call:
    address: int
    arguments: dict[int, int]  # argument index -> constant value, where known
    loaded: frozenset[int]  # constant addresses loaded since the previous call of the constructor
    # argument index -> where a non-constant value came from: ("load", address) read from a constant address, or
    # ("call", target or None, {argument: constant}) the result of a call
    sources: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Store:
    """A register written to a constant address, with where its value came from (a `_Call.sources` entry)."""

    address: int
    source: tuple


def _track_arm(image: ElfImage, runs, targets: frozenset[int], stores: list[Store] | None = None) -> list[_Call]:
    import capstone
    from capstone import arm

    engine = capstone.Cs(capstone.CS_ARCH_ARM, capstone.CS_MODE_THUMB | capstone.CS_MODE_MCLASS)
    engine.detail = True
    engine.skipdata = True
    arm_engine = capstone.Cs(capstone.CS_ARCH_ARM, capstone.CS_MODE_ARM)
    arm_engine.detail = True
    arm_engine.skipdata = True
    word = struct.Struct("<I" if image.little_endian else ">I")
    argument_registers = [arm.ARM_REG_R0, arm.ARM_REG_R1, arm.ARM_REG_R2, arm.ARM_REG_R3]
    clobbered = argument_registers + [arm.ARM_REG_R12, arm.ARM_REG_LR]
    calls = []
    known: dict[int, int] = {}
    sources: dict[int, tuple] = {}
    stack: dict[int, int] = {}
    loaded: set[int] = set()
    for run in runs:
        thumb = run.mode == "thumb"
        for insn in run.instructions(engine if thumb else arm_engine):
            if insn.id == 0:
                continue
            operands = insn.operands
            mnemonic = insn.mnemonic.split(".")[0]
            pc = (insn.address + 4) & ~3 if thumb else insn.address + 8
            value: int | None = None
            destination = operands[0].reg if operands and operands[0].type == arm.ARM_OP_REG else None
            if mnemonic in ("bl", "blx") and operands and operands[0].type in (arm.ARM_OP_IMM, arm.ARM_OP_REG):
                target = operands[0].imm & 0xFFFFFFFE if operands[0].type == arm.ARM_OP_IMM else None
                arguments = {i: known[r] for i, r in enumerate(argument_registers) if r in known}
                if target is not None and target in targets:
                    arguments.update({4 + offset // 4: v for offset, v in stack.items() if offset % 4 == 0})
                    from_sources = {i: sources[r] for i, r in enumerate(argument_registers) if r in sources}
                    calls.append(_Call(insn.address, arguments, frozenset(loaded), from_sources))
                    loaded = set()
                for register in clobbered:
                    known.pop(register, None)
                    sources.pop(register, None)
                sources[arm.ARM_REG_R0] = ("call", target, {i: v for i, v in arguments.items() if i < 4})
                continue
            source: tuple | None = None
            if mnemonic == "ldr" and len(operands) == 2 and operands[1].type == arm.ARM_OP_MEM \
                    and operands[1].mem.base == arm.ARM_REG_PC:
                value = run.word(pc + operands[1].mem.disp, word)
            elif mnemonic == "ldr" and len(operands) == 2 and operands[1].type == arm.ARM_OP_MEM \
                    and operands[1].mem.base in known and operands[1].mem.index == 0:
                source = ("load", (known[operands[1].mem.base] + operands[1].mem.disp) & 0xFFFFFFFF)
            elif mnemonic in ("mov", "movs", "movw") and len(operands) == 2:
                if operands[1].type == arm.ARM_OP_IMM:
                    value = operands[1].imm & 0xFFFFFFFF
                elif operands[1].type == arm.ARM_OP_REG and operands[1].reg in known:
                    value = known[operands[1].reg]
                elif operands[1].type == arm.ARM_OP_REG:
                    source = sources.get(operands[1].reg)
            elif mnemonic == "movt" and len(operands) == 2 and destination in known:
                value = ((operands[1].imm & 0xFFFF) << 16) | (known[destination] & 0xFFFF)
            elif mnemonic == "adr" and len(operands) == 2:
                value = pc + operands[1].imm
            elif mnemonic in ("add", "adds", "addw") and operands and operands[-1].type == arm.ARM_OP_IMM:
                base = operands[1].reg if len(operands) == 3 else destination
                if base in known:
                    value = (known[base] + operands[-1].imm) & 0xFFFFFFFF
                elif sources.get(base, ("",))[0] == "call":
                    source = sources[base]  # an allocation's result aligned up (ei_aligned_calloc inlined)
            elif mnemonic in ("bic", "bics") and operands and operands[-1].type == arm.ARM_OP_IMM:
                base = operands[1].reg if len(operands) == 3 else destination
                if sources.get(base, ("",))[0] == "call":
                    source = sources[base]
            elif mnemonic == "str" and len(operands) == 2 and operands[1].type == arm.ARM_OP_MEM \
                    and operands[1].mem.base in known and operands[1].mem.index == 0:
                if stores is not None:
                    stored = sources.get(operands[0].reg) or (("const", known[operands[0].reg])
                                                              if operands[0].reg in known else ("unknown",))
                    stores.append(Store((known[operands[1].mem.base] + operands[1].mem.disp) & 0xFFFFFFFF, stored))
                continue
            elif mnemonic == "str" and len(operands) == 2 and operands[1].type == arm.ARM_OP_MEM \
                    and operands[1].mem.base == arm.ARM_REG_SP and operands[1].mem.index == 0:
                offset = operands[1].mem.disp
                if operands[0].reg in known:
                    stack[offset] = known[operands[0].reg]
                else:
                    stack.pop(offset, None)
                continue
            if mnemonic in ("push", "stmdb") or (destination == arm.ARM_REG_SP):
                stack.clear()  # the stack pointer moved: slots no longer line up
            _, written = insn.regs_access()
            if arm.ARM_REG_PC in written and mnemonic in ("pop", "ldm", "ldmia"):
                continue  # a return: the code after it is reached by a branch from before it, with those registers
            for register in written:
                known.pop(register, None)
                sources.pop(register, None)
            if value is not None and destination is not None:
                known[destination] = value
                loaded.add(value)
            elif source is not None and destination is not None:
                sources[destination] = source
    return calls


_RISCV_MEMORY = re.compile(r"(-?\w+)\((\w+)\)")


def _track_riscv(image: ElfImage, runs, targets: frozenset[int], stores: list[Store] | None = None) -> list[_Call]:
    import capstone

    mode = capstone.CS_MODE_RISCV64 if image.elf_class == 64 else capstone.CS_MODE_RISCV32
    engine = capstone.Cs(capstone.CS_ARCH_RISCV, mode | capstone.CS_MODE_RISCVC)
    engine.detail = True
    engine.skipdata = True
    mask = (1 << image.elf_class) - 1
    names = [f"a{i}" for i in range(8)]
    calls = []
    known: dict[str, int] = {"zero": 0}
    pointer = global_pointer(image)
    if pointer is not None:
        known["gp"] = pointer  # gp-relative loads and stores of small data (.sdata, .sbss)
    sources: dict[str, tuple] = {}
    loaded: set[int] = set()
    for run in runs:
        for insn in run.instructions(engine):
            if insn.id == 0:
                continue
            mnemonic = insn.mnemonic.replace("c.", "")
            parts = [p.strip() for p in insn.op_str.split(",")] if insn.op_str else []
            if mnemonic in ("jal", "call", "jalr", "tail", "j"):
                target = _riscv_target(insn, parts, known, mask)
                arguments = {i: known[n] for i, n in enumerate(names) if n in known}
                if target in targets:
                    calls.append(_Call(insn.address, arguments, frozenset(loaded),
                                       {i: sources[n] for i, n in enumerate(names) if n in sources}))
                    loaded = set()
                if mnemonic != "j":
                    for name in names + [f"t{i}" for i in range(7)] + ["ra"]:
                        known.pop(name, None)
                        sources.pop(name, None)
                    sources["a0"] = ("call", target, {i: v for i, v in arguments.items() if i < 4})
                continue
            memory = _RISCV_MEMORY.fullmatch(parts[-1]) if len(parts) == 2 else None
            if mnemonic in ("sw", "sd") and memory and memory.group(2) in known:
                if stores is not None:
                    try:
                        address = (known[memory.group(2)] + int(memory.group(1), 0)) & mask
                    except ValueError:
                        continue
                    stores.append(Store(address, sources.get(parts[0]) or (("const", known[parts[0]])
                                                                             if parts[0] in known else ("unknown",))))
                continue
            value = None
            source = None
            destination = parts[0] if parts else None
            try:
                if mnemonic == "lui":
                    value = (int(parts[1], 0) << 12) & mask
                elif mnemonic == "auipc":
                    value = (insn.address + (int(parts[1], 0) << 12)) & mask
                elif mnemonic in ("addi", "addiw") and len(parts) == 3 and parts[1] in known:
                    value = (known[parts[1]] + int(parts[2], 0)) & mask
                elif mnemonic == "addi" and len(parts) == 2 and destination in known:  # c.addi rd, imm
                    value = (known[destination] + int(parts[1], 0)) & mask
                elif mnemonic == "li":
                    value = int(parts[1], 0) & mask
                elif mnemonic == "mv" and parts[1] in known:
                    value = known[parts[1]]
                elif mnemonic == "mv":
                    source = sources.get(parts[1])
                elif mnemonic in ("lw", "ld") and memory and memory.group(2) in known:
                    source = ("load", (known[memory.group(2)] + int(memory.group(1), 0)) & mask)
            except (ValueError, IndexError):
                value = None
            if destination and mnemonic not in ("sw", "sd", "sb", "sh", "fsw", "fsd", "swsp", "sdsp") \
                    and not mnemonic.startswith("b"):
                known.pop(destination, None)
                sources.pop(destination, None)
                if value is not None:
                    known[destination] = value
                    loaded.add(value)
                elif source is not None:
                    sources[destination] = source
    return calls


def _riscv_target(insn, parts: list[str], known: dict[str, int], mask: int) -> int | None:
    try:
        if insn.mnemonic in ("jal", "c.jal", "call", "j", "c.j", "tail"):
            return (insn.address + int(parts[-1], 0)) & mask
        match = re.match(r"(-?\w+)\((\w+)\)", parts[-1]) if parts else None
        if match and match.group(2) in known:
            return (known[match.group(2)] + int(match.group(1), 0)) & mask
    except ValueError:
        return None
    return None


_X86_ARGUMENTS = ["rdi", "rsi", "rdx", "rcx", "r8", "r9"]
_X86_WIDE = {"edi": "rdi", "esi": "rsi", "edx": "rdx", "ecx": "rcx", "r8d": "r8", "r9d": "r9", "eax": "rax"}
_RIP = re.compile(r"\[rip ([+-]) (0x[0-9a-f]+|\d+)\]")


def _track_x86(image: ElfImage, runs, targets: frozenset[int], stores: list[Store] | None = None) -> list[_Call]:
    import capstone

    engine = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    engine.skipdata = True
    calls = []
    known: dict[str, int] = {}
    sources: dict[str, tuple] = {}
    loaded: set[int] = set()
    for run in runs:
        offset = run.start - run.section_start
        code = run.section_data[offset: offset + run.end - run.start]
        for address, size, mnemonic, op_str in engine.disasm_lite(code, run.start):
            parts = [p.strip() for p in op_str.split(",")] if op_str else []
            if mnemonic in ("call", "jmp"):
                target = int(parts[0], 16) if parts and parts[0].startswith("0x") else None
                arguments = {i: known[n] for i, n in enumerate(_X86_ARGUMENTS) if n in known}
                if target in targets:
                    calls.append(_Call(address, arguments, frozenset(loaded),
                                       {i: sources[n] for i, n in enumerate(_X86_ARGUMENTS) if n in sources}))
                    loaded = set()
                if mnemonic == "call":
                    for name in _X86_ARGUMENTS + ["rax", "r10", "r11"]:
                        known.pop(name, None)
                        sources.pop(name, None)
                    sources["rax"] = ("call", target, {i: v for i, v in arguments.items() if i < 4})
                continue
            if not parts or mnemonic in ("test", "cmp", "push", "bt"):
                continue  # reads only: no register changes
            destination = _X86_WIDE.get(parts[0], parts[0])
            value = None
            source = None
            rip = _RIP.search(parts[-1]) if len(parts) == 2 else None
            rip_address = None
            if rip:
                displacement = int(rip.group(2), 0)
                rip_address = address + size + (displacement if rip.group(1) == "+" else -displacement)
            if mnemonic == "lea" and len(parts) == 2 and rip_address is not None:
                value = rip_address
            elif mnemonic in ("mov", "movabs") and len(parts) == 2:
                if re.fullmatch(r"0x[0-9a-f]+|\d+", parts[1]):
                    value = int(parts[1], 0)
                elif rip_address is not None and "[" in parts[1]:
                    source = ("load", rip_address)  # mov rdi, qword ptr [rip + X]: the pointer variable's value
                else:
                    name = _X86_WIDE.get(parts[1], parts[1])
                    value = known.get(name)
                    source = sources.get(name) if value is None else None
            elif mnemonic == "xor" and len(parts) == 2 and parts[0] == parts[1]:
                value = 0
            if "[" in parts[0]:
                store = _RIP.search(parts[0])
                if store is not None and stores is not None and mnemonic == "mov":
                    displacement = int(store.group(2), 0)
                    target_address = address + size + (displacement if store.group(1) == "+" else -displacement)
                    name = _X86_WIDE.get(parts[1], parts[1])
                    stores.append(Store(target_address, sources.get(name) or (
                        ("const", known[name]) if name in known else ("unknown",))))
                continue  # a store: registers unchanged
            known.pop(destination, None)
            sources.pop(destination, None)
            if value is not None:
                known[destination] = value
                loaded.add(value)
            elif source is not None:
                sources[destination] = source
    return calls


_TRACKERS = {"arm": _track_arm, "riscv": _track_riscv, "x86_64": _track_x86}


def trace_stores(image: ElfImage, runs) -> list[Store] | None:
    """The stores to constant addresses in a function's code (None: this architecture's code is not tracked)."""
    tracker = _TRACKERS.get(image.arch)
    if tracker is None:
        return None
    stores: list[Store] = []
    tracker(image, runs, frozenset(), stores)
    return stores
