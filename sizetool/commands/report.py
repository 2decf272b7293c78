"""`size-report ELF`: the flash/RAM tree by source path and symbol, in the chosen format.

Steps: parse options -> build_report (sizetool/report/report_builder.py) -> render (sizetool/render/<format>) -> write.
Options that add to the report (e.g. --ops, --model) add their work between build and render.

--ops prints the per-operator flash table (sizetool/operators/operator_cost.py, sizetool/render/operators.py) instead of the
size tree, in the chosen format (html: the page gains its operator view); --save then keeps the table in the saved
report. --model MODEL (a .tflite, a C/C++ file holding model arrays, or FILE:ARRAY; repeatable; further positional
arguments after the ELF are models too) implies --ops and
adds the cross-check against the models (sizetool/operators/model_crosscheck.py): exit 1 when a model needs an op the firmware
does not register; and the RAM answer (sizetool/fit/model_fit.py): the tensor arena the models need (for the kernel
set detected or given with --kernels) against the arena the firmware links (found, or named with --arena-symbol) and
the free RAM: exit 1 when the linked arena is too small. --drop OP[,OP...] / --keep OP[,OP...] (op names or .tflite models) imply --ops and print the
what-if answer instead of the table (sizetool/operators/what_if.py): the set saving, the predicted ROM, the files and
symbols that go. All of them share one operator graph per ELF (sizetool/operators/graph_cache.py).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys

from sizetool.commands.arguments import OneLineParser, non_negative
from sizetool.errors import SizeToolError

FORMATS = ("tree", "json", "csv", "markdown", "html")
FIT_FORMATS = ("tree", "json", "markdown")

# argparse, not typer (sizetool/commands/arguments.py): a cached report must print in little more than Python's
# start-up.


MODES = {
    None: ("The flash/RAM tree of a firmware ELF by source file and symbol.",
           "Modes: size-report ops|fit|stack ELF ... (the --ops, --model, --drop, --keep and --stack flags here are "
           "their aliases). Other commands: size-report diff|check|history --help. Exit status: 0 ok, 1 a model needs "
           "an op the firmware does not register or a tensor arena larger than the one linked, 2 usage or input "
           "error."),
    "ops": ("What each TFLM operator registration costs in flash; with models, what they need; with --drop/--keep, "
            "what a set of registrations costs.",
            "Exit status: 0 ok, 1 a model needs an op the firmware does not register or a tensor arena larger than "
            "the one linked, 2 usage or input error."),
    "fit": ("Does the firmware fit these models: the ops they need that it lacks, the firmware with exactly their "
            "ops, and the tensor arena they need against the linked arena and the free RAM.",
            "Exit status: 0 it fits, 1 a model needs an op the firmware does not register or a tensor arena larger "
            "than the one linked, 2 usage or input error."),
    "stack": ("Worst-case stack depth and the call path reaching it, for main, the entry point, threads and "
              "interrupt handlers, or for the root functions named.",
              "Exit status: 0 ok, 2 usage or input error."),
}
MAP_HELP = "The ELF's linker map (GNU ld, armlink or IAR ILINK): memory regions, object attribution."


def build_parser(prog: str = "size-report", mode: str | None = None) -> argparse.ArgumentParser:
    """The report's options; `mode` (ops, fit, stack) gives that sub-command its own arguments."""
    description, epilog = MODES[mode]
    parser = OneLineParser(prog=prog, description=description, epilog=epilog)
    parser.add_argument("elf", metavar="ELF", help="The firmware ELF (zephyr.elf, firmware.elf, ...).")
    if mode is None:
        parser.add_argument("extra_models", nargs="*", metavar="MODEL",
                            help="With --model, further models (.tflite, or C/C++ files holding model arrays) may "
                                 "follow the ELF; with --stack, root functions.")
    elif mode == "stack":
        parser.add_argument("extra_models", nargs="*", metavar="ROOT",
                            help="Root functions, demangled or mangled (default: main, the entry point, threads and "
                                 "interrupt handlers).")
    else:
        parser.add_argument("extra_models", nargs="*", metavar="MODEL",
                            help="The models the firmware runs: .tflite files, or C/C++ files holding them as byte "
                                 "arrays (FILE:NAME picks one)" + (" (their cross-check follows the table)"
                                                                   if mode == "ops" else "")
                                 + "; none: the models linked into the firmware.")
    formats = {"stack": "tree, json, csv or markdown", "fit": "tree, json or markdown", "ops": "tree, json, csv, markdown "
               "or html"}.get(mode, "tree, json, csv, markdown or html")
    parser.add_argument("-f", "--format", dest="output_format", default="tree", metavar="FORMAT", help=f"{formats}.")
    parser.add_argument("-o", "--output", metavar="FILE", help="Write the output to this file (atomically).")
    if mode != "stack":
        parser.add_argument("--map", dest="map_file", metavar="FILE.map", help=MAP_HELP)
        parser.add_argument("--flash-size", metavar="SIZE", help="Flash size (e.g. 192K) when there is no map.")
        parser.add_argument("--ram-size", metavar="SIZE", help="RAM size (e.g. 64K) when there is no map.")
        parser.add_argument("--no-cache", action="store_true",
                            help="Do not use or fill the report cache (also SIZETOOL_NO_CACHE=1).")
        parser.add_argument("--group-by", default="file", metavar="file|cu",
                            help="file: declaring source file; cu: translation unit.")
        parser.add_argument("--workspace", action="append", metavar="DIR",
                            help="Show paths relative to this directory; give it several times for several source "
                                 "roots (each then a named top-level node).")
        parser.add_argument("--mangled", action="store_true", help="Keep raw (mangled) C++ symbol names.")
    if mode in (None, "ops"):
        parser.add_argument("--save", metavar="REPORT.json", help="Also save the full report (ROM and RAM) as JSON.")
    if mode is None:
        parser.add_argument("--ram", action="store_true", help="Report RAM instead of ROM.")
        parser.add_argument("--all", dest="all_memories", action="store_true", help="Report both ROM and RAM.")
        parser.add_argument("--depth", type=non_negative, default=0, metavar="N",
                            help="Fold the tree below this many levels (0: no folding).")
        parser.add_argument("--ops", action="store_true",
                            help="Alias of 'size-report ops ELF': the per-operator flash cost table.")
    if mode in (None, "ops", "stack"):
        parser.add_argument("--model", dest="models", action="append", metavar="MODEL",
                            help={None: "Alias of 'size-report ops ELF MODEL': check the firmware's operators and "
                                        "RAM against this model (repeatable). Exit 1 when it needs an op the firmware "
                                        "does not register or a larger arena than the one linked.",
                                  "ops": "A model to check the firmware against (repeatable; same as a MODEL after "
                                         "the ELF).",
                                  "stack": "Follow calls through TFLM registrations only into the kernels this model "
                                           "uses (repeatable)."}[mode])
    if mode in (None, "ops"):
        alias = "Alias of 'size-report ops ELF --drop ...': w" if mode is None else "W"
        parser.add_argument("--drop", action="append", metavar="OP[,OP...]",
                            help=f"{alias}hat if these registrations (op names as the table prints them, or "
                                 "models: .tflite, C/C++ file, FILE:ARRAY) were removed: the saving, the predicted ROM, the files and symbols that go "
                                 "(repeatable).")
        alias = "Alias of 'size-report ops ELF --keep ...': w" if mode is None else "W"
        parser.add_argument("--keep", action="append", metavar="OP[,OP...]",
                            help=f"{alias}hat if only these registrations (op names or models) were kept "
                                 "(repeatable).")
    if mode is None:
        parser.add_argument("--export-profile", metavar="PROFILE.json",
                            help="Alias of 'size-report profile ELF [--map MAP] -o PROFILE.json': write a target "
                                 "profile of this all-ops firmware for gen-resolver --fit.")
        parser.add_argument("--stack", action="store_true",
                            help="Alias of 'size-report stack ELF [ROOT ...]': worst-case stack depth and the path "
                                 "reaching it; root functions follow the ELF.")
    if mode in (None, "stack"):
        parser.add_argument("--ignore", action="append", metavar="FUNCTION",
                            help="Stack: do not follow calls into this function (repeatable), e.g. an abort or "
                                 "logging path you budget apart; the output says which were left out.")
        parser.add_argument("-v", "--verbose", action="store_true",
                            help="Stack: every step of each path and every warning (by default: the first frames, "
                                 "the largest, the deepest and the total; repeated warnings counted in one line).")
        parser.add_argument("--su-dir", metavar="DIR",
                            help="Stack: GCC -fstack-usage .su files under DIR; their figures are used and "
                                 "cross-checked against the disassembly.")
    if mode == "fit":
        parser.add_argument("--reasons", action="store_true",
                            help="Print one line per reason it does not fit on stderr ('size-report fit: FAIL ...'), "
                                 "for build systems that show a failed command's output.")
    if mode in (None, "ops", "fit"):
        parser.add_argument("--kernels", metavar="reference|cmsis_nn|esp_nn",
                            help="With models: the kernel set the arena estimate assumes (default: detected from the "
                                 "firmware).")
        parser.add_argument("--arena-symbol", metavar="NAME",
                            help="With models: the tensor arena array (default: the one passed to the "
                                 "MicroInterpreter).")
    if mode == "fit":
        parser.add_argument("--profile", dest="calibration_profile", metavar="PROFILE",
                            help="The target profile (shipped name or file) the ops the firmware lacks are taken "
                                 "from, scaled on this firmware (default: the nearest shipped one).")
    return parser


