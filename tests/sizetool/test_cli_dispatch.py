"""The size-report entry point: sub-command dispatch and the exit-status interface (0 ok, 1 gate failed, 2 usage/input)."""

import sys
import types

import pytest

from sizetool import cli
from sizetool.commands.arguments import OneLineParser
from sizetool.errors import SizeToolError


def fake_command(name: str):
    """A stand-in command module: parses like the real ones, prints what it got, fails as told by the ELF's name."""
    def main(args, prog):
        parser = OneLineParser(prog=prog)
        parser.add_argument("elf")
        parser.add_argument("--depth", type=int, default=0)
        options = parser.parse_args(args)
        if options.elf == "corrupt.elf":
            raise SizeToolError("corrupt.elf: not an ELF file (bad magic bytes)")
        if options.elf == "crash.elf":
            raise RuntimeError("unexpected")
        print(f"{name} {options.elf} depth={options.depth}")
        return 1 if options.elf == "over-budget.elf" else 0

    module = types.ModuleType(name)
    module.main = main
    return module


@pytest.fixture
def fake_commands(monkeypatch):
    for module_name in [cli.REPORT_COMMAND, *cli.SUBCOMMANDS.values()]:
        monkeypatch.setitem(sys.modules, module_name, fake_command(module_name))
    monkeypatch.delenv("SIZETOOL_DEBUG", raising=False)


def test_plain_arguments_go_to_the_report_command(fake_commands, capsys):
    assert cli.main(["firmware.elf", "--depth", "3"]) == 0
    assert capsys.readouterr().out == f"{cli.REPORT_COMMAND} firmware.elf depth=3\n"


@pytest.mark.parametrize("name", ["ops", "fit", "stack", "diff", "check", "history"])
def test_a_sub_command_name_first_goes_to_its_module(fake_commands, capsys, name):
    assert cli.main([name, "firmware.elf"]) == 0
    assert capsys.readouterr().out == f"{cli.SUBCOMMANDS[name]} firmware.elf depth=0\n"


def test_the_commands_own_status_is_the_exit_status(fake_commands):
    assert cli.main(["over-budget.elf"]) == 1


def test_a_user_error_is_one_line_on_stderr_and_status_2(fake_commands, capsys):
    assert cli.main(["corrupt.elf"]) == 2
    err = capsys.readouterr().err
    assert err == "size-report: error: corrupt.elf: not an ELF file (bad magic bytes)\n"


@pytest.mark.parametrize("argv", [[], ["a.elf", "--depth", "deep"], ["a.elf", "--no-such-option"],
                                  ["stack", "a.elf", "--depth", "deep"]])
def test_usage_errors_are_one_line_and_status_2(fake_commands, capsys, argv):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("size-report")  and ": error: " in err


def test_an_internal_error_never_prints_a_traceback(fake_commands, capsys):
    assert cli.main(["crash.elf"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1


def test_help_exits_0(fake_commands, capsys):
    assert cli.main(["--help"]) == 0
    assert "usage:" in capsys.readouterr().out


@pytest.mark.parametrize("argv,missing", [([], "ELF"), (["ops"], "ELF"), (["stack"], "ELF"),
                                          (["fit"], "ELF")])  # fit: the models linked in when none is given
def test_a_missing_argument_names_only_what_is_required(capsys, argv, missing):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert f"the following arguments are required: {missing} (see" in err
