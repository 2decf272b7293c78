"""Find the addresses that machine code refers to: call and branch targets, literal-pool loads, address pairs.

The operator-cost graph (code_graph/reference_graph.py) needs, for each function, the functions and data it can reach;
the report places bytes no symbol covers (string literals, tables) by the code that refers to them
(report/referenced_bytes.py). Capstone decodes the instructions; this module turns them into (instruction address,
referenced address) pairs, per architecture:

- ARM Thumb and ARM: BL/BLX/B/B.W immediates; `LDR rX, [pc, #imm]` reads its literal word (a Thumb function address
  there has its low bit set); `ADR`; MOVW/MOVT pairs building a 32-bit address. Thumb code (all of Cortex-M) is
  read by `thumb_references`, a scanner of just those encodings (ARMv7-M ARM, A7.7): capstone's Python binding
  spends ~15 us on each instruction's details, 4 s on a 600 KB firmware. The scanner has regexes (in C) step over
  the instructions that refer to nothing, three in four, by their first bytes, and decodes the others in Python:
  ~20 ms for the 390 KB of code of a TFLM all-ops build. The tests check the scanner against capstone, reference for
  reference, on every fixture; ARM (A32) code still goes through capstone.
- RISC-V (RV32/RV64, compressed included): JAL/branch offsets; `auipc`/`lui` followed by `addi`, `jalr`, a load or
  a store on the same register; gp-relative accesses when `__global_pointer$` is known (riscv_references.py).
- x86-64: call/jump immediates, RIP-relative operands, and absolute immediates or displacements (x86_references.py).
- Xtensa (ESP8266, ESP32): xtensa_scan.py, a scanner of its own (capstone 5 has no Xtensa): CALL0/CALLn, L32R
  literals and the words they load, jumps and branches, decoded along the control flow.

Anything else (architectures capstone is not asked about here) returns None from `code_decoder`, and the caller
falls back to symbol-level attribution. Capstone itself loads only when code needs it (not for Thumb: importing it
is ~6% of a cold `--ops` run on Cortex-M), and so do the RISC-V, x86-64 and Xtensa readers (their records and regexes
were ~0.7 ms of every cold Cortex-M report).
"""

from __future__ import annotations

import bisect
import functools
import re
import struct
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

TYPE_CHECKING = False  # typing's constant, which type checkers read alike, without importing typing (~1.6 ms)
if TYPE_CHECKING:
    import capstone

    from sizetool.inputs.elf_reader import ElfImage, Section

# (instruction address, referenced address); the referenced address may carry the Thumb bit.
Reference = tuple[int, int]


@dataclass(frozen=True)
class CodeRun:
    """A run of instructions in one instruction set (ARM mapping symbols split code from literal data)."""

    section_start: int  # address of section_data[0]
    section_data: bytes  # the whole section, so literal pools outside the run can be read
    start: int
    end: int
    mode: str  # "thumb", "arm", "riscv", "x86_64"

    def instructions(self, engine: capstone.Cs):
        offset = self.start - self.section_start
        return engine.disasm(self.section_data[offset : offset + self.end - self.start], self.start)

    def word(self, address: int, layout: struct.Struct) -> int | None:
        offset = address - self.section_start
        if 0 <= offset and offset + layout.size <= len(self.section_data):
            return layout.unpack_from(self.section_data, offset)[0]
        return None


Decoder = Callable[[CodeRun], Iterator[Reference]]


