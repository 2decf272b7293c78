"""Render a ResolverPlan: the TFLM header and the TFLite selective-registration source (jinja2 templates in
templates/), JSON, and the --list tables (rich).

Everything a template shows is prepared here as plain strings, already safe for a C++ comment or string literal, so the
templates hold layout only. jinja2 and rich are imported inside the functions that use them: gen-resolver's start-up
time is part of its budget.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

from resolver_gen import __version__
from resolver_gen.errors import ResolverGenError
from tflm_model.plan import PlannedOp, ResolverPlan
from tflm_facts.registry import TFLITE_CUSTOM_REGISTRATIONS, registration_function_name
from tflm_facts.type_rules import VARIANTS_BY_OP, type_name
from tflm_model.type_support import rejection_reason, signature

TOOL = "gen-resolver"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Naming:
    """Names of the generated symbols; --name prefixes them, --namespace wraps them."""

    name: str | None = None
    namespace: str | None = None

    def __post_init__(self):
        if self.name is not None and (not _IDENTIFIER.fullmatch(self.name) or "__" in self.name):
            raise ResolverGenError(f"--name {self.name!r}: not a valid C++ identifier")
        if self.namespace is not None:
            parts = self.namespace.split("::")
            if not all(_IDENTIFIER.fullmatch(p) and "__" not in p for p in parts):
                raise ResolverGenError(f"--namespace {self.namespace!r}: not a valid C++ namespace name")

    @property
    def prefix(self) -> str:
        return f"{self.name}_" if self.name else ""

    @property
    def guard(self) -> str:
        parts = ["GEN_RESOLVER"]
        if self.namespace:
            parts += self.namespace.split("::")
        if self.name:
            parts.append(self.name)
        return "_".join(parts).upper() + "_OPS_H_"


def comment_text(text: str) -> str:
    """Make text safe inside a // comment: no control characters, no backslash that could splice the next line."""
    return "".join("?" if ord(ch) < 0x20 or ord(ch) == 0x7F else ch for ch in text).replace("\\", "/")


def cpp_string(text: str) -> str:
    """A C++ string literal body for text: quotes, backslashes, '?' and anything outside printable ASCII escaped."""
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch in '"\\?':
            out.append("\\" + ch)
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return "".join(out)


def _versions(versions: list[int]) -> str:
    return "v" + ",".join(str(v) for v in versions)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def _signatures(op: PlannedOp, use) -> str:
    return ", ".join(text for text in dict.fromkeys(signature(op.key, types) for types in use.tensor_types) if text)


def _usage_comment(op: PlannedOp) -> str:
    parts = []
    for model, use in sorted(op.uses_by_model.items()):
        types = _signatures(op, use)
        parts.append(f"{model} {_versions(use.versions)} ({_plural(use.total_uses, 'use')}"
                     + (f": {types})" if types else ")"))
    text = f"{op.name}: " + "; ".join(parts)
    if op.registration.note:
        text += f". Note: {op.registration.note}"
    return comment_text(text)


def _variant_comment(op: PlannedOp) -> str | None:
    """Why this registration: the variant and the types it runs, or why the generic one (ops that have variants)."""
    choice = op.variant
    if choice is None:
        return None
    if choice.variant is not None:
        return comment_text(f"{choice.variant.name}: {choice.reason}")
    if VARIANTS_BY_OP.get((op.key.kind, op.key.name)):
        return comment_text(f"generic {op.name}: {choice.reason}")
    return None


def _call(op: PlannedOp) -> str:
    registration = op.registration
    if registration.custom_registration:
        return f'AddCustom("{cpp_string(op.name)}", tflite::{registration.custom_registration}())'
    variant = op.variant.variant if op.variant else None
    if variant is not None:
        return f"{registration.method}({variant.function}())"
    return f"{registration.method}()"


def _model_lines(plan: ResolverPlan) -> list[str]:
    lines = []
    for model in plan.models:
        # Distinct operators first (what kNumOps counts, over all models), then the graph's nodes, named as such.
        nodes = sum(use.total_uses for use in model.ops)
        lines.append(comment_text(f"{model.name}: {_plural(len(model.ops), 'distinct operator')} "
                                  f"({_plural(nodes, 'operator node')}) in "
                                  f"{_plural(model.subgraph_count, 'subgraph')}"))
    return lines


