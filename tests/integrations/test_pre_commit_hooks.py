"""The pre-commit hooks run by pre-commit itself, configured exactly as docs/pre-commit.md says (each config copied
from the page) in a fresh temporary git repository: the header hook fails on a stale ops.h and passes on a fresh one,
the budget hook fails on a committed report over its budget and passes within it; `try-repo` stops with the usage
error the page shows. No network: the hooks are `language: system` and the hook repository is a local clone."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from resolver_gen import __version__

from tests.conftest import FIXTURES, REPO_ROOT

SCRIPTS = Path(sys.executable).parent
ELF = FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware.elf"
PAGE = REPO_ROOT / "docs" / "pre-commit.md"


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


def documented_config(marker: str) -> str:
    """The page's .pre-commit-config.yaml holding `marker` (its yaml blocks are the configs it gives)."""
    blocks = [b for b in re.findall(r"```yaml\n(.*?)```", PAGE.read_text(), re.DOTALL) if marker in b]
    assert len(blocks) == 1, marker
    return blocks[0]


def documented_commands(section: str) -> list[list[str]]:
    """The commands of the page's first sh block after `section`, without comments."""
    text = PAGE.read_text()
    block = re.search(r"```sh\n(.*?)```", text[text.index(section):], re.DOTALL).group(1)
    return [line.split("#")[0].split() for line in block.splitlines() if line.split("#")[0].strip()]


def run_documented(app, environment, commands) -> None:
    for command in commands:
        if command[0] == "git":
            git(app, environment, *command[1:])
        else:
            assert command[:1] == ["pre-commit"], command
            result = pre_commit(app, environment, *command[1:])
            assert result.returncode == 0, result.stdout


def commit(app, environment, *paths) -> subprocess.CompletedProcess:
    """`git add` and `git commit`, as a user would: the hooks pre-commit installed run."""
    git(app, environment, "add", *paths)
    return subprocess.run(["git", "commit", "-m", "change"], cwd=app, env=environment, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def stale_header_and_over_budget_fail_fresh_ones_pass(app, environment) -> None:
    """Commit the config; then a changed model without its header (refused, the stale header named), then with the
    header regenerated as the page says (accepted); a budget below the committed report (refused) and back."""
    configured = commit(app, environment, ".pre-commit-config.yaml")
    assert configured.returncode == 0, configured.stdout
    shutil.copy2(FIXTURES / "models" / "arena_add_chain.tflite", app / "models" / "kws.tflite")  # other ops
    stale = commit(app, environment, "models/kws.tflite")
    assert stale.returncode == 1 and "gen-resolver: src/ops.h is stale: regenerate it" in stale.stdout, stale.stdout
    regenerate = re.search(r"\(`(gen-resolver [^`]* -o src/ops\.h)`\)", PAGE.read_text()).group(1).split()
    subprocess.run([str(SCRIPTS / regenerate[0]), *regenerate[1:]], cwd=app, check=True)
    fresh = commit(app, environment, "models/kws.tflite", "src/ops.h")
    assert fresh.returncode == 0 and "TFLM op resolver header matches its models" in fresh.stdout, fresh.stdout
    assert "Passed" in fresh.stdout

    budget = (app / "size-budget.toml").read_text()
    (app / "size-budget.toml").write_text("[rom]\ntotal = 1000\n")
    over = commit(app, environment, "size-budget.toml")
    assert over.returncode == 1 and "rom.total" in over.stdout and "0 passed, 1 failed" in over.stdout
    (app / "size-budget.toml").write_text(budget + "[ram]\ntotal = \"64K\"\n")
    within = commit(app, environment, "size-budget.toml")
    assert within.returncode == 0 and "Committed size report within its budget" in within.stdout, within.stdout


def test_the_documented_local_config_stops_a_stale_header_and_a_report_over_budget(tmp_path, environment):
    app = project(tmp_path, environment)
    (app / ".pre-commit-config.yaml").write_text(documented_config("repo: local"))
    run_documented(app, environment, documented_commands("Then, in that repository:"))
    assert (app / ".git" / "hooks" / "pre-commit").exists()
    stale_header_and_over_budget_fail_fresh_ones_pass(app, environment)


def test_the_documented_pinned_config_runs_this_repositorys_hooks_at_the_release_tag(tmp_path, environment):
    """The page's `rev` is the tag of the package's version (the release tag the lead creates); `repo` points here
    at a local clone of this repository's hooks tagged so, since the tests have no network."""
    config = documented_config("rev:")
    rev = re.search(r"rev: (\S+)", config).group(1)
    assert rev == f"v{__version__}"
    hooks = hook_repository(tmp_path, environment, (REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    git(hooks, environment, "tag", rev)
    app = project(tmp_path, environment)
    config = re.sub(r"repo: \S+.*", f"repo: {hooks}", config, count=1)
    (app / ".pre-commit-config.yaml").write_text(config)
    run_documented(app, environment, documented_commands("Then, in that repository:"))
    stale_header_and_over_budget_fail_fresh_ones_pass(app, environment)


def test_the_local_config_declares_the_hooks_as_this_repository_does():
    """repo: local repeats .pre-commit-hooks.yaml's definitions: the same entry, language and files for each id."""
    manifest = (REPO_ROOT / ".pre-commit-hooks.yaml").read_text()
    local = documented_config("repo: local")
    for hook in ("tflm-ops-header", "tflm-size-budget"):
        declared = manifest[manifest.index(f"- id: {hook}"):].split("\n- id:")[0]
        for key in ("name", "entry", "language", "pass_filenames", "files"):
            value = re.search(rf"^  {key}: (.*)$", declared, re.MULTILINE).group(1)
            assert f"{key}: {value}" in local[local.index(f"id: {hook}"):], (hook, key)


def test_try_repo_cannot_pass_args_and_stops_with_the_usage_error_the_page_shows(tmp_path, environment):
    hooks = hook_repository(tmp_path, environment, (REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    app = project(tmp_path, environment)
    tried = pre_commit(app, environment, "try-repo", str(hooks), "tflm-ops-header", "--all-files")
    assert tried.returncode == 1 and "- exit code: 2" in tried.stdout
    usage = "gen-resolver: error: no model given (gen-resolver MODEL.tflite ...)"
    assert usage in tried.stdout.splitlines() and usage in PAGE.read_text()
    assert "cannot pass `args`" in PAGE.read_text()


@pytest.mark.parametrize("changed, runs", [
    ("models/kws.tflite", True), ("src/model_data.cc", True), ("src/model_data.h", True), ("src/ops.h", True),
    ("src/model.cpp", True), ("README.md", False), ("size-budget.toml", False),
])
def test_the_header_hook_runs_when_a_model_held_as_a_c_array_changes(changed, runs):
    yaml = pytest.importorskip("yaml", reason="PyYAML (a pre-commit dependency) is not installed")
    hooks = {hook["id"]: hook for hook in yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert bool(re.search(hooks["tflm-ops-header"]["files"], changed)) == runs
