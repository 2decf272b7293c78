"""Render a ResolverPlan as a C++ header (jinja2 template) or as JSON."""

from __future__ import annotations

import json
import re

from resolver_gen import __version__
from resolver_gen.errors import ResolverGenError
from resolver_gen.plan import ResolverPlan

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _cstring(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def name_prefix(name: str | None) -> str:
    if not name:
        return ""
    if not _IDENTIFIER.match(name):
        raise ResolverGenError(f"--name {name!r}: not a valid C++ identifier")
    return name + "_"


def render_header(plan: ResolverPlan, name: str | None = None) -> str:
    import jinja2

    prefix = name_prefix(name)
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("resolver_gen", "templates"),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )
    env.filters["cstring"] = _cstring
    ops = plan.registered
    custom_decls = sorted({op.registration.custom_registration for op in ops if op.registration.custom_registration})
    guard = f"GEN_RESOLVER_{prefix.upper()}OPS_H_"
    return env.get_template("header.h.j2").render(
        version=__version__,
        models=plan.models,
        unsupported=plan.unsupported,
        guard=guard,
        prefix=prefix,
        ops=ops,
        custom_decls=custom_decls,
    )


def render_json(plan: ResolverPlan) -> str:
    models = []
    for model in plan.models:
        ops = []
        for op in plan.ops:
            if model.path.name in op.versions_by_model:
                ops.append({
                    "name": op.name,
                    "builtin_code": op.builtin_code,
                    "versions": op.versions_by_model[model.path.name],
                    "uses_per_subgraph": {str(k): v for k, v in sorted(op.uses_by_model[model.path.name].items())},
                    "tflm_method": op.registration.method,
                    "custom_registration": op.registration.custom_registration,
                    "unsupported": op.registration.unsupported_reason,
                })
        models.append({"file": model.path.name, "sha256": model.sha256, "subgraphs": model.subgraph_count, "ops": ops})
    return json.dumps({"tool": "gen-resolver", "version": __version__, "models": models}, indent=2, sort_keys=True) + "\n"
