"""`size-report profile ELF`: a target profile (tflm_facts/target_profile.py) from an all-ops firmware.

The profile carries what `--keep OPS` needs, without the ELF:
1. The operator graph (sizetool/operators/operator_graph.py) is reduced. The nodes reached whatever is registered
   (every registration removed, every AddXxx() call and the machinery it goes through gone) are the runtime: their
   bytes are summed, and only those of them that refer into the rest, or hold call sites, stay as nodes (always
   reached). Nodes the firmware does not keep at all (padding, fill) go. Then a node reached only through one other
   node, and playing no part of its own in the set question (no root, call site, machinery, pool word), is merged
   into that node: it is kept exactly when that one is. Every walk of operator_sets.set_cost gives the same bytes
   on the reduced graph; tflm_model/profile_sets.py walks it, and tests check both agree on fixtures.
2. Each node's RAM (.data/.bss) bytes ride along, so a set also says what static RAM goes; the static RAM is `.data`
   + `.bss` (heap and stack sections left out), less the arena arrays passed to the interpreter.
3. The .tflite bytes the firmware embeds (objects holding a FlatBuffer with the "TFL3" identifier) are named, so a
   fit answer replaces them with the user's model.
4. Stack: the worst case of `tflite::MicroInterpreter::Invoke()` with no kernel and with each registration's kernels
   alone (sizetool/stack/stack_depth.py); a set's worst case is the largest of those.
"""

from __future__ import annotations

import os
import re

from sizetool.errors import SizeToolError
from sizetool.fit.arena_finder import find_arenas
from sizetool.fit.model_fit import detect_kernels
from sizetool.inputs.elf_reader import ElfImage, arm_short_enums
from sizetool.operators.call_sites import cut_edges
from sizetool.operators.operator_graph import OperatorGraph
from sizetool.operators.operator_sets import removed_roots
from sizetool.profile.build_facts import compiler_of, cpu_and_fpu, producer_of
from sizetool.stack.stack_depth import RootDepth, depth_per_registration
from tflm_facts.registrations import method_for_registration, registration_methods
from tflm_facts.target_profile import (
    BuildFacts,
    CallSite,
    PoolWord,
    ProfileGraph,
    Registration,
    SharedRoot,
    StackPath,
    TargetProfile,
    APP_STATICS,
    resolver_object_bytes,
)

STACK_ROOT = "tflite::MicroInterpreter::Invoke()"
_TFLITE_IDENTIFIER = b"TFL3"
_NOT_STATIC_RAM = re.compile(r"heap|stack", re.IGNORECASE)


