"""Every help text reaches the user as written: no markup engine eats `[regions]` or `[models]`."""

import re

import pytest
import typer

from sizetool import cli

COMMANDS = {"size-report": cli.REPORT_COMMAND, **{f"size-report {name}": module
                                                  for name, module in cli.SUBCOMMANDS.items()}}


def _commands(prog: str, module_name: str):
    """(argv, help texts) for a command and, for a group, each of its sub-commands."""
    import importlib

    module = importlib.import_module(module_name)
    prefix = prog.split()[1:]
    if hasattr(module, "build_parser"):  # argparse (the report command)
        parser = module.build_parser()
        yield prefix, [action.help for action in parser._actions if action.help and action.help != "==SUPPRESS=="] \
            + [parser.description]
        return
    command = typer.main.get_command(module.app)
    yield prefix, _texts(command)
    if hasattr(command, "commands"):  # a group (typer 0.29 vendors click: no click import here)
        for name, sub in command.commands.items():
            yield prefix + [name], _texts(sub)


def _texts(command) -> list[str]:
    texts = [param.help for param in command.params if getattr(param, "help", None)]
    return texts + ([command.help.split("\n\n")[0]] if command.help else [])


ALL = [(argv, command) for prog, module in COMMANDS.items() for argv, command in _commands(prog, module)]


def _words(text: str) -> str:
    """The text without white space: the help formatter wraps lines, also after a hyphen."""
    return "".join(text.split())


@pytest.mark.parametrize("argv,texts", ALL, ids=[" ".join(argv) or "report" for argv, _ in ALL])
def test_every_help_text_is_printed_verbatim(argv, texts, capsys):
    assert cli.main(argv + ["--help"]) == 0
    printed = _words(capsys.readouterr().out)
    assert texts, "a command without help texts"
    for text in texts:
        assert _words(text) in printed, text


def test_check_help_names_the_regions_table(capsys):
    assert cli.main(["check", "--help"]) == 0
    assert "(for [regions])" in " ".join(capsys.readouterr().out.split())


def test_bracketed_words_exist_in_the_help_texts():
    """The test above would pass trivially if no help text had brackets; the budget's table names do."""
    assert any(re.search(r"\[\w+\]", text or "") for _, texts in ALL for text in texts)
