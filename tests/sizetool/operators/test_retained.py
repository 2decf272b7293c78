"""retained.py: one dominator tree gives every operator's exclusive set exactly as one walk per operator does,
runtime closures (bit masks) give the runtime bytes a direct walk gives, and reach masks give what one walk per
operator reaches."""

import random

import pytest

from sizetool.operators.graph_cache import load_operator_graph
from sizetool.operators.operator_cost import singles
from sizetool.operators.operator_sets import set_cost
from sizetool.operators.retained import RuntimeClosures, dominated_sets, reach_masks
from sizetool.code_graph.reference_graph import GraphNode, ReferenceGraph
from tests.conftest import FIXTURES

OUT = FIXTURES / "firmware" / "out"


@pytest.mark.parametrize("elf", ["cortex-m4/firmware.elf", "cortex-m4-relocs/firmware.elf", "riscv32/firmware.elf",
                                 "host-x86_64/firmware.elf"])
def test_the_dominator_tree_gives_what_one_walk_per_operator_gives(elf):
    graph = load_operator_graph(str(OUT / elf), use_cache=False)
    fast = singles(graph)
    for operator in graph.operators:
        assert fast[operator.op] == set_cost(graph, {operator.op}), operator.op


def node(index, size=10):
    return GraphNode(index * 16, index * 16 + size, size, ".text", f"f{index}", f"f{index}", "func")


def test_dominators_on_a_hand_built_graph():
    # 0: runtime root, calls 1 (a helper) ; op A = {2}, op B = {3}; 2 and 3 both call 4 (shared); 2 alone calls 5;
    # 5 calls 1 (runtime: stays); 6 is reached from nowhere.
    edges = [[1], [], [4, 5], [4], [], [1], []]
    graph = ReferenceGraph(nodes=[node(i) for i in range(7)], edges=edges)
    a, b = dominated_sets(graph, {0}, [frozenset({2}), frozenset({3})])
    assert a == {2, 5} and b == {3}


def test_an_operator_reached_from_the_runtime_through_its_roots_only_still_dominates_them():
    # The runtime (0) calls op A's registration (1) as an application calls Register_X(): A still owns 1 and 2.
    edges = [[1], [2], []]
    graph = ReferenceGraph(nodes=[node(i) for i in range(3)], edges=edges)
    (a,) = dominated_sets(graph, {0}, [frozenset({1})])
    assert a == {1, 2}


def test_runtime_closures_follow_cycles_and_stay_in_the_runtime():
    # 0 -> 1 -> 2 -> 1 (a cycle), 2 -> 3 (not runtime), 4 alone.
    edges = [[1], [2], [1, 3], [], []]
    graph = ReferenceGraph(nodes=[node(i, size=i + 1) for i in range(5)], edges=edges)
    closures = RuntimeClosures(graph, {0, 1, 2, 4})
    assert closures.bytes_from({2}) == 2 + 3  # nodes 1 and 2
    assert closures.bytes_from({0, 4}) == 1 + 2 + 3 + 5
    assert closures.bytes_from({3}) == 0  # not a runtime node


@pytest.mark.parametrize("elf", ["cortex-m4/firmware.elf", "host-x86_64/firmware.elf"])
def test_runtime_bytes_of_each_operator_equal_a_direct_walk(elf):
    from sizetool.operators.operator_cost import _references_only, operator_table_for_graph
    from sizetool.report.report_builder import build_report

    graph = load_operator_graph(str(OUT / elf), use_cache=False)
    table = operator_table_for_graph(graph, build_report(str(OUT / elf)), elf)
    runtime = graph.everything - set_cost(graph, {o.op for o in graph.operators}).gone
    references = _references_only(graph.graph)
    for operator in graph.operators:
        cost = next(c for c in table.operators if c.op == operator.op)
        # what its code reaches outside the runtime, then the runtime its references reach
        own = graph.graph.reachable(operator.nodes, removed=runtime)
        entered = {t for node in own for t in references.edges[node] if t in runtime}
        used = references.reachable(entered, removed=set(range(len(graph.graph.nodes))) - runtime)
        assert cost.runtime_bytes == graph.graph.rom_bytes(used)


def assert_reach_masks_match_walks(graph, root_sets, removed):
    masks = reach_masks(graph, root_sets, removed)
    for position, roots in enumerate(root_sets):
        walked = graph.reachable(roots, removed=removed)
        assert {node for node, mask in enumerate(masks) if mask >> position & 1} == walked, position


@pytest.mark.parametrize("elf", ["cortex-m4/firmware.elf", "riscv32/firmware.elf", "host-x86_64/firmware.elf"])
def test_reach_masks_give_what_one_walk_per_operator_gives(elf):
    graph = load_operator_graph(str(OUT / elf), use_cache=False)
    runtime = graph.everything - set_cost(graph, {o.op for o in graph.operators}).gone
    assert_reach_masks_match_walks(graph.graph, [o.nodes for o in graph.operators], runtime)


def test_reach_masks_settle_cycles_entered_from_several_places():
    # 1 -> 2 -> 3 -> 1 (a cycle) entered at 3 by root set A = {0} and at 1 by B = {4}; 5 is removed, 6 unreached.
    edges = [[3], [2], [3, 5], [1], [1], [6], []]
    graph = ReferenceGraph(nodes=[node(i) for i in range(7)], edges=edges)
    assert reach_masks(graph, [frozenset({0}), frozenset({4}), frozenset({5})], {5}) == [1, 3, 3, 3, 2, 0, 0]


@pytest.mark.parametrize("seed", range(20))
def test_reach_masks_on_random_graphs_with_cycles(seed):
    rng = random.Random(seed)
    size = rng.randrange(1, 60)
    edges = [sorted(set(rng.sample(range(size), rng.randrange(0, min(size, 4) + 1)))) for _ in range(size)]
    graph = ReferenceGraph(nodes=[node(i) for i in range(size)], edges=edges)
    root_sets = [frozenset(rng.sample(range(size), rng.randrange(1, min(size, 3) + 1)))
                 for _ in range(rng.randrange(1, 8))]
    removed = set(rng.sample(range(size), rng.randrange(0, size // 3 + 1)))
    assert_reach_masks_match_walks(graph, root_sets, removed)
