"""Frames of clang-built code (fixtures/clang): the stack reader gives what each function's prologue allocates.

clang emits no -fstack-usage files, so the figures are checked against the machine code itself, read here on its
own (capstone, pyelftools) rather than through the reader: the bytes a function's straight-line prologue allocates
(`push`, `vpush`, `str rX, [sp, #-N]!`, `sub sp` and `sub.w sp, sp, #N`). clang 14 lays out frames as GCC does not:
`push {r4-r7, lr}; add r7, sp, #12` and callee-saved registers above r7 pushed after the frame pointer is set, the
register-argument save area of a variadic function as `sub sp, #12` before the push, an alloca or a variable-length
array as `sub.w rX, sp, rY; mov sp, rX`, an over-aligned local as `mov rX, sp; bfc rX, #0, #k; mov sp, rX`, and the
frame-pointer epilogue `sub.w r4, r7, #N; mov sp, r4` (src/stack_shapes.cc, out/stack/stack_shapes.elf).
"""

import json
import re

import capstone
import pytest
from elftools.elf.elffile import ELFFile

from sizetool.cli import main as size_report
from sizetool.code_graph.reference_graph import build_reference_graph
from sizetool.inputs.elf_reader import read_elf
from sizetool.stack.stack_frames import function_frames
from tests.conftest import FIXTURES

CLANG = FIXTURES / "clang" / "out"
SHAPES = CLANG / "stack" / "stack_shapes.elf"
FIRMWARE = [CLANG / "firmware" / build / "firmware.elf" for build in ("gnu-ld", "lld")]
_THUMB = capstone.Cs(capstone.CS_ARCH_ARM, capstone.CS_MODE_THUMB | capstone.CS_MODE_MCLASS)


def functions(path):
    """name -> (address, instructions as (address, mnemonic, operands)) for every sized function symbol."""
    with open(path, "rb") as stream:
        elf = ELFFile(stream)
        sections = [s for s in elf.iter_sections() if s["sh_flags"] & 0x4 and s["sh_type"] == "SHT_PROGBITS"]
        found = {}
        for symbol in elf.get_section_by_name(".symtab").iter_symbols():
            if symbol["st_info"]["type"] != "STT_FUNC" or not symbol["st_size"]:
                continue
            address = symbol["st_value"] & ~1
            section = next(s for s in sections if s["sh_addr"] <= address < s["sh_addr"] + s["sh_size"])
            code = section.data()[address - section["sh_addr"]:][: symbol["st_size"]]
            found[symbol.name] = (address, [(i.address, i.mnemonic, i.op_str) for i in _THUMB.disasm(code, address)])
    return found


def _list_bytes(operands):
    total = 0
    for item in re.search(r"\{(.*)\}", operands).group(1).split(","):
        first, _, last = item.strip().partition("-")
        count = int(last[1:]) - int(first[1:]) + 1 if last else 1
        total += count * (8 if first.startswith("d") else 4)
    return total


def prologue(instructions):
    """(bytes the straight-line prologue allocates, the instructions after it)."""
    total = 0
    for position, (_, mnemonic, operands) in enumerate(instructions):
        name = mnemonic.split(".")[0]
        if name in ("push", "vpush"):
            total += _list_bytes(operands)
        elif name == "str" and re.fullmatch(r"\w+, \[sp, #-(0x[0-9a-f]+|\d+)\]!", operands):
            total += int(operands.split("#-")[1].rstrip("]!"), 0)
        elif name in ("sub", "subw") and re.fullmatch(r"sp, (sp, )?#(0x[0-9a-f]+|\d+)", operands):
            total += int(operands.split("#")[1], 0)
        elif (name, operands.split(",")[0]) in (("add", "r7"), ("mov", "r7")) and ", sp" in operands:
            continue  # the frame pointer set up
        else:
            return total, instructions[position:]
    return total, []


def reader_frames(path):
    """function symbol name -> the reader's Frame."""
    image = read_elf(str(path))
    graph = build_reference_graph(image)
    by_address = {graph.nodes[node].address: frame for node, frame in function_frames(image, graph).items()}
    return {name: by_address[address] for name, (address, _) in functions(path).items() if address in by_address}


