"""What each TFLM operator's registration pulls into the firmware, from the ELF's operator graph (operator_graph.py).

For each operator, the flash its roots reach splits three ways:
- exclusive bytes = flash reachable from all roots, minus flash still reachable once the operator's roots are
  removed: what dropping its `AddXxx()` call alone saves (a dominator-style retained size, as twiggy computes for
  wasm); operator_sets.py answers the same question for any set of operators at once;
- shared bytes = reachable from it and from other operators, but not from the runtime: they go when all of those
  operators go (named: which other operators, which files);
- runtime bytes = the runtime it uses: what its code refers to (calls, pointers, directly or through other runtime
  code) that stays when every operator is removed (the interpreter, logging, libc). Input sections the linker keeps
  whole do not count here (they do for what removing an operator saves), so the figure is the same with a map.

Runtime bytes of the table = the ROM total (from the report) minus what removing every operator saves (their
AddXxx() calls included): the firmware with no operator registered. The ROM splits into runtime + every operator's
exclusive bytes + their AddXxx() calls (estimated, call_sites.py) + bytes shared only among operators.
MicroMutableOpResolver<N> instantiations and other class templates with several instantiations are grouped from the
demangled names of their members (and vtables).
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict

from sizetool.inputs.elf_reader import ElfImage
from sizetool.operators.operator_graph import (
    CLONE_SUFFIX, RAM_IMAGE_NOTE, OperatorGraph, OperatorRoots, analyse_operators, image_total,
)
from sizetool.operators.call_sites import cut_edges
from sizetool.operators.operator_sets import SetCost, cost_of_gone, set_cost
from sizetool.operators.retained import RuntimeClosures, dominated_sets, reach_masks
from sizetool.code_graph.reference_graph import GraphNode, ReferenceGraph
from sizetool.report.operator_records import FileBytes, OperatorBytes, OperatorCost, OperatorTable, TemplateCost
from sizetool.report.report_model import SizeReport

RESOLVER_TEMPLATE = "tflite::MicroMutableOpResolver"
NO_FILE = "(no symbol)"


def operator_table_for_image(image: ElfImage, report: SizeReport, input_sections=None) -> OperatorTable:
    return operator_table_for_graph(analyse_operators(image, input_sections), report, image.path)


def operator_table_for_graph(operator_graph: OperatorGraph, report: SizeReport, source: str) -> OperatorTable:
    total = image_total(report.rom_total, operator_graph)
    table = OperatorTable(total_rom=total, ram_image=total != report.rom_total)
    if total != report.rom_total:
        table.notes.append(RAM_IMAGE_NOTE.format(total=total))
    if not operator_graph.has_symbols:
        table.notes.append(f"{source}: no symbol table (stripped ELF): operators cannot be found")
        table.runtime_bytes = total
        return table
    graph = operator_graph.graph
    paths = node_paths(graph, report)
    table.resolvers, table.templates = template_costs(graph)
    if len({r.arguments for r in table.resolvers}) > 1:
        sizes = sorted(r.bytes for r in table.resolvers)
        table.notes.append(
            f"{len(table.resolvers)} MicroMutableOpResolver<N> instantiations "
            f"(N = {', '.join(sorted((r.arguments for r in table.resolvers), key=_natural))}): each carries its own "
            f"copy of the resolver's member functions; one shared N would save about {sum(sizes) - sizes[-1]} bytes"
        )
    operators = operator_graph.operators
    if not operators:
        table.notes.append(f"{source}: no TFLM operator registrations (Register_<OP>() functions) found")
        table.runtime_bytes = total
        return table
    if not graph.decoded:
        table.notes.append(
            f"architecture {report.arch}: code is not disassembled; operator costs are symbol-level "
            "(the bytes of each registration's own source file)"
        )
        table.operators = _symbol_level_costs(graph, operators, paths)
        table.runtime_bytes = total - sum(o.exclusive_bytes for o in table.operators)
        return table

    every_op = set_cost(operator_graph, {o.op for o in operators})
    runtime = operator_graph.everything - every_op.gone
    table.runtime_bytes = total - every_op.saving
    alone = singles(operator_graph)
    # The runtime an op uses is what its code refers to, not what shares an input section with that (the linker keeps
    # such sections whole, but the code in them is not used): the same figure with a map as without one.
    references = _references_only(graph)
    closures = RuntimeClosures(references, runtime)
    # What each op's roots reach outside the runtime, as one bit mask per node (bit: the op's position in `roots_of`).
    # Nodes reached by the same operators form one group: sharing is counted per group, not per node and operator.
    # A root several operators share (ParseConv2D, an Add<Op>() method) counts for each of them: what it reaches is
    # shared with them (a string tail stored in one op's message and used by a shared parser, too).
    roots_of = {operator.op: operator.nodes | {shared.node for shared in operator_graph.shared_roots
                                               if operator.op in shared.users}
                for operator in operators}
    names = list(roots_of)
    bit_of = {op: 1 << position for position, op in enumerate(names)}
    reached_by = reach_masks(graph, list(roots_of.values()), runtime)
    group_bytes: dict[int, int] = defaultdict(int)
    group_files: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    group_runtime: dict[int, int] = defaultdict(int)  # closure masks of the runtime nodes the group refers to
    runtime_closure = closures.masks
    for node, mask in enumerate(reached_by):
        if not mask:
            continue
        size = graph.nodes[node].rom_bytes
        if size:
            group_bytes[mask] += size
            group_files[mask][paths[node]] += size
        used = 0
        for target in references.edges[node]:
            if target in runtime:
                used |= runtime_closure.get(target, 0)
        group_runtime[mask] |= used
    groups_of: dict[str, list[int]] = defaultdict(list)  # op -> the groups it belongs to
    group_names: dict[int, tuple[str, ...]] = {}
    for mask in group_runtime:
        group_names[mask] = tuple(sorted(names[bit] for bit in range(mask.bit_length()) if mask >> bit & 1))
        for op in group_names[mask]:
            groups_of[op].append(mask)
    costs = []
    for operator in operators:
        exclusive = alone[operator.op].gone
        bit = bit_of[operator.op]
        # Shared = reached - exclusive: whole groups, less the exclusive nodes in them.
        by_group = {mask: group_bytes[mask] for mask in groups_of[operator.op] if mask in group_bytes}
        by_file = {(path, mask): size for mask in by_group for path, size in group_files[mask].items()}
        for node in exclusive:
            mask = reached_by[node]
            size = graph.nodes[node].rom_bytes
            if mask & bit and size:
                by_group[mask] -= size
                by_file[(paths[node], mask)] -= size
        used = 0
        for mask in groups_of[operator.op]:
            used |= group_runtime[mask]
        others_of = {mask: tuple(other for other in group_names[mask] if other != operator.op) for mask in by_group}
        with_others: dict[str, int] = defaultdict(int)
        for mask, size in by_group.items():
            for other in others_of[mask]:
                with_others[other] += size
        shared_files: dict[tuple[str, tuple[str, ...]], int] = defaultdict(int)
        for (path, mask), size in by_file.items():
            if size:
                shared_files[(path, others_of[mask])] += size
        costs.append(OperatorCost(
            op=operator.op,
            registration=operator.registration,
            exclusive_bytes=alone[operator.op].code_bytes,
            shared_bytes=sum(by_group.values()),
            files=files_of(graph, exclusive, paths),
            runtime_bytes=closures.bytes_of(used),
            shared_files=tuple(FileBytes(path, size, others) for (path, others), size in
                               sorted(shared_files.items(), key=lambda item: (-item[1], item[0]))),
            shared_with=tuple(OperatorBytes(op, size) for op, size in
                              sorted(with_others.items(), key=lambda item: (-item[1], item[0])) if size),
            call_sites=alone[operator.op].call_sites,
            call_site_bytes=alone[operator.op].call_site_bytes,
        ))
    costs.sort(key=lambda c: (-c.exclusive_bytes, c.op, c.registration))
    table.operators = costs
    if operator_graph.unreached_bytes:
        table.notes.append(
            f"{operator_graph.unreached_bytes} bytes are reached from no root (alignment padding, fill, or data "
            "referred to in ways the decoder cannot see); they count as runtime"
        )
    if operator_graph.string_tied_bytes:
        table.notes.append(
            f"with the map: {operator_graph.string_tied_bytes} bytes of merged strings that no code refers to go with "
            "the function whose string section holds them (ld keeps such a section whole); without the map they "
            "count as runtime reached from no root"
        )
    if graph.exact:
        table.notes.append("edges from relocations (linked with --emit-relocs): data pointers are exact")
    return table


def _references_only(graph: ReferenceGraph) -> ReferenceGraph:
    """The graph without the edges only a shared input section made (from the map or DWARF's code ranges)."""
    if not graph.tied:
        return graph
    tied: dict[int, set[int]] = defaultdict(set)
    for source, target in graph.tied:
        tied[source].add(target)
    edges = [[t for t in targets if t not in tied[node]] if node in tied else targets
             for node, targets in enumerate(graph.edges)]
    return ReferenceGraph(nodes=graph.nodes, edges=edges, exact=graph.exact, decoded=graph.decoded)


def singles(operator_graph: OperatorGraph) -> dict[str, SetCost]:
    """What removing each operator alone saves (set_cost of one op), for all of them from one dominator tree; an op
    whose removal also drops calls other than its own roots (cut_edges) gets its own walk."""
    operators = operator_graph.operators
    dominated = dominated_sets(operator_graph.graph, operator_graph.runtime_roots, [o.nodes for o in operators])
    result = {}
    for operator, gone in zip(operators, dominated):
        chosen = frozenset({operator.op})
        if cut_edges(operator_graph.call_sites, operator_graph.kept_targets, chosen):
            result[operator.op] = set_cost(operator_graph, chosen)
        else:
            result[operator.op] = cost_of_gone(operator_graph, chosen, gone)
    return result


def node_paths(graph: ReferenceGraph, report: SizeReport) -> list[str]:
    """The source file (tree path) of each node's flash bytes, from the report entry that holds its address (the RAM
    tree's, for an image loaded whole into RAM: it has no ROM entries)."""
    memory = stored_memory(report)
    entries = sorted((address, address + size, "/".join(e.path)) for e in report.entries if e.memory == memory and e.size
                     for address, size in (e.pieces or ((e.address, e.size),)))
    starts = [start for start, _, _ in entries]
    paths = []
    for node in graph.nodes:
        position = bisect.bisect_right(starts, node.address) - 1
        inside = position >= 0 and node.address < entries[position][1]
        paths.append(entries[position][2] if inside else NO_FILE)
    return paths


def stored_memory(report: SizeReport) -> str:
    """The tree whose entries hold the image's stored bytes: "rom", or "ram" for an image with no ROM."""
    return "rom" if report.rom_total or not report.ram_total else "ram"


def files_of(graph: ReferenceGraph, nodes, paths: list[str]) -> tuple[FileBytes, ...]:
    """Those nodes' flash bytes by source file, largest first."""
    size: dict[str, int] = defaultdict(int)
    for index in nodes:
        if graph.nodes[index].rom_bytes:
            size[paths[index]] += graph.nodes[index].rom_bytes
    return tuple(FileBytes(path, size[path]) for path in sorted(size, key=lambda p: (-size[p], p)))


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
    name = CLONE_SUFFIX.sub("", name)
    if "<" not in name:  # no template arguments (most names): nothing below could match
        return None
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


def _symbol_level_costs(graph: ReferenceGraph, operators: list[OperatorRoots], paths: list[str]) -> list[OperatorCost]:
    """Without decoded code: each operator costs the flash of the source file its registration lives in."""
    costs = []
    for operator in operators:
        home = paths[operator.entry]
        nodes = [i for i in range(len(graph.nodes)) if paths[i] == home] if home != NO_FILE else operator.nodes
        costs.append(OperatorCost(operator.op, operator.registration, graph.rom_bytes(nodes), 0,
                                  files_of(graph, nodes, paths)))
    costs.sort(key=lambda c: (-c.exclusive_bytes, c.op))
    return costs


def _integer_argument(arguments: str) -> str:
    stripped = arguments.rstrip("uUlL")
    return stripped if stripped.isdigit() else arguments


def _natural(text: str):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]
