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
from sizetool.code_graph.reference_graph import ReferenceGraph, function_code_runs, pool_word_addresses


@dataclass(frozen=True)
class CallSite:
    op: str
    caller: int  # node index of the function holding the call
    address: int  # its first instruction referring to the op
    bytes: int  # estimated bytes the caller loses with the call
    targets: tuple[int, ...] = ()  # other nodes the call refers to (AddBuiltin(), AddCustom()): their edge from the
    #                                caller goes with the call, unless code outside the dropped calls refers to them
    inlined: bool = False  # the compiler inlined the machinery into this call (-O3): `bytes` is its own length


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
    from sizetool.code_graph.disassembly import code_decoder, global_pointer

    decoder = code_decoder(image.arch, image.elf_class, image.little_endian, global_pointer(image))
    if decoder is None:
        return CallSites([], [], {})
    callers = sorted(
        index for index, targets in enumerate(graph.edges)
        if index not in owners and graph.nodes[index].kind == "func" and any(t in owners for t in targets)
    )
    anchors_of: dict[int, list[tuple[int, str]]] = {}
    references_of: dict[int, list[tuple[int, int]]] = {}  # caller -> (instruction, node) for other nodes
    branches_of: dict[int, list[tuple[int, int]]] = {}  # caller -> (instruction, address) jumps within it
    pool_words: list[PoolWord] = []
    pointer = struct.Struct(("<" if image.little_endian else ">") + ("I" if image.elf_class == 32 else "Q"))
    literals_of: dict[int, set[int]] = {}  # caller -> literal chunks holding a root's address (Xtensa L32R pools)
    for caller in callers:
        anchors, references, branches = [], [], []
        root_loads: set[int] = set()
        words = pool_word_addresses(image, graph.nodes[caller], pointer)
        literals = {address for address, _ in words}
        for run in function_code_runs(image, graph.nodes[caller]):
            for address, target in decoder(run):
                node = _root_at(graph, target, owners)
                if node is not None:
                    root_loads.add(address)
                    if owners[node] is not None:
                        anchors.append((address, owners[node]))
                    continue
                node = graph.node_at(target)
                if node == caller:
                    if target not in literals:
                        branches.append((address, target & ~1 if image.arch == "arm" else target))
                elif node is not None and node in graph.edges[caller]:
                    references.append((address, node))
        literals_of[caller] = {node for address, node in references
                               if address in root_loads and graph.nodes[node].kind == "chunk"}
        anchors_of[caller] = sorted(set(anchors))
        references_of[caller] = references
        branches_of[caller] = branches
        for address, value in words:
            node = _root_at(graph, value, owners)
            if node is not None:
                pool_words.append(PoolWord(address, caller, node, pointer.size))

    starts_of = {caller: _call_starts(anchors) for caller, anchors in anchors_of.items()}
    spacing = {caller: [b[0] - a[0] for a, b in zip(starts, starts[1:])] for caller, starts in starts_of.items()}
    everywhere = [gap for gaps in spacing.values() for gap in gaps]
    fallback = int(statistics.median(everywhere)) if everywhere else 0
    referrers = Counter(target for targets in graph.edges for target in set(targets))
    machinery_referrers = _machinery_referrers(graph, owners)
    sites = []
    kept_targets = {}
    for caller, starts in starts_of.items():
        size = int(statistics.median(spacing[caller])) if spacing[caller] else fallback
        found, kept = _caller_sites(graph, caller, starts, size, references_of[caller], branches_of[caller], referrers,
                                    literals_of.get(caller, set()), machinery_referrers)
        sites.extend(found)
        kept_targets[caller] = kept
    sites.sort(key=lambda s: (s.op, s.address))
    return CallSites(sites, sorted(set(pool_words), key=lambda w: w.address), kept_targets)


def _machinery_referrers(graph: ReferenceGraph, owners: dict[int, str | None]) -> Counter:
    """How many nodes refer to each node, leaving out one operator's own roots: an AddXxx() the compiler kept out of
    line (a root of its registration: -O3, esp-tflite-micro's signal ops) that calls AddCustom() goes with its
    registration, so it does not make AddCustom() shared with the rest of the firmware."""
    return Counter(target for index, targets in enumerate(graph.edges) if owners.get(index) is None
                   for target in set(targets))


