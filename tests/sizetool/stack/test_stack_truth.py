"""The stack answers against the peak measured under qemu on real TFLM builds (tests/data/stack_truth.csv, measured
by benchmarks/stack_truth.py: TFLM 90b983c, reference kernels, Cortex-M4F -Os -g, compiled by clang 14 and by
arm-none-eabi-gcc 12.2, one firmware per model whose application paints its stack; docs/stack.md, "On clang-built
firmware"). Every answer is at or above the measurement from the same root. With STACK_TRUTH_DIR (a directory with
one sub-directory per compiler holding MODEL.elf, and STACK_TRUTH_MODELS with the .tflite files), the table is
recomputed."""

import csv
import os
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

TABLE = REPO_ROOT / "tests" / "data" / "stack_truth.csv"
ROWS = list(csv.DictReader(TABLE.open()))


def test_the_table_has_both_compilers_and_at_least_three_models_each():
    for compiler in ("clang", "gcc"):
        models = {row["model"] for row in ROWS if row["compiler"] == compiler}
        assert "person_detect" in models and len(models) >= 3


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['compiler']}-{r['model']}" for r in ROWS])
def test_no_answer_is_below_the_measured_peak(row):
    figures = {key: int(value) for key, value in row.items() if key not in ("compiler", "model")}
    assert figures["static_invoke"] >= figures["static_invoke_no_errors"] >= figures["measured_invoke"] > 0
    assert figures["static_main"] >= figures["static_main_no_errors"] >= figures["measured_main"] > 0
    # what gen-resolver --fit says with a profile of the same firmware is the same walk
    assert figures["profile_invoke"] == figures["static_invoke"]


def test_without_the_error_paths_gcc_builds_are_exactly_the_measurement():
    gcc = [row for row in ROWS if row["compiler"] == "gcc"]
    assert all(row["static_invoke_no_errors"] == row["measured_invoke"] for row in gcc)
    assert all(row["static_main_no_errors"] == row["measured_main"] for row in gcc)


@pytest.mark.skipif(not os.environ.get("STACK_TRUTH_DIR"), reason="STACK_TRUTH_DIR (the builds, outside this "
                    "repository) is not set")
def test_the_builds_give_what_the_table_says(tmp_path):
    import sys

    sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
    from stack_truth import rows

    root = Path(os.environ["STACK_TRUTH_DIR"])
    models = Path(os.environ.get("STACK_TRUTH_MODELS", REPO_ROOT.parent / "shared" / "models"))
    for compiler in sorted({row["compiler"] for row in ROWS}):
        if not (root / compiler).is_dir():
            continue
        measured = {row["model"]: row for row in rows(compiler, root / compiler, models, tmp_path)}
        for row in (r for r in ROWS if r["compiler"] == compiler and r["model"] in measured):
            assert {key: str(value) for key, value in measured[row["model"]].items()} == row
