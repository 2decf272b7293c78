"""GCC's `.su` figures beside the frames read from the disassembly: which entry is which function, and where they differ.

A `.su` line names a function as GCC prints it (`tflite::TfLiteStatus tflite::{anonymous}::Eval(tflite::TfLiteContext*,
tflite::TfLiteNode*)`), the ELF as the demangler does (`tflite::(anonymous namespace)::Eval(tflite::TfLiteContext*,
tflite::TfLiteNode*)`). Both are reduced to a key: the qualified name without return type, template arguments and
parameter lists (`{anonymous}` and `(anonymous namespace)` made one; a lambda is `lambda`, the ELF's
`{lambda(...)#1}::operator()` too), plus the number of parameters. Several entries with one key (static functions of
the same name in several files) are told apart by the declaring file from DWARF when the ELF has it; entries still
ambiguous count only when they all give the same figure. Entries of functions the linker dropped or the compiler
inlined everywhere match nothing and are only counted.

The figure used for the stack walk is GCC's when an entry matches (its `static` figure is exact; a `dynamic` one is
a lower bound and is reported so), otherwise the disassembly's.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass, field

from sizetool.inputs.stack_usage import StackUsageEntry
from sizetool.code_graph.reference_graph import ReferenceGraph
from sizetool.stack.stack_frames import Frame

_CLONE = re.compile(r"( \[clone [^\]]*\])+$|(\.(constprop|isra|part|cold|lto_priv)\.\d+)+$")
_WITH = re.compile(r" \[with .*\]$")
_ANONYMOUS = re.compile(r"\{anonymous\}|\(anonymous namespace\)")
_LAMBDA = re.compile(r"<lambda\([^)]*\)>|\{lambda\([^)]*\)#\d+\}")


@dataclass(frozen=True)
class FrameCheck:
    node: int
    function: str
    disassembly: int
    su_bytes: int
    qualifiers: tuple[str, ...]
    su_file: str

    @property
    def agrees(self) -> bool:
        return self.disassembly == self.su_bytes


@dataclass
class StackUsageMatch:
    """How the .su entries line up with the ELF's functions."""

    by_node: dict[int, StackUsageEntry] = field(default_factory=dict)
    checks: list[FrameCheck] = field(default_factory=list)  # one per matched function with a disassembled frame
    unmatched_entries: int = 0  # functions GCC emitted that the ELF does not have (dropped, inlined)
    ambiguous_entries: int = 0  # several candidates with different figures

    @property
    def mismatches(self) -> list[FrameCheck]:
        return [check for check in self.checks if check.qualifiers == ("static",) and not check.agrees]


def function_key(name: str) -> tuple[str, int]:
    """(qualified name without return type, templates and parameters; number of parameters) of a function name as
    GCC's .su files or the demangler print it."""
    text = _plain_name(name)
    components, parameters = _split_components(text)
    if len(components) > 1 and components[-1] == "operator()" and components[-2] == "lambda":
        components.pop()
    if components and components[-1] == "lambda":
        parameters = -1  # GCC's "<lambda(float)>" and the demangler's "{lambda(float)#1}::operator()(float)"
    return "::".join(components), parameters


def _plain_name(name: str) -> str:
    text = _WITH.sub("", _CLONE.sub("", name.strip()))
    text = _ANONYMOUS.sub("@anon", text)
    text = _LAMBDA.sub("lambda", text)
    # a function returning a function pointer: "R (* ns::f(params) const)(pointee params)" -> "ns::f(params) const"
    opening = text.find("(* ")
    if opening >= 0:
        depth = 0
        for index in range(opening, len(text)):
            depth += {"(": 1, ")": -1}.get(text[index], 0)
            if depth == 0:
                return text[opening + 3 : index]
    return text


def parameter_types(name: str) -> str:
    """The last parameter list with `const` and spaces removed (`(const char*)` and `(char const*)` agree)."""
    text = _plain_name(name)
    end = text.rfind(")")
    depth = 0
    for index in range(end, -1, -1):
        depth += {")": 1, "(": -1}.get(text[index], 0)
        if depth == 0:
            return re.sub(r"\bconst\b|\s", "", text[index : end + 1])
    return ""


def _split_components(text: str) -> tuple[list[str], int]:
    """Split at top-level '::', dropping each component's template arguments and parameter list, and a return type
    before the name (a top-level space before any parameter list); the number of parameters of the last list."""
    components: list[str] = []
    current: list[str] = []
    angle = paren = 0
    parameters = commas = 0
    saw_parameter = saw_list = False
    index = 0
    while index < len(text):
        char = text[index]
        if angle == 0 and paren == 0 and text.startswith("operator()", index):
            current.append("operator()")
            index += len("operator()")
            continue
        if paren == 0 and char == "<":
            angle += 1
        elif paren == 0 and char == ">" and angle:
            angle -= 1
        elif angle:
            pass
        elif char == "(":
            if paren == 0:
                commas, saw_parameter = 0, False
            paren += 1
        elif char == ")":
            paren -= 1
            if paren == 0:
                parameters = commas + 1 if saw_parameter else 0
                saw_list = True
        elif paren:
            if paren == 1 and char == ",":
                commas += 1
            elif paren == 1 and not char.isspace():
                saw_parameter = True
        elif text.startswith("::", index):
            components.append("".join(current).strip())
            current = []
            index += 2
            continue
        elif char == " ":
            if saw_list:
                break  # "f() const"
            components, current = [], []  # what came before was the return type
        else:
            current.append(char)
        index += 1
    last = "".join(current).strip()
    if last:
        components.append(last)
    if parameters == 1 and text.rstrip().endswith("(void)"):
        parameters = 0
    return [c for c in components if c], parameters


