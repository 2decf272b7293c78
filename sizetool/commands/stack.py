"""`size-report stack ELF [ROOT ...]`: the worst-case stack depth of each root and the path reaching it
(sizetool/stack/stack_depth.py). It reads the ELF alone, not the size report."""

from __future__ import annotations

from dataclasses import dataclass

from sizetool.commands.arguments import OneLineParser, add_stack_arguments
from sizetool.commands.firmware import (OutputOptions, add_output_arguments, model_references, output_options,
                                        write_output)

DESCRIPTION = ("Worst-case stack depth and the call path reaching it, for main, the entry point, threads and "
               "interrupt handlers, or for the root functions named.")
EPILOG = "Exit status: 0 ok, 2 usage or input error."


@dataclass(frozen=True)
class StackOptions:
    elf: str
    output: OutputOptions
    roots: tuple[str, ...] = ()
    models: tuple = ()
    su_dir: str | None = None
    ignore: tuple[str, ...] = ()
    verbose: bool = False


def build_parser(prog: str = "size-report stack"):
    parser = OneLineParser(prog=prog, description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("elf", metavar="ELF", help="The firmware ELF (zephyr.elf, firmware.elf, ...).")
    parser.add_argument("roots", nargs="*", metavar="ROOT",
                        help="Root functions, demangled or mangled (default: main, the entry point, threads and "
                             "interrupt handlers).")
    add_output_arguments(parser, "tree, json, csv or markdown")
    parser.add_argument("--model", dest="models", action="append", metavar="MODEL",
                        help="Follow calls through TFLM registrations only into the kernels this model uses "
                             "(repeatable).")
    add_stack_arguments(parser)
    return parser


def stack_options(values: dict, roots: list[str]) -> StackOptions:
    """StackOptions from parsed arguments (the plain form's --stack passes its own)."""
    from sizetool.render.stack import FORMATS

    output = output_options(values, FORMATS, "--stack")
    return StackOptions(values.pop("elf"), output, tuple(roots), tuple(model_references(values.pop("models", None))),
                        values.pop("su_dir", None), tuple(values.pop("ignore", None) or ()),
                        values.pop("verbose", False))


def main(args: list[str], prog: str = "size-report stack") -> int:
    values = vars(build_parser(prog).parse_intermixed_args(args))
    return run_stack(stack_options(values, values.pop("roots")))


def run_stack(options: StackOptions) -> int:
    from sizetool.inputs.elf_reader import read_elf
    from sizetool.render.stack import render_stack
    from sizetool.stack.stack_depth import analyse_stack

    image = read_elf(options.elf)
    su_entries = decl_files = None
    if options.su_dir:
        from sizetool.inputs.stack_usage import read_stack_usage_dir

        su_entries = read_stack_usage_dir(options.su_dir)
        if image.has_dwarf:
            from sizetool.inputs.dwarf_paths import read_source_index

            decl_files = read_source_index(options.elf).decl_file
    report = analyse_stack(image, list(options.roots) or None, su_entries, list(options.models) or None, decl_files,
                           list(options.ignore) or None)
    text = render_stack(report, options.output.output_format, color=options.output.color,
                        width=options.output.width, verbose=options.verbose)
    write_output(text, options.output)
    return 0
