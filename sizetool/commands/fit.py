"""`size-report fit ELF MODEL ...`: does the firmware fit the models, flash and RAM, without the operator
table (sizetool/commands/report.py)."""

from __future__ import annotations

from sizetool.commands import report


def build_parser(prog: str = "size-report fit"):
    return report.build_parser(prog, mode="fit")


def main(args: list[str], prog: str = "size-report fit") -> int:
    return report.main(args, prog, mode="fit")
