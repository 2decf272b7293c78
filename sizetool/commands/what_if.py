"""`size-report ops ELF --drop OPS | --keep OPS`: what a set of registrations costs, as the saving, the predicted ROM,
and the files and symbols that go (sizetool/operators/what_if.py)."""

from __future__ import annotations

from dataclasses import dataclass

from sizetool.commands.firmware import FirmwareOptions, OutputOptions, load_firmware, print_warnings, write_output
from sizetool.errors import SizeToolError

FORMATS = ("tree", "json", "csv", "markdown")


@dataclass(frozen=True)
class WhatIfOptions:
    firmware: FirmwareOptions
    output: OutputOptions
    mode: str  # "drop" or "keep"
    names: tuple[str, ...]
    save: str | None = None


def what_if_options(firmware: FirmwareOptions, output: OutputOptions, drop: list[str] | None,
                    keep: list[str] | None, save: str | None) -> WhatIfOptions:
    if drop and keep:
        raise SizeToolError("give --drop or --keep, not both (--keep drops everything it does not name)")
    mode = "drop" if drop else "keep"
    if output.output_format not in FORMATS:
        raise SizeToolError(f"--{mode} prints tree, json, csv or markdown, not {output.output_format}")
    from sizetool.operators.what_if import split_names

    return WhatIfOptions(firmware, output, mode, tuple(split_names(drop or keep)), save)


def run_what_if(options: WhatIfOptions) -> int:
    from sizetool.operators.what_if import what_if
    from sizetool.render.what_if import render_what_if

    firmware = load_firmware(options.firmware)
    answer = what_if(firmware.operator_graph(), firmware.report, options.mode, list(options.names))
    text = render_what_if(answer, options.output.output_format, firmware.report.source, firmware.report.arch,
                          color=options.output.color, width=options.output.width)
    if options.save:
        from sizetool.report.report_model import save_report

        firmware.operator_table()
        save_report(firmware.report, options.save)
    write_output(text, options.output)
    print_warnings(firmware.report)
    return 0
