"""Pieces the table renderers share: a rich console writing into a string, a plain table, trailing-space trimming
(markdown escaping is sizetool/text_escaping.py's)."""

from __future__ import annotations

import io


def console_for(color: bool, width: int | None):
    from rich.console import Console

    out = io.StringIO()
    console = Console(file=out, width=width or 160, force_terminal=color, color_system="standard" if color else None,
                      highlight=False, emoji=False, markup=False, soft_wrap=True)
    return console, out


def rich_table(*columns):
    from rich import box
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for name, options in columns:
        table.add_column(name, **options)
    return table


def finish(out: io.StringIO) -> str:
    return "".join(line.rstrip() + "\n" for line in out.getvalue().splitlines())

