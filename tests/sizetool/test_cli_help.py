"""Every command's help looks the same (argparse throughout) and describes every option and argument, as written."""

import argparse
import importlib
import re

import pytest

from sizetool import cli

COMMANDS = {"size-report": cli.REPORT_COMMAND, **{f"size-report {name}": module
                                                  for name, module in cli.SUBCOMMANDS.items()}}


def _parsers(prog: str, module_name: str):
    """(argv, parser) for a command and, for a command with sub-commands, each of them."""
    parser = importlib.import_module(module_name).build_parser(prog)
    argv = prog.split()[1:]
    yield argv, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield argv + [name], sub


ALL = [pair for prog, module in COMMANDS.items() for pair in _parsers(prog, module)]
IDS = [" ".join(argv) or "report" for argv, _ in ALL]


def _words(text: str) -> str:
    """The text without white space: the help formatter wraps lines, also after a hyphen."""
    return "".join(text.split())


def test_every_command_and_mode_is_covered():
    assert {"", "ops", "fit", "stack", "diff", "check", "history", "history record", "history show", "history diff",
            "history plot", "history prune"} <= {" ".join(argv) for argv, _ in ALL}


@pytest.mark.parametrize("argv,parser", ALL, ids=IDS)
def test_every_option_and_argument_has_a_one_line_description(argv, parser):
    undescribed = [action.dest for action in parser._actions
                   if not isinstance(action, argparse._SubParsersAction) and not action.help]
    assert parser.description and undescribed == []


@pytest.mark.parametrize("argv,parser", ALL, ids=IDS)
def test_every_help_text_is_printed_verbatim_in_the_same_style(argv, parser, capsys):
    assert cli.main(argv + ["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: size-report {' '.join(argv)}".rstrip())  # one style: argparse's
    printed = _words(out)
    texts = [action.help % {} if "%" in action.help else action.help for action in parser._actions
             if action.help and action.help != argparse.SUPPRESS] + [parser.description]
    for text in texts:
        assert _words(text) in printed, text


def test_the_map_option_names_every_map_format_read(capsys):
    for argv in ([], ["ops"], ["fit"], ["check"], ["history", "record"]):
        assert cli.main(argv + ["--help"]) == 0
        help_text = " ".join(capsys.readouterr().out.split())
        assert "GNU ld" in help_text and "armlink" in help_text and "IAR" in help_text, argv


def test_the_report_help_names_the_modes_and_their_aliases(capsys):
    assert cli.main(["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "size-report ops|fit|stack ELF" in text
    assert "Alias of 'size-report ops ELF'" in text and "Alias of 'size-report stack ELF [ROOT ...]'" in text


def test_check_help_names_the_regions_table(capsys):
    assert cli.main(["check", "--help"]) == 0
    assert "[regions]" in " ".join(capsys.readouterr().out.split())


def test_bracketed_words_exist_in_the_help_texts():
    """The verbatim test above would pass trivially if no help text had brackets; the budget's table names do."""
    assert any(re.search(r"\[\w+\]", action.help or "") for _, parser in ALL for action in parser._actions)