def export_profile(image: ElfImage, operator_graph: OperatorGraph, rom_total: int, name: str,
                   tflm_commit: str = "", stack: bool = True) -> TargetProfile:
    """The target profile of an all-ops firmware. `rom_total`: the report's ROM total (what --keep subtracts from)."""
    if not operator_graph.operators:
        raise SizeToolError(f"{image.path}: no TFLM operator registrations found (stripped, or not a TFLM "
                            "firmware): nothing to profile")
    if not operator_graph.graph.decoded:
        raise SizeToolError(f"{image.path}: {image.arch} code is not disassembled, so what registrations share "
                            "cannot be told: no profile")
    graph = operator_graph.graph
    all_ops = frozenset(o.op for o in operator_graph.operators)
    removed = removed_roots(operator_graph, all_ops)
    machinery = {target for site in operator_graph.call_sites for target in site.targets}
    cut = cut_edges(operator_graph.call_sites, operator_graph.kept_targets, all_ops)
    always_kept = graph.reachable(operator_graph.runtime_roots - operator_graph.unexplained_roots,
                                  removed=removed | machinery, cut=cut)
    everything = operator_graph.everything
    variable = everything - always_kept
    callers = ({s.caller for s in operator_graph.call_sites} | {w.caller for w in operator_graph.pool_words}
               | set(operator_graph.kept_targets))
    boundary = {node for node in always_kept if node in callers or any(t in variable for t in graph.edges[node])}
    kept = sorted(variable | boundary)
    index = {node: position for position, node in enumerate(kept)}

    ram_of = _ram_bytes(image, graph)
    flash = [0 if node in boundary else graph.nodes[node].rom_bytes for node in kept]
    ram = [0 if node in boundary else ram_of.get(node, 0) for node in kept]
    edges = [{index[t] for t in graph.edges[node] if t in index and (node not in boundary or t in variable)}
             for node in kept]
    registrations_nodes = {o.op: sorted(index[n] for n in o.nodes if n in index) for o in operator_graph.operators}
    shared = [(index[s.node], tuple(sorted(s.users))) for s in operator_graph.shared_roots if s.node in index]
    sites = [CallSite(s.op, index[s.caller], s.bytes, tuple(sorted(index[t] for t in s.targets if t in index)),
                      s.inlined) for s in operator_graph.call_sites if s.caller in index]
    words = [PoolWord(w.address, index[w.caller], index[w.target], w.bytes) for w in operator_graph.pool_words
             if w.caller in index and w.target in index]
    kept_targets = {index[c]: tuple(sorted(index[t] for t in targets if t in index and t in machinery))
                    for c, targets in operator_graph.kept_targets.items() if c in index}
    always = {index[n] for n in boundary}
    roots = {index[n] for n in operator_graph.runtime_roots if n in index} - always
    unexplained = {index[n] for n in operator_graph.unexplained_roots if n in index}
    targets = {index[t] for t in machinery if t in index}
    protected = (always | roots | unexplained | targets | {n for nodes in registrations_nodes.values() for n in nodes}
                 | {node for node, _ in shared} | {s.caller for s in sites} | {w.caller for w in words}
                 | {w.target for w in words} | set(kept_targets))
    protected |= {node for node, targets_of in enumerate(edges) if targets_of & targets}  # referrers of machinery
    app_statics = _app_static_nodes(graph, index, always)
    protected |= set(app_statics)
    merged_into = _merge_chains(flash, ram, edges, protected)

    # Renumber what is left, in address order.
    left = [position for position in range(len(kept)) if merged_into[position] == position]
    renumber = {old: new for new, old in enumerate(left)}
    remap = lambda nodes: tuple(sorted({renumber[n] for n in nodes}))  # noqa: E731
    functions = remap(n for n in left if graph.nodes[kept[n]].kind == "func" and n in targets)
    names = {renumber[n]: graph.nodes[kept[n]].name for n in sorted(targets) if n in renumber}
    profile_graph = ProfileGraph(
        flash=tuple(flash[n] for n in left), ram=tuple(ram[n] for n in left),
        edges=tuple(remap(edges[n]) for n in left),
        always=remap(always), roots=remap(roots), unexplained=remap(unexplained), functions=functions, names=names,
        call_sites=tuple(CallSite(s.op, renumber[s.caller], s.bytes, remap(s.targets), s.inlined) for s in sites),
        pool_words=tuple(PoolWord(w.address, renumber[w.caller], renumber[w.target], w.bytes) for w in words),
        kept_targets={renumber[c]: remap(t) for c, t in sorted(kept_targets.items())},
        shared_roots=tuple(SharedRoot(renumber[node], users) for node, users in sorted(shared)),
        app_uses={APP_STATICS: remap(app_statics)} if app_statics else {},
    )

    notes: list[str] = []
    stack_root, base, by_op, stack_names = "", None, {}, ()
    if stack:
        stack_root, base, by_op, stack_names, note = _stack_paths(image)
        if note:
            notes.append(note)
    methods = registration_methods()
    registrations = tuple(
        Registration(o.op, o.registration, method_for_registration(o.op, methods) or "",
                     remap(registrations_nodes[o.op]), by_op.get(o.op))
        for o in sorted(operator_graph.operators, key=lambda o: o.op))

    model_bytes = sum(graph.nodes[n].rom_bytes for n in _embedded_models(image, graph) if n in everything)
    static_ram = sum(s.size for s in _static_ram_sections(image))
    arenas = _arenas(image, graph)
    resolver_ram, resolver_op_bytes = _resolver_objects(image, graph, ram_of)
    kernels = detect_kernels(image).kernels
    cpu, fpu = cpu_and_fpu(image.path)
    build = BuildFacts(arch=image.arch, cpu=cpu, fpu=fpu, kernels=kernels, pointer_bytes=image.elf_class // 8,
                       short_enums=arm_short_enums(image.path), compiler=compiler_of(image.path),
                       flags=producer_of(image.path, "micro_interpreter") if image.has_dwarf else "",
                       tflm_commit=tflm_commit, source=os.path.basename(image.path))
    if not arenas:
        notes.append("no tensor arena array found: static RAM includes whatever arena the firmware has")
    if not model_bytes:
        notes.append("no embedded .tflite model found: the firmware's own model data, if any, stays in the runtime")
    return TargetProfile(
        name=name, build=build, rom_total=rom_total, runtime_bytes=rom_total - sum(profile_graph.flash),
        model_bytes=model_bytes, static_ram=static_ram - sum(size for _, size in arenas),
        arena_symbol=", ".join(symbol for symbol, _ in arenas), arena_bytes=sum(size for _, size in arenas), resolver_ram=resolver_ram,
        graph=profile_graph, registrations=registrations, stack_root=stack_root, stack_base=base,
        stack_names=stack_names, notes=tuple(notes), resolver_op_bytes=resolver_op_bytes)


