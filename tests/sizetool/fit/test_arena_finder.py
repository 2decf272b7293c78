"""arena_finder.py: the tensor arena is the RAM object whose address the code passes to the interpreter's constructor.

The fixture firmware (fixtures/firmware/src/app) builds two interpreters, each on its own static arena in .noinit:
g_vision_arena (12288 bytes) in main() and g_keyword_arena (2048 bytes) in SetupKeywordModel(), with the sizes as
constants. The same sources are linked for Cortex-M4, RV32 and x86-64, and into the layout fixtures.
"""

import pytest

from sizetool.errors import SizeToolError
from sizetool.inputs.elf_reader import read_elf
from sizetool.fit.arena_finder import (
    FOUND_BY_CONSTRUCTOR, FOUND_BY_NAME, FOUND_BY_OPTION, LinkedArena, arena_by_symbol, arena_for_models,
    find_arenas, model_location,
)
from sizetool.operators.graph_cache import load_operator_graph
from tests.conftest import FIXTURES

FIRMWARE = FIXTURES / "firmware" / "out"
LAYOUTS = FIXTURES / "layouts" / "out"
ELVES = [FIRMWARE / "cortex-m4" / "firmware.elf", FIRMWARE / "riscv32" / "firmware.elf",
         FIRMWARE / "host-x86_64" / "firmware.elf", LAYOUTS / "cmsis-armcm4" / "firmware.elf",
         LAYOUTS / "zephyr-like" / "zephyr.elf", LAYOUTS / "ram-only" / "firmware.elf",
         LAYOUTS / "dtcm-itcm" / "firmware.elf"]


def nm_sizes(image):
    return {s.name: (s.address, s.size) for s in image.symbols}


@pytest.mark.parametrize("elf", ELVES, ids=lambda p: f"{p.parent.name}")
def test_each_interpreter_constructor_call_gives_its_static_arena_and_the_size_passed(elf):
    image = read_elf(str(elf))
    graph = load_operator_graph(str(elf), None).graph
    arenas = find_arenas(image, graph)
    symbols = nm_sizes(image)
    found = {(a.symbol.rsplit("::", 1)[-1], a.size, a.passed_size, a.found_by) for a in arenas}
    assert found == {("g_vision_arena", 12288, 12288, FOUND_BY_CONSTRUCTOR),
                     ("g_keyword_arena", 2048, 2048, FOUND_BY_CONSTRUCTOR)}
    for arena in arenas:
        assert (arena.address, arena.size) == symbols[arena.symbol]
        assert arena.section in (".noinit", "noinit", ".bss")  # the host build keeps them in .bss
        assert arena.caller  # the function that constructs the interpreter
    vision = next(a for a in arenas if a.symbol.endswith("g_vision_arena"))
    assert vision.caller == "main"


def test_without_the_graph_the_arena_is_found_by_its_name_largest_first():
    image = read_elf(str(ELVES[0]))
    arenas = find_arenas(image, None)
    assert [(a.symbol.rsplit("::", 1)[-1], a.found_by, a.passed_size) for a in arenas] == [
        ("g_vision_arena", FOUND_BY_NAME, None), ("g_keyword_arena", FOUND_BY_NAME, None)]


def test_arena_symbol_names_it_by_its_short_demangled_or_mangled_name():
    image = read_elf(str(ELVES[0]))
    by_short = arena_by_symbol(image, "g_keyword_arena")
    assert (by_short.size, by_short.found_by) == (2048, FOUND_BY_OPTION)
    mangled = next(s.mangled for s in image.symbols if s.name == by_short.symbol)
    assert arena_by_symbol(image, mangled).address == by_short.address
    with pytest.raises(SizeToolError, match="no RAM object named 'g_missing'"):
        arena_by_symbol(image, "g_missing")
    with pytest.raises(SizeToolError, match="no RAM object named 'main'"):  # a function is not an arena
        arena_by_symbol(image, "main")


def arena(name, size, references=(), caller="f"):
    return LinkedArena(name, 0x2000_0000 + size, size, ".bss", FOUND_BY_CONSTRUCTOR, size, caller, 0, references)


def test_several_interpreters_the_one_referring_to_the_models_data_wins_else_the_largest_with_a_note():
    small, large = arena("small", 100, (0x1000,), "setup_small"), arena("large", 900, (0x5000,))
    assert arena_for_models([small], []) == (small, [])
    chosen, notes = arena_for_models([small, large], [(0x1000, 64)])
    assert chosen is small and "setup_small refers to the model's data" in notes[0]
    chosen, notes = arena_for_models([small, large], [])
    assert chosen is large and "compared with the largest, large (others: small)" in notes[0]
    assert arena_for_models([], []) == (None, [])


def test_a_models_bytes_are_found_where_they_are_linked(tmp_path):
    image = read_elf(str(ELVES[0]))
    rodata = next(s for s in image.sections if s.name == ".rodata")
    chunk = image.section_data(rodata)[64:128]
    assert model_location(image, chunk)[1] == 64 and model_location(image, chunk)[0] <= rodata.address + 64
    assert model_location(image, b"\x5a" * 40 + b"not in the image") is None
    assert model_location(image, b"tiny") is None  # too short to say
