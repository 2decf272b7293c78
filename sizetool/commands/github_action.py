"""The GitHub Action's step (action.yml runs `python -m sizetool.commands.github_action`): `size-report check` on the
firmware with the inputs given as INPUT_* variables, the markdown summary appended to $GITHUB_STEP_SUMMARY, the
outputs rom, ram, rom-delta, ram-delta and status written to $GITHUB_OUTPUT, annotations for failed rules (check
prints them under GITHUB_ACTIONS=true), optionally `size-report fit` on the models and one sticky pull-request
comment.

Exit status: 0 every rule passes, 1 a rule failed or a model needs an op the firmware lacks (the step fails), 2 bad
input. A comment that cannot be written (a fork's read-only token) is a warning, not a failure.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from sizetool.ci.github_comment import marker_for, send_request, upsert_sticky_comment
from sizetool.commands import check, fit
from sizetool.errors import SizeToolError

TRUE_WORDS = ("true", "yes", "1", "on")


@dataclass(frozen=True)
class ActionInputs:
    elf: str
    map_file: str = ""
    budget: str = ""
    baseline: str = ""
    models: tuple[str, ...] = ()
    embedded_models: tuple[str, ...] = ()  # .tflite files the firmware's linked-in models must equal
    header: str = ""  # a committed gen-resolver header that must match the firmware's models
    header_args: str = ""
    comment: bool = False
    comment_key: str = ""
    token: str = ""


def read_inputs(environment: Mapping[str, str]) -> ActionInputs:
    def value(name: str) -> str:
        return environment.get(f"INPUT_{name}", "").strip()

    if not value("ELF"):
        raise SizeToolError("the input 'elf' is required (the firmware ELF, or a saved report)")
    return ActionInputs(elf=value("ELF"), map_file=value("MAP"), budget=value("BUDGET"), baseline=value("BASELINE"),
                        models=tuple(value("MODELS").split()), embedded_models=tuple(value("EMBEDDED_MODELS").split()),
                        header=value("HEADER"), header_args=value("HEADER_ARGS"),
                        comment=value("COMMENT").lower() in TRUE_WORDS,
                        comment_key=value("COMMENT_KEY"), token=value("GITHUB_TOKEN"))


def check_arguments(inputs: ActionInputs, budget: str, summary: str, summary_json: str,
                    github_output: str | None) -> list[str]:
    """The `size-report check` arguments the step runs."""
    argv = [inputs.elf, "--budget", budget, "--summary", summary, "--summary-json", summary_json]
    if inputs.map_file:
        argv += ["--map", inputs.map_file]
    if inputs.baseline:
        argv += ["--baseline", inputs.baseline]
    if github_output:
        argv += ["--github-output", github_output]
    for model in inputs.embedded_models:
        argv += ["--embedded-model", model]
    if inputs.header:
        argv += ["--header", inputs.header, f"--header-args={inputs.header_args}"]
    return argv


def fit_arguments(inputs: ActionInputs, output: str) -> list[str]:
    """`size-report fit`: exit 1 when the firmware lacks an op a model needs or its arena is too small."""
    argv = [inputs.elf, *inputs.models]
    if inputs.map_file:
        argv += ["--map", inputs.map_file]
    return argv + ["--format", "markdown", "-o", output]


def _command(module, prog: str, argv: list[str]) -> int:
    """A size-report sub-command, its bad input reported as the command line does (one line, exit 2)."""
    try:
        return module.main(argv, prog)
    except SizeToolError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2


def pull_request_number(environment: Mapping[str, str]) -> int | None:
    """The pull request the workflow runs for (pull_request and pull_request_target events), from the event file."""
    path = environment.get("GITHUB_EVENT_PATH")
    if not path:
        return None
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    number = (event.get("pull_request") or {}).get("number") if isinstance(event, dict) else None
    return number if isinstance(number, int) else None


def _append(path: str | None, text: str) -> None:
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as stream:
            stream.write(text)
    except OSError as error:
        raise SizeToolError(f"{path}: cannot write ({error.strerror or error})") from None


def run(environment: Mapping[str, str], send: Callable = send_request) -> int:
    inputs = read_inputs(environment)
    with tempfile.TemporaryDirectory(prefix="tflm-size-action-") as work:
        budget = inputs.budget
        if not budget:  # no rules: the summary gives the totals
            budget = os.path.join(work, "no-rules.toml")
            Path(budget).write_text("", encoding="utf-8")
        summary, summary_json = os.path.join(work, "summary.md"), os.path.join(work, "summary.json")
        status = _command(check, "size-report check",
                          check_arguments(inputs, budget, summary, summary_json, environment.get("GITHUB_OUTPUT")))
        if status == 2 or not os.path.exists(summary):
            return 2
        text = Path(summary).read_text(encoding="utf-8")
        if inputs.models:
            models_md = os.path.join(work, "models.md")
            model_status = _command(fit, "size-report fit", fit_arguments(inputs, models_md))
            if model_status == 2:
                return 2
            text += "\n" + Path(models_md).read_text(encoding="utf-8")
            status = max(status, model_status)
    _append(environment.get("GITHUB_STEP_SUMMARY"), text)
    if inputs.comment:
        _comment(environment, inputs, text, send)
    return status


def _comment(environment: Mapping[str, str], inputs: ActionInputs, text: str, send: Callable) -> None:
    number = pull_request_number(environment)
    if number is None:
        print("::notice title=Size comment::not a pull request event: no comment written")
        return
    if not inputs.token or not environment.get("GITHUB_REPOSITORY"):
        print("::warning title=Size comment::no token or repository: no comment written")
        return
    try:
        upsert_sticky_comment(send, environment.get("GITHUB_API_URL", "https://api.github.com"),
                              environment["GITHUB_REPOSITORY"], number, inputs.token, text,
                              marker_for(inputs.comment_key))
    except SizeToolError as error:  # e.g. a pull request from a fork: its token cannot write comments
        print(f"::warning title=Size comment::{_command_data(str(error))}")


def _command_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's toolkit does."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def main() -> int:
    try:
        return run(os.environ)
    except SizeToolError as error:
        print(f"size-report action: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