# What a C++ function-local static with a constructor (and a destructor) calls: the guard functions, and the exit
# registration (atexit with -fno-use-cxa-atexit, else the ARM EABI's __aeabi_atexit / __cxa_atexit).
_APP_STATIC_FUNCTIONS = ("__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort", "atexit",
                         "__aeabi_atexit", "__cxa_atexit")


def _app_static_nodes(graph, index: dict[int, int], always: set[int]) -> list[int]:
    """The profile nodes an app's function-local statics would root: the guard and exit-registration functions the
    all-ops build links only through some kernels (a guard function every app keeps anyway is not one of them). None
    when the build links no guard (-fno-threadsafe-statics, or no kernel has such a static)."""
    found = {node.mangled: index[n] for n, node in enumerate(graph.nodes)
             if node.kind == "func" and node.mangled in _APP_STATIC_FUNCTIONS and n in index}
    acquire = found.get("__cxa_guard_acquire")
    if acquire is None or acquire in always:
        return []
    return sorted(position for position in found.values() if position not in always)


def _merge_chains(flash: list[int], ram: list[int], edges: list[set[int]], protected: set[int]) -> list[int]:
    """Merge every unprotected node reached from exactly one other node into that node (in place), until none is
    left; returns, per node, the node it now belongs to (itself when it stays)."""
    predecessors: list[set[int]] = [set() for _ in edges]
    for node, targets in enumerate(edges):
        for target in targets:
            predecessors[target].add(node)
    owner = list(range(len(edges)))
    pending = [node for node in range(len(edges)) if node not in protected and len(predecessors[node]) == 1]
    while pending:
        node = pending.pop()
        if owner[node] != node or len(predecessors[node]) != 1:
            continue
        (into,) = predecessors[node]
        flash[into] += flash[node]
        ram[into] += ram[node]
        flash[node] = ram[node] = 0
        owner[node] = into
        edges[into].discard(node)
        for target in edges[node]:
            predecessors[target].discard(node)
            if target != into:
                edges[into].add(target)
                predecessors[target].add(into)
            if target not in protected and len(predecessors[target]) == 1 and owner[target] == target:
                pending.append(target)
        edges[node] = set()
        predecessors[node] = set()
    return owner


def _ram_bytes(image: ElfImage, graph) -> dict[int, int]:
    """Node -> the bytes it occupies in RAM (.data, .bss; heap and stack sections left out)."""
    ram_sections = {s.name for s in _static_ram_sections(image)}
    return {index: node.end - node.address for index, node in enumerate(graph.nodes)
            if node.section in ram_sections and node.end > node.address}


def _static_ram_sections(image: ElfImage):
    """Writable sections that occupy RAM at run time: .bss and noinit, and .data copied there from flash (a writable
    section that runs where it is stored, such as .init_array, stays in flash); heap and stack sections left out."""
    return [s for s in image.sections if s.in_ram and not s.is_tls and not _NOT_STATIC_RAM.search(s.name)
            and (s.is_nobits or s.load_address != s.address)]


