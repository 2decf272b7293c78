"""`size-report fit ELF MODEL...`: does the firmware fit the models, without the operator table. The verdict and its
flash and RAM figures come first (render/fit_summary.py), then what to act on; `--verbose` prints every section.

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
from sizetool.render.arena_fit import arena_lines, fit_markdown_lines, fit_to_dict, fit_tree
from sizetool.render.model_swap import swap_lines, swap_summary_lines, swap_to_dict
from sizetool.render.fit_summary import passed, summary_lines
from sizetool.render.operators import (crosscheck_markdown, crosscheck_to_dict, crosscheck_tree, missing_tree,
                                       type_problems_tree)
from sizetool.render.text_blocks import console_for, finish
from sizetool.report.report_model import dump_json, records_to_list
from sizetool.text_escaping import markdown_text

if TYPE_CHECKING:
    from sizetool.profile.model_swap import ModelSwap
    from sizetool.fit.model_fit import ArenaFit
    from sizetool.operators.model_crosscheck import ModelCrosscheck

FORMATS = ("tree", "json", "markdown")
UNUSED_SHOWN = 6


def render_fit(crosscheck: ModelCrosscheck, fit: ArenaFit | None, output_format: str, source: str, arch: str = "",
               color: bool = False, width: int | None = None, embedded: list | None = None,
               calibrated: ModelSwap | None = None, verbose: bool = False, over: dict[str, int] | None = None) -> str:
    """The flash and RAM answer for the models in one of FORMATS, with the firmware running them (`calibrated`: its
    models out and theirs in, the ops dropped and added), the verdict and its figures first (`over`: memory -> bytes
    over the budget given). `embedded`: the report's records of the models linked into the firmware (JSON lists them). `verbose`: every section in full (the per-model firmware, type-reduced
    registrations, the arena's breakdown and the facts it read); JSON always has everything."""
    name = os.path.basename(source) + (f" ({arch})" if arch else "")
    if output_format == "json":
        data = {"source": os.path.basename(source), "arch": arch, "tool": f"size-report {__version__}",
                "fits": passed(crosscheck, fit) and not over,
                "summary": summary_lines(crosscheck, fit, calibrated, name, over),
                **crosscheck_to_dict(crosscheck)}
        if fit is not None:
            data["arena"] = fit_to_dict(fit)
        if embedded:
            data["embedded_models"] = records_to_list(embedded)
        data["calibrated"] = None if calibrated is None else swap_to_dict(calibrated, fit)
        return dump_json(data)
    summary = summary_lines(crosscheck, fit, calibrated, name, over)
    if output_format == "markdown":
        lines = [f"### {markdown_text(summary[0])}", "", *(f"- {markdown_text(line)}" for line in summary[1:]), ""]
        if calibrated is not None:
            lines += ["```", *swap_lines(calibrated, fit), "```", ""]
        lines += crosscheck_markdown(crosscheck)
        if fit is not None:
            lines += fit_markdown_lines(fit)
        return "\n".join(lines).rstrip("\n") + "\n"
    console, out = console_for(color, width)
    console.print(summary[0], style="bold green" if passed(crosscheck, fit) and not over else "bold red", markup=False,
                  highlight=False)
    for index, line in enumerate(summary[1:]):
        console.print(line, markup=False, highlight=False)
        if index == 0 and calibrated is not None:
            for part in swap_summary_lines(calibrated):
                console.print(part, markup=False, highlight=False)
    if verbose:
        if calibrated is not None:
            console.print()
            for index, line in enumerate(swap_lines(calibrated, fit)):
                console.print(line, style="bold" if index == 0 else None, markup=False, highlight=False)
        console.print()
        crosscheck_tree(console, crosscheck)
        if fit is not None:
            fit_tree(console, fit)
    else:
        _what_to_act_on(console, crosscheck, fit, calibrated)
    return finish(out)


def _what_to_act_on(console, crosscheck: ModelCrosscheck, fit: ArenaFit | None,
                    calibrated: ModelSwap | None) -> None:
    """Below the verdict, what a person changes: the ops to register, the types that fail, the registrations to
    drop, where the arena is; the rest is under --verbose."""
    if crosscheck.missing:
        console.print()
        missing_tree(console, crosscheck)
    if crosscheck.type_problems:
        console.print()
        type_problems_tree(console, crosscheck)
    if crosscheck.unused:
        console.print()
        saving = crosscheck.sets.unused.saving if crosscheck.sets is not None else crosscheck.unused_bytes
        shown = crosscheck.unused[:UNUSED_SHOWN]
        console.print(f"Registered, but used by no model: {len(crosscheck.unused)} (dropping them saves {saving:,} B; "
                      "gen-resolver MODEL writes the resolver without them)", markup=False, highlight=False)
        console.print("  " + ", ".join(f"{u.op} {u.exclusive_bytes:,}" for u in shown)
                      + (f" and {len(crosscheck.unused) - len(shown)} more" if len(crosscheck.unused) > len(shown)
                         else ""), markup=False, highlight=False)
    if fit is not None:
        console.print()
        arena_lines(console, fit)
    if crosscheck.variants:
        count = len(crosscheck.variants)
        console.print(f"Type-reduced registrations every model allows: {count} (gen-resolver --reduce-types writes "
                      "them; --verbose says what each saves)", markup=False, highlight=False)
    console.print()
    console.print("--verbose: every registration's saving, the per-model firmware, the arena's breakdown and the facts "
                  "it was estimated with", markup=False, highlight=False)
