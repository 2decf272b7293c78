"""gen-resolver command line: .tflite models (or C arrays) -> minimal MicroMutableOpResolver header (or lite source,
JSON, tables).

Exit status: 0 ok; 1 a gate failed (an op TFLM cannot run, tensor types TFLM's kernels refuse, a model without
operators, --check found a stale file); 2 usage or input error (one line on stderr naming the file and the problem,
nothing written).

Why argparse and not typer here: gen-resolver is one command without subcommands, and its whole run (start-up
included) has to stay near 0.2 s; importing typer (and click) costs about 45 ms, a quarter of that budget, for no gain
in this interface. jinja2 and rich are imported only by the output that needs them.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from resolver_gen import __version__
from resolver_gen.errors import ResolverGenError
from tflm_model.errors import ModelError
from tflm_facts.target_profile import ProfileError

PROG = "gen-resolver"
FORMATS = ("header", "lite", "json", "text", "markdown")  # text and markdown: --fit only


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, like every other bad input
        raise ResolverGenError(message)


def cmake_package_dir() -> Path:
    """The CMake package shipped in the wheel (TflmSizeToolkitConfig.cmake: tflm_op_resolver, tflm_size_check, ...)."""
    return Path(__file__).resolve().parent / "cmake"


class _PrintCMakeDir(argparse.Action):
    """--cmake-dir: print the CMake package's folder and exit, like --version (no model needed)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(cmake_package_dir())
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog=PROG, description="Write a minimal TFLM MicroMutableOpResolver header for one or more .tflite models.",
        epilog="Exit status: 0 ok, 1 unsupported op or tensor types / model without operators / --check stale, "
               "2 bad input.")
    parser.add_argument("models", nargs="*", metavar="MODEL",
                        help=".tflite file(s), or C/C++ files holding a model as a byte array (FILE:NAME picks one "
                             "array); several give one union resolver; a firmware ELF stands for the models linked "
                             "into it")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    parser.add_argument("--format", choices=FORMATS, default="header",
                        help="header: TFLM MicroMutableOpResolver (default); lite: TFLite MutableOpResolver "
                             "selective registration; json: ops, codes, versions, uses per model")
    parser.add_argument("--name", metavar="NAME",
                        help="prefix the generated names: NAME_kNumOps, NAME_OpResolver, NAME_RegisterOps")
    parser.add_argument("--namespace", metavar="NS", help="put the generated names in C++ namespace NS (a::b allowed)")
    parser.add_argument("--custom", action="append", default=[], metavar="NAME=FUNCTION",
                        help="register custom op NAME with tflite::FUNCTION() (repeatable)")
    parser.add_argument("--reduce-types", action="store_true",
                        help="register each op with TFLM's type-reduced kernel (e.g. Register_CONV_2D_INT8) when one "
                             "runs every use in every model; smaller with CMSIS-NN, the same as the generic one with "
                             "reference kernels")
    parser.add_argument("--allow-unsupported", action="store_true",
                        help="write the header even if TFLM has no kernel for some op or refuses some tensor types "
                             "(a comment lists them)")
    parser.add_argument("--check", metavar="FILE",
                        help="do not write: exit 1 (printing a diff) if FILE differs from what would be generated")
    parser.add_argument("--list", action="store_true", help="print a table of each model's ops instead of a header")
    parser.add_argument("--arena", action="store_true",
                        help="estimate the tensor arena TFLM needs (all models sharing one arena): the header gets "
                             "kTensorArenaSize and its breakdown, JSON an \"arena\" object, --list a table")
    parser.add_argument("--kernels", default="reference", metavar="SET",
                        help="kernel set the firmware links, for --arena: reference (default), cmsis_nn or esp_nn "
                             "(esp-tflite-micro's esp_nn kernels)")
    parser.add_argument("--pointer-size", type=int, default=4, metavar="BYTES",
                        help="the target's pointer size, for --arena: 4 (32-bit MCUs, default) or 8 (64-bit hosts)")
    parser.add_argument("--short-enums", action="store_true",
                        help="for --arena: TFLM is compiled with short enums, as arm-none-eabi GCC does for Cortex-M "
                             "by default (exact there; without it the figure is for int-sized enums, a few dozen "
                             "bytes more, safe for every 32-bit target)")
    parser.add_argument("--mve", action="store_true",
                        help="for --arena --kernels cmsis_nn: the core has MVE (Helium: Cortex-M55, M85), whose "
                             "CMSIS-NN kernels take other scratch buffers than on a DSP core (the default)")
    parser.add_argument("--tflm", metavar="DIR",
                        help="the TFLM tree the firmware builds (the folder holding tensorflow/, or a project with it "
                             "in src/): call only the Add<Op>() methods and type-reduced registrations it declares; "
                             "an op it lacks is exit 1. The header names the tree's revision")
    parser.add_argument("--cmake-dir", action=_PrintCMakeDir,
                        help="print the folder of the CMake package (find_package(TflmSizeToolkit): put it on "
                             "CMAKE_PREFIX_PATH) and exit")
    parser.add_argument("--fit", metavar="PROFILE",
                        help="will the models fit this target: flash, RAM and stack from a target profile (a shipped "
                             "profile's name or a .json path; 'list' names the shipped ones); --format text (default), "
                             "json or markdown")
    parser.add_argument("--calibrate", metavar="FIRMWARE.elf",
                        help="with --fit PROFILE: answer on your own firmware: its runtime and linked operators from "
                             "the ELF, the operators it lacks from the profile, scaled on the firmware")
    parser.add_argument("--app-statics", action="store_true",
                        help="with --fit: your app has C++ function-local statics (TFLM's examples keep their "
                             "resolver and interpreter so): count the guard and exception runtime they link where the "
                             "build compiles thread-safe statics")
    parser.add_argument("--flash", metavar="SIZE", help="with --fit: the flash available (e.g. 1M, 256K); over it is exit 1")
    parser.add_argument("--ram", metavar="SIZE", help="with --fit: the RAM available (e.g. 192K); over it is exit 1")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="with --fit: every step of the stack path (by default its first frames, the largest, the "
                             "deepest and the total)")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    return parser


