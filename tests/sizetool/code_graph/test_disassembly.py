"""disassembly.py: the addresses code refers to, on hand-encoded instructions of each architecture."""

import struct
from pathlib import Path

import pytest

from sizetool.code_graph.disassembly import CodeRun, code_decoder

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"


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
    assert code_decoder("mips", 32, True) is None
    assert code_decoder("xtensa", 32, False) is None  # big-endian Xtensa cores are not read
    assert code_decoder("xtensa", 32, True) is not None


def test_thumb_scanner_reads_each_encoding_as_capstone_does():
    from sizetool.code_graph.disassembly import capstone_thumb_decoder, thumb_references

    halfwords = [
        0xF000, 0xB800,  # b.w (T4) to the next instruction
        0xF43F, 0xAFFE,  # beq.w (T3), backwards
        0xB108,  # cbz r0, forwards
        0xA001,  # adr r0 (T1)
        0xE9DF, 0x0102,  # ldrd r0, r1, [pc, #8]
        0xED9F, 0x0A01,  # vldr s0, [pc, #4]
        0xF85F, 0x0004,  # ldr.w r0, [pc, #-4]
        0x4801,  # ldr r0, [pc, #4] (T1)
        0xD0FE,  # beq (T1), to itself
        0xE7FE,  # b (T2), to itself
        0xF7FF, 0xFFF0,  # bl, backwards
        0xF8D0, 0x8004,  # ldr.w r8, [r0, #4]: not a literal load, nor a branch
        0xF241, 0x2034,  # movw r0, #0x1234
        0xF6C0, 0x0000,  # movt r0, #0x800
        0xBF00, 0xBF00,  # nop; nop
    ]
    code = struct.pack(f"<{len(halfwords)}H", *halfwords) + struct.pack("<II", 0x08000421, 0x20000010)
    run = CodeRun(0x1000, code, 0x1000, 0x1000 + 2 * len(halfwords), "thumb")
    expected = list(capstone_thumb_decoder()(run))
    assert list(thumb_references(run)) == expected
    # Branch targets, pc-relative literals (Align(pc, 4) + offset) and the MOVW/MOVT pair, worked out by hand:
    for reference in [(0x1000, 0x1004), (0x1004, 0x1004), (0x1008, 0x100E), (0x100A, 0x1010), (0x100C, 0x1018),
                      (0x1010, 0x1018), (0x1014, 0x1014), (0x1018, 0x1020), (0x101A, 0x101A), (0x101C, 0x101C),
                      (0x101E, 0x1002), (0x102A, 0x08001234)]:
        assert reference in expected
    assert not any(address == 0x1022 for address, _ in expected)  # a load from r0 refers to nothing known


# Shapes where stepping over the instructions that refer to nothing could lose the instruction boundaries, the
# MOVW/MOVT pairing, or an encoding told apart by the low byte of its first halfword (halfwords as in the listing).
THUMB_SHAPES = {
    "a run ending in a BL's first halfword": [0xF000, 0xF800, 0xBF00, 0xF000],
    "a run ending in a first halfword that refers to nothing": [0xD0FE, 0xF8D0],
    "a run that is one lone first halfword": [0xF7FF],
    "a BL then a lone first halfword": [0xF7FF, 0xFFFE, 0xF85F],
    "MOVW, 16- and 32-bit instructions that refer to nothing, then MOVT": [
        0xF241, 0x2034, 0xBF00, 0x4408, 0xF8D0, 0x8004, 0xEB01, 0x0002, 0xFB00, 0xF001, 0xF6C0, 0x0000, 0xBF00],
    "MOVW and MOVT on two registers, interleaved": [0xF241, 0x2034, 0xF245, 0x6178, 0xF6C0, 0x0100, 0xF2C1, 0x2034],
    "a MOVT without its MOVW": [0xBF00, 0xF6C0, 0x0000],
    "second halfwords that look like instructions that refer somewhere": [
        0xF8D0, 0x4801, 0xF8D0, 0xE7FE, 0xEB00, 0xD0FE, 0xF8D0, 0xF000, 0xE7FE, 0xF8D0, 0xF7FF, 0xD0FE,
        0xE8BD, 0x4810, 0xE8DF, 0xF001, 0xBF00],  # pop.w {r4, r11, lr}; tbb [pc, r1]
    "literal loads beside the loads from a register that share their high byte": [
        0xF8D0, 0x0004, 0xF85F, 0x0004, 0xF8DF, 0x0008, 0xF8D1, 0x1000, 0xE9D0, 0x0100, 0xE9DF, 0x0102,
        0xE95F, 0x0101, 0xE8D0, 0x0F4F, 0xED90, 0x0A00, 0xED9F, 0x0A01, 0xED1F, 0x0B02, 0xBF00],
    "32-bit branches, and control instructions with the branch encodings' high bytes": [
        0xF3BF, 0x8F4F, 0xF3EF, 0x8008, 0xF380, 0x8808, 0xF43F, 0xAFFE, 0xF000, 0xB800, 0xF7FF, 0xBFFE],
    "16-bit instructions that refer somewhere, back to back, after quiet ones": [
        0x2000, 0x4770, 0xB510, 0x4801, 0x4F02, 0xA001, 0xA702, 0xB108, 0xB910, 0xBB10, 0xD1FE, 0xDCFE, 0xDEFF, 0xDF01,
        0xE7FE, 0xE000, 0x4801],
}


