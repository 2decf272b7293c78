"""The README is a landing page: what the toolkit is for, the two set-up commands, the main jobs each shown in use
with real output, and short paragraphs; the figures live in docs/accuracy.md."""

import re
import shlex

import pytest

from tests.conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text()


def paragraphs(text: str) -> list[list[str]]:
    """Prose paragraphs and top-level list items (code blocks and tables left out), as lists of lines."""
    blocks, current, in_code = [], [], False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code or line.startswith("|") or line.startswith("#") or not line.strip():
            if current:
                blocks.append(current)
            current = []
            continue
        if line.startswith("- ") and current:
            blocks.append(current)
            current = []
        current.append(line)
    return blocks + ([current] if current else [])


def test_it_starts_with_the_two_set_up_commands():
    block = README.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert block[0].startswith("pip install . && gen-resolver ") and block[1].startswith("pip install '.[test]'")
    assert README.index("```sh") < 1000


def test_no_paragraph_or_list_item_runs_over_8_lines():
    assert [block[0] for block in paragraphs(README) if len(block) > 8] == []


def test_the_first_60_lines_show_every_main_command_in_use():
    head = "\n".join(README.splitlines()[:60])
    for command in ("$ gen-resolver ", "$ size-report fixtures", "$ size-report ops ", "$ size-report fit ",
                    "$ size-report check "):
        assert command in head, command


def console_samples() -> list[tuple[str, list[str]]]:
    block = README.split("```console\n", 1)[1].split("```", 1)[0]
    samples = []
    for chunk in block.split("$ ")[1:]:
        command, *shown = [line for line in chunk.splitlines() if line.strip()]
        samples.append((command, shown))
    return samples


@pytest.mark.parametrize("command,shown", console_samples(), ids=lambda value: value if isinstance(value, str) else "")
def test_every_sample_is_the_commands_real_output(command, shown, capsys, monkeypatch):
    from resolver_gen.cli import main as gen_resolver
    from sizetool.cli import main as size_report

    monkeypatch.chdir(REPO_ROOT)
    program, *arguments = shlex.split(command)
    {"gen-resolver": gen_resolver, "size-report": size_report}[program](arguments)
    output = capsys.readouterr().out.splitlines()
    for line in shown:  # a line cut with "..." is the start of the real one
        if "..." in line:
            start = re.split(r"\s*\.\.\.", line)[0]
            assert any(real.startswith(start) for real in output) if start.strip() else True, line
        else:
            assert line in output, line
