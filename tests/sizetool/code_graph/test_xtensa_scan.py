"""xtensa_scan.py: the references of Xtensa code, on hand-encoded instructions of both ABIs and against objdump.

Encodings from the Xtensa ISA reference (little-endian): CALLn op0=5, n in bits 4-5, offset in bits 6-23; J op0=6
n=0; ENTRY op0=6 n=3 m=0; L32R op0=1, imm16 in bits 8-23; narrow instructions have op0 8..13.
"""

import re
import shutil
import struct
import subprocess

import pytest

from sizetool.inputs.elf_reader import read_elf
from sizetool.code_graph.disassembly import CodeRun, code_decoder
from sizetool.code_graph.xtensa_scan import decode, instructions
from tests.conftest import FIXTURES

BASE = 0x40080000


def call(n, pc, target):
    offset = (target - (pc & ~3) - 4) >> 2
    return (5 | (n << 4) | ((offset & 0x3FFFF) << 6)).to_bytes(3, "little")


def jump(pc, target):
    return (6 | (((target - pc - 4) & 0x3FFFF) << 6)).to_bytes(3, "little")


def l32r(register, pc, literal):
    offset = ((literal - ((pc + 3) & ~3)) >> 2) & 0xFFFF
    return (1 | (register << 4) | (offset << 8)).to_bytes(3, "little")


def beqz_n(register, pc, target):
    imm = target - pc - 4
    return (0xC | ((0x8 | (imm >> 4)) << 4) | (register << 8) | ((imm & 0xF) << 12)).to_bytes(2, "little")


ENTRY_A1_32 = bytes.fromhex("364100")  # entry a1, 32
CALLX8_A8 = bytes.fromhex("e00800")  # callx8 a8
RETW_N = bytes.fromhex("1df0")
RET_N = bytes.fromhex("0df0")
NOP_N = bytes.fromhex("3df0")


def scan(code, start=BASE, section_start=BASE):
    """References of the function at `start` in a section holding `code` from `section_start`."""
    decoder = code_decoder("xtensa", 32, True)
    return list(decoder(CodeRun(section_start, code, start, section_start + len(code), "xtensa")))


def test_a_windowed_function_calls_through_call8_and_a_literal_for_callx8():
    # The literal pool sits before the function (ESP-IDF's .literal sections): one word, a function address.
    literal = struct.pack("<I", 0x400D1234)
    pc = BASE + 4
    code = literal + ENTRY_A1_32  # 0x40080004 entry a1, 32
    code += call(2, pc + 3, 0x400D0100)  # 0x40080007 call8 0x400d0100
    code += l32r(8, pc + 6, BASE)  # 0x4008000a l32r a8, 0x40080000
    code += CALLX8_A8  # 0x4008000d callx8 a8
    code += RETW_N  # 0x40080010 retw.n
    found = scan(code, start=pc)
    assert (pc + 3, 0x400D0100) in found
    assert (pc + 6, BASE) in found and (pc + 6, 0x400D1234) in found  # the literal and the word it loads
    assert [a for a, *_ in instructions(code, BASE, pc, BASE + len(code))] == [pc, pc + 3, pc + 6, pc + 9, pc + 12]


def test_call0_abi_calls_and_returns():
    code = call(0, BASE, 0x40100000) + call(0, BASE + 3, BASE - 0x100) + RET_N
    assert scan(code) == [(BASE, 0x40100000), (BASE + 3, BASE - 0x100)]


def test_the_call_target_formula_uses_the_word_aligned_pc():
    code = NOP_N + call(0, BASE + 2, BASE + 0x40) + RET_N  # call0 at an address 2 mod 4
    assert scan(code) == [(BASE + 2, BASE + 0x40)]
    assert decode(code, 2, BASE + 2)[1] == BASE + 0x40


def test_padding_after_a_jump_does_not_desync_the_decoding():
    # j over one zero byte of alignment padding to a branch target: a linear sweep would read 00 xx xx as one
    # instruction and lose step; the control-flow walk goes on at the target.
    target = BASE + 4
    code = jump(BASE, target) + b"\x00" + call(0, target, BASE + 0x2000) + RET_N
    found = scan(code)
    assert (BASE, target) in found and (target, BASE + 0x2000) in found
    assert [a for a, *_ in instructions(code, BASE, BASE, BASE + len(code))] == [BASE, target, target + 3]