def code_decoder(arch: str, elf_class: int, little_endian: bool, global_pointer: int | None = None,
                 address_loads_only: bool = False) -> Decoder | None:
    """A function decoding CodeRuns of this architecture, or None when the architecture is not supported. With
    address_loads_only, ARM and Thumb code yield only the data addresses they load (literal words, MOVW/MOVT pairs:
    thumb_address_loads); other architectures, whose code builds data addresses the way it reaches code (RISC-V's
    auipc pairs, x86-64's RIP-relative operands), yield all their references either way."""
    if arch == "arm" and little_endian:
        arm_engines: list[capstone.Cs] = []  # made for the first ARM (A32) run; Cortex-M code is all Thumb

        def arm_or_thumb(run: CodeRun) -> Iterator[Reference]:
            if run.mode == "thumb":
                return thumb_references(run, address_loads_only)
            if not arm_engines:
                import capstone

                arm_engines.append(_capstone(capstone.CS_ARCH_ARM, capstone.CS_MODE_ARM))
            return _arm_references(arm_engines[0], run, True, address_loads_only)

        return arm_or_thumb
    if arch == "xtensa" and little_endian:
        from sizetool.code_graph.xtensa_scan import xtensa_references

        return xtensa_references
    import capstone

    if arch == "riscv":
        mode = capstone.CS_MODE_RISCV64 if elf_class == 64 else capstone.CS_MODE_RISCV32
        engine = _capstone(capstone.CS_ARCH_RISCV, mode | capstone.CS_MODE_RISCVC)
        from sizetool.code_graph.riscv_references import riscv_ids, riscv_references

        ids = riscv_ids()
        return lambda run: riscv_references(engine, run, elf_class, global_pointer, ids)
    if arch == "x86_64":
        engine = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
        engine.skipdata = True
        from sizetool.code_graph.x86_references import x86_references

        return lambda run: x86_references(engine, run)
    return None


def _capstone(architecture: int, mode: int) -> capstone.Cs:
    import capstone

    engine = capstone.Cs(architecture, mode)
    engine.detail = True
    engine.skipdata = True  # keep going past bytes that are not instructions (inline data, padding)
    return engine


def _arm_references(engine: capstone.Cs, run: CodeRun, little_endian: bool,
                    address_loads_only: bool = False) -> Iterator[Reference]:
    from capstone import arm

    branches = {arm.ARM_INS_BL, arm.ARM_INS_BLX, arm.ARM_INS_B, arm.ARM_INS_CBZ, arm.ARM_INS_CBNZ}
    word = struct.Struct("<I" if little_endian else ">I")
    low_half: dict[int, int] = {}  # register -> value from MOVW, waiting for its MOVT
    for insn in run.instructions(engine):
        if insn.id == 0:  # skipped data
            continue
        ident = insn.id
        operands = insn.operands
        if ident in branches:
            for operand in operands:
                if operand.type == arm.ARM_OP_IMM and not address_loads_only:
                    yield insn.address, operand.imm & 0xFFFFFFFF
        elif ident == arm.ARM_INS_LDR or ident == arm.ARM_INS_VLDR or ident == arm.ARM_INS_LDRD:
            for operand in operands:
                if operand.type == arm.ARM_OP_MEM and operand.mem.base == arm.ARM_REG_PC:
                    pc = (insn.address + 4) & ~3 if run.mode == "thumb" else insn.address + 8
                    literal = pc + operand.mem.disp
                    if not address_loads_only:
                        yield insn.address, literal
                    value = run.word(literal, word) if ident == arm.ARM_INS_LDR else None
                    if value is not None:
                        yield insn.address, value
        elif ident == arm.ARM_INS_ADR and address_loads_only:
            pass
        elif ident == arm.ARM_INS_ADR:
            for operand in operands:
                if operand.type == arm.ARM_OP_IMM:
                    pc = (insn.address + 4) & ~3 if run.mode == "thumb" else insn.address + 8
                    yield insn.address, pc + operand.imm
        elif insn.mnemonic == "movw" and len(operands) == 2 and operands[1].type == arm.ARM_OP_IMM:
            # (capstone 5 gives MOVW the id of MOV, so the mnemonic tells them apart)
            low_half[operands[0].reg] = operands[1].imm & 0xFFFF
        elif ident == arm.ARM_INS_MOVT and len(operands) == 2 and operands[1].type == arm.ARM_OP_IMM:
            low = low_half.pop(operands[0].reg, None)
            if low is not None:
                yield insn.address, ((operands[1].imm & 0xFFFF) << 16) | low



def capstone_thumb_decoder(address_loads_only: bool = False) -> Decoder:
    """The capstone reading of Thumb code, which thumb_references (thumb_address_loads) must match (the tests compare
    them)."""
    import capstone

    engine = _capstone(capstone.CS_ARCH_ARM, capstone.CS_MODE_THUMB | capstone.CS_MODE_MCLASS)
    return lambda run: _arm_references(engine, run, True, address_loads_only)


