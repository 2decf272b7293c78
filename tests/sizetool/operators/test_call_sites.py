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


def test_a_call_the_compiler_inlined_the_machinery_into_costs_its_own_length():
    # GCC -O3 (pico-tflmicro's RegisterOps() on RP2040): AddBuiltin() inlined into the first calls, called from the
    # rest. A and B go through no machinery and are longer than the median call; C, D and E call AddBuiltin().
    from collections import Counter

    from sizetool.code_graph.reference_graph import GraphNode, ReferenceGraph
    from sizetool.operators.call_sites import _caller_sites

    nodes = [GraphNode(0x100, 0x300, 0x200, ".text", "RegisterOps()", "", "func"),
             GraphNode(0x300, 0x400, 0x100, ".text", "AddBuiltin()", "", "func")]
    graph = ReferenceGraph(nodes=nodes, edges=[[1], []])
    starts = [(0x100, "A"), (0x1A0, "B"), (0x240, "C"), (0x25A, "D"), (0x274, "E")]
    references = [(0x248, 1), (0x262, 1), (0x27C, 1)]
    sites, kept = _caller_sites(graph, 0, starts, 26, references, [], Counter({1: 1}))
    assert [(s.op, s.bytes, s.inlined) for s in sites] == [
        ("A", 0xA0, True), ("B", 0xA0, True), ("C", 26, False), ("D", 26, False), ("E", 26, False)]
    assert [s.targets for s in sites] == [(), (), (1,), (1,), (1,)] and kept == ()
    # Without any call going through the machinery (-Os: every call is a call), none counts as inlined.
    plain, _ = _caller_sites(graph, 0, starts, 26, [], [], Counter({1: 1}))
    assert not any(s.inlined for s in plain) and {s.bytes for s in plain} == {26}


def test_addcustom_called_by_out_of_line_addxxx_too_is_still_the_calls_machinery():
    # GCC -O3 (esp-tflite-micro's RegisterOps() on ESP32-C3): AddIrfft() and AddRfft() inlined into RegisterOps(),
    # calling AddCustom(); AddDelay() and AddWindow() kept out of line (roots of their registrations), calling it too.
    # AddCustom() goes with the calls: dropping IRFFT and RFFT must not leave it in the runtime.
    from sizetool.code_graph.reference_graph import GraphNode, ReferenceGraph
    from sizetool.operators.call_sites import _caller_sites, _machinery_referrers

    nodes = [GraphNode(0x100, 0x200, 0x100, ".text", "RegisterOps()", "", "func"),
             GraphNode(0x200, 0x280, 0x80, ".text", "AddCustom()", "", "func"),
             GraphNode(0x280, 0x2A0, 0x20, ".text", "AddDelay()", "", "func"),
             GraphNode(0x2A0, 0x2C0, 0x20, ".text", "AddWindow()", "", "func"),
             GraphNode(0x2C0, 0x2D0, 0x10, ".text", "Register_IRFFT()", "", "func"),
             GraphNode(0x2D0, 0x2E0, 0x10, ".text", "Register_RFFT()", "", "func")]
    graph = ReferenceGraph(nodes=nodes, edges=[[1, 2, 3, 4, 5], [], [1], [1], [], []])
    owners = {2: "DELAY", 3: "WINDOW", 4: "IRFFT", 5: "RFFT"}
    assert _machinery_referrers(graph, owners)[1] == 1  # RegisterOps() alone; AddDelay() and AddWindow() go with theirs
    starts = [(0x100, "DELAY"), (0x11A, "IRFFT"), (0x134, "RFFT"), (0x14E, "WINDOW")]
    references = [(0x104, 2), (0x124, 1), (0x13E, 1), (0x152, 3)]
    referrers = Counter(t for targets in graph.edges for t in set(targets))
    sites, kept = _caller_sites(graph, 0, starts, 26, references, [], referrers, machinery_referrers=
                                _machinery_referrers(graph, owners))
    assert {s.op: s.targets for s in sites}["IRFFT"] == (1,) and 1 not in kept
    # Counted with every referrer, AddCustom() looked shared and stayed whatever was registered.
    _, shared = _caller_sites(graph, 0, starts, 26, references, [], referrers)
    assert 1 in shared