def test_code_reached_only_through_a_jump_table_is_read_after_its_padding():
    # ret.n, two bytes of zero padding, then a case body no branch names (a jump table's target).
    body = BASE + 4
    code = RET_N + b"\x00\x00" + call(0, body, BASE + 0x3000) + RET_N
    assert (body, BASE + 0x3000) in scan(code)


def test_a_literal_pool_inside_the_function_is_not_read_as_code():
    # -mtext-section-literals: j over an in-function pool whose word an L32R after it loads.
    after = BASE + 8
    pool = struct.pack("<I", 0x400D0005)  # would decode as a CALL0 to somewhere
    code = jump(BASE, after) + b"\x00" + pool + l32r(2, after, BASE + 4) + RET_N
    found = scan(code)
    assert (after, BASE + 4) in found and (after, 0x400D0005) in found
    assert all(address != BASE + 4 for address, _ in found)


def test_narrow_branches_and_a_tail_jump_out_of_the_function():
    code = beqz_n(2, BASE, BASE + 8) + NOP_N + NOP_N + NOP_N + jump(BASE + 8, 0x40090000)
    found = scan(code)
    assert (BASE, BASE + 8) in found and (BASE + 8, 0x40090000) in found


def test_reserved_opcodes_stop_the_walk_instead_of_guessing():
    assert decode(bytes.fromhex("0e0000"), 0, BASE) is None
    assert decode(bytes.fromhex("0f0000"), 0, BASE) is None
    assert scan(bytes.fromhex("0e0000") + call(0, BASE + 3, 0x40100000)) == []


OBJDUMP = shutil.which("xtensa-lx106-elf-objdump")
_LINE = re.compile(r"^\s*([0-9a-f]+):\s+([0-9a-f]+)\s+(\S+)\s*(.*)$")


# Every Xtensa fixture: the lx106 build, its leave-one-out and keep-only variants, and the ESP32-like layout.
XTENSA_FIXTURES = sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.glob("firmware/out/**/lx106/*.elf")) + [
    "layouts/out/esp32-like/esp32-like.elf"]


@pytest.mark.skipif(OBJDUMP is None, reason="needs xtensa-lx106-elf-objdump (binutils-xtensa-lx106)")
@pytest.mark.parametrize("elf", XTENSA_FIXTURES)
def test_every_instruction_objdump_also_reads_has_its_length_and_target(elf):
    path = str(FIXTURES / elf)
    listing = subprocess.run([OBJDUMP, "-d", path], capture_output=True, text=True, check=True).stdout
    theirs = {}
    for line in listing.splitlines():
        match = _LINE.match(line)
        if match:
            mnemonic, operands = match.group(3), match.group(4)
            target = None
            if re.match(r"(call\d+|j|b\w+|l32r|loop\w*)$", mnemonic) and mnemonic not in ("break", "break.n"):
                numbers = re.findall(r"(?:^|[ ,])([0-9a-f]{8})(?: <|$)", operands)
                target = int(numbers[-1], 16) if numbers else None
            theirs[int(match.group(1), 16)] = (len(match.group(2)) // 2, mnemonic, target)
    image = read_elf(path)
    mine = {}
    for section in image.sections:
        if section.is_code and section.size:
            data = image.section_data(section)
            for symbol in image.symbols:
                if symbol.kind == "func" and symbol.size and section.contains(symbol.address):
                    for address, length, target, _kind, literal in instructions(
                            data, section.address, symbol.address, symbol.address + symbol.size):
                        mine[address] = (length, target if target is not None else literal)
    common = set(mine) & set(theirs)
    # objdump sweeps linearly and loses step after padding for a while; where it reads an instruction we also read,
    # we agree on its length and target.
    assert len(common) >= 0.95 * len(mine)
    compared = 0
    for address in common:
        length, mnemonic, target = theirs[address]
        assert mine[address][0] == length, (hex(address), mnemonic)
        if target is not None:
            compared += 1
            assert mine[address][1] == target, (hex(address), mnemonic)
    assert compared > 300  # calls, jumps, branches and literals: a fifth of the instructions