def _caller_sites(graph: ReferenceGraph, caller: int, starts: list[tuple[int, str]], size: int,
                  references: list[tuple[int, int]], branches: list[tuple[int, int]],
                  referrers: Counter, literals: set[int] = frozenset(), machinery_referrers: Counter | None = None,
                  ) -> tuple[list[CallSite], tuple[int, ...]]:
    """The call sites of one function, and the nodes it refers to outside them.

    A call site's code runs from its first anchor to the next call site's; the last one's, its estimated size, or up
    to a block an earlier call jumps to. Code the compiler moved out of line (a block after the calls that only one
    call site jumps to: AddEthosU()'s AddCustom() when Register_ETHOSU() is not null) belongs to that call site too.
    `literals`: literal-pool words outside the function (Xtensa's .literal sections) that an instruction loading a
    root's address reads; they go with the calls that load them. `machinery_referrers`: `referrers` less the
    operators' own roots (what decides whether a function the calls go through is theirs alone).
    """
    if not starts:
        return [], tuple(sorted({node for _, node in references}))
    addresses = [start for start, _ in starts]
    function_end = graph.nodes[caller].end
    last = addresses[-1]
    later_targets = [target for source, target in branches if target > last and source < last]
    ends = addresses[1:] + [min([last + size, *later_targets])]

    def segment(address: int) -> int | None:
        position = bisect.bisect_right(addresses, address) - 1
        return position if position >= 0 and address < ends[position] else None

    inside: list[set[int]] = [set() for _ in starts]
    unplaced: list[tuple[int, int]] = []
    for address, node in references:
        position = segment(address)
        if position is None:
            unplaced.append((address, node))
        else:
            inside[position].add(node)
    # The calls' own machinery: functions several calls go through that nothing else calls (the resolver's
    # AddBuiltin() and AddCustom(); not a logging function the calls share with the rest of the firmware).
    candidates = {node for node, count in Counter(n for targets in inside for n in targets).items()
                  if count > 1 and graph.nodes[node].kind == "func" and (machinery_referrers or referrers)[node] == 1}

    # Out-of-line blocks: code after a call site's segment that only that call site jumps to and that goes through the
    # machinery (AddEthosU()'s AddCustom(), placed after the last call when Register_ETHOSU() may return null).
    sources: dict[int, set[int | None]] = defaultdict(set)
    for source, target in branches:
        if segment(target) is None and graph.nodes[caller].address <= target < function_end:
            sources[target].add(segment(source))
    blocks = sorted(sources)
    limits = [min([b for b in blocks if b > block] + [a for a in addresses if a > block] + [function_end])
              for block in blocks]
    owner_of: dict[int, int] = {}
    for block, limit in zip(blocks, limits):
        owners = sources[block]
        if len(owners) == 1 and None not in owners and any(
                block <= address < limit and node in candidates for address, node in unplaced):
            owner_of[block] = next(iter(owners))
    extra = [0] * len(starts)
    for block, limit in zip(blocks, limits):
        if block in owner_of:
            extra[owner_of[block]] += limit - block
    outside: set[int] = set()
    for address, node in unplaced:
        position = bisect.bisect_right(blocks, address) - 1
        block = blocks[position] if position >= 0 else None
        if block is not None and block in owner_of and address < limits[position]:
            inside[owner_of[block]].add(node)
        else:
            outside.add(node)
    # Where a call goes through the machinery, the data only it refers to (a custom op's name) is its argument.
    # Anything else a single call refers to may be code beside it (the interpreter set-up after the last AddXxx()),
    # so it stays with the caller.
    counts = Counter(node for targets in inside for node in targets)
    machinery = candidates - outside
    owned: list[set[int]] = []
    for targets in inside:
        mine = targets & machinery
        if mine:
            mine |= {node for node in targets if counts[node] == 1 and node not in outside
                     and referrers[node] == 1 and graph.nodes[node].kind == "chunk"}
        mine |= {node for node in targets if node in literals and referrers[node] == 1}
        owned.append(mine)
    # At -O3 GCC inlines the machinery into the first calls of a long list (about ten) and calls it from the rest:
    # a call that goes through no machinery while others do, and spans more than the median call, is such an
    # inlined call; it costs its own length, and tells what a call costs where the compiler inlines them all.
    inlined = [bool(machinery) and not (inside[position] & machinery) and ends[position] - address > size
               for position, (address, _) in enumerate(starts)]
    sites = [CallSite(op, caller, address, (ends[position] - address if inlined[position] else size) + extra[position],
                      tuple(sorted(owned[position])), inlined[position])
             for position, (address, op) in enumerate(starts)]
    kept = outside | {node for position, targets in enumerate(inside) for node in targets - owned[position]}
    return sites, tuple(sorted(kept))


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