@pytest.mark.parametrize("path", FIRMWARE, ids=["gnu-ld", "lld"])
def test_every_clang_function_frame_is_what_its_prologue_allocates(path):
    # the TFLM-shaped sources compiled by clang -Os; libgcc (GCC-built assembly and C: __aeabi_*, __udivmoddi4) is
    # not clang's and sets its frame up elsewhere than at the top
    frames = reader_frames(path)
    checked = 0
    for name, (_, instructions) in functions(path).items():
        if name.startswith("__") and not name.startswith("__aeabi_mem"):
            continue
        allocated, _ = prologue(instructions)
        assert frames[name].size == allocated, name
        checked += 1
    assert checked >= 80


@pytest.mark.parametrize("name", ["big_local", "bigger_local", "floats", "variadic", "tail"])
def test_static_frames_are_the_prologue_and_calls_run_with_all_of_it(name):
    frame = reader_frames(SHAPES)[name]
    allocated, body = prologue(functions(SHAPES)[name][1])
    assert allocated > 0 and frame.size == allocated and frame.dynamic_site is None
    assert frame.calls and {call.depth for call in frame.calls if not call.tail} == {allocated}
    if name == "floats":
        assert any(m == "vpush" for _, m, _ in functions(SHAPES)[name][1])
    if name == "big_local":
        assert allocated > 4096


@pytest.mark.parametrize("name", ["with_alloca", "vla_in_loop"])
def test_an_alloca_through_another_register_is_a_dynamic_frame_and_calls_keep_the_static_part(name):
    # sub.w rX, sp, rY; mov sp, rX: read before as a frame-pointer epilogue, which put the calls after it at depth 0
    # and said nothing of the run-time part
    frame = reader_frames(SHAPES)[name]
    allocated, body = prologue(functions(SHAPES)[name][1])
    lowered = [(address, operands) for address, mnemonic, operands in body
               if mnemonic.startswith("sub") and re.fullmatch(r"(\w+), sp, (\w+)", operands)]
    assert lowered
    register = lowered[0][1].split(",")[0]
    move = next(address for address, mnemonic, operands in body if mnemonic == "mov" and operands == f"sp, {register}")
    assert frame.dynamic_site == move
    assert frame.size == allocated
    assert frame.calls and all(call.depth == allocated for call in frame.calls)


def test_stack_realignment_counts_the_most_the_rounding_can_take():
    # mov rX, sp; bfc rX, #0, #k; mov sp, rX: sp rounded down to 2**k bytes, at most 2**k - 8 more on an 8-byte
    # aligned entry (the prologue leaves sp 8-byte aligned); calls after it run at that depth
    frame = reader_frames(SHAPES)["realigned"]
    allocated, body = prologue(functions(SHAPES)["realigned"][1])
    width = next(int(operands.split("#")[-1], 0) for _, mnemonic, operands in body if mnemonic == "bfc")
    assert allocated % 8 == 0 and width >= 4
    assert frame.size == allocated + 2 ** width - 8
    assert frame.calls and all(call.depth == frame.size for call in frame.calls)
    assert frame.dynamic_site is None


def test_the_root_is_a_lower_bound_when_an_alloca_is_reached(capsys):
    assert size_report(["stack", str(SHAPES), "with_alloca", "realigned", "-f", "json"]) == 0
    roots = {root["root"]: root for root in json.loads(capsys.readouterr().out)["roots"]}
    assert not roots["with_alloca"]["bounded"]
    assert [w["kind"] for w in roots["with_alloca"]["warnings"]] == ["dynamic frame"]
    frames = reader_frames(SHAPES)
    assert roots["realigned"]["depth"] == frames["realigned"].size  # sink() takes no stack
    assert roots["realigned"]["bounded"]


@pytest.mark.parametrize("path", FIRMWARE + [SHAPES], ids=["gnu-ld", "lld", "stack_shapes"])
def test_a_tail_call_leaves_nothing_of_the_clang_frame(path):
    # clang restores a callee-saved register above r7 with a post-indexed load, `ldr.w r8, [sp], #4`, before its
    # `pop`: read as what it is, the frame is gone when the epilogue branches to the next function
    frames = reader_frames(path)
    tails = [(name, call.depth) for name, frame in frames.items() if not name.startswith("__")
             for call in frame.calls if call.tail]
    assert tails and all(depth == 0 for _, depth in tails), [t for t in tails if t[1]]
