"""The GitHub Action: action.yml runs sizetool.commands.github_action, which fills the step summary and outputs, annotates,
fails the step on a breach, and keeps one sticky pull-request comment (requests checked here, never sent)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sizetool.commands import github_action
from sizetool.ci.github_comment import (
    MARKER,
    ApiRequest,
    marker_for,
    upsert_sticky_comment,
)
from sizetool.errors import SizeToolError
from sizetool.report.report_builder import build_report

REPO_ROOT = Path(__file__).resolve().parents[2]
OUT = REPO_ROOT / "fixtures" / "firmware" / "out"
ELF = OUT / "cortex-m4/firmware.elf"
MAP = OUT / "cortex-m4/firmware.map"
BASELINE = OUT / "variants/cortex-m4/without_SOFTMAX.elf"
MODELS = REPO_ROOT / "fixtures" / "models"


def run_action_step(tmp_path, **inputs):
    """The step as action.yml runs it: a fresh Python, inputs as INPUT_* variables, GitHub's files in tmp_path."""
    summary, outputs = tmp_path / "step-summary.md", tmp_path / "github-output"
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    environment.update({"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs)})
    environment.update({f"INPUT_{name.upper()}": str(value) for name, value in inputs.items()})
    result = subprocess.run([sys.executable, "-m", "sizetool.commands.github_action"], capture_output=True, text=True,
                            env=environment, cwd=REPO_ROOT)
    read = lambda path: path.read_text() if path.exists() else ""  # noqa: E731
    return result, read(summary), dict(line.split("=", 1) for line in read(outputs).splitlines())


def budget(tmp_path, text):
    path = tmp_path / "size-budget.toml"
    path.write_text(text)
    return path


def test_action_yml_runs_this_module_with_every_input():
    yaml = pytest.importorskip("yaml", reason="PyYAML (installed with pre-commit, the test extra)")
    action = yaml.safe_load((REPO_ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == "check"]
    assert step["run"] == '"$ACTION_PYTHON" -m sizetool.commands.github_action'
    passed = {name for name in step["env"] if name.startswith("INPUT_")}
    expected = {f"INPUT_{name.upper().replace('-', '_')}" for name in action["inputs"]} - {"INPUT_INSTALL",
                                                                                            "INPUT_PYTHON"}
    assert passed == expected and {"INPUT_ELF", "INPUT_MAP", "INPUT_BUDGET", "INPUT_BASELINE", "INPUT_MODELS",
                                   "INPUT_COMMENT"} <= passed
    for name in ("rom", "ram", "rom-delta", "ram-delta", "status"):
        assert action["outputs"][name]["value"] == f"${{{{ steps.check.outputs.{name} }}}}"


def test_a_passing_budget_fills_the_summary_and_outputs(tmp_path):
    new, old = build_report(str(ELF), map_path=str(MAP)), build_report(str(BASELINE))
    result, summary, outputs = run_action_step(tmp_path, elf=ELF, map=MAP, baseline=BASELINE,
                                               budget=budget(tmp_path, '[rom]\ntotal = "256K"\n'))
    assert result.returncode == 0, result.stderr
    assert "::error" not in result.stdout
    assert summary.startswith("**Size budget: all 1 rules pass**")
    assert f"| ROM | {new.rom_total} | {new.rom_total - old.rom_total:+d} |" in summary
    assert outputs == {"rom": str(new.rom_total), "ram": str(new.ram_total),
                       "rom-delta": f"{new.rom_total - old.rom_total:+d}",
                       "ram-delta": f"{new.ram_total - old.ram_total:+d}", "status": "pass"}


def test_a_failing_budget_fails_the_step_with_annotations(tmp_path):
    rom = build_report(str(ELF), map_path=str(MAP)).rom_total
    budget_path = budget(tmp_path, "[ram]\ntotal = \"1M\"\n[rom]\ntotal = 1000\n")
    result, summary, outputs = run_action_step(tmp_path, elf=ELF, map=MAP, budget=budget_path)
    assert result.returncode == 1
    assert (f"::error file={budget_path},line=4,title=Size budget::rom.total: {rom} bytes exceeds the limit 1000 "
            f"(1000 bytes) by {rom - 1000}") in result.stdout.splitlines()
    assert summary.startswith("**Size budget: 1 of 2 rules failed**")
    assert f"- `rom.total`: {rom} bytes exceeds the limit 1000 (1000 bytes) by {rom - 1000}" in summary
    assert outputs["status"] == "fail" and outputs["rom"] == str(rom) and outputs["rom-delta"] == ""


def test_models_the_firmware_cannot_run_fail_the_step(tmp_path):
    result, summary, outputs = run_action_step(tmp_path, elf=ELF, map=MAP, models="\n".join(
        str(MODELS / m) for m in ("vision_subset.tflite", "two_subgraphs.tflite")))
    assert result.returncode == 1
    assert summary.startswith("**Size: no budget rules**") and "### does not fit: firmware.elf" in summary
    assert outputs["status"] == "pass"  # the budget (none) passed; the models did not


def test_models_held_as_c_arrays_give_the_summary_of_their_tflites(tmp_path):
    from tests.tflm_model.c_array_styles import several_arrays

    names = ("vision_subset.tflite", "two_subgraphs.tflite")
    model_data = tmp_path / "model_data.cc"
    model_data.write_text(several_arrays({"g_vision": (MODELS / names[0]).read_bytes(),
                                          "g_two": (MODELS / names[1]).read_bytes()}, b"\x00"))
    from_arrays, summary, _ = run_action_step(tmp_path, elf=ELF, map=MAP, models=str(model_data))
    (tmp_path / "step-summary.md").unlink()
    from_files, expected, _ = run_action_step(tmp_path, elf=ELF, map=MAP, models=" ".join(str(MODELS / n)
                                                                                          for n in names))
    assert from_arrays.returncode == from_files.returncode == 1
    assert "model_data.cc:g_vision" in summary
    for array, name in (("g_vision", names[0]), ("g_two", names[1])):
        summary = summary.replace(f"{model_data}:{array}", str(MODELS / name))
        summary = summary.replace(f"model\\_data.cc:{array.replace('_', chr(92) + '_')}", name.replace("_", "\\_"))
        summary = summary.replace(f"model_data.cc:{array}", name)
    assert summary == expected


def test_bad_input_is_one_line_and_status_2(tmp_path):
    result, summary, _ = run_action_step(tmp_path, elf=tmp_path / "missing.elf")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and summary == ""
    result, _, _ = run_action_step(tmp_path, map=MAP)
    assert result.returncode == 2 and "the input 'elf' is required" in result.stderr


class FakeGitHub:
    """Answers the comment list with the pages given; records every request."""

    def __init__(self, *pages):
        self.pages, self.sent = list(pages), []

    def __call__(self, request: ApiRequest):
        self.sent.append(request)
        if request.method == "GET":
            return self.pages.pop(0) if self.pages else []
        return {"id": 1}


def action_environment(tmp_path, **extra):
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7}}))
    return {"INPUT_ELF": str(ELF), "INPUT_MAP": str(MAP), "INPUT_COMMENT": "true", "INPUT_GITHUB_TOKEN": "t0k",
            "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "octo/fw", "GITHUB_API_URL": "https://api.test",
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"), **extra}


def test_the_first_comment_is_posted_with_the_marker(tmp_path, capsys):
    github = FakeGitHub([{"id": 3, "body": "LGTM"}])
    assert github_action.run(action_environment(tmp_path), send=github) == 0
    listing, created = github.sent
    assert listing == ApiRequest("GET", "https://api.test/repos/octo/fw/issues/7/comments?per_page=100&page=1", {
        "Accept": "application/vnd.github+json", "Authorization": "Bearer t0k", "X-GitHub-Api-Version": "2022-11-28",
        "User-Agent": "tflm-size-toolkit"})
    assert (created.method, created.url) == ("POST", "https://api.test/repos/octo/fw/issues/7/comments")
    assert created.headers["Content-Type"] == "application/json" and created.headers["Authorization"] == "Bearer t0k"
    summary = (tmp_path / "summary.md").read_text()
    assert json.loads(created.body) == {"body": f"{MARKER}\n{summary}"}


def test_an_existing_marked_comment_is_updated_in_place_on_a_later_page(tmp_path, capsys):
    first_page = [{"id": n, "body": f"comment {n}"} for n in range(100)]
    github = FakeGitHub(first_page, [{"id": 41, "body": "x"}, {"id": 42, "body": f"{MARKER}\nold table"}])
    assert github_action.run(action_environment(tmp_path), send=github) == 0
    assert [(r.method, r.url) for r in github.sent] == [
        ("GET", "https://api.test/repos/octo/fw/issues/7/comments?per_page=100&page=1"),
        ("GET", "https://api.test/repos/octo/fw/issues/7/comments?per_page=100&page=2"),
        ("PATCH", "https://api.test/repos/octo/fw/issues/comments/42")]
    assert json.loads(github.sent[-1].body)["body"].startswith(f"{MARKER}\n**Size: no budget rules**")


def test_a_comment_key_keeps_one_comment_per_firmware():
    github = FakeGitHub([{"id": 5, "body": f"{MARKER}\nanother firmware"}])
    request = upsert_sticky_comment(github, "https://api.test", "o/r", 1, "t", "text", marker_for("build/app.elf"))
    assert request.method == "POST" and json.loads(request.body)["body"].startswith(
        "<!-- tflm-size-toolkit: build/app.elf -->\n")
    assert marker_for("a --> <b>") == "<!-- tflm-size-toolkit: a-b -->"


def test_no_pull_request_or_a_refused_comment_never_fails_the_step(tmp_path, capsys):
    github = FakeGitHub()
    environment = action_environment(tmp_path, GITHUB_EVENT_PATH=str(tmp_path / "none.json"))
    assert github_action.run(environment, send=github) == 0 and github.sent == []
    assert "::notice title=Size comment::not a pull request event" in capsys.readouterr().out

    def refuse(request):
        raise SizeToolError(f"GitHub API: {request.method} {request.url}: HTTP 403 Forbidden")

    assert github_action.run(action_environment(tmp_path), send=refuse) == 0
    assert "::warning title=Size comment::GitHub API: GET https://api.test/repos/octo/fw/issues/7/comments" \
           in capsys.readouterr().out
