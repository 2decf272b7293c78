"""Each function's stack frame and the calls it makes, read from its machine code.

For the stack question (stack_depth.py) every function needs two things: how many bytes of stack its own frame
takes at most, and where it calls out, with how much of its frame is in use at each call. Both come from one linear
pass over the function's instructions (capstone's text output, `disasm_lite`, which is fast enough for a whole
TFLM image), with a small model of the stack pointer:

- ARM/Thumb: `push`/`stmdb sp!`/`str rX, [sp, #-N]!` and `vpush`/`vstmdb sp!` allocate, as do `sub sp, #N` and
  `sub sp, sp, rX` when rX holds a constant (`movw`, `mov`, a literal-pool `ldr`); `pop`/`ldm sp!`/`vpop`/`add sp`
  and `ldr rX, [sp], #N` release. `sub sp, sp, rX` with a run-time value (alloca, variable-length arrays) marks the
  frame dynamic. `mov sp, rX` (and `sub sp, rX, #N`) from a register set from sp goes to the depth it holds
  (arm_sp_registers.py): clang's alloca `sub.w rX, sp, rY; mov sp, rX` is a dynamic frame, its realignment `bfc`
  counts the most it can take.
- RISC-V: `addi sp, sp, -N`, `c.addi sp, -N`, `c.addi16sp sp, -N`, and `sub`/`add sp, sp, rX` with a constant built
  by `lui`/`li`/`addi` (large frames); anything else moving sp down by a register is dynamic.
- x86-64: `push`, `sub rsp, N`; `pop`, `add rsp, N`; the return address the `call` pushed counts in the callee's
  frame, as in GCC's `-fstack-usage` figures.

Restoring sp from any other frame pointer (`mov sp, r7` with r7 not known, `mv sp, s0`, `leave`) returns to the
frame's base. After a return
or an unconditional jump out of the function, the code that follows is reached from inside the body, so the depth
goes back to what it was before that epilogue began. The frame is the largest depth seen; each call records the
depth at its instruction (a tail call, after the epilogue, usually 0).

Calls: direct calls (`bl`, `jal`, `call`), tail calls (a branch or jump to an address outside the function), and
indirect calls (`blx rX`, `jalr rX`, `call rax`), with the offset of the load that fetched the called pointer when
the pointer came from `[reg, #offset]`: that is how a call through a TFLM registration's `invoke` field (offset 12
on 32-bit targets) is told apart from other indirect calls (stack_depth.py).
"""

from __future__ import annotations

import bisect
import re
import struct
from collections import defaultdict
from dataclasses import dataclass

import capstone

from sizetool.inputs.elf_reader import ElfImage, Symbol
from sizetool.code_graph.disassembly import CodeRun, code_runs
from sizetool.code_graph.reference_graph import ReferenceGraph
from sizetool.stack.arm_sp_registers import SpValue, forget, source_value, track
from sizetool.inputs.symbol_runs import symbol_runs


@dataclass(frozen=True)
class Call:
    site: int  # address of the calling instruction
    depth: int  # bytes of the caller's frame in use at the call
    target: int | None  # called address (Thumb bit cleared); None for an indirect call
    tail: bool = False  # a jump out of the function: the callee returns to our caller
    loaded_from: int | None = None  # indirect: the called pointer was loaded from [reg, #loaded_from]
    virtual: bool = False  # the pointer came from [[this] + offset], `this` being the first argument: a C++
    #                        virtual call, not a call through a registration


@dataclass(frozen=True)
class Frame:
    address: int  # the function's first byte
    size: int  # most bytes its own frame takes (x86-64: the return address included)
    calls: tuple[Call, ...] = ()
    dynamic_site: int | None = None  # an sp adjustment by a run-time amount (alloca, a VLA): size is a lower bound
    argument_save: int = 0  # of size: a variadic function's save area for register arguments (ARM `push {r0-r3}`
    #                          first), which GCC's .su figure leaves out

    @property
    def compiler_size(self) -> int:
        """The frame as GCC's -fstack-usage counts it."""
        return self.size - self.argument_save


SUPPORTED_ARCHITECTURES = ("arm", "riscv", "x86_64")


