"""What each TFLM operator's registration pulls into the firmware, from the ELF's reference graph.

Roots: the runtime roots (entry point, `main`, vector tables, `.init_array` and friends, and every allocated section
outside the usual code/data/bss sections, which linker scripts keep with KEEP, e.g. Zephyr's iterable sections) and
one root set per operator: its `Register_<OP>()` function, the resolver's `Add<Op>()` method when it was not inlined,
and the op's builtin-data parser (`tflite::ParseConv2D`...) when no other registered op shares it.

For each operator:
- exclusive bytes = flash reachable from the roots, minus flash still reachable once the operator's root set is
  removed: what dropping its `AddXxx()` call saves (a dominator-style retained size, as twiggy computes for wasm);
- shared bytes = flash reachable from the operator's root set that stays when it is removed.

Runtime bytes = what stays when every operator is removed (including bytes no root reaches: padding, fill).
MicroMutableOpResolver<N> instantiations and other class templates with several instantiations are grouped from the
demangled names of their members (and vtables).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from sizetool.inputs.elf_reader import ElfImage, read_elf
from sizetool.operators.reference_graph import GraphNode, ReferenceGraph, build_reference_graph
from sizetool.report.report_model import OperatorCost, OperatorTable, SizeReport, TemplateCost

RESOLVER_TEMPLATE = "tflite::MicroMutableOpResolver"
_REGISTRATION = re.compile(r"^(?:[A-Za-z_]\w*::)*Register_([A-Z][A-Z0-9_]*)(?:\(\))?$")  # TFLM spells ops in capitals
_CLONE_SUFFIX = re.compile(r"( \[clone [^\]]*\])+$")
_ADD_METHOD = re.compile(r"MicroMutableOpResolver<[^>]*>::(Add\w+)\(")
# Sections a linker script gathers from many inputs and garbage-collects; anything else allocated is kept on purpose.
_COLLECTED_SECTIONS = re.compile(
    r"^\.?(text|rodata|data|datas|bss|noinit|sdata|sbss|srodata|sdata2|sbss2|tdata|tbss|ramfunc|data\.rel\.ro)(\..*)?$"
    r"|^\.(ARM\.exidx|ARM\.extab|eh_frame|eh_frame_hdr|gcc_except_table|got|got\.plt|plt|plt\.got|plt\.sec|dynamic"
    r"|dynsym|dynstr|gnu\..*|hash|interp|note\..*|rela?\..*|tm_clone_table|heap|stack|ARM\.attributes)$"
)
_ROOT_SECTIONS = re.compile(r"vector|isr|^\.?(init|fini|preinit_array|init_array|fini_array|ctors|dtors)$|rom_start")
# TFLM's builtin-data parsers that serve several ops (the rest are "Parse" + the method name without "Add").
_SHARED_PARSERS = {
    "AveragePool2D": "Pool", "MaxPool2D": "Pool", "L2Pool2D": "Pool",
    "Mean": "Reducer", "Sum": "Reducer", "ReduceMax": "Reducer", "ReduceMin": "Reducer", "ReduceAll": "Reducer",
}


@dataclass(frozen=True)
class OperatorRoots:
    op: str
    registration: str  # demangled name of the registration function
    nodes: frozenset[int]  # the registration and what goes with it (Add<Op>() method, unshared parser)


def operator_table(elf_path: str, report: SizeReport, map_path: str | None = None) -> OperatorTable:
    """The per-operator flash cost of a firmware ELF. `report` (of the same ELF) supplies the source files; the
    linker map, when given, says which functions share an input section (and so are kept or dropped together)."""
    image = read_elf(elf_path)
    input_sections = None
    if map_path:
        from sizetool.inputs.map_file import read_map

        input_sections = read_map(map_path).input_sections
    return operator_table_for_image(image, report, input_sections)


def operator_table_for_image(image: ElfImage, report: SizeReport, input_sections=None) -> OperatorTable:
    table = OperatorTable(total_rom=image.rom_total)
    if not image.has_symtab:
        table.notes.append(f"{image.path}: no symbol table (stripped ELF): operators cannot be found")
        table.runtime_bytes = image.rom_total
        return table
    # Disassembly is the expensive part: an ELF without registrations only needs the nodes for its templates.
    has_registrations = any(
        symbol.kind == "func" and _REGISTRATION.match(_CLONE_SUFFIX.sub("", symbol.name)) for symbol in image.symbols
    )
    graph = build_reference_graph(image, with_edges=has_registrations, input_sections=input_sections)
    files_of = _file_finder(report)
    table.resolvers, table.templates = template_costs(graph)
    if len({r.arguments for r in table.resolvers}) > 1:
        sizes = sorted(r.bytes for r in table.resolvers)
        table.notes.append(
            f"{len(table.resolvers)} MicroMutableOpResolver<N> instantiations "
            f"(N = {', '.join(sorted((r.arguments for r in table.resolvers), key=_natural))}): each carries its own "
            f"copy of the resolver's member functions; one shared N would save about {sum(sizes) - sizes[-1]} bytes"
        )
    operators = find_operators(graph)
    if not operators:
        table.notes.append(f"{image.path}: no TFLM operator registrations (Register_<OP>() functions) found")
        table.runtime_bytes = image.rom_total
        return table
    if not graph.decoded:
        table.notes.append(
            f"architecture {image.arch}: code is not disassembled; operator costs are symbol-level "
            "(the bytes of each registration's own source file)"
        )
        table.operators = _symbol_level_costs(graph, operators, files_of)
        table.runtime_bytes = image.rom_total - sum(o.exclusive_bytes for o in table.operators)
        return table

    operator_nodes = frozenset().union(*(o.nodes for o in operators))
    runtime_roots = find_runtime_roots(image, graph)
    reached = graph.reachable(runtime_roots | operator_nodes)
    reached_bytes = graph.rom_bytes(reached)
    # A function or object no root reaches is in the ELF anyway: the linker kept it for a reason the graph cannot
    # see (it shares an input section with something used, a KEEP, a computed address). It stays when an operator
    # goes, and so does what it refers to (newlib's __sfvwrite_r, kept with vfprintf, keeps memmove).
    runtime_roots |= unreached_symbols(graph, reached)
    all_roots = runtime_roots | operator_nodes
    everything = graph.reachable(all_roots)
    costs = []
    for operator in operators:
        remaining = graph.reachable(all_roots, removed=operator.nodes)
        exclusive = everything - remaining
        own = graph.reachable(operator.nodes)
        exclusive_bytes = graph.rom_bytes(exclusive)
        costs.append(
            OperatorCost(
                op=operator.op,
                registration=operator.registration,
                exclusive_bytes=exclusive_bytes,
                shared_bytes=graph.rom_bytes(own) - exclusive_bytes,
                files=files_of(graph, exclusive or own),
            )
        )
    costs.sort(key=lambda c: (-c.exclusive_bytes, c.op, c.registration))
    table.operators = costs
    without_operators = graph.reachable(runtime_roots, removed=operator_nodes)
    table.runtime_bytes = image.rom_total - graph.rom_bytes(everything - without_operators)
    unreached = image.rom_total - reached_bytes
    if unreached:
        table.notes.append(
            f"{unreached} bytes are reached from no root (alignment padding, fill, or data referred to in ways the "
            "decoder cannot see); they count as runtime"
        )
    if graph.exact:
        table.notes.append("edges from relocations (linked with --emit-relocs): data pointers are exact")
    return table


def find_operators(graph: ReferenceGraph) -> list[OperatorRoots]:
    """One root set per Register_<OP>() function found among the graph's functions."""
    registrations: dict[str, tuple[str, int]] = {}
    methods: dict[str, list[int]] = defaultdict(list)
    parsers: dict[str, int] = {}
    for index, node in enumerate(graph.nodes):
        if node.kind != "func":
            continue
        for name in (node.name, *node.aliases):
            plain = _CLONE_SUFFIX.sub("", name)
            match = _REGISTRATION.match(plain)
            if match:
                registrations.setdefault(match.group(1), (plain, index))
            method = _ADD_METHOD.search(plain)
            if method:
                methods[method.group(1)].append(index)
            if plain.startswith("tflite::Parse") and "(tflite::Operator const*" in plain:
                parsers[plain[len("tflite::Parse") : plain.index("(")]] = index

    # An Add<Op>() method or a parser goes with an op only when no other registered op needs it too
    # (Register_CONV_2D and Register_CONV_2D_INT8 both come in through AddConv2D; ParsePool serves both pools).
    method_of = _method_names()
    wanted_method = {op: _method_for(op, method_of) for op in registrations}
    wanted_parser = {op: _parser_name(method) for op, method in wanted_method.items()}
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
        operators.append(OperatorRoots(op, registration, frozenset(nodes)))
    return operators


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
    for index, node in enumerate(graph.nodes):
        if node.name == "main" or node.mangled in ("main", "_start", "Reset_Handler"):
            roots.add(index)
        elif _ROOT_SECTIONS.search(node.section) or not _COLLECTED_SECTIONS.match(node.section):
            roots.add(index)
    return roots


