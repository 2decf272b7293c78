"""disassembly.py: the addresses code refers to, on hand-encoded instructions of each architecture."""

import struct

from sizetool.operators.disassembly import CodeRun, code_decoder


def references(arch, code, start=0x1000, elf_class=32, mode=None, global_pointer=None):
    decoder = code_decoder(arch, elf_class, True, global_pointer)
    run = CodeRun(start, code, start, start + len(code), mode or arch)
    return list(decoder(run))


def test_thumb_bl_literal_load_and_movw_movt_pair():
    code = (
        bytes.fromhex("00f0feff")  # 0x1000 bl 0x2000   (offset 0xffc: imm11 0x7fe, J1 = J2 = 1)
        + bytes.fromhex("0248")  # 0x1004 ldr r0, [pc, #8] -> literal at align(0x1008, 4) + 8 = 0x1010
        + bytes.fromhex("45f27860")  # 0x1006 movw r0, #0x5678
        + bytes.fromhex("c1f23420")  # 0x100a movt r0, #0x1234
        + bytes.fromhex("00bf")  # 0x100e nop
        + struct.pack("<I", 0x08000421)  # 0x1010 the literal pool: a Thumb function address, low bit set
    )
    decoder = code_decoder("arm", 32, True)
    found = list(decoder(CodeRun(0x1000, code, 0x1000, 0x1010, "thumb")))  # the pool is data, not decoded
    targets = {target for _, target in found}
    assert (0x1000, 0x2000) in found
    assert 0x1010 in targets  # the literal itself
    assert 0x08000421 in targets  # the word it loads
    assert 0x12345678 in targets  # the MOVW/MOVT pair


def test_riscv_auipc_addi_pair_and_jal_offset():
    code = (
        struct.pack("<I", 0x00001517)  # 0x1000 auipc a0, 0x1      -> a0 = 0x2000
        + struct.pack("<I", 0x01050513)  # 0x1004 addi a0, a0, 16  -> 0x2010
        + struct.pack("<I", 0x100000EF)  # 0x1008 jal ra, +0x100   -> 0x1108
    )
    found = references("riscv", code)
    assert (0x1004, 0x2010) in found
    assert (0x1008, 0x1108) in found


def test_riscv_gp_relative_access_uses_the_global_pointer():
    code = struct.pack("<I", 0x01012503)  # lw a0, 16(sp)... base sp is unknown: no reference
    code += struct.pack("<I", (0x7F0 << 20) | (3 << 15) | (2 << 12) | (10 << 7) | 0x03)  # lw a0, 0x7f0(gp)
    found = references("riscv", code, global_pointer=0x80000800)
    assert [target for _, target in found] == [0x80000FF0]


def test_x86_64_call_and_rip_relative_lea():
    code = bytes.fromhex("e8fb0f0000") + bytes.fromhex("488d0500010000")  # call 0x2000; lea rax, [rip + 0x100]
    found = references("x86_64", code, elf_class=64)
    assert (0x1000, 0x2000) in found
    assert (0x1005, 0x1005 + 7 + 0x100) in found


def test_unknown_architecture_has_no_decoder():
    assert code_decoder("xtensa", 32, True) is None