def function_frames(image: ElfImage, graph: ReferenceGraph) -> dict[int, Frame]:
    """node index -> Frame, for every function of the graph in a code section; empty for other architectures."""
    if image.arch not in SUPPORTED_ARCHITECTURES or not image.little_endian:
        return {}
    engines = _engines(image)
    by_section: dict[int, list[Symbol]] = defaultdict(list)
    for symbol in image.symbols:
        if symbol.size > 0:
            by_section[symbol.section_index].append(symbol)
    # Assembly functions (libgcc's __aeabi_ldivmod) have size-0 symbols: their code is a run of chunks, cut at every
    # address something refers to, which stays one function up to the next symbol.
    named = {symbol.address & ~1 if image.arch == "arm" else symbol.address for symbol in image.symbols
             if symbol.size == 0 and symbol.kind in ("func", "notype") and not symbol.name.startswith("$")}
    frames: dict[int, Frame] = {}
    for section in image.sections:
        if not (section.is_alloc and section.is_code and section.size and not section.is_nobits):
            continue
        data = image.section_data(section)
        runs_of: dict[int, list] = defaultdict(list)
        extent: dict[int, int] = {}
        owner: int | None = None
        last: int | None = None
        for run in _split_at(code_runs(image, section, data, symbol_runs(section, by_section.get(section.index, []))),
                             sorted(named)):
            node = graph.node_at(run.start)
            if node is None or graph.nodes[node].kind not in ("func", "chunk"):
                last = None
                continue
            start = graph.nodes[node].address
            if node != last and (graph.nodes[node].kind == "func" or start in named or owner is None
                                 or graph.nodes[owner].kind != "chunk" or extent[owner] != start):
                owner = node
            last = node
            runs_of[owner].append(run)
            extent[owner] = max(extent.get(owner, 0), graph.nodes[node].end, run.end)
        for node, runs in runs_of.items():
            function = graph.nodes[node]
            frames[node] = _analyse(image.arch, engines, runs, function.address, extent[node])
    return frames


def _split_at(runs, addresses: list[int]):
    """The runs cut where a size-0 symbol starts (crt0's _mainCRTStartup after _stack_init, in one run)."""
    for run in runs:
        low = bisect.bisect_right(addresses, run.start)
        high = bisect.bisect_left(addresses, run.end)
        cuts = [run.start, *addresses[low:high], run.end]
        if len(cuts) == 2:
            yield run
            continue
        for begin, finish in zip(cuts, cuts[1:]):
            yield CodeRun(run.section_start, run.section_data, begin, finish, run.mode)


def _engines(image: ElfImage) -> dict[str, capstone.Cs]:
    if image.arch == "arm":
        modes = {"thumb": (capstone.CS_ARCH_ARM, capstone.CS_MODE_THUMB | capstone.CS_MODE_MCLASS),
                 "arm": (capstone.CS_ARCH_ARM, capstone.CS_MODE_ARM)}
    elif image.arch == "riscv":
        mode = capstone.CS_MODE_RISCV64 if image.elf_class == 64 else capstone.CS_MODE_RISCV32
        modes = {"riscv": (capstone.CS_ARCH_RISCV, mode | capstone.CS_MODE_RISCVC)}
    else:
        modes = {"x86_64": (capstone.CS_ARCH_X86, capstone.CS_MODE_64)}
    engines = {}
    for name, (architecture, mode) in modes.items():
        engine = capstone.Cs(architecture, mode)
        engine.skipdata = True
        engines[name] = engine
    return engines


# -- the stack-pointer model shared by all architectures ------------------------------------------------------------

