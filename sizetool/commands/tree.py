"""`size-report ELF`: the flash/RAM tree by source path and symbol, in the chosen format.

Steps: load the firmware (commands/firmware.py: sizetool/report/report_builder.py or the cache) -> render
(sizetool/render/<format>) -> write. The plain form's aliases of the other commands are commands/report.py.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from sizetool.commands.firmware import (FirmwareOptions, OutputOptions, load_firmware, print_warnings,
                                        write_output)
from sizetool.errors import SizeToolError

FORMATS = ("tree", "json", "csv", "markdown", "html")


@dataclass(frozen=True)
class TreeOptions:
    firmware: FirmwareOptions
    output: OutputOptions
    memories: tuple[str, ...] = ("rom",)
    depth: int = 0
    save: str | None = None


def memories(ram: bool, all_memories: bool) -> tuple[str, ...]:
    return ("rom", "ram") if all_memories else (("ram",) if ram else ("rom",))


def run_tree(options: TreeOptions) -> int:
    firmware = load_firmware(options.firmware)
    text = render(firmware.report, options.output.output_format, list(options.memories), options.depth,
                  color=options.output.color)
    if options.save:
        from sizetool.report.report_model import save_report

        save_report(firmware.report, options.save)
    write_output(text, options.output)
    if options.output.output_format != "tree":
        print_warnings(firmware.report)
    return 0


def render(size_report, output_format: str, memories: list[str], depth: int, color: bool = False) -> str:
    """The report as text in one of FORMATS."""
    if output_format == "json":
        from sizetool.render.json_output import render_json

        return render_json(size_report, memories)
    if output_format == "csv":
        from sizetool.render.csv_output import render_csv

        return render_csv(size_report, memories)
    if output_format == "markdown":
        from sizetool.render.markdown import render_markdown

        return render_markdown(size_report, memories, depth)
    if output_format == "html":
        return render_html(size_report)
    from sizetool.render.tree import render_tree

    return render_tree(size_report, memories, depth, color=color)


def render_html(size_report) -> str:
    """The one-page treemap (with the operator view when the report carries the operator table)."""
    import os

    try:
        html = importlib.import_module("sizetool.render.html")
    except ModuleNotFoundError as error:
        if error.name in ("sizetool.render.html", "jinja2"):
            raise SizeToolError("html output is not available in this installation") from None
        raise
    return html.render_html(size_report, f"Size report: {os.path.basename(size_report.source)}")
