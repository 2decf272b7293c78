"""Merged string sections kept whole: what a relink keeps of the strings GNU ld merged, read from the map and the ELF.

GCC puts a function's string literals in one mergeable input section (`.rodata.<function>.str1.4` at -O2,
`.str1.1` at -Os; SHF_MERGE|SHF_STRINGS). `--gc-sections` keeps or drops that section whole, by whether the function
is kept; ld then stores each distinct string once, in the first kept section holding it (a string that is the tail
of a longer one, inside that one), and the map lists each section with the bytes it contributed.

So a string stays while any kept section holds it, whether or not code still refers to it: the compiler leaves
strings in a function's section that its final code no longer uses (CMSIS-NN's conv.cc `Eval()` holds "Filter type
%s (%d) not supported." after its int8 path dropped the message; depthwise_conv.cc's code is what refers to the
copy ld stored there). The reference graph alone frees such a string with its last referring function, and the
relink keeps it: `--drop DEPTHWISE_CONV_2D --map` counted those 36 bytes as freed.

The rule, from the map and the ELF (no object files needed): each merged string input section the map lists with
bytes belongs to the function its name gives, in the same object file (anonymous-namespace `Eval()`s share a
mangled name across kernels); while that function stays, every string stored in the section stays. A section
whose name gives no function (`.rodata.str1.1` of an object built without per-function sections) belongs to the
functions of its object that refer into it. A string stored in a section that goes stays while other kept code
refers to it (the graph's own edges): the relink stores it in that code's section, so it is not counted as freed.

What the map and ELF cannot show: a string a kept section holds but which ld stored in a section that goes, when
no kept code refers to it (dead in the kept function too). The relink stores it again; the prediction counts it
freed. Only the object files show it.
"""

from __future__ import annotations

import bisect
from collections import defaultdict

from sizetool.code_graph.reference_graph import ReferenceGraph
from sizetool.inputs.map_file import InputSection, is_merged_strings

_CODE_PREFIXES = (".text", ".iram1", ".init", ".fini")


def string_section_owner(name: str) -> str:
    """The mangled function a merged string section is named after ('' for `.rodata.str1.1`):
    `.rodata._ZN6tflite4EvalEv.str1.4` -> `_ZN6tflite4EvalEv`."""
    head = name.rsplit(".", 2)[0]  # drop "str1" and "4"
    for prefix in (".rodata.", ".sdata2.", ".srodata."):
        if head.startswith(prefix):
            return head[len(prefix):]
    return ""


def string_section_edges(graph: ReferenceGraph, input_sections: list[InputSection]) -> dict[int, set[int]]:
    """node -> the string nodes it keeps: each merged string section's owning function(s) -> every node stored in
    that section."""
    strings = _string_extents(input_sections)
    if not strings:
        return {}
    code = sorted((piece.address, piece.address + piece.size, piece.object_file) for piece in input_sections
                  if piece.size and piece.name.startswith(_CODE_PREFIXES))
    starts = [begin for begin, _, _ in code]

    def object_of(address: int) -> str | None:
        position = bisect.bisect_right(starts, address) - 1
        if position >= 0 and address < code[position][1]:
            return code[position][2]
        return None

    node_starts = [node.address for node in graph.nodes]
    referrers: dict[int, list[int]] | None = None
    functions: dict[str, list[int]] = defaultdict(list)
    for index, node in enumerate(graph.nodes):
        if node.kind == "func" and node.mangled:
            functions[node.mangled].append(index)
    edges: dict[int, set[int]] = defaultdict(set)
    for piece, end in strings:
        stored = _nodes_in(graph, node_starts, piece.address, end)
        if not stored:
            continue
        owner_name = string_section_owner(piece.name)
        owners = [node for node in functions.get(owner_name, ()) if object_of(graph.nodes[node].address)
                  == piece.object_file]
        if not owners:
            if referrers is None:
                referrers = defaultdict(list)
                for node, targets in enumerate(graph.edges):
                    if graph.nodes[node].kind == "func":
                        for target in targets:
                            referrers[target].append(node)
            owners = sorted({node for target in stored for node in referrers.get(target, ())
                             if object_of(graph.nodes[node].address) == piece.object_file})
        for owner in owners:
            edges[owner].update(node for node in stored if node != owner)
    return edges


def tie_string_sections(graph: ReferenceGraph, input_sections: list[InputSection] | None) -> int:
    """Adds string_section_edges to the graph (sorted, no duplicates); the number of edges added."""
    if not input_sections:
        return 0
    added = 0
    for owner, targets in string_section_edges(graph, input_sections).items():
        new = targets.difference(graph.edges[owner])
        if new:
            graph.edges[owner] = sorted(new.union(graph.edges[owner]))
            added += len(new)
    return added


def _string_extents(input_sections: list[InputSection]) -> list[tuple[InputSection, int]]:
    """Each merged string section with bytes, and where its bytes end: at its size, or sooner where the map places
    the next input section or fill. (A section all of whose strings ld stored elsewhere is listed with its own size
    at the address of what follows it: `.rodata._ZN6tflite14GetBuiltinCode...str1.1 0x2113e 0x7`, then `*fill*
    0x2113e 0x2`.)"""
    extents = []
    for position, piece in enumerate(input_sections):
        if not piece.size or not is_merged_strings(piece.name):
            continue
        end = piece.address + piece.size
        for index in range(position + 1, len(input_sections)):
            following = input_sections[index]
            if following.output_section != piece.output_section or following.address < piece.address:
                break
            if following.size or following.address > piece.address:
                end = min(end, following.address)
                break
        if end > piece.address:
            extents.append((piece, end))
    return extents


def _nodes_in(graph: ReferenceGraph, starts: list[int], begin: int, end: int) -> list[int]:
    """The stored (flash) nodes starting in [begin, end)."""
    found = []
    index = bisect.bisect_left(starts, begin)
    while index < len(graph.nodes) and graph.nodes[index].address < end:
        node = graph.nodes[index]
        if node.rom_bytes:
            found.append(index)
        index += 1
    return found
