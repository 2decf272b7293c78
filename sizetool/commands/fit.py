"""`size-report fit ELF [MODEL ...]`: does the firmware fit the models: the ops they need that it lacks, the firmware
running them (sizetool/profile/model_swap.py: by default in place of the models it embeds, `--replace` names which,
`--add` keeps them; the ops no model uses out, the missing ones from the nearest profile), and the tensor arena they
need against the linked arena and the free RAM. Without models, the ones linked in."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from sizetool.commands.arguments import OneLineParser, add_arena_arguments
from sizetool.commands.firmware import (FirmwareOptions, OutputOptions, add_firmware_arguments, add_output_arguments,
                                        firmware_options, load_firmware, model_references, output_options,
                                        print_warnings, without_cyclic_collector, write_output)
from sizetool.commands.ops import MODELS_HELP, ArenaOptions, add_tflm_argument, arena_fit, crosscheck_models, passed
from sizetool.errors import SizeToolError

FORMATS = ("tree", "json", "markdown")
DESCRIPTION = ("Does the firmware fit these models: the ops they need that it lacks, the firmware with exactly their "
               "ops, and the tensor arena they need against the linked arena and the free RAM.")
EPILOG = ("Exit status: 0 it fits, 1 a model needs an op the firmware does not register or a tensor arena larger than "
          "the one linked, 2 usage or input error.")


@dataclass(frozen=True)
class SwapOptions:
    """How the models asked about meet the ones the firmware embeds."""

    add: bool = False  # keep the embedded models and add the new ones (default: the new ones replace them)
    replace: tuple[str, ...] = ()  # the embedded models the new ones replace (default: all)


@dataclass(frozen=True)
class FitBudget:
    """The budget the answer is held to, and whether to advise when it is met."""

    flash_limit: int | None = None  # the flash budget: over it, exit 1 with the advice
    ram_limit: int | None = None
    advise: bool = False  # the advice even when it fits


@dataclass(frozen=True)
class FitOptions:
    firmware: FirmwareOptions
    output: OutputOptions
    models: tuple = ()  # none: the models linked into the firmware
    arena: ArenaOptions = ArenaOptions()
    calibration_profile: str | None = None
    reasons: bool = False
    verbose: bool = False
    tflm: str | None = None  # the TFLM tree the suggestions are checked against (else what the ELF shows)
    swap: SwapOptions = SwapOptions()
    budget: FitBudget = FitBudget()


def build_parser(prog: str = "size-report fit"):
    parser = OneLineParser(prog=prog, description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("elf", metavar="ELF", help="The firmware ELF (zephyr.elf, firmware.elf, ...).")
    parser.add_argument("models", nargs="*", metavar="MODEL",
                        help=MODELS_HELP + "; none: the models linked into the firmware.")
    add_output_arguments(parser, "tree, json or markdown")
    add_firmware_arguments(parser)
    parser.add_argument("--reasons", action="store_true",
                        help="Print one line per reason it does not fit on stderr ('size-report fit: FAIL ...'), "
                             "for build systems that show a failed command's output.")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="Every section in full: each unused registration's saving, the per-model firmware, "
                             "type-reduced registrations, the arena's breakdown and the facts it was estimated with "
                             "(by default: the verdict, its figures and what to act on).")
    add_arena_arguments(parser)
    parser.add_argument("--flash", metavar="LIMIT", help="The flash budget (bytes, or 512K, 1M): over it, exit 1 and "
                        "list the changes that would make it fit (sizetool/advice/).")
    parser.add_argument("--ram", metavar="LIMIT", help="The RAM budget, as --flash.")
    parser.add_argument("--advise", action="store_true",
                        help="List the changes that save flash or RAM, ranked, even when it fits.")
    parser.add_argument("--profile", dest="calibration_profile", metavar="PROFILE",
                        help="The target profile (shipped name or file) the ops the firmware lacks are taken "
                             "from, scaled on this firmware (default: the nearest shipped one).")
    add_tflm_argument(parser)
    parser.add_argument("--add", action="store_true",
                        help="Keep the models the firmware embeds and add these beside them (default: these take "
                             "their place).")
    parser.add_argument("--replace", action="append", metavar="SYMBOL|FILE[:NAME]",
                        help="The embedded model these take the place of: its symbol (g_model), or the model file "
                             "or C array the firmware was built with (repeatable; default: every model found in "
                             "the firmware).")
    return parser


def main(args: list[str], prog: str = "size-report fit") -> int:
    values = vars(build_parser(prog).parse_intermixed_args(args))
    firmware = firmware_options(values)
    output = output_options(values, FORMATS, "fit")
    from sizetool.sizes import parse_size

    limits = [None if values[key] is None else parse_size(values.pop(key), f"--{key}") for key in ("flash", "ram")]
    with without_cyclic_collector():  # a tenth of a cold run (firmware.py)
        return run_fit(FitOptions(firmware, output, tuple(model_references(values.pop("models"))),
                                  ArenaOptions(values.pop("kernels"), values.pop("arena_symbol")),
                                  values.pop("calibration_profile"), values.pop("reasons"), values.pop("verbose"),
                                  values.pop("tflm"), SwapOptions(values.pop("add"), tuple(values.pop("replace") or ())),
                                  FitBudget(*limits, values.pop("advise"))))


def run_fit(options: FitOptions) -> int:
    from sizetool.render.fit import render_fit

    from sizetool.profile.model_swap import plan_swap, swap_models

    if (options.swap.add or options.swap.replace) and not options.models:
        raise SizeToolError("--add and --replace go with the models to run (give them after the ELF)")
    firmware = load_firmware(options.firmware)
    embedded = firmware.embedded_models()
    if options.models:
        plan = plan_swap(embedded, options.firmware.elf, list(options.models),
                         "add" if options.swap.add else "replace", options.swap.replace)
    else:
        plan = plan_swap(embedded, options.firmware.elf, [], "add")  # the firmware as it is, its own models
    models = plan.models_after
    if not models:
        from tflm_facts.eon import no_model_reason

        reason = no_model_reason(s.mangled for s in firmware.elf_image().symbols if s.kind == "func")
        raise SizeToolError(f"{options.firmware.elf}: no model given and no TFLite model found in the firmware's "
                            + (f"stored data: {reason}" if reason else "stored data (give the .tflite after the ELF)"))
    with firmware.answer_dwarf_beside():
        firmware.operator_table()
        crosscheck = crosscheck_models(firmware, models, options.tflm)
        fit = arena_fit(firmware, models, options.arena)
    calibrated = swap_models(firmware.elf_image(), firmware.operator_graph(), firmware.report.rom_total, plan,
                             options.calibration_profile, strict=options.calibration_profile is not None)
    over = budget_over(firmware, options, calibrated)
    text = render_fit(crosscheck, fit, options.output.output_format, firmware.report.source, firmware.report.arch,
                      color=options.output.color, width=options.output.width, embedded=firmware.report.models,
                      calibrated=calibrated, verbose=options.verbose, over=over)
    advice = None
    if options.budget.flash_limit is not None or options.budget.ram_limit is not None or options.budget.advise:
        from sizetool.commands.advise import firmware_advice_text

        text, advice = firmware_advice_text(firmware, crosscheck, fit, models, options, text, over)
    write_output(text, options.output)
    print_warnings(firmware.report)
    if options.reasons and (over or not passed(crosscheck, fit)):
        from sizetool.ci.fit_reasons import budget_reasons, fit_failure_reasons

        reasons = fit_failure_reasons(crosscheck, fit) + budget_reasons(over, advice or [])
        sys.stderr.writelines(f"size-report fit: FAIL {reason}\n" for reason in reasons)
    return 0 if passed(crosscheck, fit) and not over else 1


def budget_over(firmware, options: FitOptions, answer) -> dict[str, int]:
    """memory -> bytes over the budget: the flash of the firmware running the models asked about (the swap answer),
    or of the firmware as it is when none were asked about; its static RAM as linked."""
    budget = options.budget
    if budget.flash_limit is None and budget.ram_limit is None:
        return {}
    from sizetool.advice.firmware_advice import Budget, over_budget
    from sizetool.operators.operator_graph import image_total

    # an image that loads whole into RAM (no ROM: newlib's default script) is stored whole: that is its flash
    flash = answer.flash if options.models and answer is not None else image_total(firmware.report.rom_total,
                                                                                    firmware.operator_graph())
    return over_budget(Budget(budget.flash_limit, budget.ram_limit), flash, firmware.report.ram_total)