def main(args: list[str], prog: str = "size-report", mode: str | None = None) -> int:
    """Parse the arguments (SizeToolError on a usage error) and run the report, or one of its modes."""
    options = vars(build_parser(prog, mode).parse_intermixed_args(args))
    paths = [options.pop("elf")] + options.pop("extra_models")
    profile_path = options.pop("export_profile", None)
    if profile_path:
        from sizetool.commands import profile

        return profile.main([paths[0], "-o", profile_path] + (["--map", options["map_file"]] if options["map_file"]
                                                              else []) + (["--no-cache"] if options["no_cache"] else []),
                            prog)
    if mode in ("ops", "fit"):  # the models follow the ELF
        options["models"] = (options.get("models") or []) + paths[1:] or None
        paths = paths[:1]
        options["ops" if mode == "ops" else "fit_only"] = True
    elif mode == "stack":
        options["stack"] = True
    # The report's data (symbols, entries, the operator graph) holds no reference cycles, and reference counting
    # frees it: the cyclic collector would only re-scan it, ~10% of a cold --ops run. Switched back on after.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return report(paths, **options)
    finally:
        if collecting:
            gc.enable()


def report(paths: list[str], output_format: str = "tree", ram: bool = False, all_memories: bool = False,
           depth: int = 0, group_by: str = "file", workspace: list[str] | None = None, mangled: bool = False,
           map_file: str | None = None, flash_size: str | None = None, ram_size: str | None = None,
           no_cache: bool = False, save: str | None = None, output: str | None = None, ops: bool = False,
           models: list[str] | None = None, drop: list[str] | None = None, keep: list[str] | None = None,
           stack: bool = False, ignore: list[str] | None = None, su_dir: str | None = None, verbose: bool = False,
           kernels: str | None = None, arena_symbol: str | None = None, fit_only: bool = False,
           reasons: bool = False, calibration_profile: str | None = None) -> int:
    from sizetool.report.report_builder import build_report_keeping_image
    from sizetool.report.report_model import save_report, write_text_atomically
    from sizetool.sizes import parse_size

    if output_format not in FORMATS:
        raise SizeToolError(f"unknown --format {output_format!r} (choose from {', '.join(FORMATS)})")
    if group_by not in ("file", "cu"):
        raise SizeToolError(f"unknown --group-by {group_by!r} (choose file or cu)")
    memories = ["rom", "ram"] if all_memories else (["ram"] if ram else ["rom"])
    elf, extra = paths[0], paths[1:]
    if (su_dir or ignore or verbose) and not stack:
        raise SizeToolError(f"{'--su-dir' if su_dir else '--ignore' if ignore else '--verbose'} goes with --stack")
    if stack:
        from sizetool.operators.model_crosscheck import model_references

        return _stack(elf, extra, model_references(list(models or [])), su_dir, list(ignore or []), output_format,
                      output, verbose)
    if fit_only:
        if output_format not in FIT_FORMATS:
            raise SizeToolError(f"fit prints {', '.join(FIT_FORMATS)}, not {output_format}")
    if extra and not models:
        raise SizeToolError(f"unexpected extra argument {extra[0]!r} (one ELF; models go after --model)")
    model_paths = list(models or []) + extra
    if model_paths:
        from sizetool.operators.model_crosscheck import model_references

        model_paths = model_references(model_paths)
    if drop and keep:
        raise SizeToolError("give --drop or --keep, not both (--keep drops everything it does not name)")
    what_if_mode = "drop" if drop else "keep" if keep else None
    if what_if_mode and model_paths:
        raise SizeToolError(f"--{what_if_mode} and --model are separate questions (--keep MODEL keeps exactly "
                            "a model's ops)")
    if what_if_mode and output_format == "html":
        raise SizeToolError(f"--{what_if_mode} prints tree, json, csv or markdown, not html")
    if (kernels or arena_symbol) and not model_paths and not (ops or fit_only):
        raise SizeToolError("--kernels and --arena-symbol go with --model (the arena a model needs)")
    ops = ops or bool(model_paths) or bool(what_if_mode)
    if ops and (ram or all_memories) and output_format != "html":
        raise SizeToolError("--ops and --model report flash (ROM) only: leave out --ram and --all")

    size_report, image = build_report_keeping_image(
        elf,
        map_path=map_file,
        group_by=group_by,
        workspace=list(workspace or []),
        mangled=mangled,
        flash_size=parse_size(flash_size, "--flash-size") if flash_size else None,
        ram_size=parse_size(ram_size, "--ram-size") if ram_size else None,
        use_cache=not no_cache,
    )
    if (ops or fit_only) and not model_paths and not what_if_mode:
        model_paths = embedded_model_sources(elf, image, size_report)
        if fit_only and not model_paths:
            raise SizeToolError(f"{elf}: no model given and no TFLite model found in the firmware's read-only data "
                                "(give the .tflite after the ELF)")
        ops = ops or bool(model_paths)
    if (kernels or arena_symbol) and not model_paths:
        raise SizeToolError("--kernels and --arena-symbol go with --model (the arena a model needs)")
    color = output is None and sys.stdout.isatty()
    crosscheck = None
    fit = None
    answer = None
    calibrated = None
    if ops:
        from sizetool.operators.graph_cache import load_operator_graph, load_operator_table

        operator_graph = load_operator_graph(elf, map_file, use_cache=not no_cache, image=image)
        if what_if_mode:
            from sizetool.operators.what_if import split_names, what_if

            answer = what_if(operator_graph, size_report, what_if_mode, split_names(drop or keep))
        if not what_if_mode or save:
            options = {"group_by": group_by, "workspace": workspace, "mangled": mangled}
            size_report.operators = load_operator_table(elf, map_file, size_report, operator_graph, options,
                                                        use_cache=not no_cache)
        if model_paths:
            from sizetool.operators.model_crosscheck import crosscheck_models

            crosscheck = crosscheck_models(size_report.operators, model_paths, firmware=elf,
                                           operator_graph=operator_graph)
            if output_format != "html":
                from sizetool.inputs.elf_reader import read_elf
                from sizetool.fit.model_fit import model_fit

                image = image if image is not None else read_elf(elf)
                fit = model_fit(image, operator_graph.graph, size_report, model_paths, kernels, arena_symbol)
                if fit_only and crosscheck.missing:
                    from sizetool.profile.calibrated_fit import calibrate_firmware

                    calibrated = calibrate_firmware(image, operator_graph, size_report.rom_total, model_paths,
                                                    calibration_profile, strict=calibration_profile is not None)
    if answer is not None:
        text = render_what_if_output(size_report, answer, output_format, color)
    elif fit_only:
        text = render_fit_output(size_report, crosscheck, fit, output_format, color, calibrated)
    elif ops and output_format != "html":
        text = render_operator_output(size_report, output_format, crosscheck, color, fit)
    else:
        text = render(size_report, output_format, memories, depth, color=color)
    if save:
        save_report(size_report, save)
    if output:
        write_text_atomically(output, text)
    else:
        sys.stdout.write(text)
    if output_format != "tree" or ops:
        for warning in size_report.warnings:
            print(f"size-report: warning: {warning}", file=sys.stderr)
    failed = (crosscheck is not None and not crosscheck.passed) or (fit is not None and not fit.passed)
    if reasons and failed:
        from sizetool.ci.fit_reasons import fit_failure_reasons

        sys.stderr.writelines(f"size-report fit: FAIL {reason}\n" for reason in fit_failure_reasons(crosscheck, fit))
    return 1 if failed else 0


