"""The ROM split by operator, as the treemap page's operator view and the history's operator stacks show it."""

from __future__ import annotations

from sizetool.report.operator_records import OperatorTable

RUNTIME_NODE = "(runtime)"
SHARED_NODE = "(shared by operators)"


def operator_view(table: OperatorTable) -> dict:
    """The ROM split by operator: each operator's exclusive bytes, the runtime, and what operators share.

    Runtime bytes are what stays when every operator is removed, so the rest of the ROM (total minus runtime minus
    every exclusive share) is code and data that only operators use, but more than one of them. An operator's own
    shared bytes overlap with other operators' and with the runtime, so they are not areas: the hover text and the
    table show them.
    """
    operators = sorted(table.operators, key=lambda o: (-o.exclusive_bytes, o.op))
    children = [
        {
            "name": o.op,
            "size": o.exclusive_bytes,
            "kind": "operator",
            "registration": o.registration,
            "shared_bytes": o.shared_bytes,
            "runtime_bytes": o.runtime_bytes,
            "files": sorted(f.path for f in o.files),
        }
        for o in operators
    ]
    if table.runtime_bytes:
        children.append({"name": RUNTIME_NODE, "size": table.runtime_bytes, "kind": "runtime"})
    rest = table.total_rom - table.runtime_bytes - sum(o.exclusive_bytes for o in operators)
    if rest > 0:
        children.append({"name": SHARED_NODE, "size": rest, "kind": "shared"})
    children.sort(key=lambda child: (-child["size"], child["name"]))
    root = {"name": "Root", "size": sum(child["size"] for child in children), "children": children}
    return {
        "id": "ops",
        "label": "By operator",
        "total": root["size"],
        "tree": root,
        "operators": [
            {
                "op": o.op,
                "registration": o.registration,
                "exclusive_bytes": o.exclusive_bytes,
                "shared_bytes": o.shared_bytes,
                "files": sorted(f.path for f in o.files),
            }
            for o in operators
        ],
        "resolvers": [
            {"template": f"{t.template}<{t.arguments}>", "bytes": t.bytes}
            for t in sorted(table.resolvers, key=lambda t: (-t.bytes, t.template, t.arguments))
        ],
        "templates": [
            {"template": f"{t.template}<{t.arguments}>", "bytes": t.bytes}
            for t in sorted(table.templates, key=lambda t: (-t.bytes, t.template, t.arguments))
        ],
        "runtime_bytes": table.runtime_bytes,
        "total_rom": table.total_rom,
        "notes": list(table.notes),
    }