def _embedded_models(image: ElfImage, graph) -> list[int]:
    """Data nodes holding a .tflite FlatBuffer (its file identifier "TFL3" at offset 4)."""
    found = []
    contents: dict[str, tuple[int, bytes]] = {}
    for section in image.sections:
        if section.in_rom and not section.is_writable:
            contents[section.name] = (section.address, b"")
    for index, node in enumerate(graph.nodes):
        if node.kind != "object" or node.section not in contents or node.end - node.address < 16:
            continue
        start, data = contents[node.section]
        if not data:
            section = image.section_by_name(node.section)
            data = image.section_data(section)
            contents[node.section] = (start, data)
        offset = node.address - start
        if data[offset + 4: offset + 8] == _TFLITE_IDENTIFIER:
            found.append(index)
    return found


_RESOLVER_SIZE = re.compile(r"MicroMutableOpResolver<(\d+)u?>::")


# What one op adds to a MicroMutableOpResolver<N> on 32-bit targets across TFLM revisions: the registration struct
# (5 to 7 function pointers, a code, a name, a version) plus its builtin code and parser.
_RESOLVER_OP_BYTES_32 = range(32, 65, 4)


def _resolver_objects(image: ElfImage, graph, ram_of: dict[int, int]) -> tuple[int, int]:
    """(bytes, per-op bytes) of the RAM objects sized as a MicroMutableOpResolver<N> of an N whose members the ELF
    links. On 32-bit targets the per-op size is read from the object itself (the TFLM revision's layout: 36 at
    90b983c, 44 in early-2023 syncs); 0 when none is found or on 64-bit targets (90b983c's layout is assumed)."""
    counts = {int(match.group(1)) for node in graph.nodes if node.kind == "func"
              for match in [_RESOLVER_SIZE.search(node.name)] if match}
    pointer_bytes = image.elf_class // 8
    objects = _resolver_candidates(graph, ram_of)
    if pointer_bytes != 4:
        sizes = {resolver_object_bytes(count, pointer_bytes) for count in counts}
        return sum(size for size in objects if size in sizes), 0
    for op_bytes in sorted(_RESOLVER_OP_BYTES_32, key=lambda b: (b != 36, b)):  # 90b983c's first
        sizes = {resolver_object_bytes(count, 4, op_bytes) for count in counts if count}
        found = [size for size in objects if size in sizes]
        if found:
            return sum(found), op_bytes
    return 0, 0


def _resolver_candidates(graph, ram_of: dict[int, int]) -> list[int]:
    """The sizes of the RAM objects that may be resolvers: those the code that stores a MicroMutableOpResolver's vtable
    also refers to (its constructor, or the static initialiser it is inlined into), when that code is found; else every
    RAM object. Size alone is not enough: pico-sdk's ram_vector_table is 192 bytes, a MicroMutableOpResolver<5>'s size."""
    objects = {index: size for index, size in ram_of.items() if graph.nodes[index].kind == "object"}
    vtables = {index for index, node in enumerate(graph.nodes)
               if node.name.startswith("vtable for tflite::MicroMutableOpResolver<")}
    near = {target for targets in graph.edges if vtables & set(targets) for target in targets}
    chosen = [size for index, size in objects.items() if index in near]
    return chosen or list(objects.values())


def _arenas(image: ElfImage, graph) -> list[tuple[str, int]]:
    """(symbol, bytes) of each distinct arena array passed to an interpreter (else the arena-named RAM object)."""
    seen: dict[int, tuple[str, int]] = {}
    for arena in find_arenas(image, graph):
        if not arena.on_heap:  # a heap arena is no static RAM of the build
            seen.setdefault(arena.address, (arena.symbol, arena.size))
    return [seen[address] for address in sorted(seen)]


def _stack_paths(image: ElfImage):
    """(root, base path, per-op paths, names, note) for the profile's stack figures."""
    try:
        base, by_op = depth_per_registration(image, STACK_ROOT)
    except SizeToolError as error:
        return "", None, {}, (), f"no stack figures: {error}"
    names: dict[str, int] = {}

    def compact(root: RootDepth) -> StackPath:
        steps = tuple((names.setdefault(step.function, len(names)), step.frame) for step in root.path)
        return StackPath(root.depth, steps)

    # Name indices in a stable order: the base path first, then the registrations by op name.
    base_path = compact(base)
    paths = {op: compact(by_op[op]) for op in sorted(by_op)}
    return STACK_ROOT, base_path, paths, tuple(names), ""