def embedded_model_sources(elf: str, image, size_report) -> list:
    """The models linked into the ELF as model sources labelled ELF:SYMBOL (none when the report found none)."""
    if not size_report.models:
        return []
    from sizetool.inputs.elf_reader import read_elf
    from sizetool.inputs.firmware_models import embedded_models

    return [model.source(elf) for model in embedded_models(image if image is not None else read_elf(elf))]


def _stack(elf: str, roots: list[str], models: list[str], su_dir: str | None, ignore: list[str], output_format: str,
           output: str | None, verbose: bool = False) -> int:
    """`--stack [ROOT ...]`: the worst-case stack depth of each root (sizetool/stack/stack_depth.py)."""
    import shutil

    from sizetool.inputs.elf_reader import read_elf
    from sizetool.stack.stack_depth import analyse_stack
    from sizetool.render.stack import FORMATS as STACK_FORMATS
    from sizetool.render.stack import render_stack
    from sizetool.report.report_model import write_text_atomically

    if output_format not in STACK_FORMATS:
        raise SizeToolError(f"--stack prints {', '.join(STACK_FORMATS)}, not {output_format}")
    image = read_elf(elf)
    su_entries = decl_files = None
    if su_dir:
        from sizetool.inputs.stack_usage import read_stack_usage_dir

        su_entries = read_stack_usage_dir(su_dir)
        if image.has_dwarf:
            from sizetool.inputs.dwarf_paths import read_source_index

            decl_files = read_source_index(elf).decl_file
    report = analyse_stack(image, roots or None, su_entries, models or None, decl_files, ignore or None)
    color = output is None and sys.stdout.isatty()
    width = shutil.get_terminal_size((160, 24)).columns if color else None
    text = render_stack(report, output_format, color=color, width=width, verbose=verbose)
    if output:
        write_text_atomically(output, text)
    else:
        sys.stdout.write(text)
    return 0


