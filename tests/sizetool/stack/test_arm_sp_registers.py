"""Registers holding a stack depth (sizetool/stack/arm_sp_registers.py), instruction by instruction."""

from sizetool.stack.arm_sp_registers import SpValue, track


def run(lines, depth=96, constants=None):
    values = {}
    for line in lines:
        mnemonic, _, operands = line.partition(" ")
        track(mnemonic, False, [p.strip() for p in operands.split(",")] if operands else [], depth, values,
              constants or {})
    return values


def test_gccs_variable_length_array_with_a_shifted_register_is_dynamic():
    # GCC: mov r2, sp; sub.w r3, r2, r3, lsl #3; mov sp, r3 (a VLA in a real Arduino build)
    assert run(["mov r2, sp", "sub r3, r2, r3, lsl #3"])["r3"] == SpValue(96, 0, True)


def test_frame_pointer_arithmetic_keeps_the_depth():
    # add r7, sp, #8 ... adds r7, #52; mov sp, r7: back to 36 bytes below the entry
    assert run(["add r7, sp, #8", "adds r7, #52"])["r7"] == SpValue(36)
    assert run(["add r7, sp, #12", "sub r4, r7, #8"])["r4"] == SpValue(92)


def test_alignment_counts_the_most_rounding_can_take_from_an_8_byte_aligned_entry():
    assert run(["mov r4, sp", "bfc r4, #0, #5"], depth=64)["r4"] == SpValue(64, 24)
    assert run(["mov r4, sp", "bic r4, r4, #0xf"], depth=20)["r4"] == SpValue(20, 12)  # sp at 20 below: 4 mod 8
    assert run(["mov r4, sp", "and r4, r4, #0xffffffc0"], depth=0)["r4"] == SpValue(0, 56)
    assert run(["mov r4, sp", "bfc r4, #0, #2"], depth=8)["r4"] == SpValue(8)  # word alignment: nothing


def test_a_constant_subtracted_is_exact_and_any_other_write_forgets():
    assert run(["sub r4, sp, r0"], constants={"r0": 256})["r4"] == SpValue(352)
    assert "r4" not in run(["mov r4, sp", "ldr r4, [r0]"])
    assert "r4" not in run(["mov r4, sp", "add r4, sp, r1"])  # a pointer into the frame by a run-time index
    assert run(["mov r4, sp", "str r4, [r0]", "cmp r4, r1", "b #0x100"])["r4"] == SpValue(96)