def thumb_references(run: CodeRun, address_loads_only: bool = False) -> Iterator[Reference]:
    """The references of little-endian Thumb code (16- and 32-bit encodings), as _arm_references finds them with
    capstone: B/B<c> (16 and 32 bit), BL, CBZ/CBNZ, ADR (16 and 32 bit; capstone 5 reads ADR.W as ADDW/SUBW from the
    pc, which _arm_references leaves out), LDR/LDRD/VLDR from a literal (LDR also yields the word it loads), and
    MOVW/MOVT pairs. With address_loads_only, only the addresses the code loads: the words LDR reads from a literal
    pool and the MOVW/MOVT pairs (thumb_address_loads)."""
    offset = run.start - run.section_start
    size = (run.end - run.start) & ~1
    code = run.section_data[offset : offset + size]
    halfwords = array("H", code)
    if sys.byteorder != "little":
        halfwords.byteswap()
    word = _LITTLE_WORD
    low_half: dict[int, int] = {}
    start = run.start
    # Regexes (in C) step over the instructions that refer to nothing, most of them; the loop decodes the others. Each
    # step is one instruction that may refer somewhere (whole: a 32-bit one cut by the end of the run ends the steps)
    # and the quiet ones after it.
    skip_quiet, steps = _thumb_scanners(address_loads_only)
    with_targets = not address_loads_only  # branch targets, ADR, the literal slots themselves
    position = skip_quiet(code).end()
    for step in steps(code, position):
        index = position >> 1
        position += len(step)
        first = halfwords[index]
        address = start + 2 * index
        if first < 0xE800:  # a 16-bit instruction
            top = first >> 11
            if top == 0b01001:  # LDR (literal), T1
                literal = ((address + 4) & ~3) + ((first & 0xFF) << 2)
                if with_targets:
                    yield address, literal
                value = run.word(literal, word)
                if value is not None:
                    yield address, value
            elif top == 0b11100:  # B, T2 (here and below, (x ^ top bit) - top bit sign-extends x)
                yield address, (address + 4 + ((((first & 0x7FF) ^ 0x400) - 0x400) << 1)) & 0xFFFFFFFF
            elif top == 0b11010 or top == 0b11011:  # B<c>, T1 (cond 1110 is UDF, 1111 is SVC)
                if (first >> 8) & 0xF < 0xE:
                    yield address, (address + 4 + ((((first & 0xFF) ^ 0x80) - 0x80) << 1)) & 0xFFFFFFFF
            elif top == 0b10100:  # ADR, T1
                yield address, ((address + 4) & ~3) + ((first & 0xFF) << 2)
            elif first & 0xF500 == 0xB100:  # CBZ/CBNZ
                yield address, address + 4 + (((first >> 9) & 1) << 6) + (((first >> 3) & 0x1F) << 1)
            continue
        second = halfwords[index + 1]
        if first >= 0xF800:  # loads, stores, data processing
            if first & 0xFF7F == 0xF85F:  # LDR.W (literal), T2
                base = (address + 4) & ~3
                literal = (base + (second & 0xFFF) if first & 0x80 else base - (second & 0xFFF)) & 0xFFFFFFFF
                if with_targets:
                    yield address, literal
                value = run.word(literal, word)
                if value is not None:
                    yield address, value
            continue
        if first >= 0xF000:
            if second & 0x8000:  # branches and miscellaneous control
                kind = second & 0xD000
                if kind == 0xD000 or kind == 0x9000:  # BL, B.W (T4)
                    sign = (first >> 10) & 1
                    i1 = 1 ^ (((second >> 13) & 1) ^ sign)
                    i2 = 1 ^ (((second >> 11) & 1) ^ sign)
                    immediate = (sign << 24) | (i1 << 23) | (i2 << 22) | ((first & 0x3FF) << 12) | ((second & 0x7FF) << 1)
                    yield address, (address + 4 + (immediate ^ 0x1000000) - 0x1000000) & 0xFFFFFFFF
                elif kind == 0x8000 and (first >> 6) & 0xF < 0xE:  # B<c>.W (T3)
                    immediate = (((first >> 10) & 1) << 20) | (((second >> 11) & 1) << 19) | (
                        ((second >> 13) & 1) << 18) | ((first & 0x3F) << 12) | ((second & 0x7FF) << 1)
                    yield address, (address + 4 + (immediate ^ 0x100000) - 0x100000) & 0xFFFFFFFF
                continue
            masked = first & 0xFBF0
            if masked == 0xF240 or masked == 0xF2C0:  # MOVW / MOVT
                value16 = ((first & 0xF) << 12) | (((first >> 10) & 1) << 11) | (((second >> 12) & 7) << 8) | (
                    second & 0xFF)
                register = (second >> 8) & 0xF
                if masked == 0xF240:
                    low_half[register] = value16
                else:
                    low = low_half.pop(register, None)
                    if low is not None:
                        yield address, (value16 << 16) | low
            elif first & 0xFBFF in (0xF20F, 0xF2AF):  # ADR.W: add (T3) or subtract (T2)
                immediate = (((first >> 10) & 1) << 11) | (((second >> 12) & 7) << 8) | (second & 0xFF)
                base = (address + 4) & ~3
                yield address, (base + immediate if first & 0xFBFF == 0xF20F else base - immediate) & 0xFFFFFFFF
            continue
        if first & 0xFE5F == 0xE85F and first & 0x120:  # LDRD (literal), T1 (P or W set; P=W=0 is LDREX and kin)
            base = (address + 4) & ~3
            yield address, (base + ((second & 0xFF) << 2) if first & 0x80 else base - ((second & 0xFF) << 2)) \
                & 0xFFFFFFFF
        elif first & 0xFF3F == 0xED1F and second & 0x0E00 == 0x0A00:  # VLDR (literal), T1/T2
            base = (address + 4) & ~3
            yield address, (base + ((second & 0xFF) << 2) if first & 0x80 else base - ((second & 0xFF) << 2)) \
                & 0xFFFFFFFF


