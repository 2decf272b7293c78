"""heap_arena.py: a tensor arena allocated at run time, as Edge Impulse's SDK does (`uint8_t* tensor_arena = NULL;` in
an anonymous namespace, set from `ei_aligned_calloc(16, kTensorArenaSize)`).

fixtures/real_builds (Cortex-M4, -Os -g): heap-arena allocates in AllocateArena() and passes the pointer to the
interpreter in RunModel() with kTensorArenaSize (20480) as a constant; firmware-nodebug.elf is it without DWARF;
heap-arena-eon allocates through a function pointer and builds no interpreter (EON); heap-arena-unstated allocates a
run-time size and names no size constant.
"""

import json
import re
import subprocess

import pytest

from sizetool import cli
from sizetool.fit import model_fit
from sizetool.fit.arena_finder import FOUND_BY_HEAP, find_arenas
from sizetool.fit.model_fit import fit, linked_arena, verdict
from sizetool.inputs.elf_reader import read_elf
from sizetool.operators.graph_cache import load_operator_graph
from sizetool.report.report_builder import build_report
from tests.conftest import FIXTURES

BUILDS = FIXTURES / "real_builds"
OUT = BUILDS / "out"
STATED = int(eval(re.search(r"constexpr int kTensorArenaSize = ([0-9 *]+);",  # noqa: S307 (digits and *)
                            (BUILDS / "src" / "app.cc").read_text()).group(1)))


def arena_of(elf):
    image = read_elf(str(elf))
    graph = load_operator_graph(str(elf), None).graph
    arena, notes = linked_arena(image, graph, [])
    return image, arena, notes


@pytest.mark.parametrize("name", ["heap-arena", "heap-arena-eon", "heap-arena-unstated"])
def test_a_pointer_named_like_an_arena_is_never_the_arena(name):
    image = read_elf(str(OUT / name / "firmware.elf"))
    pointer = next(s for s in image.symbols if s.name == "(anonymous namespace)::tensor_arena")
    assert pointer.size == 4
    graph = load_operator_graph(str(OUT / name / "firmware.elf"), None).graph
    assert all(a.on_heap for a in find_arenas(image, graph) if a.address == pointer.address)
    _, arena, _ = arena_of(OUT / name / "firmware.elf")
    assert arena.on_heap and arena.found_by == FOUND_BY_HEAP and arena.symbol == pointer.name


@pytest.mark.parametrize("elf", ["heap-arena/firmware.elf", "heap-arena/firmware-nodebug.elf",
                                 "heap-arena-host/firmware.elf", "heap-arena-riscv/firmware.elf"])
def test_the_allocation_storing_into_the_pointer_gives_the_size(elf):
    _, arena, _ = arena_of(OUT / elf)
    assert arena.allocation == f"ei_aligned_calloc(16, {STATED}) in (anonymous namespace)::AllocateArena()"
    assert arena.size == STATED and arena.size_from == "the allocation's argument (ei_aligned_calloc)"
    # The interpreter is given the same constant in RunModel().
    assert arena.passed_size == STATED and arena.caller == "(anonymous namespace)::RunModel()"
    assert arena.usable_bytes == STATED


def test_an_indirect_allocation_takes_the_size_the_dwarf_states():
    dwarf = subprocess.run(["readelf", "--debug-dump=info", str(OUT / "heap-arena-eon" / "firmware.elf")],
                           capture_output=True, text=True, check=True).stdout
    constant = int(re.search(r"kTensorArenaSize\n(?:.*\n)*?.*DW_AT_const_value\s*: (\d+)", dwarf).group(1))
    _, arena, _ = arena_of(OUT / "heap-arena-eon" / "firmware.elf")
    assert arena.allocation == f"an indirect call (16, {constant}) in (anonymous namespace)::AllocateArena()"
    assert arena.size == constant and arena.passed_size is None and not arena.caller
    assert arena.size_from == "kTensorArenaSize (DWARF constant), an argument of the allocation"


def test_a_size_the_firmware_does_not_state_is_not_checked():
    image, arena, _ = arena_of(OUT / "heap-arena-unstated" / "firmware.elf")
    assert arena.on_heap and not arena.size_known and arena.allocation.startswith("ei_aligned_calloc(16, ?)")
    report = build_report(image.path)
    answer = fit(["m.tflite"], model_fit.KernelChoice("reference", "test"), 4, _Estimate(10 ** 9), arena, report)
    assert answer.passed and answer.spare is None and answer.grows_into_free_ram is None
    assert "states no size: not checked" in verdict(answer)