def parse_custom(values: list[str]) -> dict[str, str]:
    import re

    overrides: dict[str, str] = {}
    for value in values:
        name, sep, function = value.partition("=")
        if not sep or not name or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", function) or "__" in function:
            raise ResolverGenError(f"--custom {value!r}: expected NAME=FUNCTION with FUNCTION a C++ identifier")
        if name in overrides and overrides[name] != function:
            raise ResolverGenError(f"--custom {name}: given twice with different functions")
        overrides[name] = function
    return overrides


def write_atomically(path: Path, text: str) -> None:
    """Write text to path through a temp file in the same directory and os.replace: never a half-written file.
    A file that already holds exactly this text is left untouched, its timestamp too: a build that regenerates a
    header from a model touched without changing its operators then recompiles nothing."""
    import tempfile

    try:
        if path.read_bytes() == text.encode("utf-8"):
            return
    except (OSError, ValueError):  # absent, a directory, unreadable: written (or refused) below
        pass
    directory = path.parent if str(path.parent) else Path(".")
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as error:
        raise ResolverGenError(f"{path}: cannot write ({error.strerror or error})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.chmod(temp, _new_file_mode(path))  # mkstemp makes 0600; a header belongs to the build like any source
        os.replace(temp, path)
    except BaseException as error:
        try:
            os.unlink(temp)
        except OSError:
            pass
        if isinstance(error, OSError):
            raise ResolverGenError(f"{path}: cannot write ({error.strerror or error})") from None
        raise


def _new_file_mode(path: Path) -> int:
    """The mode the file would get from a plain open(): the old file's mode, else 0666 less the umask."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _check(path: Path, expected: str, code_only: bool = False) -> int:
    """0 when the file at path holds `expected`, else 1 with a unified diff on stderr. code_only: comment lines
    aside (they name the model files and count their uses)."""
    try:
        existing = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResolverGenError(f"{path}: no such file (nothing to check)") from None
    except IsADirectoryError:
        raise ResolverGenError(f"{path}: is a directory") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ResolverGenError(f"{path}: cannot read ({getattr(error, 'strerror', None) or error})") from None
    if code_only:
        existing, expected = _code_lines(existing), _code_lines(expected)
    if existing == expected:
        return 0
    import difflib

    sys.stderr.writelines(difflib.unified_diff(
        existing.splitlines(keepends=True), expected.splitlines(keepends=True),
        fromfile=f"{path} (on disk)", tofile=f"{path} (generated from the models)"))
    print(f"{PROG}: {path} is stale: regenerate it", file=sys.stderr)
    return 1


def _code_lines(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.lstrip().startswith("//"))


def check_header(header: str | os.PathLike, models: list, options: list[str]) -> int:
    """gen-resolver's --check for another caller (size-report check --header): 0 when the header at `header` is what
    `gen-resolver MODELS OPTIONS` writes, comment lines aside (a header made from model.tflite names that file where
    one made from the firmware names the array); else 1, the diff on stderr. ResolverGenError on bad options."""
    args = build_parser().parse_args(list(options))
    if args.models or args.check or args.output or args.list or args.fit:
        raise ResolverGenError("the header options are gen-resolver's generation options only (no models, -o, "
                               "--check, --list or --fit)")
    args.models = list(models)
    args.check = str(header)
    status, text = generate(args)
    return status if text is None else _check(Path(header), text, code_only=True)


def _refusals(plan) -> bool:
    """Print each op TFLM cannot run and each use whose tensor types its kernels refuse; True when there is one."""
    for op in plan.unsupported:
        for model in sorted(op.uses_by_model):
            print(f"{PROG}: unsupported op {op.name} in {model}: {op.registration.unsupported_reason}",
                  file=sys.stderr)
    for rejection in plan.type_rejections:
        print(f"{PROG}: unsupported types: {rejection.message()}", file=sys.stderr)
    return bool(plan.unsupported or plan.type_rejections)


def _gate(plan, args) -> bool:
    """Print every reason the resolver cannot be written; True when there is one."""
    failed = False
    for model in plan.models:
        if not model.ops:
            print(f"{PROG}: {model.path}: the model has no operators (a resolver of size 0 is never useful)",
                  file=sys.stderr)
            failed = True
    if args.format == "header":
        if not args.allow_unsupported and _refusals(plan):
            print(f"{PROG}: use --allow-unsupported to write the header anyway", file=sys.stderr)
            failed = True
        elif not failed and not plan.registered:
            print(f"{PROG}: no op of the models can be registered in TFLM: nothing to write", file=sys.stderr)
            failed = True
    return failed


def _estimate(args: argparse.Namespace):
    from tflm_model.arena_estimate import estimate_arena

    return estimate_arena(args.models, kernels=args.kernels, pointer_bytes=args.pointer_size,
                          short_enums=args.short_enums, cpu_features="mve" if args.mve else "dsp")


def parse_size(text: str, option: str) -> int:
    """'1M', '256K', '65536', '0x10000' -> bytes (K, M, G binary)."""
    import re

    match = re.fullmatch(r"\s*(0x[0-9a-fA-F]+|\d+)\s*([KMG]i?B?|B)?\s*", text or "", re.IGNORECASE)
    if not match:
        raise ResolverGenError(f"{option} {text!r}: expected a size in bytes such as 1M, 256K or 65536")
    value = int(match.group(1), 0)
    unit = (match.group(2) or "").upper()[:1]
    return value * {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(unit, 1)


def run_fit(args: argparse.Namespace) -> int:
    """--fit PROFILE: flash, RAM and stack from a target profile; exit 1 when over a limit or an op is missing."""
    from resolver_gen.render_fit import render_fit, render_profile_list
    from tflm_facts.target_profile import load_profile, shipped_profiles

    output_format = "text" if args.format == "header" else args.format
    if output_format not in ("text", "json", "markdown"):
        raise ResolverGenError(f"--fit prints text, json or markdown, not {output_format}")
    for option in ("list", "arena", "check", "name", "namespace"):
        if getattr(args, option):
            raise ResolverGenError(f"--fit answers on its own: leave out --{option}")
    if args.kernels != "reference" or args.pointer_size != 4 or args.short_enums or args.mve:
        raise ResolverGenError("--fit takes the kernel set, pointer size, enum size and MVE from the profile: leave "
                               "out --kernels, --pointer-size, --short-enums and --mve")
    if args.custom or args.allow_unsupported:
        raise ResolverGenError("--fit takes the models' ops as they are: leave out --custom and --allow-unsupported")
    if args.fit == "list":
        if args.models:
            raise ResolverGenError("--fit list names the shipped profiles: give no model")
        text = render_profile_list([load_profile(name) for name in shipped_profiles()], output_format)
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

        if _refusals(build_plan([read_model_uses(path) for path in args.models])):  # TFLM cannot run it: no fit
            print(f"{PROG}: --fit: the models cannot run on TFLM as they are", file=sys.stderr)
            return 1
        if args.calibrate:
            from resolver_gen.calibrate import render_calibrated

            if args.ram or args.reduce_types or args.app_statics:
                raise ResolverGenError("--calibrate answers flash on the firmware as it is: leave out --ram, "
                                       "--reduce-types and --app-statics")
            text, status = render_calibrated(args.fit, args.calibrate, args.models, output_format, flash)
        else:
            report = fit_report(args.fit, args.models, args.reduce_types, flash, ram, args.app_statics)
            text = render_fit(report, output_format, args.verbose)
            status = 0 if report.main.passed else 1
    if args.output:
        write_atomically(Path(args.output), text)
    else:
        sys.stdout.write(text)
    return status


def generate(args: argparse.Namespace) -> tuple[int, str | None]:
    """(exit status, the text to write) for validated options; the text is None when there is nothing to write
    (--list printed its tables, or a gate failed)."""
    from tflm_model.operator_uses import read_model_uses
    from tflm_model.plan import build_plan
    from resolver_gen import render

    naming = render.Naming(args.name, args.namespace)
    overrides = parse_custom(args.custom)
    # Only JSON carries each model's SHA-256 (the header names the models by what was read from them, so it costs the
    # same for any model size): it is hashed on a background thread while this thread works, and a short switch
    # interval makes this thread hand the GIL over promptly at each hashed chunk instead of after the default 5 ms.
    hashing = args.format == "json" and not args.list
    if hashing:
        sys.setswitchinterval(0.0005)
    models = [read_model_uses(path, hash_in_background=hashing) for path in args.models]
    used_customs = {use.name for model in models for use in model.ops if use.is_custom}
    for name in sorted(set(overrides) - used_customs):
        raise ResolverGenError(f"--custom {name}: no model uses a custom op named {name!r}")
    plan = build_plan(models, overrides, reduce_types=args.reduce_types)
    tree = None
    if args.tflm:
        if args.format == "lite":
            raise ResolverGenError("--tflm checks the TFLM header against a TFLM tree, not --format lite (TFLite)")
        from resolver_gen.tflm_tree import read_tflm_tree, restrict_to_tree

        tree = read_tflm_tree(args.tflm)
        plan = restrict_to_tree(plan, tree)

    if args.list:
        render.print_tables(plan)
        if args.arena:
            from resolver_gen.render_arena import print_arena

            print_arena(_estimate(args))
        return 0, None
    if args.format != "json" and _gate(plan, args):
        return 1, None
    arena = _estimate(args) if args.arena else None
    if args.format == "json":
        text = render.render_json(plan, arena, tree)
    elif args.format == "lite":
        text = render.render_lite(plan, naming, overrides, template=render.load_template("lite.cc.j2"))
    else:
        text = render.render_header(plan, naming, template=render.load_template("header.h.j2"), arena=arena,
                                    tree=tree)
    return 0, text


def run(args: argparse.Namespace) -> int:
    if args.models:  # C/C++ files become one reference per model array (file.cc:g_model)
        from tflm_model.model_sources import expand_model_arguments

        args.models = expand_model_arguments(args.models)
    if args.fit:
        if args.tflm:
            raise ResolverGenError("--tflm checks a resolver header against a TFLM tree: leave it out with --fit")
        return run_fit(args)
    if args.calibrate:
        raise ResolverGenError("--calibrate goes with --fit PROFILE")
    if args.flash or args.ram:
        raise ResolverGenError("--flash and --ram are limits for --fit PROFILE")
    if args.app_statics:
        raise ResolverGenError("--app-statics describes your app for --fit PROFILE")
    if args.verbose:
        raise ResolverGenError("--verbose goes with --fit PROFILE (the whole stack path)")
    if args.format in ("text", "markdown"):
        raise ResolverGenError(f"--format {args.format} goes with --fit (the resolver is header, lite or json)")
    if not args.models:
        raise ResolverGenError("no model given (gen-resolver MODEL.tflite ...)")
    if args.list and (args.output or args.check):
        raise ResolverGenError("--list prints tables only: it does not combine with -o or --check")
    if args.arena and args.format == "lite" and not args.list:
        raise ResolverGenError("--arena applies to the TFLM header, --format json and --list, not to --format lite")
    if (args.kernels != "reference" or args.pointer_size != 4 or args.short_enums or args.mve) and not args.arena:
        raise ResolverGenError("--kernels, --pointer-size, --short-enums and --mve set the arena estimate: add "
                               "--arena")
    from resolver_gen.firmware_models import expand_firmware

    args.models = expand_firmware(args.models)
    status, text = generate(args)
    if text is None:
        return status
    if args.check:
        return _check(Path(args.check), text)
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