def thumb_address_loads(run: CodeRun) -> Iterator[Reference]:
    """The data addresses Thumb code loads: the words LDR (16 and 32 bit) reads from a literal pool, and MOVW/MOVT
    pairs; no branch targets, ADRs or literal slots. The regexes step over everything else, so this is a fraction
    of thumb_references' work: what a string literal or a constant table needs (report/referenced_bytes.py)."""
    return thumb_references(run, address_loads_only=True)


_LITTLE_WORD = struct.Struct("<I")


def _one_of(values: Iterable[int]) -> bytes:
    """A regex class of these byte values, written as ranges (short patterns compile faster)."""
    ranges: list[list[int]] = []
    for value in sorted(set(values)):
        if ranges and ranges[-1][1] == value - 1:
            ranges[-1][1] = value
        else:
            ranges.append([value, value])
    return b"[" + b"".join(b"\\x%02x" % low if low == high else b"\\x%02x-\\x%02x" % (low, high)
                           for low, high in ranges) + b"]"


def _none_of(values: Iterable[int]) -> bytes:
    return _one_of(set(range(256)) - set(values))


# The Thumb instructions that refer to nothing ("quiet"), which thumb_references steps over with regexes (in C) instead
# of a Python step per instruction. A halfword is (low byte, high byte); one whose high byte is 0xE8 or more starts a
# 32-bit instruction (ARMv7-M ARM, A5.1). An instruction is matched as its low byte, then one of the alternatives below:
# each starts with a class of the high byte (so the regex engine drops the others at one look), and where the encoding
# also depends on the low byte, a lookbehind reads it. The instructions these classes leave out may be more than those
# that refer somewhere, never fewer: thumb_references decodes them and keeps what refers somewhere.
_ANY = b"."
_WIDE = range(0xE8, 0x100)  # high bytes starting a 32-bit instruction
# 16-bit instructions (A5.2) that refer somewhere, by their high byte:
_LDR_LITERAL_T1 = range(0x48, 0x50)  # 01001 Rt imm8 (A7.7.43)
_ADR_T1 = range(0xA0, 0xA8)  # 10100 Rd imm8 (A7.7.7)
_CBZ_CBNZ = (0xB1, 0xB3, 0xB9, 0xBB)  # 1011 op 0 i 1 (A7.7.21)
_B_COND_T1 = range(0xD0, 0xDE)  # 1101 cond (A7.7.12; cond 1110 is UDF, 1111 SVC)
_B_T2 = range(0xE0, 0xE8)  # 11100 imm11 (A7.7.12)
_REFERRING_16 = (*_LDR_LITERAL_T1, *_ADR_T1, *_CBZ_CBNZ, *_B_COND_T1, *_B_T2)
# 32-bit instructions (A5.3) that refer somewhere, by the low byte of their first halfword where it matters:
_LDRD_LITERAL_LOW = (0x5F, 0x7F, 0xDF, 0xFF)  # 1110 100P U1W1 1111 (high byte 0xE8/0xE9; A7.7.51)
_VLDR_LITERAL_LOW = (0x1F, 0x5F, 0x9F, 0xDF)  # 1110 1101 UD01 1111 (high byte 0xED; A7.7.236)
_LDR_LITERAL_T2_LOW = (0x5F, 0xDF)  # 1111 1000 U101 1111 (high byte 0xF8; A7.7.43)
# MOVW/MOVT 1111 0i10 x100 imm4 (A7.7.76, A7.7.79), ADR.W 1111 0i10 x0x0 1111 (A7.7.7) (high byte 0xF2/0xF6)
_MOVW_MOVT_ADR_LOW = (*range(0x40, 0x50), *range(0xC0, 0xD0), 0x0F, 0xAF)
_SECOND_HALFWORD_NOT_BRANCH = _one_of(range(0x80))  # 1111 0xxx with this 0xxx xxxx: data processing (A5.3.1, A5.3.4)


