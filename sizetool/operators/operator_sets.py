"""The set question: what dropping a set of operator registrations saves together, and what firmware is left.

For a set S of registrations, the set retained size is the flash reachable from all roots minus the flash still
reachable once S's roots are removed: code shared only among the members of S (pooling helpers, reduce helpers,
float maths several of them pull in) counts, which no sum of single-op exclusive bytes does. A root several
registrations share (`AddConv2D` for CONV_2D and CONV_2D_INT8, `ParsePool`) is removed when all its users are in S.
One graph walk per question.

On top of that, the callers lose the AddXxx() calls themselves (call_sites.py): call sites of members of S in code
that stays, and literal-pool words pointing at what goes.

Predicted ROM = the report's ROM total - code and data that go - call-site bytes.

What the graph cannot explain bounds the answer: functions and objects no root reaches stay as runtime (the linker
kept them for a reason the graph does not see: most often they share a library input section with code in use,
which the map, or DWARF's .debug_aranges, would show). A prediction that keeps bytes only through them may be that
much too high: `unsure_bytes`, one more walk when there are such roots.

So does a compiler decision the all-ops build cannot show. When the set leaves a single call to a resolver's
registration machinery (`MicroMutableOpResolver<N>::AddBuiltin()`, `AddCustom()`: the functions call_sites.py finds
every AddXxx() call going through), that function has one caller left, and GCC inlines a function called once into its
caller (at -Os and -O2 alike), specialised to that call's constant op: the checks on the op fold, their messages go,
and the registration helper usually follows it into main(). On real TFLM builds keeping one op, that is 188 of the
~200 bytes the prediction would be high by. Inlining can remove up to the function's bytes plus what only it keeps
(its messages): `inline_bytes`, one more walk. How much of that goes depends on the compiler (GCC removed 37-60% of it
on the ten one-op builds measured: real TFLM A/B with reference and CMSIS-NN kernels, and the fixtures), so the saving
counts half of it (`inline_estimate`), and the prediction says it may be off by the other half either way.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace

from sizetool.errors import SizeToolError
from sizetool.operators.call_sites import cut_edges
from sizetool.operators.operator_graph import OperatorGraph
from tflm_facts.set_prediction import SetPrediction, inlined_machinery


@dataclass(frozen=True)
class SetCost(SetPrediction):
    ops: tuple[str, ...]  # the registrations removed, by name
    code_bytes: int  # flash only they reach (the set retained size)
    call_sites: int  # their AddXxx() call sites in code that stays
    call_site_bytes: int  # estimated bytes of those calls, literal-pool words included
    gone: frozenset[int]  # graph nodes that go
    unsure_bytes: int = field(default=0, compare=False)  # bytes that stay only through roots the graph cannot explain: the prediction (ROM minus
    #                        the saving) may be up to this much too high
    inline_bytes: int = field(default=0, compare=False)  # bytes of registration machinery left with a single call (and
    #                        what only it keeps), which the compiler may inline and fold: the prediction may be up to
    #                        this much too high as well
    inlined: tuple[str, ...] = field(default=(), compare=False)  # the names of those functions
    fill_bytes: int = field(default=0, compare=False)  # alignment fill the relink gives back (aligned_fill.py; with a
    #                        map, when asked for: --drop/--keep; negative: it adds fill)

    @property
    def saving(self) -> int:
        return SetPrediction.saving.fget(self) + self.fill_bytes


def removed_roots(operator_graph: OperatorGraph, ops: set[str] | frozenset[str]) -> set[int]:
    """The root nodes that go with a set of registrations: their own roots, and shared roots all of whose users go."""
    removed: set[int] = set()
    for operator in operator_graph.operators:
        if operator.op in ops:
            removed |= operator.nodes
    for shared in operator_graph.shared_roots:
        if shared.users <= ops:
            removed.add(shared.node)
    return removed


def set_cost(operator_graph: OperatorGraph, ops, relink_fill: bool = False) -> SetCost:
    """What removing every registration in `ops` (op names as in the table) saves: one walk of the graph. With
    `relink_fill` (and a map), the alignment fill the relink gives back too (aligned_fill.py): the figure of
    `--drop`/`--keep`; without it, the figure target profiles reproduce byte for byte."""
    chosen = frozenset(ops)
    unknown = chosen - {o.op for o in operator_graph.operators}
    if unknown:
        raise SizeToolError(f"not registered in this firmware: {', '.join(sorted(unknown))}")
    if not operator_graph.graph.decoded:
        raise SizeToolError("this architecture's code is not disassembled, so what a set of operators shares cannot "
                            "be told")
    graph = operator_graph.graph
    everything = operator_graph.everything
    if not chosen:
        return SetCost((), 0, 0, 0, frozenset())
    removed = removed_roots(operator_graph, chosen)
    roots = (operator_graph.runtime_roots | operator_graph.operator_nodes) - removed
    cut = cut_edges(operator_graph.call_sites, operator_graph.kept_targets, chosen)
    extra = inlined_machinery(operator_graph.call_sites, operator_graph.kept_targets, chosen, cut)
    remaining = graph.reachable(roots, removed=removed, cut=cut)
    cost = cost_of_gone(operator_graph, chosen, everything - remaining)
    extra = sum(delta for caller, delta in extra.items() if caller in remaining)
    if extra:
        cost = replace(cost, call_site_bytes=cost.call_site_bytes - extra)
    if relink_fill and operator_graph.aligned_fills:
        cost = replace(cost, fill_bytes=_fill_given_back(operator_graph, chosen, cost))
    alone = called_once(operator_graph, chosen, remaining)
    if alone:
        folded = remaining - graph.reachable(roots, removed=removed | alone, cut=cut)
        cost = replace(cost, inline_bytes=graph.rom_bytes(folded),
                       inlined=tuple(sorted(graph.nodes[node].name for node in alone)))
    if not operator_graph.unexplained_roots:
        return cost
    explained = graph.reachable(roots - operator_graph.unexplained_roots, removed=removed, cut=cut)
    return replace(cost, unsure_bytes=graph.rom_bytes(remaining - explained))



def _fill_given_back(operator_graph: OperatorGraph, chosen: frozenset[str], cost: SetCost) -> int:
    """The alignment fill a relink without `chosen` gives back: what goes moves every aligned section after it."""
    from sizetool.operators.aligned_fill import fill_given_back

    graph = operator_graph.graph
    gone = [(graph.nodes[node].address, graph.nodes[node].rom_bytes) for node in cost.gone
            if graph.nodes[node].rom_bytes]
    everything = operator_graph.everything
    calls = [(site.address, site.bytes) for site in operator_graph.call_sites
             if site.op in chosen and site.caller in everything and site.caller not in cost.gone]
    ranges = [(address, address + size) for address, size in gone]
    return fill_given_back(operator_graph.aligned_fills, gone + calls, ranges)


def called_once(operator_graph: OperatorGraph, chosen: frozenset[str], remaining: set[int]) -> set[int]:
    """The registration machinery (functions the AddXxx() call sites go through) that stays with a single call site
    left, having had more, and nothing else referring to it: what the compiler would inline into that one caller.
    (One that had a single call already was left out of line by the compiler that built this firmware.)"""
    graph = operator_graph.graph
    calls: dict[int, list] = {}
    before: dict[int, int] = defaultdict(int)
    for site in operator_graph.call_sites:
        for target in site.targets:
            before[target] += 1
        if site.op in chosen or site.caller not in remaining:
            continue
        for target in site.targets:
            if target in remaining and graph.nodes[target].kind == "func":
                calls.setdefault(target, []).append(site.caller)
    alone = {target for target, callers in calls.items() if len(callers) == 1 and before[target] > 1}
    if not alone:
        return set()
    for caller, targets in operator_graph.kept_targets.items():
        if caller in remaining:
            alone -= set(targets)  # also called outside the AddXxx() calls
    referrers = {target: {node for node in remaining if target in graph.edges[node]} for target in alone}
    return {target for target in alone if referrers[target] <= set(calls[target])}


def cost_of_gone(operator_graph: OperatorGraph, chosen: frozenset[str], gone) -> SetCost:
    """The SetCost of removing `chosen`, given the nodes that go: their bytes, and the calls in code that stays."""
    everything = operator_graph.everything
    stays = lambda node: node in everything and node not in gone  # noqa: E731
    sites = [s for s in operator_graph.call_sites if s.op in chosen and stays(s.caller)]
    words = {w.address: w.bytes for w in operator_graph.pool_words if w.target in gone and stays(w.caller)}
    return SetCost(
        ops=tuple(sorted(chosen)),
        code_bytes=operator_graph.graph.rom_bytes(gone),
        call_sites=len(sites),
        call_site_bytes=sum(s.bytes for s in sites) + sum(words.values()),
        gone=frozenset(gone),
    )


def keep_only(operator_graph: OperatorGraph, kept, relink_fill: bool = False) -> SetCost:
    """What removing every registration except `kept` saves."""
    kept = frozenset(kept)
    return set_cost(operator_graph, {o.op for o in operator_graph.operators} - kept, relink_fill)
