"""call_sites.py: the AddXxx() calls in the code that builds the resolvers, found in the fixture firmware.

Independent truth: fixtures/firmware/README.md and manifest.json say which resolvers register each op (one
AddXxx() call per resolver): FULLY_CONNECTED and SOFTMAX are registered in both the <13> and the <3> resolver, every
other op in one.
"""

import json
from collections import Counter

import pytest

from sizetool.operators.graph_cache import load_operator_graph
from tests.conftest import FIXTURES

OUT = FIXTURES / "firmware" / "out"
MANIFEST = json.loads((OUT / "manifest.json").read_text())
RESOLVERS_OF = {op["op"]: len(op["resolvers"]) for op in MANIFEST["ops"]}


@pytest.mark.parametrize("arch", ["cortex-m4", "riscv32"])
def test_one_call_site_per_resolver_that_registers_the_op(arch):
    graph = load_operator_graph(str(OUT / arch / "firmware.elf"), use_cache=False)
    assert Counter(site.op for site in graph.call_sites) == RESOLVERS_OF
    callers = {graph.graph.nodes[site.caller].name for site in graph.call_sites}
    assert any("RegisterVisionOps" in name for name in callers)  # the <13> resolver's helper
    assert any("RunKeywordModel" in name for name in callers)  # the <3> resolver, set up inline


@pytest.mark.parametrize("arch", ["cortex-m4", "riscv32", "host-x86_64"])
def test_call_site_sizes_are_plausible_instruction_sequences(arch):
    graph = load_operator_graph(str(OUT / arch / "firmware.elf"), use_cache=False)
    for site in graph.call_sites:
        caller = graph.graph.nodes[site.caller]
        assert caller.address <= site.address < caller.end
        # Load the registration, the parser and the op code, call, check: more than one instruction, far less than
        # the function.
        assert 8 <= site.bytes < caller.end - caller.address


def test_literal_pool_words_point_at_parsers_of_registered_ops():
    graph = load_operator_graph(str(OUT / "cortex-m4/firmware.elf"), use_cache=False)
    targets = {graph.graph.nodes[word.target].name.split("(")[0] for word in graph.pool_words}
    assert {"tflite::ParseConv2D", "tflite::ParsePool", "tflite::ParseSoftmax"} <= targets
    assert all(word.bytes == 4 for word in graph.pool_words)
    assert load_operator_graph(str(OUT / "riscv32/firmware.elf"), use_cache=False).pool_words == []  # no pools


def test_addbuiltin_is_the_calls_machinery_not_the_callers():
    graph = load_operator_graph(str(OUT / "cortex-m4/firmware.elf"), use_cache=False)
    nodes = graph.graph.nodes
    for caller, kept in graph.kept_targets.items():
        if "RegisterVisionOps" in nodes[caller].name:
            inside = {nodes[t].name.split("(")[0] for s in graph.call_sites if s.caller == caller for t in s.targets}
            assert "tflite::MicroMutableOpResolver<13u>::AddBuiltin" in inside
            assert "tflite::MicroMutableOpResolver<13u>::AddCustom" in inside
            assert not any("AddBuiltin" in nodes[t].name for t in kept)
