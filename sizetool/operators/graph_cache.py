"""A cache of operator graphs (operator_graph.py), keyed like the report cache by the content of the ELF and the map
and by sizetool's own code, so a second question on an unchanged ELF skips the disassembly; and of the operator
tables computed from them (keyed also by the options that shape the report's file names).

It lives beside the report cache ($SIZETOOL_CACHE_DIR, ...; report_cache.py) and is switched off the same way
(SIZETOOL_NO_CACHE=1, --no-cache). The newest MAX_ENTRIES graphs are kept. A cache that cannot be read or written is
skipped: it only ever saves time. Entries are marshal'd plain tuples: fast to load, and unable to run code.
"""

from __future__ import annotations

import json
import marshal
import os

from sizetool.inputs.elf_reader import ElfImage, read_elf
from sizetool.operators.aligned_fill import AlignedFill
from sizetool.operators.call_sites import CallSite, PoolWord
from sizetool.operators.member_constructors import MovedConstructor
from sizetool.operators.operator_cost import operator_table_for_graph
from sizetool.operators.operator_graph import OperatorGraph, OperatorRoots, SharedRoot, analyse_operators
from sizetool.code_graph.reference_graph import GraphNode, ReferenceGraph
from sizetool.report.report_cache import cache_dir, cache_enabled, cache_key, write_entry
from sizetool.report.operator_records import OperatorTable, operator_table_from_dict, operator_table_to_dict
from sizetool.report.report_model import SizeReport

SUFFIX = ".opgraph"
TABLE_SUFFIX = ".optable"
MAX_ENTRIES = 32  # graphs and tables together
_FORMAT = 10  # 4: merged string sections kept whole by their functions (string_sections.py); 5: and the graph's tied
#             units; 6: the bytes only those string sections reach; 7: call sites say whether the machinery was
#             inlined into them; 8: archive members' constructors go with what took the member; 9: an out-of-line
#             AddXxx() no longer makes the AddCustom() it calls shared, and the fill after a .bss object up to an
#             8-byte boundary goes with it; 10: the map's fills in front of aligned sections (aligned_fill.py)


def load_operator_graph(elf_path: str, map_path: str | None = None, use_cache: bool = True,
                        image: ElfImage | None = None) -> OperatorGraph:
    """The ELF's operator graph, from the cache when the ELF and map are unchanged, else analysed (and stored).
    `image`: the ELF already read (read_elf(elf_path)), when the caller has it."""
    use_cache = use_cache and cache_enabled()
    key = cache_key([elf_path, map_path], {"cache": "operator-graph", "format": _FORMAT}) if use_cache else ""
    if use_cache:
        cached = _load(key)
        if cached is not None:
            return cached
    if image is None:
        image = read_elf(elf_path)
    input_sections = None
    copies = ()
    inclusions = ()
    if map_path:
        from sizetool.inputs.map_formats import read_linker_map

        linker_map = read_linker_map(map_path)
        input_sections = linker_map.input_sections
        copies = linker_map.layout.copies if linker_map.layout else ()
        inclusions = linker_map.archive_inclusions
    result = analyse_operators(image, input_sections, copies, inclusions)
    if use_cache:
        _store(key, result)
    return result


def operator_table(elf_path: str, report: SizeReport, map_path: str | None = None,
                   use_cache: bool = True) -> OperatorTable:
    """The per-operator flash cost of a firmware ELF. `report` (of the same ELF) supplies the source files and the
    ROM total; the linker map, when given, says which functions share an input section (and so are kept or dropped
    together). The operator graph comes from the cache when the ELF (and map) are unchanged."""
    return operator_table_for_graph(load_operator_graph(elf_path, map_path, use_cache), report, elf_path)


