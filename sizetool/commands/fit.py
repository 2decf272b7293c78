"""`size-report fit ELF [MODEL ...]`: does the firmware fit the models: the ops they need that it lacks, the firmware
running them (sizetool/profile/model_swap.py: by default in place of the models it embeds, `--replace` names which,
`--add` keeps them; the ops no model uses out, the missing ones from the nearest profile), and the tensor arena they
need against the linked arena and the free RAM. Without models, the ones linked in."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from sizetool.commands.arguments import OneLineParser
from sizetool.commands.firmware import (FirmwareOptions, OutputOptions, add_firmware_arguments, add_output_arguments,
                                        firmware_options, load_firmware, model_references, output_options,
                                        print_warnings, without_cyclic_collector, write_output)
from sizetool.commands.ops import (MODELS_HELP, ArenaOptions, add_arena_arguments, add_tflm_argument, arena_fit,
                                   crosscheck_models, passed)
from sizetool.errors import SizeToolError

FORMATS = ("tree", "json", "markdown")
DESCRIPTION = ("Does the firmware fit these models: the ops they need that it lacks, the firmware with exactly their "
               "ops, and the tensor arena they need against the linked arena and the free RAM.")
EPILOG = ("Exit status: 0 it fits, 1 a model needs an op the firmware does not register or a tensor arena larger than "
          "the one linked, 2 usage or input error.")


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
    add: bool = False  # keep the embedded models and add the new ones (default: the new ones replace them)
    replace: tuple[str, ...] = ()  # the embedded models the new ones replace (default: all)


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
    with without_cyclic_collector():  # a tenth of a cold run (firmware.py)
        return run_fit(FitOptions(firmware, output, tuple(model_references(values.pop("models"))),
                                  ArenaOptions(values.pop("kernels"), values.pop("arena_symbol")),
                                  values.pop("calibration_profile"), values.pop("reasons"), values.pop("verbose"),
                                  values.pop("tflm"), values.pop("add"), tuple(values.pop("replace") or ())))


def run_fit(options: FitOptions) -> int:
    from sizetool.render.fit import render_fit

    from sizetool.profile.model_swap import plan_swap, swap_models

    if (options.add or options.replace) and not options.models:
        raise SizeToolError("--add and --replace go with the models to run (give them after the ELF)")
    firmware = load_firmware(options.firmware)
    embedded = firmware.embedded_models()
    if options.models:
        plan = plan_swap(embedded, options.firmware.elf, list(options.models), "add" if options.add else "replace",
                         options.replace)
    else:
        plan = plan_swap(embedded, options.firmware.elf, [], "add")  # the firmware as it is, its own models
    models = plan.models_after
    if not models:
        raise SizeToolError(f"{options.firmware.elf}: no model given and no TFLite model found in the firmware's "
                            "stored data (give the .tflite after the ELF)")
    firmware.operator_table()
    crosscheck = crosscheck_models(firmware, models, options.tflm)
    fit = arena_fit(firmware, models, options.arena)
    calibrated = swap_models(firmware.elf_image(), firmware.operator_graph(), firmware.report.rom_total, plan,
                             options.calibration_profile, strict=options.calibration_profile is not None)
    text = render_fit(crosscheck, fit, options.output.output_format, firmware.report.source, firmware.report.arch,
                      color=options.output.color, width=options.output.width, embedded=firmware.report.models,
                      calibrated=calibrated, verbose=options.verbose)
    write_output(text, options.output)
    print_warnings(firmware.report)
    if options.reasons and not passed(crosscheck, fit):
        from sizetool.ci.fit_reasons import fit_failure_reasons

        sys.stderr.writelines(f"size-report fit: FAIL {reason}\n" for reason in fit_failure_reasons(crosscheck, fit))
    return 0 if passed(crosscheck, fit) else 1
