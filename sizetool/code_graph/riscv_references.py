"""The references in RISC-V code (RV32/RV64, compressed included), read through capstone: JAL/branch offsets;
`auipc`/`lui` followed by `addi`, `jalr`, a load or a store on the same register; gp-relative accesses when
`__global_pointer$` is known. disassembly.code_decoder hands RISC-V CodeRuns here; kept apart so that its record of
capstone ids loads only for RISC-V code, not for every Cortex-M report."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import capstone


def riscv_references(engine: capstone.Cs, run, elf_class: int, global_pointer: int | None,
                     ids: RiscvIds) -> Iterator[tuple[int, int]]:
    """(instruction address, referenced address) pairs of a CodeRun of RISC-V code (disassembly.py)."""
    from capstone import riscv

    mask = (1 << elf_class) - 1
    known: dict[int, int] = {}  # register -> address built by auipc/lui (+addi)
    if global_pointer is not None:
        known[riscv.RISCV_REG_GP] = global_pointer
    for insn in run.instructions(engine):
        if insn.id == 0:
            continue
        ident = insn.id
        operands = insn.operands
        if ident in ids.upper:
            destination, immediate = operands[0].reg, operands[1].imm & 0xFFFFF
            upper = immediate << 12
            if upper & (1 << 31):  # sign-extend the 32-bit result on RV64
                upper -= 1 << 32
            known[destination] = ((insn.address if ident == riscv.RISCV_INS_AUIPC else 0) + upper) & mask
            continue
        if ident in ids.jumps:
            for operand in operands:
                if operand.type == riscv.RISCV_OP_IMM:
                    yield insn.address, (insn.address + operand.imm) & mask
            continue
        if ident in ids.add_immediate:
            # addi rd, rs, imm; its alias mv rd, rs (imm 0); c.mv rd, rs; jalr rd, imm(rs)
            registers = [o.reg for o in operands if o.type == riscv.RISCV_OP_REG]
            immediates = [o.imm for o in operands if o.type == riscv.RISCV_OP_IMM]
            source = registers[1] if len(registers) > 1 else (registers[0] if registers else None)
            base = known.get(source) if source is not None else None
            if base is not None and len(immediates) <= 1:
                target = (base + (immediates[0] if immediates else 0)) & mask
                if ident != ids.c_mv:  # a register copy passes the address on; the use of the copy counts
                    yield insn.address, target
                if ident != riscv.RISCV_INS_JALR and registers[0] != riscv.RISCV_REG_GP:
                    known[registers[0]] = target
                    continue
        for operand in operands:
            if operand.type == riscv.RISCV_OP_MEM and operand.mem.base in known:
                yield insn.address, (known[operand.mem.base] + operand.mem.disp) & mask
            elif (operand.type == riscv.RISCV_OP_IMM and ident == riscv.RISCV_INS_JALR and len(operands) == 2
                  and operands[0].type == riscv.RISCV_OP_REG and operands[0].reg in known):
                yield insn.address, (known[operands[0].reg] + operand.imm) & mask
        # A register written by anything else no longer holds the address we tracked.
        if operands and operands[0].type == riscv.RISCV_OP_REG and ident not in ids.stores:
            known.pop(operands[0].reg, None)
            if global_pointer is not None:
                known[riscv.RISCV_REG_GP] = global_pointer


@dataclass(frozen=True)
class RiscvIds:
    """Capstone's ids of the RISC-V instructions riscv_references tells apart (read once per decoder)."""

    add_immediate: frozenset[int]
    c_mv: int
    upper: frozenset[int]
    jumps: frozenset[int]
    stores: frozenset[int]


def riscv_ids() -> RiscvIds:
    from capstone import riscv

    return RiscvIds(
        # c.addi is left out: compilers build addresses with a full addi, and lui+c.addi is how constants such as
        # INT_MIN + 1 are made, which would otherwise point into RAM at 0x80000000 on many RISC-V parts.
        add_immediate=frozenset(getattr(riscv, name) for name in ("RISCV_INS_ADDI", "RISCV_INS_C_MV", "RISCV_INS_JALR")
                                if hasattr(riscv, name)),
        c_mv=getattr(riscv, "RISCV_INS_C_MV", -1),
        upper=frozenset({riscv.RISCV_INS_AUIPC, riscv.RISCV_INS_LUI, riscv.RISCV_INS_C_LUI}),
        jumps=frozenset(
            getattr(riscv, name)
            for name in (
                "RISCV_INS_JAL", "RISCV_INS_C_JAL", "RISCV_INS_C_J", "RISCV_INS_BEQ", "RISCV_INS_BNE", "RISCV_INS_BLT",
                "RISCV_INS_BGE", "RISCV_INS_BLTU", "RISCV_INS_BGEU", "RISCV_INS_C_BEQZ", "RISCV_INS_C_BNEZ",
            )
            if hasattr(riscv, name)
        ),
        stores=frozenset(
            getattr(riscv, name)
            for name in ("RISCV_INS_SB", "RISCV_INS_SH", "RISCV_INS_SW", "RISCV_INS_SD", "RISCV_INS_C_SW",
                         "RISCV_INS_C_SD", "RISCV_INS_C_SWSP", "RISCV_INS_C_SDSP", "RISCV_INS_FSW", "RISCV_INS_FSD",
                         "RISCV_INS_C_FSW", "RISCV_INS_C_FSD", "RISCV_INS_C_FSWSP", "RISCV_INS_C_FSDSP")
            if hasattr(riscv, name)
        ),
    )
