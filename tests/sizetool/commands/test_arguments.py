"""Help is as wide as argparse makes it: OneLineParser asks the terminal's width itself (terminal_columns) rather than
through shutil, whose import is a noticeable part of a run's start-up, and must get the answer shutil gives."""

import fcntl
import os
import shutil
import struct
import subprocess
import sys
import termios

import pytest

from sizetool.commands.arguments import OneLineParser, terminal_columns
from tests.conftest import REPO_ROOT

COMPARE = ("import shutil, sys; from sizetool.commands.arguments import terminal_columns; "
           "print(terminal_columns(), shutil.get_terminal_size().columns, file=sys.stderr)")


@pytest.mark.parametrize("columns", [None, "100", "0", "-3", "wide", " 72 "])
def test_the_width_is_shutils_whatever_columns_says(columns):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT), **({"COLUMNS": columns} if columns else {})}
    result = subprocess.run([sys.executable, "-c", COMPARE], capture_output=True, text=True, env=env, timeout=60)
    ours, shutils = result.stderr.split()
    assert ours == shutils


@pytest.mark.parametrize("window", [(24, 132), (40, 0)])
def test_the_width_is_the_terminals_as_shutil_reads_it(window):
    """On a terminal (a pseudo-terminal of the given rows and columns; 0 columns: shutil's fallback of 80)."""
    leader, follower = os.openpty()
    try:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", *window, 0, 0))
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT)}
        result = subprocess.run([sys.executable, "-c", COMPARE], stdout=follower, stderr=subprocess.PIPE, text=True,
                                env=env, timeout=60)
    finally:
        os.close(follower)
        os.close(leader)
    ours, shutils = result.stderr.split()
    assert ours == shutils == str(window[1] or 80)


@pytest.mark.parametrize("columns", ["50", "100", "200"])
def test_help_is_what_argparse_prints_at_that_width(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    parser = OneLineParser(prog="size-report example", description="An example with a long usage line. " * 4)
    for index in range(12):
        parser.add_argument(f"--option-{index}", metavar="VALUE", help=f"Option number {index}, described at length "
                                                                        "so that its help wraps. " * 2)
    parser.add_argument("files", nargs="*", metavar="FILE", help="Input files.")
    ours = parser.format_help()
    monkeypatch.setattr(OneLineParser, "_get_formatter", lambda self: self.formatter_class(prog=self.prog))
    assert ours == parser.format_help()
    assert shutil.get_terminal_size().columns == int(columns)


@pytest.mark.parametrize("columns", ["60", "160"])
def test_the_reports_help_is_what_argparse_prints(monkeypatch, capsys, columns):
    """The real command, through intermixed parsing (which formats the usage line before --help prints it)."""
    from sizetool.commands.report import build_parser

    monkeypatch.setenv("COLUMNS", columns)
    printed = []
    for _ in range(2):
        with pytest.raises(SystemExit):
            build_parser().parse_intermixed_args(["--help"])
        printed.append(capsys.readouterr().out)
        monkeypatch.setattr(OneLineParser, "_get_formatter", lambda self: self.formatter_class(prog=self.prog))
    assert printed[0] == printed[1] and "usage: size-report" in printed[0]