def _rejection_lines(plan: ResolverPlan) -> list[str]:
    return [comment_text(f"{PurePath(r.model).name}: {r.op} in subgraph {r.subgraph}, {r.operator_list} "
                         f"({r.types}): {r.reason}") for r in plan.type_rejections]


def _environment():
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("resolver_gen", "templates"),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )


def load_template(name: str):
    """Import jinja2 and compile one template (done before the model digests are awaited, to overlap with hashing)."""
    return _environment().get_template(name)


def render_header(plan: ResolverPlan, naming: Naming = Naming(), template=None, arena=None, tree=None) -> str:
    """The TFLM MicroMutableOpResolver<N> header; with an ArenaEstimate, also kTensorArenaSize and its breakdown; with
    a TflmTree (--tflm), a line naming the tree's revision."""
    template = template or load_template("header.h.j2")
    ops = [{"comment": _usage_comment(op), "why": _variant_comment(op), "call": _call(op)} for op in plan.registered]
    unsupported = [comment_text(f"{op.name} ({', '.join(sorted(op.uses_by_model))}): {op.registration.unsupported_reason}")
                   for op in plan.unsupported]
    custom_functions = sorted({op.registration.custom_registration for op in plan.registered
                               if op.registration.custom_registration})
    variant_headers = sorted({op.variant.variant.header for op in plan.registered
                              if op.variant and op.variant.variant})
    return template.render(tool=TOOL, version=__version__, models=_model_lines(plan), unsupported=unsupported,
                           refused=_rejection_lines(plan), custom_functions=custom_functions,
                           variant_headers=variant_headers, ops=ops, naming=naming, arena=arena,
                           arena_lines=_arena_lines(arena), tree_line=_tree_line(tree))


def _tree_line(tree) -> str | None:
    if tree is None:
        return None
    return comment_text(f"TFLM tree: {tree.revision.describe()}; calls checked against its "
                        f"{tree.location + tree.resolver_header} and kernel headers")


def tree_as_data(tree) -> dict:
    """--tflm in JSON: the tree's revision (git, the known revision its fingerprint matches) and its resolver header."""
    revision = tree.revision
    return {"revision": revision.describe(), "git": revision.git, "known_revision": revision.known,
            "fingerprint": revision.fingerprint, "resolver_header": tree.location + tree.resolver_header,
            "methods": len(tree.methods)}


def _arena_lines(arena) -> list[str]:
    if arena is None:
        return []
    from resolver_gen.render_arena import comment_lines

    return [comment_text(line) for line in comment_lines(arena)]


def _lite_registration(op: PlannedOp, custom_overrides: dict[str, str]) -> str:
    if op.name in custom_overrides:
        return custom_overrides[op.name]
    return TFLITE_CUSTOM_REGISTRATIONS.get(op.name) or registration_function_name(op.name)


def render_lite(plan: ResolverPlan, naming: Naming = Naming(), custom_overrides: dict[str, str] | None = None,
                template=None) -> str:
    """TensorFlow Lite selective registration (MutableOpResolver), in the shape of TFLite's gen_op_registration.

    Every used builtin is added with its min and max version; Flex ops are left to the Flex delegate (a comment says
    so) unless --custom names a registration for them.
    """
    template = template or load_template("lite.cc.j2")
    custom_overrides = custom_overrides or {}
    builtins, customs, skipped = [], [], []
    for op in sorted(plan.ops, key=lambda op: (op.key.kind, op.name)):
        versions = op.versions
        entry = {"comment": _usage_comment(op), "min": versions[0], "max": versions[-1]}
        if op.key.kind == "builtin":
            builtins.append({**entry, "name": op.name})
        elif op.name.startswith("Flex") and op.name not in custom_overrides:
            skipped.append(comment_text(f"{op.name}: a Select TensorFlow op, run by the Flex delegate"))
        else:
            customs.append({**entry, "name": cpp_string(op.name), "function": _lite_registration(op, custom_overrides)})
    functions = sorted({c["function"] for c in customs})
    return template.render(tool=TOOL, version=__version__, models=_model_lines(plan), builtins=builtins,
                           customs=customs, custom_functions=functions, skipped=skipped, naming=naming)