@pytest.mark.parametrize("loads_only", [False, True], ids=["all references", "address loads only"])
@pytest.mark.parametrize("odd_byte", [False, True], ids=["even", "odd length"])
@pytest.mark.parametrize("name", list(THUMB_SHAPES))
def test_thumb_scanner_keeps_instruction_boundaries_and_pairs_as_capstone_does(name, odd_byte, loads_only):
    from sizetool.code_graph.disassembly import capstone_thumb_decoder, thumb_references

    halfwords = THUMB_SHAPES[name]
    code = struct.pack(f"<{len(halfwords)}H", *halfwords)
    pool = struct.pack("<4I", 0x08000421, 0x20000010, 0x08000001, 0x12345678)
    for start in (0x1000, 0x1002):  # literal pools are word-aligned from the pc: both halves of a word
        run = CodeRun(start, code + pool, start, start + len(code) + odd_byte, "thumb")
        expected = list(capstone_thumb_decoder(loads_only)(run))
        assert list(thumb_references(run, loads_only)) == expected, name
    assert expected or name.startswith(("a run ending in a first", "a run that is one", "a MOVT")) or (
        loads_only and "load" not in name and "MOV" not in name)


def test_address_loads_are_the_literal_words_and_movw_movt_pairs_alone():
    """thumb_address_loads keeps, of all the references, the words LDR reads from a pool and the MOVW/MOVT pairs:
    no branch target, no ADR, no literal slot, and nothing from LDRD or VLDR."""
    from sizetool.code_graph.disassembly import thumb_address_loads, thumb_references

    halfwords = [
        0xF7FF, 0xFFFE,  # 0x1000 bl
        0x4801,  # 0x1004 ldr r0, [pc, #4]: reads 0x100c
        0xA001,  # 0x1006 adr r0
        0xE9DF, 0x0100,  # 0x1008 ldrd r0, r1, [pc]
        0xF85F, 0x1008,  # 0x100c ldr.w r1, [pc, #-8]: reads 0x1008
        0xF241, 0x2034,  # 0x1010 movw r0, #0x1234
        0xF6C0, 0x0000,  # 0x1014 movt r0, #0x800
        0xE7FE,  # 0x1018 b
        0xBF00,  # 0x101a nop
    ]
    code = struct.pack(f"<{len(halfwords)}H", *halfwords)
    run = CodeRun(0x1000, code, 0x1000, 0x1000 + len(code), "thumb")
    loads = list(thumb_address_loads(run))
    # The words read: at Align(0x1008, 4) + 4 = 0x100c (the ldr.w's own halfwords) and at 0x1010 - 8 = 0x1008.
    assert loads == [(0x1004, 0x1008F85F), (0x100C, 0x0100E9DF), (0x1014, 0x08001234)]
    assert set(loads) < set(thumb_references(run))