def test_a_heap_arena_smaller_than_the_need_fails():
    image, arena, _ = arena_of(OUT / "heap-arena" / "firmware.elf")
    report = build_report(image.path)
    answer = fit(["m.tflite"], model_fit.KernelChoice("reference", "test"), 4, _Estimate(STATED + 1), arena, report)
    assert not answer.passed and answer.spare == -1
    assert verdict(answer).startswith("arena too small") and "heap arena" in verdict(answer)
    answer = fit(["m.tflite"], model_fit.KernelChoice("reference", "test"), 4, _Estimate(STATED), arena, report)
    assert answer.passed and answer.spare == 0


@pytest.mark.parametrize("mode", ["fit", "ops"])
@pytest.mark.parametrize("name", ["heap-arena", "heap-arena-eon", "heap-arena-unstated"])
def test_fit_and_ops_pass_on_heap_arena_firmware(capsys, mode, name):
    status = cli.main([mode, str(OUT / name / "firmware.elf")])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "on the heap: (anonymous namespace)::tensor_arena, set from " in out
    assert "gives 4" not in out


def test_the_json_answer_says_where_the_heap_arena_comes_from(capsys):
    assert cli.main(["fit", str(OUT / "heap-arena" / "firmware.elf"), "--format", "json"]) == 0
    linked = json.loads(capsys.readouterr().out)["arena"]["linked"]
    assert linked["found_by"] == "heap" and linked["section"] == "heap" and linked["usable_bytes"] == STATED
    assert linked["heap"] == {"pointer": "(anonymous namespace)::tensor_arena",
                              "allocation": f"ei_aligned_calloc(16, {STATED}) in (anonymous namespace)::AllocateArena()",
                              "size_known": True, "size_from": "the allocation's argument (ei_aligned_calloc)"}


class _Estimate:
    def __init__(self, total):
        self.total_bytes, self.exact, self.parts, self.notes = total, True, (), ()
        self.guessed_ops, self.without_guessed = (), None  # every op modelled


def test_without_a_stated_size_only_the_whole_heap_section_bounds_the_arena():
    # CMSIS's ARMCM4_gcc.ld layout reserves a .heap section; a heap arena of unknown size is compared with it only.
    from sizetool.fit.arena_finder import LinkedArena

    layout = FIXTURES / "layouts" / "out" / "cmsis-armcm4" / "firmware.elf"
    heap = next(s.size for s in read_elf(str(layout)).sections if s.name == ".heap")
    report = build_report(str(layout))
    arena = LinkedArena("tensor_arena", 0x20000000, 0, "heap", FOUND_BY_HEAP, allocation="malloc(?) in setup")
    choice = model_fit.KernelChoice("reference", "test")
    small = fit(["m.tflite"], choice, 4, _Estimate(heap), arena, report)
    assert small.heap == (".heap", heap) and small.passed
    assert verdict(small).endswith(f"not checked beyond the heap: the .heap section's {heap} bytes could hold it "
                                   "(other allocations share them)")
    large = fit(["m.tflite"], choice, 4, _Estimate(heap + 1), arena, report)
    assert not large.passed and verdict(large).startswith("does not fit") and f"is {heap} bytes" in verdict(large)


def test_arena_symbol_naming_the_pointer_gives_the_heap_arena_it_points_to():
    image = read_elf(str(OUT / "heap-arena" / "firmware.elf"))
    graph = load_operator_graph(str(OUT / "heap-arena" / "firmware.elf"), None).graph
    arena, _ = linked_arena(image, graph, [], "tensor_arena")
    assert arena.on_heap and arena.size == STATED and arena.allocation.startswith("ei_aligned_calloc(16, ")


def test_a_heap_arena_of_unstated_size_is_not_called_large_enough(capsys):
    assert cli.main(["fit", str(OUT / "heap-arena-unstated" / "firmware.elf")]) == 0
    verdict = capsys.readouterr().out.splitlines()[0]
    assert verdict.endswith("(the tensor arena not checked: see RAM)") and "large enough" not in verdict
    assert cli.main(["fit", str(OUT / "heap-arena" / "firmware.elf")]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("and a large enough tensor arena")
