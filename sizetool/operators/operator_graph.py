"""A firmware's reference graph with its roots: the one structure every operator question is answered from.

Roots:
- runtime roots: the entry point, `main`, vector tables, `.init_array` and friends, every allocated section outside
  the usual code/data/bss sections (which linker scripts keep with KEEP, e.g. Zephyr's iterable sections), and every
  function or object no root reaches (the linker kept it for a reason the graph cannot see);
- one root set per operator registration: its `Register_<OP>()` function, plus the resolver's `Add<Op>()` method
  (when it was not inlined) and the op's builtin-data parser (`tflite::ParseConv2D`) when no other registered op
  needs them;
- shared roots: an `Add<Op>()` method or parser that several registrations need (`AddConv2D` for CONV_2D and
  CONV_2D_INT8, `ParsePool` for both pooling ops): it goes only when all of them go.

Constructors of archive members stay with the symbol the linker took the member for, not with `.init_array`
(member_constructors.py, with a GNU ld map).

Call sites: the code that calls `AddXxx()` (or, inlined, `Register_X()` and `AddBuiltin()`) stays when an operator
goes, but shrinks by the call (call_sites.py estimates by how much).

`analyse_operators` builds it from an ELF (the expensive step: disassembly); graph_cache.py keeps it keyed by the
ELF's content, so later questions on the same ELF skip that step. Questions about sets of operators are answered in
operator_sets.py, one graph walk each.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from sizetool.inputs.elf_reader import ElfImage
from sizetool.operators.aligned_fill import aligned_fills
from sizetool.operators.call_sites import CallSite, PoolWord, find_call_sites
from sizetool.operators.member_constructors import MovedConstructor, move_member_constructors
from sizetool.operators.string_sections import tie_string_sections
from sizetool.code_graph.code_sections import dwarf_code_sections
from sizetool.code_graph.reference_graph import ReferenceGraph, build_reference_graph
from tflm_facts.registrations import method_for_registration, parser_name, registration_methods

_REGISTRATION = re.compile(r"^(?:[A-Za-z_]\w*::)*Register_([A-Z][A-Z0-9_]*)(?:\(\))?$")  # TFLM spells ops in capitals
CLONE_SUFFIX = re.compile(r"( \[clone [^\]]*\])+$")
_ADD_METHOD = re.compile(r"MicroMutableOpResolver<[^>]*>::(Add\w+)\(")
# Sections a linker script gathers from many inputs and garbage-collects; anything else allocated is kept on purpose.
_COLLECTED_SECTIONS = re.compile(
    r"^\.?(text|rodata|data|datas|bss|noinit|sdata|sbss|srodata|sdata2|sbss2|tdata|tbss|ramfunc|data\.rel\.ro)(\..*)?$"
    r"|^\.(ARM\.exidx|ARM\.extab|eh_frame|eh_frame_hdr|gcc_except_table|got|got\.plt|plt|plt\.got|plt\.sec|dynamic"
    r"|dynsym|dynstr|gnu\..*|hash|interp|note\..*|rela?\..*|tm_clone_table|heap|stack|ARM\.attributes)$"
    # ESP-IDF and ESP8266 output sections: code and data by the memory they run from.
    r"|^\.(irom0?|iram[01]?|dram[01]?|drom0?|flash|rtc|rtc_noinit|ext_ram)\.(text|rodata|data|bss|literal|noinit)$"
)
_ROOT_SECTIONS = re.compile(r"vector|isr|^\.?(init|fini|preinit_array|init_array|fini_array|ctors|dtors)$|rom_start")
# armlink and IAR name output sections after their regions (ER_IROM1, RW_IRAM1; "A0", "P1 ro"), and remove unused
# input sections from all of them: there, the vector table is found by its symbol (CMSIS __Vectors, IAR
# __vector_table, GNU-style startup files' g_pfnVectors / kVectorTable...).
_VECTOR_TABLE = re.compile(r"vector|^__isr|intvec", re.IGNORECASE)


@dataclass(frozen=True)
class OperatorRoots:
    op: str
    registration: str  # demangled name of the registration function
    nodes: frozenset[int]  # the registration and what goes with it (Add<Op>() method, unshared parser)
    entry: int  # the registration function's node


@dataclass(frozen=True)
class SharedRoot:
    """An Add<Op>() method or builtin-data parser several registered operators need: it goes when all of them go."""

    node: int
    users: frozenset[str]  # op names


@dataclass
class OperatorGraph:
    graph: ReferenceGraph
    rom_total: int  # flash of the ELF (text + data), as the nodes add up
    operators: list[OperatorRoots] = field(default_factory=list)  # sorted by op name
    shared_roots: list[SharedRoot] = field(default_factory=list)
    runtime_roots: frozenset[int] = frozenset()  # including functions and objects no root reaches
    call_sites: list[CallSite] = field(default_factory=list)
    pool_words: list[PoolWord] = field(default_factory=list)
    kept_targets: dict[int, tuple[int, ...]] = field(default_factory=dict)  # caller -> what it refers to outside
    #                                                                         its AddXxx() call sites
    unreached_bytes: int = 0  # flash reached from no root (padding, fill, data referred to in unseen ways)
    string_tied_bytes: int = 0  # flash only the map ties to a root: strings in a kept function's merged section
    unexplained_roots: frozenset[int] = frozenset()  # functions and objects no root reaches, kept as runtime roots
    moved_constructors: tuple[MovedConstructor, ...] = ()  # archive members' constructors, kept by what took them
    aligned_fills: tuple = ()  # AlignedFill: the map's fills in front of aligned sections (aligned_fill.py)
    has_symbols: bool = True
    _everything: frozenset[int] | None = field(default=None, repr=False, compare=False)

    @property
    def operator_nodes(self) -> frozenset[int]:
        return frozenset().union(*(o.nodes for o in self.operators))

    @property
    def everything(self) -> frozenset[int]:
        """Every node reachable from all roots: what the firmware keeps today."""
        if self._everything is None:
            self._everything = frozenset(self.graph.reachable(self.runtime_roots | self.operator_nodes))
        return self._everything

    def operator(self, op: str) -> OperatorRoots | None:
        return next((o for o in self.operators if o.op == op), None)


def image_total(report_rom_total: int, operator_graph: OperatorGraph) -> int:
    """The bytes the operator figures are shares of: the report's ROM, or, for an image that loads whole into RAM
    (no ROM: a RAM-only link, or newlib's default script with nothing copied at start-up), every byte the ELF
    stores, which the graph's nodes add up to."""
    return report_rom_total or operator_graph.rom_total


RAM_IMAGE_NOTE = ("the image loads whole into RAM (no ROM): the operator figures are shares of the {total} bytes the "
                  "ELF stores")


def analyse_operators(image: ElfImage, input_sections=None, copies=(), archive_inclusions=()) -> OperatorGraph:
    """The operator graph of an ELF: reference graph, operator and runtime roots, call sites. With the linker map's
    input sections, the functions of one code input section keep each other (the linker keeps or drops it whole);
    without them, the code sections DWARF's .debug_aranges shows stand in (code_sections.py). `copies` are RAM ranges
    the map says are initialised from stored bytes the ELF keeps elsewhere (IAR). `archive_inclusions` (GNU ld maps):
    why the linker took each archive member, so that a member's constructors go with the symbol it was taken for
    (member_constructors.py)."""
    if input_sections is None:
        input_sections = dwarf_code_sections(image)
    if not image.has_symtab:
        graph = build_reference_graph(image, with_edges=False)
        return OperatorGraph(graph, image.rom_total, has_symbols=False)
    # Disassembly is the expensive part: an ELF without registrations only needs the nodes for its templates.
    has_registrations = any(
        symbol.kind == "func" and _REGISTRATION.match(CLONE_SUFFIX.sub("", symbol.name)) for symbol in image.symbols
    )
    graph = build_reference_graph(image, with_edges=has_registrations, input_sections=input_sections, copies=copies)
    operators, shared_roots = find_operators(graph)
    result = OperatorGraph(graph, image.rom_total, operators, shared_roots)
    tie_strings = has_registrations and graph.decoded and bool(input_sections)
    if not operators or not graph.decoded:
        if tie_strings:
            tie_string_sections(graph, input_sections)
        return result
    operator_nodes = result.operator_nodes
    result.moved_constructors = tuple(move_member_constructors(graph, input_sections, list(archive_inclusions)))
    result.aligned_fills = aligned_fills(input_sections)
    runtime_roots = find_runtime_roots(image, graph)
    reached_without_ties = graph.reachable(runtime_roots | operator_nodes) if tie_strings else None
    # With a map: a kept function keeps its whole string section, strings its code no longer uses included.
    if tie_strings and tie_string_sections(graph, input_sections):
        reached = graph.reachable(runtime_roots | operator_nodes)
        result.string_tied_bytes = graph.rom_bytes(reached) - graph.rom_bytes(reached_without_ties)
    else:
        reached = reached_without_ties if reached_without_ties is not None else graph.reachable(
            runtime_roots | operator_nodes)
    # A function or object no root reaches is in the ELF anyway: the linker kept it for a reason the graph cannot
    # see (it shares an input section with something used, a KEEP, a computed address). It stays when an operator
    # goes, and so does what it refers to (newlib's __sfvwrite_r, kept with vfprintf, keeps memmove).
    result.unexplained_roots = frozenset(unreached_symbols(graph, reached))
    result.runtime_roots = frozenset(runtime_roots | result.unexplained_roots)
    result.unreached_bytes = image.rom_total - graph.rom_bytes(reached)
    owners = {node: o.op for o in operators for node in o.nodes}
    owners.update({shared.node: None for shared in shared_roots})
    found = find_call_sites(image, graph, owners)
    result.call_sites, result.pool_words, result.kept_targets = found.sites, found.pool_words, found.kept_targets
    return result


def find_operators(graph: ReferenceGraph) -> tuple[list[OperatorRoots], list[SharedRoot]]:
    """One root set per Register_<OP>() function found among the graph's functions, and the roots several share."""
    registrations: dict[str, tuple[str, int]] = {}
    methods: dict[str, list[int]] = defaultdict(list)
    parsers: dict[str, int] = {}
    for index, node in enumerate(graph.nodes):
        if node.kind != "func":
            continue
        for name in (node.name, *node.aliases):
            plain = CLONE_SUFFIX.sub("", name)
            match = _REGISTRATION.match(plain)
            if match:
                registrations.setdefault(match.group(1), (plain, index))
            method = _ADD_METHOD.search(plain)
            if method:
                methods[method.group(1)].append(index)
            if plain.startswith("tflite::Parse") and "(tflite::Operator const*" in plain:
                # Spelled as TFLM spells it, which is not always the method's case (AddCumSum, ParseCumsum).
                parsers[plain[len("tflite::Parse") : plain.index("(")].lower()] = index

    # An Add<Op>() method or a parser goes with an op only when no other registered op needs it too
    # (Register_CONV_2D and Register_CONV_2D_INT8 both come in through AddConv2D; ParsePool serves both pools).
    method_of = registration_methods()
    wanted_method = {op: method_for_registration(op, method_of) for op in registrations}
    wanted_parser = {op: parser_name(method) for op, method in wanted_method.items()}
    method_users = Counter(method for method in wanted_method.values() if method)
    parser_users = Counter(parser for parser in wanted_parser.values() if parser)
    operators = []
    for op, (registration, index) in sorted(registrations.items()):
        nodes = {index}
        method = wanted_method[op]
        if method and method_users[method] == 1:
            nodes.update(methods.get(method, ()))
        parser = wanted_parser[op]
        if parser and parser_users[parser] == 1 and parser in parsers:
            nodes.add(parsers[parser])
        operators.append(OperatorRoots(op, registration, frozenset(nodes), index))
    shared: dict[int, set[str]] = defaultdict(set)
    for op in registrations:
        method, parser = wanted_method[op], wanted_parser[op]
        if method and method_users[method] > 1:
            for node in methods.get(method, ()):
                shared[node].add(op)
        if parser and parser_users[parser] > 1 and parser in parsers:
            shared[parsers[parser]].add(op)
    own = frozenset().union(*(o.nodes for o in operators)) if operators else frozenset()
    shared_roots = [SharedRoot(node, frozenset(users)) for node, users in sorted(shared.items()) if node not in own]
    return operators, shared_roots


def unreached_symbols(graph: ReferenceGraph, reached: set[int]) -> set[int]:
    """Functions and data objects with flash bytes outside the reached set."""
    return {
        index for index, node in enumerate(graph.nodes)
        if index not in reached and node.kind in ("func", "object") and node.rom_bytes
    }


def find_runtime_roots(image: ElfImage, graph: ReferenceGraph) -> set[int]:
    """Entry point, main, vector tables, init arrays, and sections a linker script keeps on purpose."""
    roots: set[int] = set()
    entry = graph.node_at(image.entry & ~1 if image.arch == "arm" else image.entry)
    if entry is not None:
        roots.add(entry)
    region_named = named_after_regions(image)
    if region_named:
        # The vector table's label may cover one word (CMSIS startup files: __Vectors DCD ..., then __Vectors_End):
        # everything from it to its end label, or to the end of the node it starts, is a root.
        labels = sorted((s.address, s.size, s.mangled) for s in image.symbols
                        if _VECTOR_TABLE.search(s.mangled) and s.kind != "func")
        ends = [address for address, _, name in labels if name.lower().endswith("_end")]
        for address, size, name in labels:
            if name.lower().endswith(("_end", "_size")):
                continue
            start = graph.node_at(address)
            if start is None:
                continue
            end = min((e for e in ends if e > address), default=max(address + size, graph.nodes[start].end))
            index = start
            while index < len(graph.nodes) and graph.nodes[index].address < end:
                roots.add(index)
                index += 1
    for index, node in enumerate(graph.nodes):
        if node.name == "main" or node.mangled in ("main", "_start", "Reset_Handler"):
            roots.add(index)
        elif region_named:
            if node.kind == "object" and _VECTOR_TABLE.search(node.mangled or node.name):
                roots.add(index)
        elif _ROOT_SECTIONS.search(node.section) or not _COLLECTED_SECTIONS.match(node.section):
            roots.add(index)
    return roots


def named_after_regions(image: ElfImage) -> bool:
    """Whether the image's sections carry region names (armlink, IAR) rather than .text/.data/.bss: it has code
    but no .text section."""
    allocated = [s for s in image.sections if s.is_alloc and s.size]
    return any(s.is_code for s in allocated) and not any(
        s.name == ".text" or s.name.startswith(".text.") for s in allocated)
