"""Option parsing shared by every size-report command: a usage error is one SizeToolError line (exit 2), like every
other bad input, and help looks the same everywhere.

Why argparse and not typer (docs/architecture.md): these commands run in CI on every build, and a cached report has to
print in little more than Python's start-up (issue 26's goal: at most bloaty's time). Importing typer 0.29 costs
25-45 ms here (click, rich's console and its markup), as much as a whole cached report, for no gain in the interface.
"""

from __future__ import annotations

import argparse

from sizetool.errors import SizeToolError


REQUIRED = "the following arguments are required: "


class OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        if message.startswith(REQUIRED):  # intermixed parsing also names optional positionals (nargs '*'): drop them
            optional = {action.metavar or action.dest for action in self._actions
                        if not action.option_strings and action.nargs in ("*", "?")}
            missing = [name for name in message[len(REQUIRED):].split(", ") if name not in optional]
            message = REQUIRED + ", ".join(missing or message[len(REQUIRED):].split(", "))
        raise SizeToolError(f"{message} (see '{self.prog} --help')")


def non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is below 0")
    return value


def at_least(lowest: int, most: int | None = None):
    """An argparse type: a whole number from `lowest` (to `most`)."""
    def parse(text: str) -> int:
        value = non_negative(text) if lowest >= 0 else int(text)
        if value < lowest or (most is not None and value > most):
            raise argparse.ArgumentTypeError(f"{value} is not in {lowest}..{most}" if most is not None
                                             else f"{value} is below {lowest}")
        return value
    return parse


# The options of `ops`, its what-if questions and `stack` that the plain form (commands/report.py) takes as aliases:
# here, so that building its parser for a tree does not load those commands (their option records, ~3 ms).

def add_arena_arguments(parser) -> None:
    parser.add_argument("--kernels", metavar="reference|cmsis_nn|esp_nn",
                        help="With models: the kernel set the arena estimate assumes (default: detected from the "
                             "firmware).")
    parser.add_argument("--arena-symbol", metavar="NAME",
                        help="With models: the tensor arena array (default: the one passed to the "
                             "MicroInterpreter).")


def add_what_if_arguments(parser, alias: bool = False) -> None:
    prefix = "Alias of 'size-report ops ELF --drop ...': w" if alias else "W"
    parser.add_argument("--drop", action="append", metavar="OP[,OP...]",
                        help=f"{prefix}hat if these registrations (op names as the table prints them, or "
                             "models: .tflite, C/C++ file, FILE:ARRAY) were removed: the saving, the predicted ROM, "
                             "the files and symbols that go (repeatable).")
    prefix = "Alias of 'size-report ops ELF --keep ...': w" if alias else "W"
    parser.add_argument("--keep", action="append", metavar="OP[,OP...]",
                        help=f"{prefix}hat if only these registrations (op names or models) were kept "
                             "(repeatable).")


def add_stack_arguments(parser) -> None:
    """The stack's own options (the plain form takes them too, with --stack)."""
    parser.add_argument("--ignore", action="append", metavar="FUNCTION",
                        help="Stack: do not follow calls into this function (repeatable), e.g. an abort or "
                             "logging path you budget apart; the output says which were left out.")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="Stack: every step of each path and every warning (by default: the first frames, "
                             "the largest, the deepest and the total; repeated warnings counted in one line).")
    parser.add_argument("--su-dir", metavar="DIR",
                        help="Stack: GCC -fstack-usage .su files under DIR; their figures are used and "
                             "cross-checked against the disassembly.")
