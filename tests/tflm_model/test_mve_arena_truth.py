"""The arena estimate with CMSIS-NN's MVE rules (`--arena --kernels cmsis_nn --mve --short-enums`) against the smallest
arenas measured on real TFLM for Cortex-M55 under qemu (tests/data/mve_arena_truth.csv, see docs/arena.md).

Each row names its model by a path: `fixtures/mve_models/...` and `fixtures/models/...` in this repository (always
checked), or under the folder beside the repo (`shared/models/...`, `ext/models/...`, `ext/tflm/...`; MODELS_ROOT
overrides that folder), checked when the file is there with the same SHA-256."""

from pathlib import Path

import pytest

from tests.tflm_model import arena_truth_tables
from tflm_model.arena_estimate import estimate_arena
from tflm_model.errors import ModelError

REPO_ROOT = Path(__file__).resolve().parents[2]


def truth_rows() -> list[dict]:
    return arena_truth_tables.truth_rows("mve_arena_truth.csv")


def _rows_with_models() -> list[tuple[dict, Path]]:
    return arena_truth_tables.rows_with_models("mve_arena_truth.csv")


def _mve(path: Path):
    return estimate_arena([path], "cmsis_nn", 4, short_enums=True, cpu_features="mve")


def test_truth_table_is_well_formed():
    rows = truth_rows()
    assert len(rows) >= 100
    assert {row["target"] for row in rows} == {"cortex-m55-qemu"}
    for row in rows:
        assert len(row["sha256"]) == 64 and row["kernels"] == "cmsis_nn"
        assert not Path(row["source"]).is_absolute() and ".." not in Path(row["source"]).parts
        assert row["smaller_arena"] in (("fails", "crashes") if row["status"] == "ok" else ("",))
        if row["status"] == "ok":
            measured = int(row["min_arena_bytes"])
            assert measured > 0
            # the committed estimate equals the measured minimum where it claims to be exact, and is above it where
            # it is a flagged bound: the table is the proof docs/arena.md cites
            if row["estimate_exact"] == "true":
                assert int(row["estimate_mve_bytes"]) == measured, row["model"]
            else:
                assert int(row["estimate_mve_bytes"]) >= measured, row["model"]
            # int-sized enums are never below a short-enum build
            assert int(row["estimate_mve_int_enums_bytes"]) >= measured, row["model"]


def test_measured_table_shows_the_mve_rules_matter():
    """Models whose DSP-rule estimate differs from the MVE minimum: without --mve the arena would be wrong there."""
    differing = [row for row in truth_rows()
                 if row["status"] == "ok" and row["estimate_dsp_bytes"] != row["min_arena_bytes"]]
    assert differing
    assert any(int(row["estimate_dsp_bytes"]) < int(row["min_arena_bytes"]) for row in differing)


def test_the_mve_fixtures_are_all_measured():
    """Every model fixtures/mve_models/make_mve_models.py writes has its row, so a new rule case gets measured."""
    measured = {row["source"] for row in truth_rows()}
    written = {f"fixtures/mve_models/{path.name}" for path in (REPO_ROOT / "fixtures" / "mve_models").glob("*.tflite")}
    assert written and written <= measured


def test_mve_estimate_equals_the_measured_minimum():
    found = [(row, path) for row, path in _rows_with_models() if row["status"] == "ok"]
    assert any(row["source"].startswith("fixtures/") for row, _ in found)  # the fixtures are always there
    for row, path in found:
        estimate = _mve(path)
        measured = int(row["min_arena_bytes"])
        assert estimate.total_bytes == int(row["estimate_mve_bytes"]), row["model"]
        assert str(estimate.exact).lower() == row["estimate_exact"], row["model"]
        if estimate.exact:
            assert estimate.total_bytes == measured, row["model"]
        else:  # the one-input-channel depthwise 1xN: TFLM sizes its buffer with a stride it leaves unset
            assert estimate.total_bytes >= measured and estimate.notes, row["model"]


def test_recorded_int_enum_and_dsp_estimates_are_what_the_code_says():
    """The other columns record `--mve` with int-sized enums and the DSP rules (no --mve), to show what each changes."""
    for row, path in _rows_with_models():
        if row["status"] != "ok":
            continue
        int_enums = estimate_arena([path], "cmsis_nn", 4, cpu_features="mve")
        dsp = estimate_arena([path], "cmsis_nn", 4, short_enums=True)
        assert int_enums.total_bytes == int(row["estimate_mve_int_enums_bytes"]), row["model"]
        assert dsp.total_bytes == int(row["estimate_dsp_bytes"]), row["model"]


def test_models_tflm_cannot_allocate_are_refused_or_flagged():
    """AllocateTensors() failed on the M55 at every size: gen-resolver refuses the model, or flags its figure as a
    bound (custom ops it cannot see into)."""
    failed = [(row, path) for row, path in _rows_with_models() if row["status"] == "allocate_failed"]
    if not failed:
        pytest.skip(f"no model TFLM refused is under {arena_truth_tables.MODELS_ROOT}")
    for row, path in failed:
        try:
            estimate = _mve(path)
        except ModelError:
            continue
        assert not estimate.exact, row["model"]
