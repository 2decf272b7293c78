"""Arm/Thumb registers holding a value derived from the stack pointer, so that `mov sp, rX` is read by what rX holds.

clang moves sp through another register where GCC writes `sub sp, sp, rX`:

- an alloca or a variable-length array: `sub.w r4, sp, r0; mov sp, r4` (sp less a run-time amount: a dynamic frame,
  its static part counted);
- stack realignment for an over-aligned local: `mov r4, sp; bfc r4, #0, #5; mov sp, r4` (up to 2^5 - 8 bytes more
  when sp was 8-byte aligned at entry, as the AAPCS requires);
- a frame-pointer epilogue: `add r7, sp, #12` in the prologue, `sub.w r4, r7, #8; mov sp, r4` at the end (back to the
  depth r7 was set at, plus the 8).

A register set from sp (or from such a register) by `mov`, `add`/`sub` of an immediate, `sub` of a register, `bfc`,
`bic` or `and` of a low-bit mask carries the depth it stands for. Any other write forgets it, and `mov sp, rX` from a
register not known this way is read as before: the epilogue of a frame-pointer function, back to the frame's base.
"""

from __future__ import annotations

from dataclasses import dataclass

_KEEPS_DESTINATION = ("str", "cmp", "cmn", "tst", "teq", "it", "push", "vst", "cb")
_BRANCHES = frozenset({"b", "bl", "blx", "bx"})


@dataclass(frozen=True)
class SpValue:
    depth: int  # bytes below the entry sp the value stands for
    slack: int = 0  # up to this many bytes lower still (rounded down to an alignment)
    dynamic: bool = False  # less a run-time amount besides (alloca): depth is the static part


def _immediate(text: str) -> int | None:
    if not text.startswith("#"):
        return None
    try:
        return int(text[1:], 0)
    except ValueError:
        return None


def _aligned(value: SpValue, alignment: int) -> SpValue:
    """value rounded down to `alignment` bytes: at most alignment - 8 bytes more on an 8-byte aligned entry sp, plus
    what the depth leaves of 8."""
    slack = max(0, alignment - 8 + (-value.depth) % 8) if alignment > 4 else 0
    return SpValue(value.depth, value.slack + slack, value.dynamic)


def source_value(name: str, depth: int, values: dict[str, SpValue]) -> SpValue | None:
    return SpValue(depth) if name == "sp" else values.get(name)


def track(base: str, conditional: bool, parts: list[str], depth: int, values: dict[str, SpValue],
          constants: dict[str, int]) -> None:
    """Update `values` for one instruction that does not write sp (base: mnemonic without suffixes)."""
    if not parts or base.startswith(_KEEPS_DESTINATION) or base in _BRANCHES:
        return
    destination = parts[0]
    old = values.pop(destination, None)
    if conditional:
        return
    operands = parts[1:]
    if len(operands) == 1 and base in ("add", "adds", "addw", "sub", "subs", "subw") and old is not None:
        operands = [destination, operands[0]]  # two-operand form: `add r4, #8`
    if not operands:
        return
    source = old if operands[0] == destination else source_value(operands[0], depth, values)
    if source is None:
        if base == "bfc" and old is not None and len(operands) == 2 and _immediate(operands[0]) == 0:
            width = _immediate(operands[1])
            if width is not None:
                values[destination] = _aligned(old, 1 << width)
        return
    if base in ("mov", "movs") and len(operands) == 1:
        values[destination] = source
    elif base in ("add", "adds", "addw", "sub", "subs", "subw") and len(operands) >= 2:
        amount = _immediate(operands[1]) if len(operands) == 2 else None
        if amount is None and len(operands) == 2:
            amount = constants.get(operands[1])
        if amount is None:  # less a run-time amount (GCC: `sub.w r3, r2, r3, lsl #3`): an alloca; plus one is no
            #                 stack address we follow
            if base.startswith("sub"):
                values[destination] = SpValue(source.depth, source.slack, True)
        else:
            sign = 1 if base.startswith("sub") else -1
            values[destination] = SpValue(source.depth + sign * amount, source.slack, source.dynamic)
    elif base in ("bic", "and") and len(operands) == 2:
        mask = _immediate(operands[1])
        if mask is not None:
            low = mask if base == "bic" else ~mask & 0xFFFFFFFF
            if low and low & (low + 1) == 0:  # a run of low bits: rounding down to low + 1
                values[destination] = _aligned(source, low + 1)


def forget(registers, values: dict[str, SpValue]) -> None:
    for register in registers:
        values.pop(register, None)
