"""Option parsing shared by every size-report command: a usage error is one SizeToolError line (exit 2), like every
other bad input, and help looks the same everywhere.

Why argparse and not typer (docs/architecture.md): these commands run in CI on every build, and a cached report has to
print in little more than Python's start-up (issue 26's goal: at most bloaty's time). Importing typer 0.29 costs
25-45 ms here (click, rich's console and its markup), as much as a whole cached report, for no gain in the interface.
"""

from __future__ import annotations

import argparse
import os
import sys

from sizetool.errors import SizeToolError


REQUIRED = "the following arguments are required: "


def terminal_columns() -> int:
    """shutil.get_terminal_size().columns, as argparse asks it for help's width, without importing shutil: $COLUMNS
    when a positive number, else the terminal's width (80 when stdout is not a terminal or says 0)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


class OneLineParser(argparse.ArgumentParser):
    def _get_formatter(self):
        # argparse makes a help formatter for every argument added (to check its metavar) and once more to parse
        # (intermixed parsing keeps the usage line for --help); one made without a width imports shutil, and with it
        # bz2, lzma, zlib and fnmatch (~2.5 ms of every run), to ask the terminal's. The same width, asked directly:
        return self.formatter_class(prog=self.prog, width=terminal_columns() - 2)

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
