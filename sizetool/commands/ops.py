"""`size-report ops ELF [MODEL ...] [--drop OPS | --keep OPS]`: the per-operator flash table, the
cross-check against models, and the what-if answer for a set of registrations (sizetool/commands/report.py)."""

from __future__ import annotations

from sizetool.commands import report


def build_parser(prog: str = "size-report ops"):
    return report.build_parser(prog, mode="ops")


def main(args: list[str], prog: str = "size-report ops") -> int:
    return report.main(args, prog, mode="ops")
