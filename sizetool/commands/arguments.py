"""Option parsing for the argparse commands (report, diff, check): a usage error is one SizeToolError line (exit 2),
like every other bad input. These commands run in CI on every build; argparse costs little to import, where typer
0.29 pulls in click and pydantic (more than a whole cached report)."""

from __future__ import annotations

import argparse

from sizetool.errors import SizeToolError


class OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        raise SizeToolError(f"{message} (see '{self.prog} --help')")


def non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is below 0")
    return value