def template_costs(graph: ReferenceGraph) -> tuple[list[TemplateCost], list[TemplateCost]]:
    """MicroMutableOpResolver<N> rows (one per N), and one row per other class template with several
    instantiations whose bytes are what the instantiations cost beyond the largest one."""
    groups: dict[str, dict[str, list[GraphNode]]] = defaultdict(lambda: defaultdict(list))
    for node in graph.nodes:
        if node.kind == "chunk" or not node.rom_bytes:
            continue
        parsed = class_template_of(node.name)
        if parsed:
            template, arguments = parsed
            groups[template][arguments].append(node)
    resolvers, templates = [], []
    for template, instantiations in sorted(groups.items()):
        if template.endswith("MicroMutableOpResolver"):
            for arguments, nodes in sorted(instantiations.items(), key=lambda item: _natural(item[0])):
                resolvers.append(
                    TemplateCost(template, _integer_argument(arguments), sum(n.rom_bytes for n in nodes),
                                 tuple(sorted(n.name for n in nodes)))
                )
        elif len(instantiations) > 1:
            sizes = {arguments: sum(n.rom_bytes for n in nodes) for arguments, nodes in instantiations.items()}
            names = sorted(n.name for nodes in instantiations.values() for n in nodes)
            templates.append(
                TemplateCost(template, "; ".join(f"<{a}>" for a in sorted(sizes, key=_natural)),
                             sum(sizes.values()) - max(sizes.values()), tuple(names))
            )
    templates.sort(key=lambda t: (-t.bytes, t.template))
    return resolvers, templates


