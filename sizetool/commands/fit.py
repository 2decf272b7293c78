"""`size-report fit ELF [MODEL ...]`: does the firmware fit the models: the ops they need that it lacks, the firmware
with exactly their ops (calibrated from the nearest profile when some are missing: sizetool/profile/calibrated_fit.py),
and the tensor arena they need against the linked arena and the free RAM. Without models, the ones linked in."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from sizetool.commands.arguments import OneLineParser
from sizetool.commands.firmware import (FirmwareOptions, OutputOptions, add_firmware_arguments, add_output_arguments,
                                        firmware_options, load_firmware, model_references, output_options,
                                        print_warnings, write_output)
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
    flash_limit: int | None = None  # the flash budget: over it, exit 1 with the advice
    ram_limit: int | None = None
    advise: bool = False  # the advice even when it fits


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
    return parser


def main(args: list[str], prog: str = "size-report fit") -> int:
    values = vars(build_parser(prog).parse_intermixed_args(args))
    firmware = firmware_options(values)
    output = output_options(values, FORMATS, "fit")
    from sizetool.sizes import parse_size

    limits = [None if values[key] is None else parse_size(values.pop(key), f"--{key}") for key in ("flash", "ram")]
    return run_fit(FitOptions(firmware, output, tuple(model_references(values.pop("models"))),
                              ArenaOptions(values.pop("kernels"), values.pop("arena_symbol")),
                              values.pop("calibration_profile"), values.pop("reasons"), values.pop("verbose"),
                              values.pop("tflm"), *limits, values.pop("advise")))


def run_fit(options: FitOptions) -> int:
    from sizetool.render.fit import render_fit

    firmware = load_firmware(options.firmware)
    models = list(options.models) or firmware.embedded_model_sources()
    if not models:
        raise SizeToolError(f"{options.firmware.elf}: no model given and no TFLite model found in the firmware's "
                            "stored data (give the .tflite after the ELF)")
    firmware.operator_table()
    crosscheck = crosscheck_models(firmware, models, options.tflm)
    fit = arena_fit(firmware, models, options.arena)
    calibrated = None
    if crosscheck.missing:
        from sizetool.profile.calibrated_fit import calibrate_firmware

        calibrated = calibrate_firmware(firmware.elf_image(), firmware.operator_graph(), firmware.report.rom_total,
                                        models, options.calibration_profile,
                                        strict=options.calibration_profile is not None)
    text = render_fit(crosscheck, fit, options.output.output_format, firmware.report.source, firmware.report.arch,
                      color=options.output.color, width=options.output.width, embedded=firmware.report.models,
                      calibrated=calibrated, verbose=options.verbose)
    over, advice = {}, None
    if options.flash_limit is not None or options.ram_limit is not None or options.advise:
        from sizetool.commands.advise import firmware_advice_text

        text, over, advice = firmware_advice_text(firmware, crosscheck, fit, models, options, text)
    write_output(text, options.output)
    print_warnings(firmware.report)
    if options.reasons and (over or not passed(crosscheck, fit)):
        from sizetool.ci.fit_reasons import budget_reasons, fit_failure_reasons

        reasons = fit_failure_reasons(crosscheck, fit) + budget_reasons(over, advice or [])
        sys.stderr.writelines(f"size-report fit: FAIL {reason}\n" for reason in reasons)
    return 0 if passed(crosscheck, fit) and not over else 1
