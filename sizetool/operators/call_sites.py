"""The AddXxx() call sites: code that stays when an operator goes, but shrinks by the call.

Dropping `resolver.AddConv2D()` removes the registration's code (the graph's retained size) and also the call in the
function that builds the resolver (`main`, a `RegisterOps()` helper): loading `Register_CONV_2D()`'s result, the
parser's address and the op code, calling `AddBuiltin()` (often inlined at -O2), checking the status. Those bytes
belong to the caller's node, which stays, so the graph alone misses them: 20-30 bytes a call at -Os on Cortex-M,
100 and more on x86-64 at -O2, where `AddBuiltin()` is inlined at every call.

How they are found: each function outside the operators' root sets that refers to a root (`Register_X()`, an
`Add<Op>()` method, a parser) is decoded again; every instruction referring to one operator's roots is an anchor of
that operator, and consecutive anchors of one operator make one call site. Its size is estimated from the spacing
of the call sites in the same function (the median distance from one call site's first anchor to the next one's),
or, for a function with a single call site, from the median over all functions. ARM literal-pool words that hold a
root's address (a parser's, typically) are counted apart: a word goes when what it points at goes.
"""

from __future__ import annotations

import bisect
import statistics
import struct
from collections import Counter, defaultdict
from dataclasses import dataclass

from sizetool.inputs.elf_reader import ElfImage
from sizetool.operators.reference_graph import ReferenceGraph, function_code_runs, global_pointer, pool_word_addresses


@dataclass(frozen=True)
class CallSite:
    op: str
    caller: int  # node index of the function holding the call
    address: int  # its first instruction referring to the op
    bytes: int  # estimated bytes the caller loses with the call
    targets: tuple[int, ...] = ()  # other nodes the call refers to (AddBuiltin(), AddCustom()): their edge from the
    #                                caller goes with the call, unless code outside the dropped calls refers to them


@dataclass(frozen=True)
class PoolWord:
    """A literal-pool word holding the address of an operator's root (or a root several operators share)."""

    address: int
    caller: int  # node index of the function whose pool holds it
    target: int  # node index it points at
    bytes: int


@dataclass
class CallSites:
    sites: list[CallSite]
    pool_words: list[PoolWord]
    kept_targets: dict[int, tuple[int, ...]]  # caller -> nodes it refers to outside any call site


def find_call_sites(image: ElfImage, graph: ReferenceGraph, owners: dict[int, str | None]) -> CallSites:
    """Call sites of each operator and the pool words pointing at roots. `owners`: root node -> op name, or None
    for a root several operators share (it marks no call site of its own)."""
    from sizetool.operators.disassembly import code_decoder

    decoder = code_decoder(image.arch, image.elf_class, image.little_endian, global_pointer(image))
    if decoder is None:
        return CallSites([], [], {})
    callers = sorted(
        index for index, targets in enumerate(graph.edges)
        if index not in owners and graph.nodes[index].kind == "func" and any(t in owners for t in targets)
    )
    anchors_of: dict[int, list[tuple[int, str]]] = {}
    references_of: dict[int, list[tuple[int, int]]] = {}  # caller -> (instruction, node) for other nodes
    pool_words: list[PoolWord] = []
    pointer = struct.Struct(("<" if image.little_endian else ">") + ("I" if image.elf_class == 32 else "Q"))
    for caller in callers:
        anchors, references = [], []
        for run in function_code_runs(image, graph.nodes[caller]):
            for address, target in decoder(run):
                node = _root_at(graph, target, owners)
                if node is not None:
                    if owners[node] is not None:
                        anchors.append((address, owners[node]))
                    continue
                node = graph.node_at(target)
                if node is not None and node != caller and node in graph.edges[caller]:
                    references.append((address, node))
        anchors_of[caller] = sorted(set(anchors))
        references_of[caller] = references
        for address, value in pool_word_addresses(image, graph.nodes[caller], pointer):
            node = _root_at(graph, value, owners)
            if node is not None:
                pool_words.append(PoolWord(address, caller, node, pointer.size))

    starts_of = {caller: _call_starts(anchors) for caller, anchors in anchors_of.items()}
    spacing = {caller: [b[0] - a[0] for a, b in zip(starts, starts[1:])] for caller, starts in starts_of.items()}
    everywhere = [gap for gaps in spacing.values() for gap in gaps]
    fallback = int(statistics.median(everywhere)) if everywhere else 0
    sites = []
    kept_targets = {}
    for caller, starts in starts_of.items():
        size = int(statistics.median(spacing[caller])) if spacing[caller] else fallback
        # A call site's code runs from its first anchor to the next call site's, and at most its estimated size.
        ends = [min(following, start + size) for (start, _), (following, _) in zip(starts, starts[1:] + [(1 << 64, "")])]
        inside: list[set[int]] = [set() for _ in starts]
        outside: set[int] = set()
        for address, node in references_of[caller]:
            position = bisect.bisect_right([start for start, _ in starts], address) - 1
            if position >= 0 and address < ends[position]:
                inside[position].add(node)
            else:
                outside.add(node)
        # Only what several calls refer to is the calls' own machinery (AddBuiltin(), AddCustom()); a node a single
        # call refers to may be the code right after it (the interpreter set-up after the last AddXxx()).
        common = {node for node, count in Counter(n for targets in inside for n in targets).items() if count > 1}
        sites.extend(CallSite(op, caller, address, size, tuple(sorted(targets & common)))
                     for (address, op), targets in zip(starts, inside))
        kept_targets[caller] = tuple(sorted(outside | {n for targets in inside for n in targets} - common))
    sites.sort(key=lambda s: (s.op, s.address))
    return CallSites(sites, sorted(set(pool_words), key=lambda w: w.address), kept_targets)


def cut_edges(sites: list[CallSite], kept_targets: dict[int, tuple[int, ...]], ops) -> dict[int, set[int]]:
    """caller -> nodes it no longer refers to once the call sites of `ops` are gone (what only those calls used)."""
    by_caller: dict[int, list[CallSite]] = defaultdict(list)
    for site in sites:
        by_caller[site.caller].append(site)
    cut = {}
    for caller, calls in by_caller.items():
        dropped = [site for site in calls if site.op in ops]
        if not dropped:
            continue
        still = set(kept_targets.get(caller, ()))
        for site in calls:
            if site.op not in ops:
                still.update(site.targets)
        gone = {target for site in dropped for target in site.targets} - still
        if gone:
            cut[caller] = gone
    return cut


def _call_starts(anchors: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """(address, op) of each run of consecutive anchors of one operator: one call site each."""
    starts: list[tuple[int, str]] = []
    for address, op in anchors:
        if not starts or starts[-1][1] != op:
            starts.append((address, op))
    return starts


def _root_at(graph: ReferenceGraph, address: int, owners: dict[int, str | None]) -> int | None:
    """The root node starting at address (a Thumb address has its low bit set), if any."""
    for candidate in (address, address & ~1):
        node = graph.node_at(candidate)
        if node is not None and node in owners and graph.nodes[node].address == candidate:
            return node
    return None