def test_thumb_scanner_reads_adr_w_beside_addw_and_subw():
    """ADR.W, which capstone 5 calls ADDW/SUBW from the pc (so its reading finds nothing), worked out by hand."""
    from sizetool.code_graph.disassembly import thumb_references

    halfwords = [
        0xF20F, 0x0004,  # 0x1000 adr.w r0, Align(0x1004, 4) + 4
        0xBF00,  # 0x1004 nop
        0xF2AF, 0x0008,  # 0x1006 adr.w r0, Align(0x100a, 4) - 8
        0xF200, 0x0104,  # 0x100a addw r1, r0, #4: not from the pc
        0xF2A0, 0x0104,  # 0x100e subw r1, r0, #4
        0xF60F, 0x0100,  # 0x1012 adr.w r1, Align(0x1016, 4) + 0x800 (the i bit)
    ]
    code = struct.pack(f"<{len(halfwords)}H", *halfwords)
    found = list(thumb_references(CodeRun(0x1000, code, 0x1000, 0x1000 + len(code), "thumb")))
    assert found == [(0x1000, 0x1008), (0x1006, 0x1000), (0x1012, 0x1014 + 0x800)]


def test_thumb_scanner_matches_capstone_on_every_fixture_build():
    from collections import defaultdict

    from sizetool.inputs.elf_reader import read_elf
    from sizetool.code_graph.disassembly import capstone_thumb_decoder, thumb_address_loads, thumb_references
    from sizetool.code_graph.disassembly import code_runs
    from sizetool.inputs.symbol_runs import symbol_runs
    from tests.conftest import FIXTURES

    capstone_decoder = capstone_thumb_decoder()
    capstone_loads = capstone_thumb_decoder(address_loads_only=True)
    out = FIXTURES / "firmware" / "out"
    elfs = [out / "cortex-m4/firmware.elf", out / "cortex-m4-relocs/firmware.elf",
            *sorted((out / "keep-only/cortex-m4").glob("*.elf"))]
    compared = 0
    for path in elfs:
        image = read_elf(path)
        by_section = defaultdict(list)
        for symbol in image.symbols:
            if symbol.size:
                by_section[symbol.section_index].append(symbol)
        for section in image.sections:
            if not (section.is_alloc and section.is_code and section.size):
                continue
            runs = code_runs(image, section, image.section_data(section), symbol_runs(section, by_section[section.index]))
            for run in runs:
                if run.mode == "thumb":
                    assert list(thumb_references(run)) == list(capstone_decoder(run)), (path, hex(run.start))
                    assert list(thumb_address_loads(run)) == list(capstone_loads(run)), (path, hex(run.start))
                    compared += 1
    assert compared > 500


def test_the_placement_and_the_operator_graph_decode_each_run_of_code_once(monkeypatch):
    """Without a map the report places symbol-less bytes by the code that refers to them, and --ops builds its graph
    from the same code: one image decodes each run once, and both get what the decoder found."""
    from collections import Counter

    import sizetool.code_graph.disassembly as disassembly
    import sizetool.report.referenced_bytes as referenced_bytes
    from sizetool.code_graph.reference_graph import build_reference_graph
    from sizetool.inputs.elf_reader import read_elf
    from sizetool.report.report_builder import build_report_and_image

    decoded = Counter()
    real_decoder = disassembly.code_decoder

    def counting_decoder(*args):
        decode = real_decoder(*args)

        def decode_run(run):
            decoded[(run.start, run.end)] += 1
            return decode(run)
        return decode_run

    monkeypatch.setattr(disassembly, "code_decoder", counting_decoder)
    monkeypatch.setattr(referenced_bytes, "code_decoder", counting_decoder)
    elf = FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware.elf"
    _, image = build_report_and_image(str(elf))
    after_report = sum(decoded.values())
    graph = build_reference_graph(image)
    assert after_report and set(decoded.values()) == {1}
    fresh = build_reference_graph(read_elf(elf))  # decoded anew: the same graph
    assert graph.edges == fresh.edges and graph.nodes == fresh.nodes
