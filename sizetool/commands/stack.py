"""`size-report stack ELF [ROOT ...]`: the worst-case stack depth of each root and the path reaching it
(sizetool/commands/report.py)."""

from __future__ import annotations

from sizetool.commands import report


def build_parser(prog: str = "size-report stack"):
    return report.build_parser(prog, mode="stack")


def main(args: list[str], prog: str = "size-report stack") -> int:
    return report.main(args, prog, mode="stack")