def render_operator_output(size_report, output_format: str, crosscheck, color: bool = False, fit=None) -> str:
    """The operator table (and model cross-check and arena fit) in one of FORMATS other than html."""
    import shutil

    from sizetool.render.operators import render_operators

    width = shutil.get_terminal_size((160, 24)).columns if color else None
    return render_operators(size_report.operators, output_format, size_report.source, size_report.arch, crosscheck,
                            color=color, width=width, fit=fit, embedded=size_report.models)


def render_fit_output(size_report, crosscheck, fit, output_format: str, color: bool = False, calibrated=None) -> str:
    """`size-report fit`: the models' flash and RAM answer without the operator table."""
    import shutil

    from sizetool.render.fit import render_fit

    width = shutil.get_terminal_size((160, 24)).columns if color else None
    return render_fit(crosscheck, fit, output_format, size_report.source, size_report.arch, color=color, width=width,
                      embedded=size_report.models, calibrated=calibrated)


def render_what_if_output(size_report, answer, output_format: str, color: bool = False) -> str:
    """The --drop/--keep answer in one of FORMATS other than html."""
    import shutil

    from sizetool.render.what_if import render_what_if

    width = shutil.get_terminal_size((160, 24)).columns if color else None
    return render_what_if(answer, output_format, size_report.source, size_report.arch, color=color, width=width)


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
        return _render_html(size_report)
    from sizetool.render.tree import render_tree

    return render_tree(size_report, memories, depth, color=color)


def _render_html(size_report) -> str:
    import os

    try:
        html = importlib.import_module("sizetool.render.html")
    except ModuleNotFoundError as error:
        if error.name in ("sizetool.render.html", "jinja2"):
            raise SizeToolError("html output is not available in this installation") from None
        raise
    return html.render_html(size_report, f"Size report: {os.path.basename(size_report.source)}")
