"""The pre-commit hooks (.pre-commit-hooks.yaml) run by pre-commit itself on a temporary git repository: the header
hook fails on a stale ops.h and passes on a fresh one, the budget hook fails on a committed report over its budget and
passes within it. No network: the hooks are `language: system` and the hook repository is a local clone."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO_ROOT

SCRIPTS = Path(sys.executable).parent
ELF = FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware.elf"
HEADER_ARGS = ["models/kws.tflite", "--name", "Kws", "--check", "src/ops.h"]
BUDGET_ARGS = ["size/firmware.json", "--budget", "size-budget.toml"]


@pytest.fixture
def environment(tmp_path):
    pytest.importorskip("pre_commit", reason="pre-commit is not installed (pip install '.[test]')")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    for tool in ("gen-resolver", "size-report"):
        if not (SCRIPTS / tool).exists():
            pytest.skip(f"{tool} is not installed next to {sys.executable} (pip install -e .)")
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    environment.update({
        "PATH": os.pathsep.join([str(SCRIPTS), environment.get("PATH", "")]),  # the project's installed tools
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "HOME": str(tmp_path),
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1", "SIZETOOL_NO_CACHE": "1"})
    return environment


def git(directory, environment, *argv):
    subprocess.run(["git", *argv], cwd=directory, env=environment, check=True, capture_output=True)


def hook_repository(tmp_path, environment, manifest: str) -> Path:
    """A git repository holding the hook manifest, committed (what try-repo and a config's `repo:` clone)."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / ".pre-commit-hooks.yaml").write_text(manifest)
    git(hooks, environment, "init", "-q")
    git(hooks, environment, "add", ".")
    git(hooks, environment, "commit", "-q", "-m", "hooks")
    return hooks


def project(tmp_path, environment) -> Path:
    """An application repository: a model, its generated header, a saved size report and a budget, committed."""
    app = tmp_path / "app"
    (app / "models").mkdir(parents=True)
    (app / "src").mkdir()
    (app / "size").mkdir()
    shutil.copy2(FIXTURES / "models" / "arena_while.tflite", app / "models" / "kws.tflite")
    subprocess.run([str(SCRIPTS / "gen-resolver"), "models/kws.tflite", "--name", "Kws", "-o", "src/ops.h"],
                   cwd=app, check=True)
    subprocess.run([str(SCRIPTS / "size-report"), str(ELF), "--save", "size/firmware.json", "-o", os.devnull],
                   cwd=app, check=True, env=environment)
    (app / "size-budget.toml").write_text('[rom]\ntotal = "256K"\n')
    git(app, environment, "init", "-q")
    git(app, environment, "add", ".")
    git(app, environment, "commit", "-q", "-m", "app")
    return app


def pre_commit(app, environment, *argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pre_commit", *argv], cwd=app, env=environment, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def manifest_with_args() -> str:
    """The repository's manifest with each hook given the args a project's config would give it (try-repo runs a
    repository's hooks as its manifest declares them)."""
    text = (REPO_ROOT / ".pre-commit-hooks.yaml").read_text()
    for hook, args in (("tflm-ops-header", HEADER_ARGS), ("tflm-size-budget", BUDGET_ARGS)):
        anchor = f"- id: {hook}\n"
        assert anchor in text
        text = text.replace(anchor, anchor + f"  args: [{', '.join(args)}]\n")
    return text


def test_try_repo_runs_both_hooks_failing_when_stale_and_passing_when_fresh(tmp_path, environment):
    hooks = hook_repository(tmp_path, environment, manifest_with_args())
    app = project(tmp_path, environment)
    for hook in ("tflm-ops-header", "tflm-size-budget"):
        fresh = pre_commit(app, environment, "try-repo", str(hooks), hook, "--all-files")
        assert fresh.returncode == 0 and "Passed" in fresh.stdout, fresh.stdout

    shutil.copy2(FIXTURES / "models" / "arena_add_chain.tflite", app / "models" / "kws.tflite")  # another model
    stale = pre_commit(app, environment, "try-repo", str(hooks), "tflm-ops-header", "--all-files")
    assert stale.returncode == 1 and "Failed" in stale.stdout
    assert "gen-resolver: src/ops.h is stale: regenerate it" in stale.stdout

    (app / "size-budget.toml").write_text("[rom]\ntotal = 1000\n")
    over = pre_commit(app, environment, "try-repo", str(hooks), "tflm-size-budget", "--all-files")
    assert over.returncode == 1 and "rom.total" in over.stdout and "0 passed, 1 failed" in over.stdout


def test_a_project_config_with_args_runs_the_hooks_as_documented(tmp_path, environment):
    """docs/pre-commit.md's config: the hooks repository by URL (here a local clone), each hook with its args."""
    hooks = hook_repository(tmp_path, environment, (REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    revision = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hooks, capture_output=True, text=True,
                              check=True).stdout.strip()
    app = project(tmp_path, environment)
    (app / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {revision}\n    hooks:\n"
        f"      - id: tflm-ops-header\n        args: [{', '.join(HEADER_ARGS)}]\n"
        f"      - id: tflm-size-budget\n        args: [{', '.join(BUDGET_ARGS)}]\n")
    git(app, environment, "add", ".pre-commit-config.yaml")
    assert pre_commit(app, environment, "run", "--all-files").returncode == 0

    subprocess.run([str(SCRIPTS / "gen-resolver"), str(FIXTURES / "models" / "arena_add_chain.tflite"), "--name",
                    "Kws", "-o", "src/ops.h"], cwd=app, check=True)  # a header from another model, committed
    git(app, environment, "add", "src/ops.h")
    result = pre_commit(app, environment, "run", "--all-files")
    assert result.returncode == 1 and "is stale" in result.stdout
    page = (REPO_ROOT / "docs" / "pre-commit.md").read_text()
    assert "id: tflm-ops-header" in page and "id: tflm-size-budget" in page


@pytest.mark.parametrize("changed, runs", [
    ("models/kws.tflite", True), ("src/model_data.cc", True), ("src/model_data.h", True), ("src/ops.h", True),
    ("src/model.cpp", True), ("README.md", False), ("size-budget.toml", False),
])
def test_the_header_hook_runs_when_a_model_held_as_a_c_array_changes(changed, runs):
    import re

    yaml = pytest.importorskip("yaml", reason="PyYAML (a pre-commit dependency) is not installed")
    hooks = {hook["id"]: hook for hook in yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert bool(re.search(hooks["tflm-ops-header"]["files"], changed)) == runs