def match_stack_usage(entries: list[StackUsageEntry], graph: ReferenceGraph, frames: dict[int, Frame],
                      decl_files: dict[int, str] | None = None) -> StackUsageMatch:
    """Line up .su entries with the graph's functions (decl_files: function address -> declaring file, from DWARF)."""
    by_key: dict[tuple[str, int], list[StackUsageEntry]] = defaultdict(list)
    by_name: dict[str, list[StackUsageEntry]] = defaultdict(list)  # for C symbols, which carry no parameters
    for entry in entries:
        key = function_key(entry.function)
        by_key[key].append(entry)
        by_name[key[0]].append(entry)
    result = StackUsageMatch()
    used: set[int] = set()
    unsuffixed = {graph.nodes[index].name for index in frames if not _CLONE.search(graph.nodes[index].name)}
    for node_index in sorted(frames):
        node = graph.nodes[node_index]
        if _CLONE.search(node.name) and _CLONE.sub("", node.name) in unsuffixed:
            continue  # a clone (.part.0, .constprop.0) beside its original: GCC's line is the original's
        if node.name.startswith(("non-virtual thunk to ", "virtual thunk to ", "covariant return thunk to ")):
            continue  # a thunk has no .su line of its own; its name without the prefix is the function's
        names = (node.name, *node.aliases)
        candidates: list[StackUsageEntry] = []
        for name in names:
            key = function_key(name)
            candidates = by_key.get(key, []) if "(" in name else by_name.get(key[0], [])
            if candidates:
                break
        if not candidates:
            continue
        if len(candidates) > 1 and decl_files and node.address in decl_files:
            declared = os.path.basename(decl_files[node.address])
            same_file = [c for c in candidates if os.path.basename(c.source) == declared]
            candidates = same_file or candidates
        if len({(c.bytes, c.qualifiers) for c in candidates}) > 1:
            candidates = _same_template_arguments(node.name, candidates)
        if len({(c.bytes, c.qualifiers) for c in candidates}) > 1:  # overloads: compare the parameter types
            same = [c for c in candidates if parameter_types(c.function) == parameter_types(node.name)]
            candidates = same or candidates
        if len({(c.bytes, c.qualifiers) for c in candidates}) > 1:
            result.ambiguous_entries += 1
            continue
        used.update(id(c) for c in candidates)
        _record(result, graph, frames, node_index, candidates[0])
    # GCC prints some names it cannot spell (a variadic function's name comes out as ")"): where a source file
    # declares one function left and its .su file has one entry left (or one unspelt), they are the same function.
    if decl_files:
        left_entries: dict[str, list[StackUsageEntry]] = defaultdict(list)
        for entry in entries:
            if id(entry) not in used:
                left_entries[os.path.basename(entry.source)].append(entry)
        left_nodes: dict[str, list[int]] = defaultdict(list)
        for node_index in frames:
            address = graph.nodes[node_index].address
            if node_index not in result.by_node and graph.nodes[node_index].kind == "func" and address in decl_files:
                left_nodes[os.path.basename(decl_files[address])].append(node_index)
        for name, nodes in sorted(left_nodes.items()):
            left = left_entries.get(name, [])
            if len(left) > 1:  # the others may be functions the linker dropped: keep the one GCC could not spell
                left = [entry for entry in left if "(" not in entry.function]
            if len(nodes) == 1 and len(left) == 1:
                used.add(id(left[0]))
                _record(result, graph, frames, nodes[0], left[0])
    result.checks.sort(key=lambda check: graph.nodes[check.node].address)
    result.unmatched_entries = sum(1 for entry in entries if id(entry) not in used)
    return result


def _record(result: StackUsageMatch, graph: ReferenceGraph, frames: dict[int, Frame], node: int,
            entry: StackUsageEntry) -> None:
    result.by_node[node] = entry
    result.checks.append(FrameCheck(node, graph.nodes[node].name, frames[node].compiler_size, entry.bytes,
                                    entry.qualifiers, entry.su_file))


_WITH_VALUES = re.compile(r"= ([^;\]]+)")
_TEMPLATE_ARGUMENTS = re.compile(r"<([^<>]*)>")


def _same_template_arguments(name: str, candidates: list[StackUsageEntry]) -> list[StackUsageEntry]:
    """The candidates whose `[with InputT = signed char; OutputT = short int]` values are, in order, the ELF name's
    template arguments (`Softmax<signed char, short>`, `MicroMutableOpResolver<13u>`)."""
    arguments = [_type_spelling(a) for group in _TEMPLATE_ARGUMENTS.findall(name.split("(", 1)[0])
                 for a in group.split(",")]
    chosen = []
    for candidate in candidates:
        clause = _WITH.search(candidate.function)
        values = [_type_spelling(v) for v in _WITH_VALUES.findall(clause.group(0))] if clause else []
        if values and values == arguments:
            chosen.append(candidate)
    return chosen or candidates


_INTEGER_SPELLINGS = {"short int": "short", "long int": "long", "long long int": "long long",
                      "short unsigned int": "unsigned short", "long unsigned int": "unsigned long",
                      "long long unsigned int": "unsigned long long", "unsigned int": "unsigned int"}


def _type_spelling(text: str) -> str:
    """GCC's and the demangler's spellings of one template argument made comparable (`short int` and `short`,
    `13` and `13u`)."""
    text = " ".join(text.split())
    text = _INTEGER_SPELLINGS.get(text, text)
    return re.sub(r"(?<=\d)[ul]+$", "", text)
