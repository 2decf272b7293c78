"""`size-report ELF [options]`: the plain form. Without a mode flag it is the flash/RAM tree (commands/tree.py); its
older flags stay as aliases of the commands that came after them and print the same bytes: --ops, --model, --drop and
--keep are `size-report ops` (commands/ops.py, commands/what_if.py), --stack is `size-report stack`
(commands/stack.py), --export-profile is `size-report profile` (commands/profile.py).

This module only parses the plain form and hands each question to its command, with the command's own options.
"""

from __future__ import annotations

from sizetool.commands.arguments import (OneLineParser, add_arena_arguments, add_stack_arguments, add_what_if_arguments,
                                         non_negative)
from sizetool.commands.firmware import (add_firmware_arguments, add_output_arguments, firmware_options,
                                        model_references, output_options, without_cyclic_collector)
from sizetool.errors import SizeToolError

# argparse, not typer (sizetool/commands/arguments.py): a cached report must print in little more than Python's
# start-up.

DESCRIPTION = "The flash/RAM tree of a firmware ELF by source file and symbol."
EPILOG = ("Modes: size-report ops|fit|stack ELF ... (the --ops, --model, --drop, --keep and --stack flags here are "
          "their aliases). Other commands: size-report diff|check|history|profile --help. Exit status: 0 ok, 1 a model needs an op the firmware "
          "does not register or a tensor arena larger than the one linked, 2 usage or input error.")
TREE_FORMATS = ("tree", "json", "csv", "markdown", "html")


def build_parser(prog: str = "size-report"):
    parser = OneLineParser(prog=prog, description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("elf", metavar="ELF", help="The firmware ELF (zephyr.elf, firmware.elf, ...).")
    parser.add_argument("extra_models", nargs="*", metavar="MODEL",
                        help="With --model, further models (.tflite, or C/C++ files holding model arrays) may "
                             "follow the ELF; with --stack, root functions.")
    add_output_arguments(parser, "tree, json, csv, markdown or html")
    add_firmware_arguments(parser)
    parser.add_argument("--save", metavar="REPORT.json", help="Also save the full report (ROM and RAM) as JSON.")
    parser.add_argument("--ram", action="store_true", help="Report RAM instead of ROM.")
    parser.add_argument("--all", dest="all_memories", action="store_true", help="Report both ROM and RAM.")
    parser.add_argument("--depth", type=non_negative, default=0, metavar="N",
                        help="Fold the tree below this many levels (0: no folding).")
    parser.add_argument("--ops", action="store_true",
                        help="Alias of 'size-report ops ELF': the per-operator flash cost table.")
    parser.add_argument("--model", dest="models", action="append", metavar="MODEL",
                        help="Alias of 'size-report ops ELF MODEL': check the firmware's operators and RAM against "
                             "this model (repeatable). Exit 1 when it needs an op the firmware does not register or a "
                             "larger arena than the one linked.")
    add_what_if_arguments(parser, alias=True)
    parser.add_argument("--export-profile", metavar="PROFILE.json",
                        help="Alias of 'size-report profile ELF [--map MAP] -o PROFILE.json': write a target "
                             "profile of this all-ops firmware for gen-resolver --fit.")
    parser.add_argument("--stack", action="store_true",
                        help="Alias of 'size-report stack ELF [ROOT ...]': worst-case stack depth and the path "
                             "reaching it; root functions follow the ELF.")
    add_stack_arguments(parser)
    add_arena_arguments(parser)
    return parser


def main(args: list[str], prog: str = "size-report") -> int:
    """Parse the plain form (SizeToolError on a usage error) and answer its question."""
    values = vars(build_parser(prog).parse_intermixed_args(args))
    with without_cyclic_collector():
        return dispatch(values, prog)


def dispatch(values: dict, prog: str) -> int:
    extra = values.pop("extra_models")
    if values["export_profile"]:
        from sizetool.commands import profile

        return profile.main([values["elf"], "-o", values["export_profile"]]
                            + (["--map", values["map_file"]] if values["map_file"] else [])
                            + (["--no-cache"] if values["no_cache"] else []), prog)
    if values["output_format"] not in TREE_FORMATS:
        raise SizeToolError(f"unknown --format {values['output_format']!r} (choose from {', '.join(TREE_FORMATS)})")
    if values.pop("stack"):
        from sizetool.commands.stack import run_stack, stack_options

        return run_stack(stack_options(values, extra))
    for option, flag in (("su_dir", "--su-dir"), ("ignore", "--ignore"), ("verbose", "--verbose")):
        if values[option]:
            raise SizeToolError(f"{flag} goes with --stack")
    if extra and not values["models"]:
        raise SizeToolError(f"unexpected extra argument {extra[0]!r} (one ELF; models go after --model)")
    models = (values["models"] or []) + extra
    what_if = values["drop"] or values["keep"]
    if not (values["ops"] or models or what_if):
        return _tree(values)
    if values["ram"] or values["all_memories"]:
        if values["output_format"] != "html":
            raise SizeToolError("--ops and --model report flash (ROM) only: leave out --ram and --all")
    firmware, output = firmware_options(values), output_options(values, TREE_FORMATS)
    if what_if:
        from sizetool.commands.what_if import run_what_if, what_if_options

        if models:
            raise SizeToolError(f"--{'drop' if values['drop'] else 'keep'} and --model are separate questions "
                                "(--keep MODEL keeps exactly a model's ops)")
        return run_what_if(what_if_options(firmware, output, values["drop"], values["keep"], values["save"]))
    from sizetool.commands.ops import ArenaOptions, OpsOptions, run_ops

    return run_ops(OpsOptions(firmware, output, tuple(model_references(models)),
                              ArenaOptions(values["kernels"], values["arena_symbol"]), values["save"]))


def _tree(values: dict) -> int:
    from sizetool.commands.tree import TreeOptions, memories, run_tree

    if values["kernels"] or values["arena_symbol"]:
        raise SizeToolError("--kernels and --arena-symbol go with --model (the arena a model needs)")
    firmware, output = firmware_options(values), output_options(values, TREE_FORMATS)
    return run_tree(TreeOptions(firmware, output, memories(values["ram"], values["all_memories"]), values["depth"],
                                values["save"]))
