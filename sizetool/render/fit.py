"""`size-report fit ELF MODEL...`: does the firmware fit the models, without the operator table.

Flash: the operators the models need that the firmware lacks, the registrations no model uses and what dropping them
saves, and the firmware with exactly the models' ops (render/operators.py's cross-check), then the firmware running
the models: its own models out, theirs in, the missing ops added from a profile calibrated on the firmware
(render/model_swap.py); RAM: the tensor arena the
models need against the linked arena and the free RAM (render/arena_fit.py). The same sections, in the same words, as
`size-report ops ELF MODEL...` prints after its table.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from sizetool import __version__
from sizetool.render.arena_fit import fit_markdown_lines, fit_to_dict, fit_tree
from sizetool.render.model_swap import swap_lines, swap_to_dict
from sizetool.render.operators import crosscheck_markdown, crosscheck_to_dict, crosscheck_tree
from sizetool.render.text_blocks import console_for, finish
from sizetool.report.report_model import dump_json, records_to_list
from sizetool.text_escaping import markdown_text

if TYPE_CHECKING:
    from sizetool.profile.model_swap import ModelSwap
    from sizetool.fit.model_fit import ArenaFit
    from sizetool.operators.model_crosscheck import ModelCrosscheck

FORMATS = ("tree", "json", "markdown")


def render_fit(crosscheck: ModelCrosscheck, fit: ArenaFit | None, output_format: str, source: str, arch: str = "",
               color: bool = False, width: int | None = None, embedded: list | None = None,
               calibrated: ModelSwap | None = None) -> str:
    """The flash and RAM answer for the models in one of FORMATS, with the firmware running them (`calibrated`: the
    models out and in, the ops dropped and added). `embedded`: the report's records of the models linked into the
    firmware (JSON lists them)."""
    name = os.path.basename(source)
    if output_format == "json":
        data = {"source": name, "arch": arch, "tool": f"size-report {__version__}", **crosscheck_to_dict(crosscheck)}
        if fit is not None:
            data["arena"] = fit_to_dict(fit)
        if embedded:
            data["embedded_models"] = records_to_list(embedded)
        data["calibrated"] = None if calibrated is None else swap_to_dict(calibrated, fit)
        return dump_json(data)
    if output_format == "markdown":
        lines = [f"# Does it fit: {markdown_text(name)}" + (f" ({markdown_text(arch)})" if arch else ""), ""]
        lines += crosscheck_markdown(crosscheck)
        if fit is not None:
            lines += fit_markdown_lines(fit)
        if calibrated is not None:
            lines += ["", "### This firmware running these models", "", "```", *swap_lines(calibrated, fit), "```",
                      ""]
        return "\n".join(lines).rstrip("\n") + "\n"
    console, out = console_for(color, width)
    console.print(f"Does it fit: {name}" + (f" ({arch})" if arch else ""), style="bold")
    crosscheck_tree(console, crosscheck)
    if fit is not None:
        fit_tree(console, fit)
    if calibrated is not None:
        console.print()
        for index, line in enumerate(swap_lines(calibrated, fit)):
            console.print(line, style="bold" if index == 0 else None, markup=False, highlight=False)
    return finish(out)
