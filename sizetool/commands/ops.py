"""`size-report ops ELF [MODEL ...] [--drop OPS | --keep OPS]`: what each TFLM operator registration costs in flash
(sizetool/operators/operator_cost.py); with models, what they need (sizetool/operators/model_crosscheck.py) and the
tensor arena against the linked one (sizetool/fit/model_fit.py); with --drop/--keep, the what-if answer
(commands/what_if.py). Without models, the models linked into the firmware are checked.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from sizetool.commands.arguments import OneLineParser, add_arena_arguments, add_what_if_arguments
from sizetool.commands.firmware import (Firmware, FirmwareOptions, OutputOptions, add_firmware_arguments,
                                        add_output_arguments, firmware_options, load_firmware, model_references,
                                        output_options, print_warnings, without_cyclic_collector, write_output)
from sizetool.commands.what_if import what_if_options
from sizetool.errors import SizeToolError

FORMATS = ("tree", "json", "csv", "markdown", "html")
DESCRIPTION = ("What each TFLM operator registration costs in flash; with models, what they need; with --drop/--keep, "
               "what a set of registrations costs.")
EPILOG = ("Exit status: 0 ok, 1 a model needs an op the firmware does not register or a tensor arena larger than the "
          "one linked, 2 usage or input error.")
MODELS_HELP = ("The models the firmware runs: .tflite files, or C/C++ files holding them as byte arrays (FILE:NAME "
               "picks one)")


@dataclass(frozen=True)
class ArenaOptions:
    """How the arena a model needs is estimated and which linked array it is held against."""

    kernels: str | None = None
    arena_symbol: str | None = None


@dataclass(frozen=True)
class OpsOptions:
    firmware: FirmwareOptions
    output: OutputOptions
    models: tuple = ()  # none: the models linked into the firmware
    arena: ArenaOptions = ArenaOptions()
    save: str | None = None
    tflm: str | None = None  # the TFLM tree the suggestions are checked against (else what the ELF shows)


def add_tflm_argument(parser) -> None:
    parser.add_argument("--tflm", metavar="DIR",
                        help="The TFLM tree the firmware is built from: suggest only the resolver methods and "
                             "registrations it declares (default: what the ELF's DWARF and symbols show).")


def build_parser(prog: str = "size-report ops"):
    parser = OneLineParser(prog=prog, description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("elf", metavar="ELF", help="The firmware ELF (zephyr.elf, firmware.elf, ...).")
    parser.add_argument("extra_models", nargs="*", metavar="MODEL",
                        help=MODELS_HELP + " (their cross-check follows the table); none: the models linked into "
                             "the firmware.")
    add_output_arguments(parser, "tree, json, csv, markdown or html")
    add_firmware_arguments(parser)
    parser.add_argument("--save", metavar="REPORT.json", help="Also save the full report (ROM and RAM) as JSON.")
    parser.add_argument("--model", dest="models", action="append", metavar="MODEL",
                        help="A model to check the firmware against (repeatable; same as a MODEL after the ELF).")
    add_what_if_arguments(parser)
    add_arena_arguments(parser)
    add_tflm_argument(parser)
    return parser


def main(args: list[str], prog: str = "size-report ops") -> int:
    values = vars(build_parser(prog).parse_intermixed_args(args))
    with without_cyclic_collector():  # a tenth of a cold run (firmware.py)
        return _answer(values)


def _answer(values: dict) -> int:
    models = (values.pop("models") or []) + values.pop("extra_models")
    firmware, output = firmware_options(values), output_options(values, FORMATS)
    drop, keep = values.pop("drop"), values.pop("keep")
    if drop or keep:
        from sizetool.commands.what_if import run_what_if

        if models:
            raise SizeToolError(f"--{'drop' if drop else 'keep'} and --model are separate questions (--keep MODEL "
                                "keeps exactly a model's ops)")
        if values["kernels"] or values["arena_symbol"] or values["tflm"]:
            raise SizeToolError("--kernels, --arena-symbol and --tflm go with --model (the arena a model needs, "
                                "the registrations it lacks)")
        return run_what_if(what_if_options(firmware, output, drop, keep, values.pop("save")))
    return run_ops(OpsOptions(firmware, output, tuple(model_references(models)),
                              ArenaOptions(values.pop("kernels"), values.pop("arena_symbol")), values.pop("save"),
                              values.pop("tflm")))


def run_ops(options: OpsOptions) -> int:
    from sizetool.render.operators import render_operators

    firmware = load_firmware(options.firmware)
    models = list(options.models) or firmware.embedded_model_sources()
    if (options.arena.kernels or options.arena.arena_symbol) and not models:
        raise SizeToolError("--kernels and --arena-symbol go with --model (the arena a model needs)")
    crosscheck = fit = None
    html = options.output.output_format == "html"
    with firmware.answer_dwarf_beside() if models and not html else contextlib.nullcontext():
        table = firmware.operator_table()
        if models:
            crosscheck = crosscheck_models(firmware, models, options.tflm)
            if not html:
                fit = arena_fit(firmware, models, options.arena)
    if html:
        from sizetool.commands.tree import render_html

        text = render_html(firmware.report)
    else:
        text = render_operators(table, options.output.output_format, firmware.report.source, firmware.report.arch,
                                crosscheck, color=options.output.color, width=options.output.width, fit=fit,
                                embedded=firmware.report.models)
    if options.save:
        from sizetool.report.report_model import save_report

        save_report(firmware.report, options.save)
    write_output(text, options.output)
    print_warnings(firmware.report)
    return 0 if passed(crosscheck, fit) else 1


def crosscheck_models(firmware: Firmware, models: list, tflm: str | None = None):
    """Which ops the models need that the firmware registers or lacks (sizetool/operators/model_crosscheck.py),
    its suggestions judged against the TFLM tree `tflm` or, without one, what the ELF shows (operators/tflm_offer.py;
    the ELF's DWARF is read only when there is something to suggest)."""
    from sizetool.operators.model_crosscheck import crosscheck_models as crosscheck
    from sizetool.operators.tflm_offer import offer_from_elf, offer_from_tree

    table = firmware.operator_table()
    offer = offer_from_tree(tflm) if tflm else (
        lambda: offer_from_elf(firmware.options.elf, {o.op for o in table.operators}, firmware.resolver_api()))
    return crosscheck(table, models, firmware=firmware.options.elf, operator_graph=firmware.operator_graph(),
                      offer=offer)


def arena_fit(firmware: Firmware, models: list, arena: ArenaOptions):
    """The arena the models need against the linked arena and the free RAM (sizetool/fit/model_fit.py)."""
    from sizetool.fit.model_fit import model_fit

    return model_fit(firmware.elf_image(), firmware.operator_graph().graph, firmware.report, models, arena.kernels,
                     arena.arena_symbol, use_cache=firmware.options.use_cache, dwarf_types=firmware.dwarf_types())


def passed(crosscheck, fit) -> bool:
    return (crosscheck is None or crosscheck.passed) and (fit is None or fit.passed)
