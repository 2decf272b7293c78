"""The size-report entry point: sub-command dispatch and the exit-status interface (0 ok, 1 gate failed, 2 usage/input)."""

import sys
import types

import pytest
import typer

from sizetool import cli
from sizetool.errors import SizeToolError


@pytest.fixture
def fake_report_command(monkeypatch):
    app = typer.Typer(pretty_exceptions_enable=False, add_completion=False)

    @app.command()
    def report(elf: str, depth: int = typer.Option(0, "--depth")) -> int:
        if elf == "corrupt.elf":
            raise SizeToolError("corrupt.elf: not an ELF file (bad magic bytes)")
        if elf == "crash.elf":
            raise RuntimeError("unexpected")
        print(f"report {elf} depth={depth}")
        return 1 if elf == "over-budget.elf" else 0

    module = types.ModuleType(cli.REPORT_COMMAND)
    module.app = app
    monkeypatch.setitem(sys.modules, cli.REPORT_COMMAND, module)
    monkeypatch.delenv("SIZETOOL_DEBUG", raising=False)


def test_plain_arguments_go_to_the_report_command(fake_report_command, capsys):
    assert cli.main(["firmware.elf", "--depth", "3"]) == 0
    assert capsys.readouterr().out == "report firmware.elf depth=3\n"


def test_the_commands_own_status_is_the_exit_status(fake_report_command):
    assert cli.main(["over-budget.elf"]) == 1


def test_a_user_error_is_one_line_on_stderr_and_status_2(fake_report_command, capsys):
    assert cli.main(["corrupt.elf"]) == 2
    err = capsys.readouterr().err
    assert err == "size-report: error: corrupt.elf: not an ELF file (bad magic bytes)\n"


@pytest.mark.parametrize("argv", [[], ["a.elf", "--depth", "deep"], ["a.elf", "--no-such-option"]])
def test_usage_errors_are_one_line_and_status_2(fake_report_command, capsys, argv):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("size-report: error: ")


def test_an_internal_error_never_prints_a_traceback(fake_report_command, capsys):
    assert cli.main(["crash.elf"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1


def test_help_exits_0(fake_report_command, capsys):
    assert cli.main(["--help"]) == 0
    assert "Usage" in capsys.readouterr().out
