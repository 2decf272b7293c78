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
