"""Helpers for the tests that configure and build CMake projects with the toolkit's CMake package: the tools they
need (skip reasons), a stand-in for TFLM's resolver API, and cmake/ninja runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO_ROOT
from tests.resolver_gen.test_render import STAND_IN_MICRO, _stand_in_kernel_headers, _stand_in_method
from tflm_facts.registry import BUILTIN_OPS, TFLM_CUSTOM_OPS

PROJECTS = Path(__file__).resolve().parent / "projects"
SCRIPTS = Path(sys.executable).parent  # where pip put gen-resolver and size-report for this Python


def require_tools(*programs: str) -> None:
    """Skip, naming what is missing: cmake, ninja, a compiler, or the toolkit's own commands."""
    for program in programs:
        if shutil.which(program) is None:
            pytest.skip(f"{program} is not installed (.ci/run installs it with apt-get)")
    for tool in ("gen-resolver", "size-report"):
        if not (SCRIPTS / tool).exists():
            pytest.skip(f"{tool} is not installed next to {sys.executable} (pip install -e .)")


def write_stand_in(root: Path) -> Path:
    """TFLM's resolver API and kernel headers as tests/resolver_gen/test_render.py stands them in."""
    methods = sorted({m for _c, m in BUILTIN_OPS.values() if m} | set(TFLM_CUSTOM_OPS.values()))
    api = root / "tensorflow" / "lite" / "micro" / "micro_mutable_op_resolver.h"
    api.parent.mkdir(parents=True, exist_ok=True)
    api.write_text(STAND_IN_MICRO % "\n".join(_stand_in_method(m) for m in methods))
    _stand_in_kernel_headers(root)
    return root


def copy_project(name: str, destination: Path, models: tuple[str, ...] | dict[str, str] = (),
                 models_dir: str = "models") -> Path:
    """A copy of tests/integrations/projects/<name> with fixture models in models_dir (the test may touch them);
    models maps a name in the project to a fixture model, or lists fixture models kept under their names."""
    project = destination / name
    shutil.copytree(PROJECTS / name, project)
    if models:
        (project / models_dir).mkdir()
        for model, fixture in (models.items() if isinstance(models, dict) else zip(models, models)):
            shutil.copy2(FIXTURES / "models" / fixture, project / models_dir / model)
    return project


def cmake_package_dir() -> str:
    return subprocess.run([str(SCRIPTS / "gen-resolver"), "--cmake-dir"], capture_output=True, text=True,
                          check=True).stdout.strip()


def configure(source: Path, build: Path, *options: str, generator: str = "Ninja") -> subprocess.CompletedProcess:
    return subprocess.run(["cmake", "-G", generator, "-S", str(source), "-B", str(build), *options],
                          capture_output=True, text=True, env=_environment())


def build(build_dir: Path, *options: str) -> subprocess.CompletedProcess:
    """`cmake --build`, its stdout and stderr in one text (as a terminal shows them)."""
    return subprocess.run(["cmake", "--build", str(build_dir), *options], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, env=_environment())


def ninja_explain(build_dir: Path) -> str:
    """What ninja would run and why (`ninja -n -d explain`), without running it."""
    result = subprocess.run(["ninja", "-C", str(build_dir), "-n", "-d", "explain"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=_environment())
    return result.stdout


def touch(path: Path, newer_than: Path) -> None:
    """Touch a file, making it newer than newer_than (a coarse file system clock cannot hide the change)."""
    os.utime(path)
    floor = newer_than.stat().st_mtime_ns + 1_000_000
    if path.stat().st_mtime_ns < floor:
        os.utime(path, ns=(floor, floor))


def _environment() -> dict[str, str]:
    # The toolkit's scripts are found through the hints or overrides the test gives, not through whatever PATH has.
    environment = dict(os.environ)
    environment["PATH"] = os.pathsep.join(
        p for p in environment.get("PATH", "").split(os.pathsep) if not (Path(p) / "gen-resolver").exists())
    return environment


__all__ = ["REPO_ROOT", "FIXTURES"]
