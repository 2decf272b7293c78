"""Worst-case stack depth from a root function, and the call path that reaches it.

Each function's frame and calls come from stack_frames.py (GCC's `.su` figure replaces the frame where one matches,
stack_crosscheck.py). The depth of a function is the largest of its own frame and, for every call it makes, the
caller's frame in use at the call plus the callee's depth (a tail call adds only what is left of the caller's frame
after its epilogue, usually nothing).

What the walk follows:
- direct calls and tail calls;
- calls through a TFLM registration: in the interpreter functions that call a registration's `init`, `prepare` or
  `invoke` pointer (tflm_facts/kernel_calls.py), an indirect call whose pointer was loaded from that field's offset
  goes to every registered kernel function of that role: the functions each `Register_<OP>()` takes the address of.
  With models, only the kernels of the registrations serving the models' ops.

What it reports instead of guessing (warnings, each with its function and address): other indirect calls (function
pointers, virtual calls), recursion (a call back into a function already on the path: the cycle is walked once),
frames it cannot read (a function with no decodable code) and dynamic frames (alloca, variable-length arrays: the
figure is a lower bound).

Roots: `main`, the ELF entry point, thread entries and the handlers of the vector tables linked (stack_roots.py); or
functions named by the user, demangled or mangled.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from sizetool.errors import SizeToolError
from sizetool.inputs.elf_reader import ElfImage
from sizetool.inputs.stack_usage import StackUsageEntry
from sizetool.operators.operator_graph import CLONE_SUFFIX, find_operators
from sizetool.code_graph.reference_graph import ReferenceGraph, build_reference_graph
from sizetool.stack.stack_crosscheck import StackUsageMatch, function_key, match_stack_usage
from sizetool.stack.stack_frames import SUPPORTED_ARCHITECTURES, Call, Frame, function_frames
from sizetool.stack.stack_roots import default_roots, routine_names
from tflm_facts.kernel_calls import DISPATCHERS, field_at, kernel_role



@dataclass(frozen=True)
class StackWarning:
    kind: str  # "indirect call", "recursion", "unknown frame", "dynamic frame", "call into no function"
    function: str
    address: int  # the site: the call instruction, or the function for a frame warning
    detail: str = ""

    def text(self) -> str:
        return f"{self.kind} in {self.function} at {self.address:#x}" + (f": {self.detail}" if self.detail else "")


@dataclass(frozen=True)
class StackStep:
    function: str
    address: int
    frame: int  # bytes of its own frame
    depth: int  # stack in use (from the root's entry) when it is entered
    via: str  # how it was entered: "root", "call", "tail call", "invoke of ADD", ...
    call_site: int | None  # the instruction of the previous step that entered it
    frame_source: str  # "su" (GCC's figure) or "disassembly"


@dataclass(frozen=True)
class KernelDepth:
    """A kernel function a root reaches through a registration, and how deep it goes on its own."""

    op: str
    role: str  # init, prepare, invoke, free, reset
    function: str
    depth: int  # the kernel function's own worst case (add the depth at which the interpreter calls it)
    bounded: bool


@dataclass
class RootDepth:
    root: str  # the root as named (main, the entry point's name, a user's name)
    kind: str  # "main", "entry point", "thread", "reset", "interrupt", "named"
    function: str
    address: int
    depth: int
    path: list[StackStep]
    warnings: list[StackWarning]
    kernels: list[KernelDepth] = field(default_factory=list)  # deepest first

    @property
    def bounded(self) -> bool:
        """The figure is an upper bound: no indirect call left unresolved, no recursion, no unknown or dynamic frame
        on anything the root reaches."""
        return not self.warnings

    @property
    def measured(self) -> bool:
        """The figure is the root's own frame as its code sets it up (0 for a handler that moves no stack pointer) and
        nothing else: it calls nothing, so it is exact, not a bound."""
        return not self.warnings and len(self.path) <= 1


@dataclass
class StackReport:
    source: str
    arch: str
    roots: list[RootDepth]
    frames: int  # functions with a frame read from the disassembly
    su_entries: int = 0  # .su lines read
    su_matched: int = 0
    su_mismatches: list[tuple[str, int, int, str]] = field(default_factory=list)  # (function, disasm, su, qualifiers)
    models: list[str] = field(default_factory=list)
    kernels: dict[str, list[str]] = field(default_factory=dict)  # registration -> its kernel functions followed
    ignored: list[str] = field(default_factory=list)  # functions whose calls were not followed


@dataclass
class _CallGraph:
    graph: ReferenceGraph
    frames: dict[int, Frame]
    frame_size: dict[int, int]
    frame_source: dict[int, str]
    registration_targets: dict[str, list[tuple[str, int]]]  # role -> (op, kernel node)
    pointer_size: int
    dispatcher_roles: dict[int, tuple[str, ...]]
    names: dict[int, str] = field(default_factory=dict)  # code chunks named by a size-0 symbol (assembly functions)
    ignored: frozenset[int] = frozenset()  # functions whose calls are not followed (--ignore)
    warnings_at: dict[int, list[StackWarning]] = field(default_factory=dict)


def analyse_stack(image: ElfImage, roots: list[str] | None = None, su_entries: list[StackUsageEntry] | None = None,
                  model_paths: list[str] | None = None, decl_files: dict[int, str] | None = None,
                  ignore: list[str] | None = None) -> StackReport:
    """Worst-case depth of each root (default: main, the entry point, threads, interrupt handlers). Calls into the
    functions named in `ignore` (an error handler that never returns, logging) are not followed."""
    if not image.has_symtab:
        raise SizeToolError(f"{image.path}: has no symbol table (stripped?): stack depth needs function symbols")
    if image.arch not in SUPPORTED_ARCHITECTURES or not image.little_endian:
        raise SizeToolError(f"{image.path}: stack depth is not supported for {image.arch} "
                            f"(supported: ARM/Thumb, RISC-V, x86-64)")
    graph = build_reference_graph(image)
    frames = function_frames(image, graph)
    match: StackUsageMatch | None = None
    if su_entries is not None:
        match = match_stack_usage(su_entries, graph, frames, decl_files)
    sizes = {node: frame.size for node, frame in frames.items()}
    sources = {node: "disassembly" for node in frames}
    if match is not None:  # GCC's figure where it is the larger (a variadic function's save area added back)
        for node, entry in match.by_node.items():
            figure = entry.bytes + frames[node].argument_save
            if figure >= sizes[node]:
                sizes[node] = figure
                sources[node] = "su"
    operators, _ = find_operators(graph)
    registered = [o.op for o in operators]
    kept_ops = set(registered)
    if model_paths:
        from sizetool.operators.model_crosscheck import serving_registrations

        kept_ops = set()
        for path in model_paths:
            kept_ops.update(serving_registrations(path, registered)[0])
    targets, kernels = _registration_targets(graph, frames, [o for o in operators if o.op in kept_ops])
    calls = _CallGraph(graph, frames, sizes, sources, targets, image.elf_class // 8, _dispatchers(graph))
    calls.names = routine_names(image, graph, frames)
    chosen = _named_roots(graph, roots) if roots else default_roots(image, graph, frames, calls.names)
    if not chosen:
        raise SizeToolError(f"{image.path}: no main, entry point, thread or interrupt handler found: name the root "
                            "functions (size-report ELF --stack ROOT ...)")
    calls.ignored = frozenset(node for _, _, node in _named_roots(graph, ignore, "--ignore")) if ignore else frozenset()
    walker = _Walker(calls)
    results = []
    for label, kind, node in chosen:
        depth = walker.depth(node)
        path = walker.path(node)
        results.append(RootDepth(label, kind, walker.name(node), graph.nodes[node].address, depth, path,
                                 walker.warnings_reached(node), walker.kernels_reached(node)))
    report = StackReport(image.path, image.arch, results, len(frames), models=list(model_paths or []),
                         kernels=kernels, ignored=sorted(walker.name(n) for n in calls.ignored))
    if match is not None:
        report.su_entries = len(su_entries or [])
        report.su_matched = len(match.by_node)
        report.su_mismatches = [(c.function, c.disassembly, c.su_bytes, ",".join(c.qualifiers))
                                for c in match.checks if not c.agrees]
    return report


def depth_per_registration(image: ElfImage, root: str) -> tuple[RootDepth, dict[str, RootDepth]]:
    """The root's worst case with no kernel followed, and with each registration's kernels alone: the worst case for
    any set of registrations is the largest of these (a target profile keeps them instead of the ELF)."""
    if not image.has_symtab:
        raise SizeToolError(f"{image.path}: has no symbol table (stripped?): stack depth needs function symbols")
    if image.arch not in SUPPORTED_ARCHITECTURES or not image.little_endian:
        raise SizeToolError(f"{image.path}: stack depth is not supported for {image.arch}")
    graph = build_reference_graph(image)
    frames = function_frames(image, graph)
    sizes = {node: frame.size for node, frame in frames.items()}
    sources = {node: "disassembly" for node in frames}
    operators, _ = find_operators(graph)
    dispatchers = _dispatchers(graph)
    label, kind, node = _named_roots(graph, [root])[0]

    def walk(chosen) -> RootDepth:
        targets, _ = _registration_targets(graph, frames, chosen)
        walker = _Walker(_CallGraph(graph, frames, sizes, sources, targets, image.elf_class // 8, dispatchers))
        depth = walker.depth(node)
        return RootDepth(label, kind, walker.name(node), graph.nodes[node].address, depth, walker.path(node),
                         walker.warnings_reached(node))

    return walk([]), {operator.op: walk([operator]) for operator in operators}


# -- registrations ------------------------------------------------------------------------------------------------

def _registration_targets(graph: ReferenceGraph, frames: dict[int, Frame], operators):
    """role -> [(op, kernel node)], and op -> kernel function names: the functions each registration function takes
    the address of (directly, or through a registration object it refers to), not the ones it calls."""
    by_role: dict[str, list[tuple[str, int]]] = {}
    kernels: dict[str, list[str]] = {}
    for operator in operators:
        entry = operator.entry
        called = {graph.node_at(call.target) for call in frames.get(entry, Frame(0, 0)).calls
                  if call.target is not None}
        referenced = set(graph.edges[entry])
        for target in list(referenced):
            if graph.nodes[target].kind in ("object", "chunk"):
                referenced.update(graph.edges[target])
        functions = sorted(t for t in referenced if graph.nodes[t].kind == "func" and t not in called and t != entry)
        kernels[operator.op] = [graph.nodes[t].name for t in functions]
        for target in functions:
            by_role.setdefault(kernel_role(graph.nodes[target].name), []).append((operator.op, target))
    return by_role, kernels


def _dispatchers(graph: ReferenceGraph) -> dict[int, tuple[str, ...]]:
    found = {}
    for index, node in enumerate(graph.nodes):
        if node.kind != "func":
            continue
        key = function_key(CLONE_SUFFIX.sub("", node.name))[0]
        if key in DISPATCHERS:
            found[index] = DISPATCHERS[key]
    return found


# -- roots --------------------------------------------------------------------------------------------------------

def _named_roots(graph: ReferenceGraph, names: list[str], what: str = "root") -> list[tuple[str, str, int]]:
    chosen = []
    for name in names:
        exact = [i for i, n in enumerate(graph.nodes)
                 if n.kind == "func" and (name in (n.name, n.mangled) or name in n.aliases)]
        if not exact and "(" not in name:  # the name as nm -C prints it, without the parameters
            exact = [i for i, n in enumerate(graph.nodes)
                     if n.kind == "func" and CLONE_SUFFIX.sub("", n.name).startswith(name + "(")]
        if not exact:
            key = function_key(name)
            wanted_parameters = "(" in name
            exact = [i for i, n in enumerate(graph.nodes) if n.kind == "func" and (
                function_key(n.name) == key if wanted_parameters else function_key(n.name)[0] == key[0])]
        if not exact:
            raise SizeToolError(f"unknown {what} function {name!r} (no function of that name in the ELF; give it as "
                                "nm -C prints it, e.g. 'tflite::MicroInterpreter::Invoke()', or mangled)")
        if len(exact) > 1:
            names_found = "; ".join(graph.nodes[i].name for i in exact[:3])
            raise SizeToolError(f"{what} {name!r} names {len(exact)} functions ({names_found}): give the parameters "
                                "or the mangled name")
        chosen.append((name, "named", exact[0]))
    return chosen


def _routine_containing(graph: ReferenceGraph, frames: dict[int, Frame], node: int) -> int | None:
    """The assembly routine whose code a branch to a local label lands in (pico-sdk's crt0 branches across its
    size-0 symbols): back through contiguous chunks to the one its frame was read from."""
    while node not in frames:
        if graph.nodes[node].kind != "chunk" or node == 0 or graph.nodes[node - 1].end != graph.nodes[node].address:
            return None
        node -= 1
    return node


# -- the walk -----------------------------------------------------------------------------------------------------

class _Walker:
    """Depth-first, memoised: each function's worst case and the call that reaches it."""

    def __init__(self, calls: _CallGraph):
        self.calls = calls
        self.best: dict[int, tuple[int, int | None, Call | None, str]] = {}  # node -> (depth, next, call, via)
        self.on_path: list[int] = []
        self.warnings: dict[int, list[StackWarning]] = {}
        self.edges: dict[int, list[int]] = {}
        self.kernel_calls: dict[int, list[tuple[str, str, int]]] = {}  # dispatcher -> (op, role, kernel node)

    def name(self, node: int) -> str:
        return self.calls.names.get(node) or self.calls.graph.nodes[node].name

    def depth(self, node: int) -> int:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20000))
        try:
            return self._visit(node)
        finally:
            sys.setrecursionlimit(limit)

    def _visit(self, node: int) -> int:
        if node in self.best:
            return self.best[node][0]
        graph = self.calls.graph
        name = self.name(node)
        warnings: list[StackWarning] = []
        frame = self.calls.frames.get(node)
        size = self.calls.frame_size.get(node)
        if frame is None or size is None:
            warnings.append(StackWarning("unknown frame", name, graph.nodes[node].address,
                                         "no decodable code: counted as 0 bytes"))
            size = 0
        elif frame.dynamic_site is not None:
            warnings.append(StackWarning("dynamic frame", name, frame.dynamic_site,
                                         f"sp moves by a run-time amount (alloca, a variable-length array): "
                                         f"{size} bytes is a lower bound"))
        self.on_path.append(node)
        best = (size, None, None, "")
        successors: list[int] = []
        for call in frame.calls if frame is not None else ():
            for target, via in self._targets(node, call, warnings):
                if target in self.calls.ignored:
                    continue
                successors.append(target)
                if target in self.on_path:
                    cycle = " -> ".join(self.name(n) for n in self.on_path[self.on_path.index(target):])
                    warnings.append(StackWarning("recursion", name, call.site,
                                                 f"calls {self.name(target)} again ({cycle} -> "
                                                 f"{self.name(target)}): the cycle is counted once"))
                    continue
                at_call = call.depth if call.tail else size
                total = at_call + self._visit(target)
                if total > best[0]:
                    best = (total, target, call, via)
        self.on_path.pop()
        self.best[node] = best
        self.warnings[node] = warnings
        self.edges[node] = successors
        return best[0]

    def _targets(self, node: int, call: Call, warnings: list[StackWarning]) -> list[tuple[int, str]]:
        graph = self.calls.graph
        kind = "tail call" if call.tail else "call"
        if call.target is not None:
            target = graph.node_at(call.target)
            if target is not None and graph.nodes[target].section.startswith(".plt"):
                warnings.append(StackWarning("unknown frame", graph.nodes[node].name, call.site,
                                             f"{kind} into a shared library through the PLT ({call.target:#x})"))
                return []
            if target is not None and target not in self.calls.frames and graph.nodes[target].kind != "func":
                target = _routine_containing(graph, self.calls.frames, target)
            if target is None:
                warnings.append(StackWarning("call into no function", self.name(node), call.site,
                                             f"{kind} to {call.target:#x}"))
                return []
            return [(target, kind)]
        roles = self.calls.dispatcher_roles.get(node, ())
        role = field_at(call.loaded_from, self.calls.pointer_size) if call.loaded_from is not None else None
        if role is not None and role in roles and not call.virtual:
            kernels = self.calls.registration_targets.get(role, [])
            self.kernel_calls.setdefault(node, []).extend((op, role, kernel) for op, kernel in kernels)
            return [(kernel, f"{role} of {op}") for op, kernel in kernels]
        detail = "through a function pointer, not followed"
        if call.virtual and call.loaded_from is not None:
            detail = f"a virtual call (vtable slot at offset {call.loaded_from}), not followed"
        elif call.loaded_from is not None:
            detail = f"through a pointer loaded from offset {call.loaded_from}, not followed"
        warnings.append(StackWarning("indirect call" if not call.tail else "indirect jump", self.name(node),
                                     call.site, detail))
        return []

    def path(self, node: int) -> list[StackStep]:
        steps = []
        depth = 0
        via, site = "root", None
        seen = set()
        while node is not None and node not in seen:
            seen.add(node)
            graph_node = self.calls.graph.nodes[node]
            size = self.calls.frame_size.get(node, 0)
            steps.append(StackStep(self.name(node), graph_node.address, size, depth, via, site,
                                   self.calls.frame_source.get(node, "unknown")))
            _, following, call, next_via = self.best.get(node, (0, None, None, ""))
            if following is None or call is None:
                break
            depth += call.depth if call.tail else size
            node, via, site = following, next_via, call.site
        return steps

    def _reached(self, root: int) -> set[int]:
        seen: set[int] = set()
        stack = [root]
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(self.edges.get(node, ()))
        return seen

    def kernels_reached(self, root: int) -> list[KernelDepth]:
        """Every kernel function the root reaches through a registration, deepest first."""
        found = set()
        for node in self._reached(root):
            for op, role, kernel in self.kernel_calls.get(node, ()):
                bounded = not any(self.warnings.get(n) for n in self._reached(kernel))
                found.add(KernelDepth(op, role, self.name(kernel), self.best[kernel][0], bounded))
        return sorted(found, key=lambda k: (-k.depth, k.op, k.role, k.function))

    def warnings_reached(self, root: int) -> list[StackWarning]:
        seen: set[int] = set()
        stack = [root]
        found: list[StackWarning] = []
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            found.extend(self.warnings.get(node, ()))
            stack.extend(self.edges.get(node, ()))
        return sorted(set(found), key=lambda w: (w.kind, w.address, w.function, w.detail))