def plan_as_data(plan: ResolverPlan) -> dict:
    """The plan as JSON-ready data: per model, every op with code, versions, uses per subgraph and registration."""
    models = []
    for model in plan.models:
        ops = []
        for op in plan.ops:
            use = op.uses_by_model.get(model.name)
            if use is None:
                continue
            registration = op.registration
            ops.append({
                "name": op.name,
                "kind": op.key.kind,
                "builtin_code": op.builtin_code,
                "versions": use.versions,
                "uses_per_subgraph": {str(s): n for s, n in use.uses_per_subgraph.items()},
                "versions_per_subgraph": {str(s): v for s, v in use.versions_per_subgraph.items()},
                "tflm_method": registration.method,
                "custom_registration": registration.custom_registration,
                "unsupported": registration.unsupported_reason,
                "types": [_typed_use(op, sub, types, operators) for (sub, types), operators in use.typed.items()],
            })
        models.append({"file": model.name, "sha256": model.sha256, "subgraphs": model.subgraph_count, "ops": ops})
    resolver = {
        "op_count": len(plan.registered),
        "calls": [op.registration.method or f"AddCustom({op.name})" for op in plan.registered],
        "unsupported": [op.name for op in plan.unsupported],
        "type_rejections": [{"model": PurePath(r.model).name, "op": r.op, "subgraph": r.subgraph,
                             "operators": list(r.operators), "types": r.types, "reason": r.reason,
                             "accepted": list(r.accepted)} for r in plan.type_rejections],
    }
    if plan.reduce_types:
        resolver["type_reduced"] = {
            op.name: {"variant": op.variant.variant.name if op.variant.variant else None,
                      "function": op.variant.variant.function if op.variant.variant else None,
                      "reason": op.variant.reason}
            for op in plan.registered if op.variant is not None}
    return {"tool": TOOL, "version": __version__, "models": models, "resolver": resolver}


def _typed_use(op: PlannedOp, sub: int, types, operators: list[int]) -> dict:
    return {"subgraph": sub, "operators": operators, "signature": signature(op.key, types),
            "inputs": [type_name(t) for t in types.inputs], "outputs": [type_name(t) for t in types.outputs],
            "constant_inputs": list(types.constant_inputs), "refused": rejection_reason(op.key, types)
            if op.registration.supported else None}


def render_json(plan: ResolverPlan, arena=None, tree=None) -> str:
    import json

    data = plan_as_data(plan)
    if tree is not None:
        data["tflm_tree"] = tree_as_data(tree)
    if arena is not None:
        from resolver_gen.render_arena import arena_as_data

        data["arena"] = arena_as_data(arena)
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def print_tables(plan: ResolverPlan, file=None) -> None:
    """--list: one rich table per model (op, code, versions, uses per subgraph, tensor types, TFLM registration)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(file=file, highlight=False)
    if not console.is_terminal:  # a pipe or file: wide enough that signatures stay on one line
        console = Console(file=file, highlight=False, width=160)
    for model in plan.models:
        table = Table(title=Text(f"{model.name} ({_plural(model.subgraph_count, 'subgraph')})"), title_justify="left")
        for column in ("op", "code", "versions", "uses per subgraph", "types (uses)", "TFLM registration"):
            table.add_column(column)
        for op in sorted(plan.ops, key=lambda op: (op.key.kind, op.name)):
            use = op.uses_by_model.get(model.name)
            if use is None:
                continue
            registration = op.registration
            if not registration.supported:
                how = Text("unsupported", style="red")
            elif registration.custom_registration:
                how = Text(f"AddCustom({registration.custom_registration})")
            else:
                how = Text(_call(op))
            code = "custom" if op.builtin_code is None else str(op.builtin_code)
            uses = ", ".join(f"{sub}: {count}" for sub, count in use.uses_per_subgraph.items())
            types = Text()
            counts: dict[str, int] = {}
            refused: dict[str, bool] = {}
            for (_sub, tensor_types), operators in use.typed.items():
                text = signature(op.key, tensor_types)
                if not text:
                    continue
                counts[text] = counts.get(text, 0) + len(operators)
                refused[text] = registration.supported and rejection_reason(op.key, tensor_types) is not None
            for i, (text, count) in enumerate(counts.items()):
                types.append(("\n" if i else "") + f"{text} ({count})" + (" refused" if refused[text] else ""),
                             style="red" if refused[text] else "")
            table.add_row(Text(op.name), code, ",".join(map(str, use.versions)), uses, types, how)
        if not model.ops:
            table.add_row("(no operators)", "", "", "", "", "")
        console.print(table)