def _high_byte_after(highs: Iterable[int], lows_not: Iterable[int]) -> bytes:
    """A high byte of `highs` whose low byte (the byte before it) is not one of `lows_not`."""
    return _one_of(highs) + b"(?<!" + _one_of(lows_not) + b".)"


_QUIET_HIGH_BYTE = b"|".join([  # the alternatives in the order of how often they occur in compiled code
    _none_of([*_REFERRING_16, *_WIDE]),  # 16-bit
    # 32-bit (the second halfword follows): 1111 0xxx is a branch or BL when the second halfword's top bit is set
    # (A5.3.4), else data processing with an immediate, of which only MOVW/MOVT and ADR.W (0xF2, 0xF6) refer somewhere
    _one_of([0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7]) + _ANY + _SECOND_HALFWORD_NOT_BRANCH,
    _high_byte_after([0xF8], _LDR_LITERAL_T2_LOW) + _ANY + _ANY,
    _one_of([0xEA, 0xEB, 0xEC, 0xEE, 0xEF, *range(0xF9, 0x100)]) + _ANY + _ANY,  # no literal, no branch
    _high_byte_after([0xE8, 0xE9], _LDRD_LITERAL_LOW) + _ANY + _ANY,
    _high_byte_after([0xED], _VLDR_LITERAL_LOW) + _ANY + _ANY,
    _high_byte_after([0xF2, 0xF6], _MOVW_MOVT_ADR_LOW) + _ANY + _SECOND_HALFWORD_NOT_BRANCH,
])
_QUIET_THUMB = b"(?:" + _ANY + b"(?:" + _QUIET_HIGH_BYTE + b"))*+"
# One instruction the quiet ones leave (any 16-bit one they leave, or any whole 32-bit one), then the quiet ones after
# it: where a step ends, the next one starts, so findall's search never moves on to a halfword that is not the first
# of an instruction (it only could at the end of the code, where no step fits).
_THUMB_STEP = _ANY + b"(?:" + _one_of(_REFERRING_16) + b"|" + _one_of(_WIDE) + _ANY + _ANY + b")" + _QUIET_THUMB


