"""The references of Xtensa code (ESP8266 lx106, ESP32 LX6, ESP32-S2/S3 LX7), for the operator-cost graph.

A small exact scanner of just the instructions that refer somewhere (Xtensa ISA reference manual, little-endian
encodings), for both ABIs:

- CALL0 and the windowed CALL4/CALL8/CALL12 (target `(pc & ~3) + (offset << 2) + 4`); CALLX0/4/8/12 and JX take
  their target from a register, which an L32R loaded from a literal: that literal's word is the reference;
- L32R `at, literal`: the literal's address (the word goes with the code that loads it) and the word it loads (a
  function, a string, a table: `-mlongcalls` code calls through these);
- J, the conditional branches (BEQ..BBSI, BEQZ/BNEZ/BLTZ/BGEZ, BEQI..BGEUI, BF/BT), their narrow forms
  (BEQZ.N/BNEZ.N) and LOOP/LOOPNEZ/LOOPGTZ: targets inside the function keep the decoding in step; a J out of the
  function is a tail call, a reference;
- ENTRY (windowed functions) and RETW/RETW.N decode like any other instruction.

Instructions are 24 bits, or 16 with the code-density option (op0 8..13), so decoding must stay in step: the
assembler pads before aligned branch targets with bytes that are not instructions (zeros after an unconditional
jump). The scanner therefore walks the control flow from the function's entry (recursive descent: after J, JX,
RET/RETW and RFE-like returns it goes on only at known targets), and then sweeps what is still unread, such as the
cases of a jump table, starting past any zero padding (a stretch that an L32R loads from is a literal pool, as
`-mtext-section-literals` places them inside functions, and is not read). Op0 values 14 and 15 (reserved on LX6/lx106, used by wider
FLIX or TIE encodings on some LX7 cores) stop the walk at that point.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

_WORD = struct.Struct("<I")
_MASK = 0xFFFFFFFF


def _signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value & (1 << (bits - 1)) else value


def decode(data: bytes, offset: int, pc: int) -> tuple[int, int | None, str, int | None] | None:
    """One instruction at data[offset] (address pc): (length, target or None, kind, literal address or None).
    kind: "call", "jump" (unconditional, J), "branch" (conditional, falls through), "end" (no fall-through: RET,
    RETW, JX, RFE..., ILL), "literal" (L32R), or "" (anything else). None when the bytes are not a whole
    instruction this scanner can size."""
    if offset >= len(data):
        return None
    b0 = data[offset]
    op0 = b0 & 0xF
    if 8 <= op0 <= 13:  # narrow (16-bit) instructions
        if offset + 2 > len(data):
            return None
        half = b0 | (data[offset + 1] << 8)
        if op0 == 0xC:  # ST2: MOVI.N, BEQZ.N, BNEZ.N
            t = (half >> 4) & 0xF
            if t & 0x8:
                return 2, pc + 4 + (((t & 3) << 4) | (half >> 12)), "branch", None
        elif op0 == 0xD and (half >> 12) == 0xF:  # ST3, S3: RET.N, RETW.N, BREAK.N, NOP.N, ILL.N
            t = (half >> 4) & 0xF
            if t in (0, 1, 6):
                return 2, None, "end", None
        return 2, None, "", None
    if op0 >= 14 or offset + 3 > len(data):
        return None
    word = b0 | (data[offset + 1] << 8) | (data[offset + 2] << 16)
    if op0 == 1:  # L32R
        literal = (((pc + 3) & ~3) + ((word >> 8) - 0x10000) * 4) & _MASK
        return 3, None, "literal", literal
    if op0 == 5:  # CALL0, CALL4, CALL8, CALL12
        return 3, ((pc & ~3) + (_signed(word >> 6, 18) << 2) + 4) & _MASK, "call", None
    if op0 == 6:  # SI: J, BZ, BI0, BI1
        n = (word >> 4) & 3
        m = (word >> 6) & 3
        if n == 0:
            return 3, (pc + 4 + _signed(word >> 6, 18)) & _MASK, "jump", None
        if n == 1:
            return 3, (pc + 4 + _signed(word >> 12, 12)) & _MASK, "branch", None
        if n == 2 or m >= 2:  # BEQI..BGEI; BLTUI, BGEUI
            return 3, (pc + 4 + _signed(word >> 16, 8)) & _MASK, "branch", None
        if m == 1:
            r = (word >> 12) & 0xF
            if r in (0, 1):  # BF, BT
                return 3, (pc + 4 + _signed(word >> 16, 8)) & _MASK, "branch", None
            if r in (8, 9, 10):  # LOOP, LOOPNEZ, LOOPGTZ: the loop's end
                return 3, (pc + 4 + (word >> 16)) & _MASK, "branch", None
        return 3, None, "", None  # ENTRY and the rest of BI1
    if op0 == 7:  # B: BNONE, BEQ, BLT, ..., BBSI
        return 3, (pc + 4 + _signed(word >> 16, 8)) & _MASK, "branch", None
    if op0 == 0 and (word >> 16) == 0:  # RST0/ST0: SNM0 (RET, RETW, JX, CALLX), RFEI
        r = (word >> 12) & 0xF
        if word == 0:
            return 3, None, "end", None  # ILL
        if r == 0 and (word >> 6) & 3 == 2 and (word >> 4) & 3 != 3:  # RET, RETW, JX
            return 3, None, "end", None
        if r == 3 and (word >> 4) & 0xF in (0, 1):  # RFE, RFUE, RFDE, RFWO, RFWU; RFI
            return 3, None, "end", None
    return 3, None, "", None


def instructions(data: bytes, base: int, start: int, end: int) -> Iterator[tuple[int, int, int | None, str, int | None]]:
    """(address, length, target, kind, literal) of every instruction found in [start, end) of data (data[0] is at
    address base): control flow from `start` first, then each still-unread stretch after its zero padding."""
    seen: set[int] = set()
    covered = bytearray(end - start)
    found: list[tuple[int, int, int | None, str, int | None]] = []

    def walk(entry: int) -> None:
        work = [entry]
        while work:
            pc = work.pop()
            while start <= pc < end and pc not in seen:
                if covered[pc - start]:
                    break  # inside an instruction already read: not a real boundary
                decoded = decode(data, pc - base, pc)
                if decoded is None or pc + decoded[0] > end:
                    break
                length, target, kind, literal = decoded
                seen.add(pc)
                covered[pc - start : pc - start + length] = b"\x01" * length
                found.append((pc, length, target, kind, literal))
                if target is not None and kind in ("branch", "jump") and start <= target < end:
                    work.append(target)
                if kind in ("jump", "end"):
                    break
                pc += length

    walk(start)
    literals = {entry[4] for entry in found if entry[4] is not None}
    position = 0
    while True:
        position = covered.find(0, position)
        if position < 0:
            break
        stretch_end = covered.find(1, position)
        stretch_end = len(covered) if stretch_end < 0 else stretch_end
        first = position
        while first < stretch_end and data[start - base + first] == 0:
            first += 1
        if first >= stretch_end or any(start + position <= literal < start + stretch_end for literal in literals):
            position = stretch_end  # padding only, or a literal pool inside the function (-mtext-section-literals)
            continue
        walk(start + first)
        position = first if covered[first] else stretch_end  # an unreadable stretch is left alone
    found.sort()
    yield from found


def xtensa_references(run) -> Iterator[tuple[int, int]]:
    """(instruction address, referenced address) pairs of a CodeRun of Xtensa code: call and branch targets (those
    inside the run too, as the other decoders give them), L32R literal addresses and the words they load."""
    data = run.section_data
    base = run.section_start
    for address, _length, target, kind, literal in instructions(data, base, run.start, run.end):
        if target is not None:
            yield address, target
        elif literal is not None:
            yield address, literal
            offset = literal - base
            if 0 <= offset <= len(data) - 4:
                yield address, _WORD.unpack_from(data, offset)[0]
