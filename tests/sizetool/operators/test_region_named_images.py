"""Operator graphs of armlink and IAR images, whose sections carry region names (ER_IROM1, "P1 ro"): every section is
garbage-collected, so the runtime roots are the entry point, main and the whole vector table."""

from dataclasses import replace
from pathlib import Path

import pytest

from sizetool.inputs.elf_reader import read_elf
from sizetool.inputs.map_formats import read_linker_map
from sizetool.operators.operator_graph import find_runtime_roots, named_after_regions
from sizetool.code_graph.reference_graph import build_reference_graph

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
IMAGES = {
    "armlink": FIXTURES / "toolchain_maps/out/armlink/firmware.axf",
    "iar": FIXTURES / "toolchain_maps/out/iar/firmware.out",
    "gnu": FIXTURES / "firmware/out/cortex-m4/firmware.elf",
}


def test_region_named_images_are_told_from_gnu_ld_ones():
    assert named_after_regions(read_elf(str(IMAGES["armlink"])))
    assert named_after_regions(read_elf(str(IMAGES["iar"])))
    assert not named_after_regions(read_elf(str(IMAGES["gnu"])))


@pytest.mark.parametrize("name", ["armlink", "iar"])
def test_handlers_only_the_vector_table_names_are_reached_and_kernels_are_not_roots(name):
    image = read_elf(str(IMAGES[name]))
    linker_map = read_linker_map(str(IMAGES[name].parent / "firmware.map"))
    graph = build_reference_graph(image, input_sections=linker_map.input_sections, copies=linker_map.layout.copies)
    roots = find_runtime_roots(image, graph)
    reached = {graph.nodes[i].name for i in graph.reachable(roots)}
    assert {"SysTick_Handler", "Default_Handler", "Reset_Handler", "main"} <= reached
    root_names = {graph.nodes[i].name for i in roots}
    assert not any("Register_" in n or "::Eval(" in n for n in root_names), sorted(root_names)[:20]


def test_a_one_word_vector_label_roots_the_table_up_to_its_end_label():
    # CMSIS startup files label the table __Vectors with the size of one word and end it with __Vectors_End: the
    # armlink fixture relabelled that way must still reach every handler the table names.
    image = read_elf(str(IMAGES["armlink"]))
    table = next(s for s in image.symbols if "kVectorTable" in s.mangled)
    symbols = [s for s in image.symbols if s is not table]
    start = replace(table, mangled="__Vectors", size=4)
    end = replace(table, mangled="__Vectors_End", size=0, address=table.address + table.size)
    relabelled = replace(image, symbols=symbols + [start, end])
    graph = build_reference_graph(relabelled)
    reached = {graph.nodes[i].name for i in graph.reachable(find_runtime_roots(relabelled, graph))}
    assert "SysTick_Handler" in reached
