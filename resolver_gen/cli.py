"""gen-resolver command line: .tflite models (or C arrays) -> minimal MicroMutableOpResolver header (or lite source,
JSON, tables), or with --fit PROFILE whether the models fit a target.

Exit status: 0 ok; 1 a gate failed (an op TFLM cannot run, tensor types TFLM's kernels refuse, a model without
operators, --check found a stale file, --fit over a limit); 2 usage or input error (one line on stderr naming the file
and the problem, nothing written). The options are resolver_gen/options.py, the generation resolver_gen/generation.py;
jinja2 and rich are imported only by the output that needs them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from resolver_gen.errors import ResolverGenError
from resolver_gen.generation import check_file, generate, refusals, write_atomically
from resolver_gen.options import PROG, build_parser, cmake_package_dir, parse_size
from tflm_model.errors import ModelError
from tflm_facts.target_profile import ProfileError

__all__ = ["main", "run", "run_fit", "build_parser", "cmake_package_dir"]


def run_fit(args: argparse.Namespace) -> int:
    """--fit PROFILE: flash, RAM and stack from a target profile; exit 1 when over a limit or an op is missing."""
    from resolver_gen.render_fit import render_fit
    from resolver_gen.render_profiles import render_profile, render_profile_list
    from tflm_facts.target_profile import load_profile, shipped_profiles

    output_format = "text" if args.format == "header" else args.format
    if output_format not in ("text", "json", "markdown"):
        raise ResolverGenError(f"--fit prints text, json or markdown, not {output_format}")
    for option in ("list", "arena", "check", "name", "namespace"):
        if getattr(args, option):
            raise ResolverGenError(f"--fit answers on its own: leave out --{option}")
    if args.kernels != "reference" or args.pointer_size != 4 or args.short_enums or args.mve or args.tflm_revision:
        raise ResolverGenError("--fit takes the kernel set, pointer size, enum size, MVE and TFLM revision from the "
                               "profile: leave out --kernels, --pointer-size, --short-enums, --mve and --tflm-revision")
    if args.custom or args.allow_unsupported:
        raise ResolverGenError("--fit takes the models' ops as they are: leave out --custom and --allow-unsupported")
    if args.fit == "list":
        if args.models:
            raise ResolverGenError("--fit list names the shipped profiles: give no model")
        text = render_profile_list([load_profile(name) for name in shipped_profiles()], output_format)
        status = 0
    elif args.fit == "show":
        if len(args.models) != 1:
            raise ResolverGenError("--fit show takes one profile: gen-resolver --fit show NAME (--fit list names them)")
        text = render_profile(load_profile(args.models[0]), output_format)
        status = 0
    else:
        from tflm_model.target_fit import fit_report

        if not args.models:
            raise ResolverGenError("--fit needs at least one model (.tflite, C array or firmware ELF)")
        from resolver_gen.firmware_models import expand_firmware

        args.models = expand_firmware(args.models)
        flash = parse_size(args.flash, "--flash") if args.flash else None
        ram = parse_size(args.ram, "--ram") if args.ram else None
        from tflm_model.operator_uses import read_model_uses
        from tflm_model.plan import build_plan

        if refusals(build_plan([read_model_uses(path) for path in args.models])):  # TFLM cannot run it: no fit
            print(f"{PROG}: --fit: the models cannot run on TFLM as they are", file=sys.stderr)
            return 1
        if args.calibrate:
            from resolver_gen.calibrate import render_calibrated

            if args.ram or args.reduce_types or args.app_statics or args.app_flash or args.app_ram:
                raise ResolverGenError("--calibrate answers flash on the firmware as it is (your application "
                                       "included): leave out --ram, --reduce-types, --app-statics, --app-flash and "
                                       "--app-ram")
            text, status = render_calibrated(args.fit, args.calibrate, args.models, output_format, flash)
        else:
            from tflm_model.target_fit import Application, report_with_application

            application = Application(parse_size(args.app_flash, "--app-flash") if args.app_flash else None,
                                      parse_size(args.app_ram, "--app-ram") if args.app_ram else None)
            report = fit_report(args.fit, args.models, args.reduce_types, flash, ram, args.app_statics)
            report = report_with_application(report, application)
            text = render_fit(report, output_format, args.verbose)
            status = 0 if report.main.passed else 1
            if args.advise or report.main.over_flash or report.main.over_ram:
                from resolver_gen.fit_advice import with_advice

                text = with_advice(report, text, output_format)
    if args.output:
        write_atomically(Path(args.output), text)
    else:
        sys.stdout.write(text)
    return status


def run(args: argparse.Namespace) -> int:
    if args.models:  # C/C++ files become one reference per model array (file.cc:g_model)
        from tflm_model.model_sources import expand_model_arguments

        args.models = expand_model_arguments(args.models)
    if args.fit:
        if args.fit == "show":  # the argument is a profile's name or file, not a model
            return run_fit(args)
        if args.tflm:
            raise ResolverGenError("--tflm checks a resolver header against a TFLM tree: leave it out with --fit")
        return run_fit(args)
    if args.calibrate:
        raise ResolverGenError("--calibrate goes with --fit PROFILE")
    if args.flash or args.ram:
        raise ResolverGenError("--flash and --ram are limits for --fit PROFILE")
    if args.app_statics or args.app_flash or args.app_ram:
        raise ResolverGenError("--app-statics, --app-flash and --app-ram describe your app for --fit PROFILE")
    if args.verbose:
        raise ResolverGenError("--verbose goes with --fit PROFILE (the whole stack path)")
    if getattr(args, "advise", False):
        raise ResolverGenError("--advise goes with --fit PROFILE")
    if args.format in ("text", "markdown"):
        raise ResolverGenError(f"--format {args.format} goes with --fit (the resolver is header, lite or json)")
    if not args.models:
        raise ResolverGenError("no model given (gen-resolver MODEL.tflite ...)")
    if args.list and (args.output or args.check):
        raise ResolverGenError("--list prints tables only: it does not combine with -o or --check")
    if args.arena and args.format == "lite" and not args.list:
        raise ResolverGenError("--arena applies to the TFLM header, --format json and --list, not to --format lite")
    if (args.kernels != "reference" or args.pointer_size != 4 or args.short_enums or args.mve
            or args.tflm_revision) and not args.arena:
        raise ResolverGenError("--kernels, --pointer-size, --short-enums, --mve and --tflm-revision set the arena "
                               "estimate: add --arena")
    from resolver_gen.firmware_models import expand_firmware

    args.models = expand_firmware(args.models)
    status, text = generate(args)
    if text is None:
        return status
    if args.check:
        return check_file(Path(args.check), text)
    if args.output:
        write_atomically(Path(args.output), text)
    else:
        sys.stdout.write(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        return run(build_parser().parse_args(argv))
    except (ResolverGenError, ModelError, ProfileError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