_COMPANIONS = ("vtable for ", "typeinfo for ", "typeinfo name for ", "VTT for ", "construction vtable for ")


def class_template_of(name: str) -> tuple[str, str] | None:
    """("ns::Class", "args") when name is a member (or vtable) of a class-template instantiation ns::Class<args>."""
    name = _CLONE_SUFFIX.sub("", name)
    is_companion = name.startswith(_COMPANIONS)
    for prefix in _COMPANIONS:
        if name.startswith(prefix):
            name = name[len(prefix) :]
            break
    # Scopes of the qualified name at bracket depth 0, up to the parameter list.
    scopes: list[str] = []
    depth = 0
    current = ""
    position = 0
    while position < len(name):
        ch = name[position]
        if ch == "(" and depth == 0 and not current.endswith("operator"):
            break
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
            if depth < 0:
                return None
        if depth == 0 and name.startswith("::", position):
            scopes.append(current)
            current = ""
            position += 2
            continue
        if depth == 0 and ch == " " and not scopes:
            current = ""  # a return type before the qualified name ("void ns::f<int>(...)")
            position += 1
            continue
        current += ch
        position += 1
    if depth != 0:
        return None
    if is_companion:
        scopes.append(current)
    for index in range(len(scopes) - 1, -1, -1):
        scope = scopes[index]
        if scope.endswith(">") and "<" in scope and not scope.startswith("operator"):
            opening = scope.index("<")
            qualified = "::".join(scopes[:index] + [scope[:opening]])
            return qualified, scope[opening + 1 : -1]
    return None


def _method_names() -> dict[str, str]:
    """Op name as spelled in Register_<OP> -> the MicroMutableOpResolver method that registers it. Custom ops are
    named as model_crosscheck names them (from resolver_gen's table), so --ops and --model agree."""
    from resolver_gen.tflm_registry import BUILTIN_OPS, TFLM_CUSTOM_OPS

    from sizetool.operators.model_crosscheck import REGISTER_PREFIX, model_op

    methods = {name: method for name, (_code, method) in BUILTIN_OPS.items() if method}
    for custom_name, method in TFLM_CUSTOM_OPS.items():
        if method:
            methods.setdefault(model_op("custom", custom_name).registration[len(REGISTER_PREFIX) :], method)
    return methods


def _method_for(op: str, methods: dict[str, str]) -> str | None:
    """The Add<Op>() method of a registration name, a kernel variant (CONV_2D_INT8) included."""
    from sizetool.operators.model_crosscheck import VARIANT_TAIL

    if op in methods:
        return methods[op]
    for cut in range(len(op) - 1, 0, -1):
        if op[cut] == "_" and op[:cut] in methods and VARIANT_TAIL.fullmatch(op, cut):
            return methods[op[:cut]]
    return None


def _parser_name(method: str | None) -> str | None:
    if not method:
        return None
    stem = method[len("Add") :]
    return _SHARED_PARSERS.get(stem, stem)


def _file_finder(report: SizeReport):
    """files(graph, nodes): the source files of those nodes' flash bytes, largest first."""
    path_at: dict[int, str] = {}
    for entry in report.entries:
        if entry.memory == "rom" and not entry.symbol.startswith("("):
            path_at.setdefault(entry.address, "/".join(entry.path))

    def files(graph: ReferenceGraph, nodes) -> tuple[str, ...]:
        bytes_by_file: dict[str, int] = defaultdict(int)
        for index in nodes:
            node = graph.nodes[index]
            path = path_at.get(node.address)
            if path and node.rom_bytes:
                bytes_by_file[path] += node.rom_bytes
        return tuple(sorted(bytes_by_file, key=lambda p: (-bytes_by_file[p], p)))

    return files


def _symbol_level_costs(graph: ReferenceGraph, operators: list[OperatorRoots], files_of) -> list[OperatorCost]:
    """Without decoded code: each operator costs the flash of the source file its registration lives in."""
    costs = []
    for operator in operators:
        files = files_of(graph, operator.nodes)
        home = files[0] if files else None
        exclusive = sum(
            n.rom_bytes for i, n in enumerate(graph.nodes) if home is not None and files_of(graph, [i]) == (home,)
        ) if home else graph.rom_bytes(operator.nodes)
        costs.append(OperatorCost(operator.op, operator.registration, exclusive, 0, files))
    costs.sort(key=lambda c: (-c.exclusive_bytes, c.op))
    return costs


def _integer_argument(arguments: str) -> str:
    stripped = arguments.rstrip("uUlL")
    return stripped if stripped.isdigit() else arguments


def _natural(text: str):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]
