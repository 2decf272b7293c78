"""Archive members' constructors go with the symbol the linker took the member for (member_constructors.py), on
fixtures/member_constructors: ALPHA's function-local static pulls libsupport.a's guard.o (__cxa_guard_acquire), which
pulls emergency.o (emergency_allocate), whose global object's constructor runs from .init_array. Without ALPHA the
linker takes neither member, so the constructor and the pool it sets up go too."""

from __future__ import annotations

import json

import pytest

from sizetool.inputs.elf_reader import read_elf
from sizetool.inputs.map_file import read_map
from sizetool.operators.graph_cache import load_operator_graph
from sizetool.operators.member_constructors import member_constructor_moves
from sizetool.operators.operator_graph import analyse_operators
from sizetool.operators.operator_sets import keep_only
from sizetool.profile.profile_export import export_profile
from sizetool.report.report_builder import build_report
from tests.conftest import FIXTURES
from tflm_facts.target_profile import APP_STATICS
from tflm_model.profile_sets import ProfileSets

OUT = FIXTURES / "member_constructors" / "out"
ELF, MAP = str(OUT / "firmware.elf"), str(OUT / "firmware.map")
FLASH = {name: entry["flash_bytes"] for name, entry in json.loads((OUT / "manifest.json").read_text()).items()}
CALL_SITE_ALLOWANCE = 12  # the AddAlpha() call the estimate takes out of main, against what -Os made of main


@pytest.fixture(scope="module")
def operator_graph():
    return load_operator_graph(ELF, MAP, use_cache=False)


def names(operator_graph, nodes) -> set[str]:
    return {operator_graph.graph.nodes[node].name for node in nodes}


def test_the_map_says_which_symbol_took_each_member():
    taken = {(i.member, i.by_file, i.symbol) for i in read_map(MAP).archive_inclusions}
    assert ("./libsupport.a(guard.o)", "./libkernels.a(alpha.o)", "__cxa_guard_acquire") in taken
    assert ("./libsupport.a(emergency.o)", "./libsupport.a(guard.o)", "emergency_allocate") in taken
    assert ("./libkernels.a(alpha.o)", "main.o", "tflite::Register_ALPHA()") in taken


def test_the_constructor_is_reached_from_the_symbol_its_member_was_taken_for(operator_graph):
    (move,) = operator_graph.moved_constructors
    graph = operator_graph.graph
    assert graph.nodes[move.constructor].name == "_GLOBAL__sub_I_emergency_allocate"
    assert graph.nodes[move.symbol_node].name == "emergency_allocate"
    assert move.constructor in graph.edges[move.symbol_node]
    assert move.constructor not in graph.edges[move.array_node]


def test_without_alpha_the_guard_runtime_and_the_constructor_go(operator_graph):
    cost = keep_only(operator_graph, {"BETA", "GAMMA"})
    assert {"__cxa_guard_acquire", "emergency_allocate", "_GLOBAL__sub_I_emergency_allocate"} <= names(
        operator_graph, cost.gone)
    assert abs(operator_graph.rom_total - cost.saving - FLASH["variants/without_ALPHA.elf"]) <= CALL_SITE_ALLOWANCE


def test_without_the_maps_member_records_the_constructor_keeps_the_pool():
    """The graph alone reaches the constructor from .init_array whatever is registered: 40 bytes too many."""
    image = read_elf(ELF)
    alone = analyse_operators(image, read_map(MAP).input_sections)
    cost = keep_only(alone, {"BETA", "GAMMA"})
    assert "_GLOBAL__sub_I_emergency_allocate" not in names(alone, cost.gone)
    assert alone.rom_total - cost.saving - FLASH["variants/without_ALPHA.elf"] > CALL_SITE_ALLOWANCE + 24


def test_a_member_taken_for_no_symbol_the_graph_has_moves_nothing(operator_graph):
    inclusions = [i for i in read_map(MAP).archive_inclusions if i.symbol != "emergency_allocate"]
    assert member_constructor_moves(operator_graph.graph, read_map(MAP).input_sections, inclusions) == []


def test_the_profile_names_what_an_apps_function_local_statics_keep(operator_graph):
    """--app-statics roots the guard functions: the profile then predicts the app that keeps its interpreter as a
    function-local static, without ALPHA, as closely as the plain app."""
    image = read_elf(ELF)
    profile = export_profile(image, operator_graph, build_report(ELF, map_path=MAP).rom_total, "fixture",
                             stack=False)
    uses = profile.graph.app_uses[APP_STATICS]
    sets = ProfileSets(profile)
    plain = profile.rom_total - sets.keep({"BETA", "GAMMA"}).saving
    with_statics = profile.rom_total - sets.keep({"BETA", "GAMMA"}, sets.app_use_nodes(APP_STATICS)).saving
    assert uses and with_statics > plain
    assert abs(plain - FLASH["variants/without_ALPHA.elf"]) <= CALL_SITE_ALLOWANCE
    # The app's own guard calls (about 30 bytes of main) are the app's code, which no profile predicts.
    assert abs(with_statics - FLASH["variants/app_static_without_ALPHA.elf"]) <= CALL_SITE_ALLOWANCE + 40
    assert (with_statics - plain) == pytest.approx(FLASH["variants/app_static_without_ALPHA.elf"]
                                                   - FLASH["variants/without_ALPHA.elf"], abs=40)
