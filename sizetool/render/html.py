"""`--format html`: one self-contained page with an interactive treemap of ROM and RAM (and of operator cost).

The page needs no network: its CSS and JavaScript are inline in templates/treemap.html.j2, and the report travels as
JSON in a <script type="application/json"> block. This module prepares that JSON (compact trees, sorted, with
every `<`, `>` and `&` escaped so that no symbol name can close the block) and the header figures; the template holds
layout only. The same report always gives a byte-identical page.
"""

from __future__ import annotations

import json
import os

from sizetool import __version__
from sizetool.render.regions import map_line
from sizetool.operators.operator_view import operator_view
from sizetool.report.report_model import SizeReport, build_tree, tree_to_dict

TEMPLATE = "treemap.html.j2"
MEMORY_LABELS = {"rom": "ROM", "ram": "RAM"}


def render_html(size_report: SizeReport, title: str) -> str:
    import markupsafe

    data = page_data(size_report, title)
    template = _environment().get_template(TEMPLATE)
    return template.render(
        title=title,
        source=data["source"],
        arch=size_report.arch,
        tool=data["tool"],
        totals=[(MEMORY_LABELS[m], size_report.total(m), kib(size_report.total(m))) for m in MEMORY_LABELS],
        regions=[
            (r.name, r.used, r.length, f"{r.percent_used:.2f}", f"{min(r.percent_used, 100.0):.2f}")
            for r in size_report.regions
        ],
        warnings=list(size_report.warnings),
        map_line=map_line(size_report) if size_report.linker_map is not None else "",
        data_json=markupsafe.Markup(script_json(data)),
    )


def page_data(size_report: SizeReport, title: str) -> dict:
    """Everything the page's script draws: one view per memory, plus the operator view when the report has one."""
    views = [
        {
            "id": memory,
            "label": label,
            "total": size_report.total(memory),
            "tree": tree_to_dict(build_tree(size_report.entries, memory), identifiers=False),
        }
        for memory, label in MEMORY_LABELS.items()
    ]
    if size_report.operators is not None:
        views.append(operator_view(size_report.operators))
    return {
        "title": title,
        "source": os.path.basename(size_report.source),
        "arch": size_report.arch,
        "tool": f"size-report {__version__}",
        "totals": {memory: size_report.total(memory) for memory in MEMORY_LABELS},
        "regions": [
            {"name": r.name, "origin": r.origin, "length": r.length, "used": r.used, "attributes": r.attributes}
            for r in size_report.regions
        ],
        "warnings": list(size_report.warnings),
        "views": views,
    }


def script_json(data: dict) -> str:
    """JSON that is safe inside a <script> element: `<`, `>` and `&` only occur inside JSON strings, where their
    \\u escapes mean the same, so no `</script>` or `<!--` can appear in the page's text."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def kib(size: int) -> str:
    return f"{size / 1024:.1f} KiB"


def _environment():
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("sizetool", "templates"),
        autoescape=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
