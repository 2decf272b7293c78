"""Every help text reaches the user as written: no markup engine eats `[regions]` or `[models]`."""

import re

import click
import pytest
import typer

from sizetool import cli

COMMANDS = {"size-report": cli.REPORT_COMMAND, **{f"size-report {name}": module
                                                  for name, module in cli.SUBCOMMANDS.items()}}


def _commands(prog: str, module_name: str):
    """(argv, click command) for a command and, for a group, each of its sub-commands."""
    import importlib

    command = typer.main.get_command(importlib.import_module(module_name).app)
    prefix = prog.split()[1:]
    yield prefix, command
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield prefix + [name], sub


ALL = [(argv, command) for prog, module in COMMANDS.items() for argv, command in _commands(prog, module)]


def _words(text: str) -> str:
    """The text without white space: the help formatter wraps lines, also after a hyphen."""
    return "".join(text.split())


@pytest.mark.parametrize("argv,command", ALL, ids=[" ".join(argv) or "report" for argv, _ in ALL])
def test_every_help_text_is_printed_verbatim(argv, command, capsys):
    assert cli.main(argv + ["--help"]) == 0
    printed = _words(capsys.readouterr().out)
    texts = [param.help for param in command.params if getattr(param, "help", None)]
    texts += [command.help.split("\n\n")[0]] if command.help else []
    assert texts, "a command without help texts"
    for text in texts:
        assert _words(text) in printed, text


def test_check_help_names_the_regions_table(capsys):
    assert cli.main(["check", "--help"]) == 0
    assert "(for [regions])" in " ".join(capsys.readouterr().out.split())


def test_bracketed_words_exist_in_the_help_texts():
    """The test above would pass trivially if no help text had brackets; the budget's table names do."""
    assert any(re.search(r"\[\w+\]", param.help or "") for _, command in ALL for param in command.params)
