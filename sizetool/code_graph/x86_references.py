"""The references in x86-64 code, read from capstone's text: call/jump immediates, RIP-relative operands, and
absolute immediates or displacements. disassembly.code_decoder hands x86-64 CodeRuns here; kept apart so that its
regexes compile only for x86-64 code, not for every Cortex-M report."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import capstone


def x86_references(engine: capstone.Cs, run) -> Iterator[tuple[int, int]]:
    """(instruction address, referenced address) pairs of a CodeRun of x86-64 code (disassembly.py)."""
    # x86-64 code is large (a host build of TFLM has millions of instructions) and nearly every instruction could
    # refer somewhere, so this reads capstone's text (disasm_lite, ~20x faster than detail objects): RIP-relative
    # operands, and numbers outside brackets or alone in them (call/jmp targets, absolute immediates and
    # displacements). A number beside a register in brackets is an offset, not an address.
    offset = run.start - run.section_start
    code = run.section_data[offset : offset + run.end - run.start]
    for address, size, mnemonic, operands in engine.disasm_lite(code, run.start):
        if not operands:
            continue
        if mnemonic in _X86_BRANCHES or mnemonic[0] == "j":
            if operands.startswith("0x"):
                yield address, int(operands, 16)
            continue
        if "rip" in operands:
            match = _RIP_RELATIVE.search(operands)
            if match:
                displacement = int(match.group(2), 0)
                target = address + size + (displacement if match.group(1) == "+" else -displacement)
                yield address, target & 0xFFFFFFFFFFFFFFFF
            operands = _BRACKETS.sub("", operands)
        elif "[" in operands:
            operands = _BRACKETS.sub(lambda m: m.group(0) if _LONE_NUMBER.fullmatch(m.group(0)) else "", operands)
        for number in _HEX_NUMBER.findall(operands):
            value = int(number, 16)
            # Position-independent code only refers RIP-relative; an absolute number below the usual non-PIE base
            # is a constant (0x7fff, a mask) that would otherwise land inside some function of a PIE.
            if value >= _X86_LOWEST_ABSOLUTE_ADDRESS:
                yield address, value


_X86_BRANCHES = frozenset({"call", "jmp", "loop", "loope", "loopne", "jrcxz", "jecxz"})
_X86_LOWEST_ABSOLUTE_ADDRESS = 0x400000  # where non-PIE x86-64 executables start
_RIP_RELATIVE = re.compile(r"\[rip ([+-]) (0x[0-9a-f]+|\d+)\]")
_BRACKETS = re.compile(r"\[[^\]]*\]")
_LONE_NUMBER = re.compile(r"\[0x[0-9a-f]+\]")
_HEX_NUMBER = re.compile(r"(?<![\w-])0x([0-9a-f]+)")
