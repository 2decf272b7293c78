"""Merged string sections kept whole by their functions (sizetool/operators/string_sections.py), on
fixtures/merged_strings: CastEval's string section holds two strings its code does not use (UNPACK's axis message,
identical, and a longer string holding PACK's axis message as its tail); CAST is linked first, so ld stores both
there and UNPACK's and PACK's code refers to CAST's copies."""

from __future__ import annotations

import json

import pytest

from sizetool.inputs.elf_reader import read_elf
from sizetool.inputs.map_file import InputSection, read_map
from sizetool.operators.graph_cache import load_operator_graph
from sizetool.operators.operator_sets import set_cost
from sizetool.operators.string_sections import string_section_edges, string_section_owner
from tests.conftest import FIXTURES

MERGED = FIXTURES / "merged_strings" / "out"
TRUTH = json.loads((MERGED / "manifest.json").read_text())["variants"]
CAST_EVAL = "_ZN6tflite12_GLOBAL__N_18CastEvalEPNS_13TfLiteContextEPNS_10TfLiteNodeE"
UNPACK_MESSAGE = b"Unpack axis %d is out of range for rank %d."
PACK_MESSAGE = b"axis %d is out of range for these inputs."
PACK_HOST = b"Packing " + PACK_MESSAGE


@pytest.fixture(scope="module")
def operator_graph():
    return load_operator_graph(str(MERGED / "firmware.elf"), str(MERGED / "firmware.map"), use_cache=False)


def stored_at(text: bytes) -> tuple[int, int]:
    image = read_elf(str(MERGED / "firmware.elf"))
    section = next(s for s in image.sections if s.name == ".text")
    start = section.address + image.section_data(section).index(text + b"\0")
    return start, start + len(text) + 1


def gone_bytes_in(operator_graph, op: str, start: int, end: int) -> int:
    nodes = operator_graph.graph.nodes
    return sum(min(end, nodes[i].end) - max(start, nodes[i].address) for i in set_cost(operator_graph, {op}).gone
               if nodes[i].address < end and start < nodes[i].end)


def test_the_strings_cast_does_not_use_are_stored_in_its_section():
    sections = [s for s in read_map(str(MERGED / "firmware.map")).input_sections
                if string_section_owner(s.name) == CAST_EVAL]
    assert len(sections) == 1 and sections[0].object_file == "cast.o"
    for text in (UNPACK_MESSAGE, PACK_HOST):
        start, end = stored_at(text)
        assert sections[0].address <= start and end <= sections[0].address + sections[0].size


@pytest.mark.parametrize("op, text", [("UNPACK", UNPACK_MESSAGE), ("PACK", PACK_MESSAGE)])
def test_a_string_a_kept_section_holds_stays_when_its_only_user_goes(operator_graph, op, text):
    """UNPACK's message (identical) and PACK's (a tail) stay in CAST's section: dropping their only users frees none
    of their bytes, and the prediction matches the relink (the graph alone counted 44 bytes more for each)."""
    start, end = stored_at(text)
    assert gone_bytes_in(operator_graph, op, start, end) == 0
    assert abs(set_cost(operator_graph, {op}).saving - TRUTH[op]["saving"]) <= 2


def test_a_section_goes_whole_with_its_function(operator_graph):
    """Dropping CAST removes its string section: the head of the longer string, which no code refers to, goes; the
    strings UNPACK and PACK use stay (ld stores them in those kernels' sections in the relink)."""
    host_start, host_end = stored_at(PACK_HOST)
    tail = host_end - len(PACK_MESSAGE) - 1
    assert gone_bytes_in(operator_graph, "CAST", host_start, tail) == len(b"Packing ")
    assert gone_bytes_in(operator_graph, "CAST", tail, host_end) == 0
    assert gone_bytes_in(operator_graph, "CAST", *stored_at(UNPACK_MESSAGE)) == 0
    assert abs(set_cost(operator_graph, {"CAST"}).saving - TRUTH["CAST"]["saving"]) <= 2


@pytest.mark.parametrize("name, owner", [
    (".rodata._ZN6tflite4EvalEv.str1.4", "_ZN6tflite4EvalEv"),
    (".rodata._ZN6tflite7EvalAddEv.constprop.0.str1.4", "_ZN6tflite7EvalAddEv.constprop.0"),
    (".rodata.main.str1.1", "main"),
    (".rodata.str1.1", ""),
])
def test_a_string_section_is_owned_by_the_function_it_is_named_after(name, owner):
    assert string_section_owner(name) == owner


def test_a_section_ld_stored_nothing_of_owns_no_bytes(operator_graph):
    """ld lists a string section all of whose strings it stored elsewhere with its own size, at the address of what
    follows it (here CastEval's section): it owns none of those bytes."""
    sections = read_map(str(MERGED / "firmware.map")).input_sections
    real = next(s for s in sections if string_section_owner(s.name) == CAST_EVAL)
    empty = InputSection(".rodata._ZN6tflite9NobodyEv.str1.1", real.address, 7, "schema_utils.o", real.output_section)
    position = sections.index(real)
    edges = string_section_edges(operator_graph.graph, sections[:position] + [empty] + sections[position:])
    assert edges == string_section_edges(operator_graph.graph, sections)


def test_of_two_sections_at_one_address_the_one_the_map_lists_first_holds_nothing(operator_graph):
    """The same, read from the map text, with the empty section longer than the real one (Zephyr's TFLM:
    log_softmax.o's RoundingDivideByPOT section, 0xc1 bytes, listed at the address of its LogSoftmaxEval section,
    0x31): sorted by size, the empty one came second and took the real one's strings, which its function (kept in
    every firmware) then kept, "LOG_SOFTMAX only supports ..." among them."""
    text = (MERGED / "firmware.map").read_text()
    real = next(s for s in read_map(str(MERGED / "firmware.map")).input_sections
                if string_section_owner(s.name) == CAST_EVAL)
    line = f" {real.name}\n"
    assert line in text
    empty = f" .rodata._ZN6tflite9NobodyEv.str1.1\n                0x{real.address:08x}  {real.size + 0x40:#9x} cast.o\n"
    sections = read_map("firmware.map", text.replace(line, empty + line, 1)).input_sections
    at = [s.name for s in sections if s.address == real.address and s.size]
    assert at == [".rodata._ZN6tflite9NobodyEv.str1.1", real.name]  # the map's order
    edges = string_section_edges(operator_graph.graph, sections)
    assert edges == string_section_edges(operator_graph.graph, read_map(str(MERGED / "firmware.map")).input_sections)


def test_a_section_named_after_no_function_belongs_to_the_functions_of_its_object_that_use_it(operator_graph):
    """`.rodata.str1.4` (an object built without per-function sections): the functions of that object that refer
    into the section keep it whole, here CastEval, the function the fixture's section is named after."""
    sections = read_map(str(MERGED / "firmware.map")).input_sections
    named = string_section_edges(operator_graph.graph, sections)
    renamed = [InputSection(".rodata.str1.4", s.address, s.size, s.object_file, s.output_section)
               if string_section_owner(s.name) == CAST_EVAL else s for s in sections]
    unnamed = string_section_edges(operator_graph.graph, renamed)
    cast_eval = [i for i, node in enumerate(operator_graph.graph.nodes) if node.mangled == CAST_EVAL]
    assert len(cast_eval) == 1 and named[cast_eval[0]] and unnamed[cast_eval[0]] == named[cast_eval[0]]
