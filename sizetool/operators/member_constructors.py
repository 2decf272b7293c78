"""Constructors of archive members: they run only when the linker takes the member, not whenever the firmware starts.

An `.init_array` (or `.ctors`, `.preinit_array`, `.fini_array`, `.dtors`) entry is kept by the linker script, so the
reference graph reaches every constructor it lists from the start-up code. But the linker takes an archive member
only for a symbol some other file refers to, and does so before `--gc-sections`. libstdc++'s `eh_alloc.o` is the
common case: a function-local static in one kernel pulls in `guard.o` (`__cxa_guard_acquire`), which pulls in
`eh_alloc.o` (`__cxa_allocate_exception`), whose constructor sets up the emergency exception pool and so keeps
`malloc`, `__cxa_atexit` and their kin. Without that kernel, none of it is linked; in the graph it would stay.

With a GNU ld map, which names the symbol each member was taken for (map_file.ArchiveInclusion), the edge from the
array to such a constructor is moved: the node that defines the symbol refers to the constructor instead. The
constructor then stays exactly when the symbol its member was taken for stays. (A reference from code that
`--gc-sections` removes later still takes the member; that case is not modelled.)
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from sizetool.code_graph.reference_graph import ReferenceGraph
from sizetool.inputs.map_file import ArchiveInclusion, InputSection

_ARRAY_SECTION = re.compile(r"^\.(preinit_array|init_array|fini_array|ctors|dtors)(\..*)?$")


@dataclass(frozen=True)
class MovedConstructor:
    """An array entry's edge moved: `constructor` is now reached from `symbol_node`, no longer from `array_node`."""

    array_node: int
    constructor: int
    symbol_node: int
    member: str


def member_constructor_moves(graph: ReferenceGraph, input_sections: list[InputSection],
                             inclusions: list[ArchiveInclusion]) -> list[MovedConstructor]:
    """The array edges to move: each constructor, listed in an array entry of an archive member the map says was
    taken for a symbol, that lies in that member, and whose member defines a node for the symbol."""
    if not inclusions or not input_sections:
        return []
    taken_for = {inclusion.member: inclusion.symbol for inclusion in inclusions}
    starts = [piece.address for piece in input_sections]

    def object_at(address: int) -> str:
        position = bisect.bisect_right(starts, address) - 1
        if position >= 0 and address < input_sections[position].address + input_sections[position].size:
            return input_sections[position].object_file
        return ""

    symbol_nodes: dict[tuple[str, str], int] = {}
    for index, node in enumerate(graph.nodes):
        if node.kind not in ("func", "object"):
            continue
        member = object_at(node.address)
        if member in taken_for:
            for name in (node.name, node.mangled, *node.aliases):
                symbol_nodes.setdefault((member, name), index)

    moves: list[MovedConstructor] = []
    seen: set[tuple[int, int]] = set()
    for piece in input_sections:
        if piece.object_file not in taken_for or not _ARRAY_SECTION.match(piece.name):
            continue
        array_node = graph.node_at(piece.address)
        if array_node is None:
            continue
        symbol_node = symbol_nodes.get((piece.object_file, taken_for[piece.object_file]))
        if symbol_node is None:
            continue
        for target in graph.edges[array_node]:
            if object_at(graph.nodes[target].address) == piece.object_file and (array_node, target) not in seen:
                seen.add((array_node, target))
                moves.append(MovedConstructor(array_node, target, symbol_node, piece.object_file))
    return moves


def move_member_constructors(graph: ReferenceGraph, input_sections: list[InputSection] | None,
                             inclusions: list[ArchiveInclusion]) -> list[MovedConstructor]:
    """Applies member_constructor_moves to the graph (edges stay sorted); returns the moves."""
    moves = member_constructor_moves(graph, input_sections or [], inclusions)
    for move in moves:
        graph.edges[move.array_node] = [t for t in graph.edges[move.array_node] if t != move.constructor]
        if move.constructor != move.symbol_node and move.constructor not in graph.edges[move.symbol_node]:
            graph.edges[move.symbol_node] = sorted([*graph.edges[move.symbol_node], move.constructor])
    return moves