class _Tracker:
    """Depth of the stack as a linear pass sees it (see the module docstring)."""

    def __init__(self, start: int, end: int, base: int, this: str):
        self.start, self.end, self.base, self.this = start, end, base, this
        self.depth = base
        self.deepest = base
        self.before_epilogue: int | None = None
        self.releasing = False
        self.calls: list[Call] = []
        self.dynamic_site: int | None = None

    def allocate(self, amount: int) -> None:
        self.depth += amount
        self.deepest = max(self.deepest, self.depth)
        self.releasing = False

    def release(self, amount: int) -> None:
        if not self.releasing:
            self.before_epilogue = self.depth
        self.releasing = True
        self.depth = max(self.base, self.depth - amount)

    def restore(self) -> None:  # sp set from a frame pointer
        self.release(self.depth - self.base)

    def to(self, depth: int) -> None:  # sp set to a known depth
        if depth > self.depth:
            self.allocate(depth - self.depth)
        elif depth < self.depth:
            self.release(self.depth - depth)

    def dynamic(self, site: int) -> None:
        if self.dynamic_site is None:
            self.dynamic_site = site
        self.releasing = False

    def leave(self) -> None:  # a return or an unconditional jump out: what follows runs with the body's frame
        if self.before_epilogue is not None:
            self.depth = self.before_epilogue
        self.before_epilogue = None
        self.releasing = False

    def inside(self, address: int) -> bool:
        return self.start <= address < self.end

    def call(self, site: int, target: int | None, loaded: tuple | None = None) -> None:
        self.calls.append(Call(site, self.depth - self.base, target, False, *_pointer(loaded, self.this)))

    def jump(self, site: int, target: int | None, conditional: bool, loaded: tuple | None = None) -> None:
        """A branch: a tail call when it leaves the function (or goes through a register)."""
        if target is not None and self.inside(target):
            if not conditional:
                self.leave_if_epilogue()
            return
        depth = self.depth - self.base - (8 if self.base else 0)  # x86-64: the callee's frame counts our return slot
        self.calls.append(Call(site, max(depth, 0), target, True, *_pointer(loaded, self.this)))
        if not conditional:
            self.leave()

    def leave_if_epilogue(self) -> None:
        # An unconditional branch inside the function right after releasing: a shared epilogue jumped over.
        if self.releasing:
            self.leave()

    def frame(self, address: int, argument_save: int = 0) -> Frame:
        return Frame(address, self.deepest - self.base + (8 if self.base else 0), tuple(self.calls),
                     self.dynamic_site, argument_save)


def _pointer(loaded: tuple | None, this: str) -> tuple[int | None, bool]:
    """(offset the called pointer was loaded from, whether it is a virtual call) from a register's load record
    (offset, base register, the base register's own load record)."""
    if not loaded:
        return None, False
    offset, _base, base_load = loaded
    return offset, base_load is not None and base_load[0] == 0 and base_load[1] == this


def _load_record(loads: dict, destination: str, previous, base: str, offset: int) -> None:
    loads[destination] = (offset, base, previous if base == destination else loads.get(base))


def _analyse(arch: str, engines, runs, start: int, end: int) -> Frame:
    if arch == "arm":
        return _arm_frame(engines, runs, start, end)
    if arch == "riscv":
        return _riscv_frame(engines["riscv"], runs, start, end)
    return _x86_frame(engines["x86_64"], runs, start, end)


# -- ARM / Thumb --------------------------------------------------------------------------------------------------