# For thumb_address_loads, quiet is everything but LDR (literal) in both sizes and MOVW/MOVT: branches, ADR, LDRD and
# VLDR too (MOVW/MOVT share 0xF2/0xF6 with ADR.W, and with branches when the second halfword's top bit is set).
_MOVW_MOVT_LOW = (*range(0x40, 0x50), *range(0xC0, 0xD0))
_QUIET_HIGH_BYTE_FOR_LOADS = b"|".join([
    _none_of([*_LDR_LITERAL_T1, *_WIDE]),  # 16-bit
    _one_of([0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7]) + _ANY + _ANY,
    _high_byte_after([0xF8], _LDR_LITERAL_T2_LOW) + _ANY + _ANY,
    _one_of([*range(0xE8, 0xF0), *range(0xF9, 0x100)]) + _ANY + _ANY,
    _high_byte_after([0xF2, 0xF6], _MOVW_MOVT_LOW) + _ANY + _ANY,
    _one_of([0xF2, 0xF6]) + _ANY + _one_of(range(0x80, 0x100)),  # a branch
])
_QUIET_FOR_LOADS = b"(?:" + _ANY + b"(?:" + _QUIET_HIGH_BYTE_FOR_LOADS + b"))*+"
_LOAD_STEP = _ANY + b"(?:" + _one_of(_LDR_LITERAL_T1) + b"|" + _one_of(_WIDE) + _ANY + _ANY + b")" + _QUIET_FOR_LOADS


@functools.cache
def _thumb_scanners(address_loads_only: bool = False) -> tuple[Callable[[bytes], re.Match[bytes]],
                                                              Callable[[bytes, int], list[bytes]]]:
    """(the quiet instructions at the start of some code, its steps from a position): compiled when Thumb code is
    first decoded, which runs on other code need not wait for (~0.5 ms)."""
    quiet, step = (_QUIET_FOR_LOADS, _LOAD_STEP) if address_loads_only else (_QUIET_THUMB, _THUMB_STEP)
    return re.compile(quiet, re.DOTALL).match, re.compile(step, re.DOTALL).findall


def run_references(image: ElfImage, decoder: Decoder, run: CodeRun) -> list[Reference]:
    """decoder(run) as a list, decoded once per image: the report's placement without a map and the operator graph
    ask for the same runs of code."""
    key = (run.mode, run.start, run.end)
    references = image.decoded_runs.get(key)
    if references is None:
        references = image.decoded_runs[key] = list(decoder(run))
    return references

def code_runs(image: ElfImage, section: Section, data: bytes, runs) -> list[CodeRun]:
    """The instruction runs of a code section: per function (register tracking restarts at each function), split at
    ARM mapping symbols so literal pools ($d) are not decoded as instructions."""
    start, end = section.address, section.address + section.size
    boundaries: list[int] = sorted({start, end} | {max(symbol.address, start) for symbol, _, _ in runs}
                                   | {min(symbol.address + size, end) for symbol, _, size in runs})
    if image.arch == "arm":
        thumb_default = any(symbol.thumb for symbol, _, _ in runs)
        # image.mapping_symbols is sorted by address: the section's markers are one slice of it
        marks = image.mapping_symbols
        first = bisect.bisect_left(marks, (start,))
        markers = marks[first : bisect.bisect_left(marks, (end,), first)]
        boundaries = sorted(set(boundaries).union([address for address, _ in markers]))
        modes = []
        marker_position, marker_count = 0, len(markers)
        current = "thumb" if thumb_default else "arm"
        for begin in boundaries[:-1]:
            while marker_position < marker_count and markers[marker_position][0] <= begin:
                current = _MAPPING_MODES.get(markers[marker_position][1], "data")
                marker_position += 1
            modes.append(current)
    elif image.arch == "xtensa":
        # Only functions are decoded: literal pools (.literal sections) sit between them without mapping symbols.
        functions = [(symbol.address, symbol.address + size) for symbol, _, size in runs if symbol.kind == "func"]
        modes = ["xtensa" if any(low <= begin < high for low, high in functions) else "data"
                 for begin in boundaries[:-1]]
    else:
        mode = image.arch
        modes = [mode] * (len(boundaries) - 1)
    code_runs = []
    for begin, finish, mode in zip(boundaries, boundaries[1:], modes):
        if finish > begin and mode != "data":
            code_runs.append(CodeRun(start, data, begin, finish, mode))
    return code_runs


_MAPPING_MODES = {"$t": "thumb", "$a": "arm"}  # ARM mapping symbols; `$d` (and anything else) marks data


def global_pointer(image: ElfImage) -> int | None:
    """RISC-V's `__global_pointer$`, which gp-relative accesses are relative to (None elsewhere)."""
    return next((s.address for s in image.symbols if s.mangled == "__global_pointer$"), None)