def to_plain(operator_graph: OperatorGraph) -> tuple:
    graph = operator_graph.graph
    return (
        _FORMAT,
        [(n.address, n.end, n.rom_bytes, n.section, n.name, n.mangled, n.kind, n.aliases) for n in graph.nodes],
        graph.edges,
        graph.exact,
        graph.decoded,
        operator_graph.rom_total,
        [(o.op, o.registration, sorted(o.nodes), o.entry) for o in operator_graph.operators],
        [(s.node, sorted(s.users)) for s in operator_graph.shared_roots],
        sorted(operator_graph.runtime_roots),
        [(c.op, c.caller, c.address, c.bytes, c.targets, c.inlined) for c in operator_graph.call_sites],
        [(w.address, w.caller, w.target, w.bytes) for w in operator_graph.pool_words],
        operator_graph.unreached_bytes,
        operator_graph.string_tied_bytes,
        operator_graph.has_symbols,
        sorted(operator_graph.kept_targets.items()),
        sorted(operator_graph.unexplained_roots),
        graph.tied,
        [(m.array_node, m.constructor, m.symbol_node, m.member) for m in operator_graph.moved_constructors],
        [(f.address, f.size, f.alignment) for f in operator_graph.aligned_fills],
    )


def from_plain(data: tuple) -> OperatorGraph:
    (version, nodes, edges, exact, decoded, rom_total, operators, shared, runtime_roots, sites, words, unreached,
     string_tied, has_symbols, kept_targets, unexplained, tied, moved, fills) = data
    if version != _FORMAT:
        raise ValueError("another cache format")
    graph = ReferenceGraph(nodes=[GraphNode(*node) for node in nodes], edges=edges, exact=exact, decoded=decoded,
                           tied=[tuple(pair) for pair in tied])
    return OperatorGraph(
        graph=graph,
        rom_total=rom_total,
        operators=[OperatorRoots(op, registration, frozenset(members), entry)
                   for op, registration, members, entry in operators],
        shared_roots=[SharedRoot(node, frozenset(users)) for node, users in shared],
        runtime_roots=frozenset(runtime_roots),
        call_sites=[CallSite(*site) for site in sites],
        pool_words=[PoolWord(*word) for word in words],
        unreached_bytes=unreached,
        string_tied_bytes=string_tied,
        has_symbols=has_symbols,
        kept_targets=dict(kept_targets),
        unexplained_roots=frozenset(unexplained),
        moved_constructors=tuple(MovedConstructor(*move) for move in moved),
        aligned_fills=tuple(AlignedFill(*fill) for fill in fills),
    )


def load_operator_table(elf_path: str, map_path: str | None, report: SizeReport, operator_graph: OperatorGraph,
                        report_options: dict, use_cache: bool = True) -> OperatorTable:
    """The operator table of the graph (operator_cost.operator_table_for_graph), from the cache when the ELF, map,
    code and the report's options (which name the files) are unchanged."""
    use_cache = use_cache and cache_enabled()
    key = cache_key([elf_path, map_path], {"cache": "operator-table", "format": _FORMAT,
                                           "report": report_options, "rom": report.rom_total}) if use_cache else ""
    if use_cache:
        try:
            with open(os.path.join(cache_dir(), key + TABLE_SUFFIX), "rb") as stream:
                return operator_table_from_dict(json.loads(marshal.load(stream)))
        except (OSError, ValueError, EOFError, TypeError, KeyError, IndexError):
            pass
    table = operator_table_for_graph(operator_graph, report, elf_path)
    if use_cache:
        _write(key + TABLE_SUFFIX, json.dumps(operator_table_to_dict(table)))
    return table


def _load(key: str) -> OperatorGraph | None:
    try:
        with open(os.path.join(cache_dir(), key + SUFFIX), "rb") as stream:
            return from_plain(marshal.load(stream))
    except (OSError, ValueError, EOFError, TypeError, KeyError, IndexError):
        return None


def _store(key: str, operator_graph: OperatorGraph) -> None:
    _write(key + SUFFIX, to_plain(operator_graph))


def _write(name: str, payload) -> None:
    write_entry(name, payload, (SUFFIX, TABLE_SUFFIX), MAX_ENTRIES)