_CONDITIONS = ("eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "al")
_ARM_KNOWN = frozenset({
    "push", "pop", "stmdb", "stmfd", "ldm", "ldmia", "ldmfd", "vpush", "vpop", "vstmdb", "vldmia", "sub", "subs",
    "subw", "add", "adds", "addw", "mov", "movs", "movw", "movt", "mvn", "mvns", "str", "strd", "ldr", "bl", "blx",
    "bx", "b", "cbz", "cbnz",
})
_IMMEDIATE = re.compile(r"#(-?(?:0x[0-9a-f]+|\d+))")
_REGISTER_LIST = re.compile(r"\{([^}]*)\}")
_WORD = struct.Struct("<I")
_POST_INDEXED_SP = re.compile(r"\[sp\], #(?:0x[0-9a-f]+|\d+)$")  # a load that pops: `ldr rX, [sp], #N`


def _arm_mnemonic(mnemonic: str) -> tuple[str, bool]:
    """(base mnemonic, conditional) with .w/.n and a condition suffix removed."""
    base = mnemonic.split(".")[0]
    if base in _ARM_KNOWN:
        return base, False
    if len(base) > 2 and base[-2:] in _CONDITIONS and base[:-2] in _ARM_KNOWN:
        return base[:-2], True
    return base, False


def _list_bytes(operands: str) -> tuple[int, bool]:
    """Bytes a register list takes on the stack, and whether it holds pc."""
    match = _REGISTER_LIST.search(operands)
    if not match:
        return 0, False
    total, has_pc = 0, False
    for item in match.group(1).split(","):
        item = item.strip()
        if not item:
            continue
        first, _, last = item.partition("-")
        size = 8 if first.startswith("d") else (16 if first.startswith("q") else 4)
        count = 1
        if last:
            count = int(last[1:]) - int(first[1:]) + 1 if first[1:].isdigit() and last[1:].isdigit() else 1
        total += size * count
        has_pc = has_pc or item == "pc"
    return total, has_pc


def _immediate(text: str) -> int | None:
    match = _IMMEDIATE.search(text)
    return int(match.group(1), 0) if match else None


def _arm_frame(engines, runs, start: int, end: int) -> Frame:
    tracker = _Tracker(start, end, 0, "r0")
    constants: dict[str, int] = {}  # register -> constant it holds
    loads: dict[str, tuple] = {}  # register -> (offset of the load that set it, offset its base was loaded from)
    sp_values: dict[str, SpValue] = {}  # register -> the stack depth it holds (arm_sp_registers.py)
    argument_save = 0
    first_instruction = True
    for run in runs:
        engine = engines["thumb" if run.mode == "thumb" else "arm"]
        offset = run.start - run.section_start
        code = run.section_data[offset : offset + run.end - run.start]
        for address, size, mnemonic, operands in engine.disasm_lite(code, run.start):
            if mnemonic.startswith("."):  # skipped data
                continue
            base, conditional = _arm_mnemonic(mnemonic)
            parts = [p.strip() for p in operands.split(",")]
            first = parts[0] if parts else ""
            if first_instruction and base == "push" and _REGISTER_LIST.search(operands) and all(
                    r.strip() in ("r0", "r1", "r2", "r3") for r in _REGISTER_LIST.search(operands).group(1).split(",")):
                argument_save = _list_bytes(operands)[0]  # a variadic function saving its register arguments
            first_instruction = False
            if base in ("push", "vpush") or (base in ("stmdb", "stmfd", "vstmdb") and first == "sp!"):
                tracker.allocate(_list_bytes(operands)[0])
                continue
            if base in ("pop", "vpop") or (base in ("ldm", "ldmia", "ldmfd", "vldmia") and first == "sp!"):
                amount, has_pc = _list_bytes(operands)
                forget(_REGISTER_LIST.search(operands).group(1).replace(" ", "").split(","), sp_values)
                tracker.release(amount)
                if has_pc:
                    tracker.leave()
                continue
            if base in ("str", "strd") and "[sp, #-" in operands and operands.endswith("]!"):
                tracker.allocate(-(_immediate(operands.split("[sp,")[1]) or 0))
                continue
            if base == "ldr" and operands.startswith("pc, [sp]"):
                tracker.release(_immediate(operands) or 4)
                tracker.leave()
                continue
            if base in ("ldr", "ldrd") and _POST_INDEXED_SP.search(operands):  # clang: `ldr.w r8, [sp], #4`
                tracker.release(_immediate(operands.split("],")[1]) or 0)
            if first == "sp" and base in ("sub", "subs", "subw", "add", "adds", "addw"):
                _arm_sp_arithmetic(tracker, address, base, parts, constants, sp_values)
                continue
            if first == "sp" and base in ("mov", "movs"):
                _arm_sp_set(tracker, address, sp_values.get(parts[1]) if len(parts) == 2 else None)
                continue
            if base in ("bl", "blx"):
                target = _immediate(operands)
                if target is None and constants.get(first, 0) & 1:  # `ldr rX, =function` then `blx rX`
                    target = constants[first]
                if target is not None and base == "bl" and tracker.inside(target & ~1) and target & ~1 != start:
                    tracker.jump(address, target & ~1, conditional)  # Thumb-1's far jump inside a large function
                elif target is not None:
                    tracker.call(address, target & ~1)
                else:
                    tracker.call(address, None, loads.get(first))
                # Registers a call clobbers are not forgotten: compiled code never reads one before writing it
                # again, and the linear pass would otherwise lose a pointer loaded before a call on another branch.
                continue
            if base == "bx":
                if first == "lr":
                    tracker.leave()
                elif constants.get(first, 0) & 1:  # a Thumb address from a literal: a linker veneer's jump
                    tracker.jump(address, constants[first] & ~1, conditional)
                else:
                    tracker.jump(address, None, conditional, loads.get(first))
                continue
            if base in ("b", "cbz", "cbnz"):
                target = _immediate(parts[-1])
                if target is not None:
                    tracker.jump(address, target & ~1, conditional or base != "b")
                continue
            if base in ("mov", "movs") and first == "pc":
                if parts[1] == "lr":
                    tracker.leave()
                else:
                    tracker.jump(address, None, conditional, loads.get(parts[1]))
                continue
            if base == "ldr" and first == "pc":
                memory = _memory_of(operands)
                tracker.jump(address, None, conditional,
                             (memory[1], memory[0], loads.get(memory[0])) if memory else None)
                continue
            if base.startswith("ldm") and _REGISTER_LIST.search(operands):
                forget(_REGISTER_LIST.search(operands).group(1).replace(" ", "").split(","), sp_values)
            track(base, conditional, parts, tracker.depth, sp_values, constants)
            _arm_registers(run, address, base, conditional, parts, operands, constants, loads)
    return tracker.frame(start, argument_save)


def _arm_sp_set(tracker: _Tracker, address: int, value: SpValue | None) -> None:
    """`mov sp, rX`: to the depth rX holds when it was derived from sp; otherwise a frame-pointer epilogue."""
    if value is None:
        tracker.restore()
        return
    if value.dynamic:
        tracker.dynamic(address)
    tracker.to(value.depth + value.slack)


def _arm_sp_arithmetic(tracker: _Tracker, address: int, base: str, parts: list[str], constants,
                       sp_values) -> None:
    """sub/add with sp as destination: `sub sp, #N`, `sub.w sp, sp, #N`, `sub sp, sp, rX`, `sub sp, r7, #N`."""
    source = parts[1] if len(parts) == 3 else "sp"
    operand = parts[-1]
    amount = int(operand[1:], 0) if operand.startswith("#") else constants.get(operand)
    subtract = base.startswith("sub")
    if source != "sp":  # sp computed from another register: from a frame pointer, the epilogue of its function
        value = source_value(source, tracker.depth, sp_values)
        if value is None or amount is None:
            tracker.restore()
        else:
            _arm_sp_set(tracker, address, SpValue(value.depth + (amount if subtract else -amount), value.slack,
                                                  value.dynamic))
        return
    if amount is None:
        if subtract:
            tracker.dynamic(address)
        else:
            tracker.restore()
        return
    if subtract == (amount >= 0):
        tracker.allocate(abs(amount))
    else:
        tracker.release(abs(amount))


def _arm_registers(run, address: int, base: str, conditional: bool, parts: list[str], operands: str,
                   constants, loads) -> None:
    """Constants and loaded pointers held in registers (for `sub sp, sp, rX` and indirect calls)."""
    if not parts or base.startswith(("str", "cmp", "cmn", "tst", "teq", "it")):
        return
    destination = parts[0]
    constants.pop(destination, None)
    previous_load = loads.pop(destination, None)
    if conditional:
        return
    if base in ("movw", "mov", "movs") and len(parts) == 2 and parts[1].startswith("#"):
        constants[destination] = int(parts[1][1:], 0)
    elif base == "mov" and len(parts) == 2 and parts[1] in constants:
        constants[destination] = constants[parts[1]]
    elif base == "movt" and len(parts) == 2 and parts[1].startswith("#"):
        pass  # a 32-bit constant is never a frame size
    elif base == "ldr" and len(parts) >= 2:
        if parts[1].startswith("[pc"):
            literal = ((address + 4) & ~3) + (_immediate(operands) or 0)
            value = run.word(literal, _WORD)
            if value is not None:
                constants[destination] = value
        else:
            memory = _memory_of(operands)
            if memory is not None:
                _load_record(loads, destination, previous_load, memory[0], memory[1])


def _memory_of(operands: str) -> tuple[str, int] | None:
    """(base register, offset) of a `[rY, #offset]` (or `[rY]`) memory operand; None for pc- and sp-relative."""
    match = re.search(r"\[(\w+)(?:, #(-?(?:0x[0-9a-f]+|\d+)))?\]", operands)
    if not match or match.group(1) in ("pc", "sp"):
        return None
    return match.group(1), int(match.group(2), 0) if match.group(2) else 0


# -- RISC-V -----------------------------------------------------------------------------------------------------

_RV_MEMORY = re.compile(r"(-?(?:0x[0-9a-f]+|\d+))\((\w+)\)")


def _number(text: str) -> int | None:
    try:
        return int(text, 0)
    except ValueError:
        return None


def _instructions(engine, runs):
    """(address, size, mnemonic, operands) of every instruction capstone decodes in the runs, skipped data left out."""
    for run in runs:
        offset = run.start - run.section_start
        code = run.section_data[offset : offset + run.end - run.start]
        for instruction in engine.disasm_lite(code, run.start):
            if not instruction[2].startswith("."):
                yield instruction


def _riscv_frame(engine, runs, start: int, end: int) -> Frame:
    tracker = _Tracker(start, end, 0, "a0")
    values: dict[str, int] = {}  # register -> constant or address it holds (lui/auipc/li/addi)
    loads: dict[str, int] = {}
    for address, size, mnemonic, operands in _instructions(engine, runs):
        name = mnemonic[2:] if mnemonic.startswith("c.") else mnemonic
        parts = [p.strip() for p in operands.split(",")] if operands else []
        first = parts[0] if parts else ""
        if first == "sp" and name in ("addi", "addi16sp", "add", "sub", "mv"):
            _riscv_sp(tracker, address, name, parts, values)
            continue
        if name == "jal":  # capstone prints jump and branch targets relative to the instruction
            target = _relative(address, parts[-1])
            link = parts[0] if len(parts) == 2 else "ra"
            if target is None:
                continue
            if link == "zero":
                tracker.jump(address, target, False)
            else:
                tracker.call(address, target)
            continue
        if name == "j":
            target = _relative(address, parts[-1])
            if target is not None:
                tracker.jump(address, target, False)
            continue
        if name in ("jalr", "jr", "ret"):
            _riscv_indirect(tracker, address, mnemonic, name, parts, values, loads)
            continue
        if name in _RV_BRANCHES:
            target = _relative(address, parts[-1])
            if target is not None and not tracker.inside(target):
                tracker.jump(address, target, True)
            continue
        _riscv_registers(address, name, parts, values, loads)
    return tracker.frame(start)


def _relative(address: int, text: str) -> int | None:
    offset = _number(text)
    return None if offset is None else (address + offset) & 0xFFFFFFFF


_RV_BRANCHES = frozenset({"beq", "bne", "blt", "bge", "bltu", "bgeu", "beqz", "bnez", "blez", "bgez", "bltz", "bgtz"})


def _riscv_sp(tracker: _Tracker, address: int, name: str, parts: list[str], values) -> None:
    if name in ("addi", "addi16sp"):
        source = parts[1] if len(parts) == 3 else "sp"
        amount = _number(parts[-1])
        if source != "sp" or amount is None:
            tracker.restore()
        elif amount < 0:
            tracker.allocate(-amount)
        else:
            tracker.release(amount)
        return
    if name == "mv":
        tracker.restore()
        return
    # add/sub sp, sp, rX (c.add sp, rX)
    source = parts[1] if len(parts) == 3 else "sp"
    register = parts[-1]
    amount = values.get(register)
    if source != "sp":
        tracker.restore()
    elif amount is None:
        if name == "sub":
            tracker.dynamic(address)
        else:
            tracker.restore()
    else:
        amount = _signed32(amount)
        if (name == "sub") == (amount >= 0):
            tracker.allocate(abs(amount))
        else:
            tracker.release(abs(amount))


def _signed32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _riscv_indirect(tracker: _Tracker, address: int, mnemonic: str, name: str, parts: list[str], values,
                    loads) -> None:
    if name == "ret":
        tracker.leave()
        return
    # jr rX / c.jr rX / c.jalr rX / jalr rX / jalr rd, imm(rX) / jalr rd, rX, imm
    link = "ra" if name == "jalr" else "zero"
    register, displacement = None, 0
    memory = _RV_MEMORY.search(parts[-1]) if parts else None
    if memory:
        register, displacement = memory.group(2), int(memory.group(1), 0)
        if len(parts) == 2:
            link = parts[0]
    elif len(parts) == 1:
        register = parts[0]
    elif len(parts) >= 2:
        link, register = parts[0], parts[1]
        displacement = _number(parts[2]) or 0 if len(parts) == 3 else 0
    if register == "ra" and link == "zero":
        tracker.leave()
        return
    known = values.get(register)
    target = (known + displacement) & 0xFFFFFFFF if known is not None else None
    loaded_from = None if target is not None else loads.get(register)
    if link == "zero":
        tracker.jump(address, target, False, loaded_from)
    else:
        tracker.call(address, target, loaded_from)


def _riscv_registers(address: int, name: str, parts: list[str], values, loads) -> None:
    if not parts or name.startswith(("s", "f", "b")) and name not in ("sub", "sll", "slli", "srl", "srli", "sra",
                                                                         "srai", "slt", "sltu", "slti", "sltiu"):
        return  # stores, float ops and branches write no integer register we track
    destination = parts[0]
    old = values.pop(destination, None)
    previous_load = loads.pop(destination, None)
    if name in ("lui", "auipc") and len(parts) == 2:
        upper = _number(parts[1])
        if upper is not None:
            values[destination] = ((upper << 12) + (address if name == "auipc" else 0)) & 0xFFFFFFFF
    elif name == "li" and len(parts) == 2:
        number = _number(parts[1])
        if number is not None:
            values[destination] = number & 0xFFFFFFFF
    elif name == "addi" and len(parts) in (2, 3):
        source = parts[1] if len(parts) == 3 else destination
        base = old if source == destination else values.get(source)
        number = _number(parts[-1])
        if base is not None and number is not None:
            values[destination] = (base + number) & 0xFFFFFFFF
    elif name == "mv" and len(parts) == 2 and parts[1] in values:
        values[destination] = values[parts[1]]
    elif name in ("lw", "ld") and len(parts) == 2:
        memory = _RV_MEMORY.search(parts[1])
        if memory and memory.group(2) != "sp":
            _load_record(loads, destination, previous_load, memory.group(2), int(memory.group(1), 0))


# -- x86-64 -----------------------------------------------------------------------------------------------------

_X86_MEMORY_OFFSET = re.compile(r"\[(\w+)(?: \+ (0x[0-9a-f]+|\d+))?\]")


def _x86_frame(engine, runs, start: int, end: int) -> Frame:
    tracker = _Tracker(start, end, 8, "rdi")  # the return address the call pushed
    loads: dict[str, int] = {}
    for address, size, mnemonic, operands in _instructions(engine, runs):
        parts = [p.strip() for p in operands.split(",")] if operands else []
        first = parts[0] if parts else ""
        if mnemonic == "push":
            tracker.allocate(8)
        elif mnemonic == "pop":
            tracker.release(8)
        elif first == "rsp" and mnemonic in ("sub", "add") and len(parts) == 2:
            amount = _number(parts[1])
            if amount is None:
                if mnemonic == "sub":
                    tracker.dynamic(address)
                else:
                    tracker.restore()
            elif (mnemonic == "sub") == (amount >= 0):
                tracker.allocate(abs(amount))
            else:
                tracker.release(abs(amount))
        elif first == "rsp" and mnemonic in ("mov", "lea"):
            tracker.restore()
        elif mnemonic == "leave":
            tracker.restore()
            tracker.release(8)
        elif mnemonic in ("ret", "retq") or mnemonic.startswith("ret"):
            tracker.leave()
        elif mnemonic == "call":
            target = _number(first)
            if target is not None:
                tracker.call(address, target)
            else:
                tracker.call(address, None, _x86_loaded(first, loads))
        elif mnemonic == "jmp":
            target = _number(first)
            if target is not None:
                tracker.jump(address, target, False)
            else:
                tracker.jump(address, None, False, _x86_loaded(first, loads))
        elif mnemonic.startswith("notrack"):
            pass  # a switch table's jump, inside the function
        elif mnemonic.startswith("j"):
            target = _number(first)
            if target is not None and not tracker.inside(target):
                tracker.jump(address, target, True)
        elif mnemonic == "mov" and len(parts) == 2 and "ptr [" in parts[1]:
            match = _X86_MEMORY_OFFSET.search(parts[1])
            previous = loads.pop(first, None)
            if match and match.group(1) not in ("rsp", "rip"):
                _load_record(loads, first, previous, match.group(1), int(match.group(2), 0) if match.group(2) else 0)
        elif parts:
            loads.pop(first, None)
    return tracker.frame(start)


def _x86_loaded(operand: str, loads) -> tuple | None:
    if "ptr [" in operand:
        match = _X86_MEMORY_OFFSET.search(operand)
        if match is None or match.group(1) == "rip":
            return None
        return int(match.group(2), 0) if match.group(2) else 0, match.group(1), loads.get(match.group(1))
    return loads.get(operand)
