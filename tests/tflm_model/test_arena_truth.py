"""The arena estimate against the smallest arenas measured on real TFLM (tests/data/arena_truth.csv, see
docs/arena.md): every measured row whose model is in ../shared/models (same SHA-256), for each kernel set."""

import csv
import hashlib
from pathlib import Path

import pytest

from tflm_model.arena_estimate import estimate_arena
from tflm_model.errors import ModelError

TRUTH = Path(__file__).resolve().parents[1] / "data" / "arena_truth.csv"


def truth_rows() -> list[dict]:
    with open(TRUTH, newline="") as handle:
        return list(csv.DictReader(handle))


def test_truth_table_is_well_formed():
    rows = truth_rows()
    assert len(rows) >= 100
    for row in rows:
        assert len(row["sha256"]) == 64 and row["kernels"] in ("reference", "cmsis_nn")
        if row["status"] == "ok":
            assert int(row["min_arena_bytes"]) > 0


def _rows_with_models(shared_models: Path) -> list[tuple[dict, Path]]:
    by_name = {p.name: p for p in shared_models.glob("*.tflite")}
    found = []
    for row in truth_rows():
        path = by_name.get(row["model"])
        if path is not None and hashlib.sha256(path.read_bytes()).hexdigest() == row["sha256"]:
            found.append((row, path))
    return found


def test_int_enum_estimate_is_never_below_a_short_enum_target(shared_models):
    """The default (int-sized enums) is safe for Cortex-M builds too: never below their measured minimum."""
    found = [(row, path) for row, path in _rows_with_models(shared_models)
             if row["status"] == "ok" and row["target"].startswith("cortex-m")]
    if not found:
        pytest.skip("no Cortex-M measurement of a model in ../shared/models")
    for row, path in found:
        assert estimate_arena([path], row["kernels"], 4).total_bytes >= int(row["min_arena_bytes"]), row["model"]


def test_estimate_matches_the_measured_minimum_on_the_shared_models(shared_models):
    found = [(row, path) for row, path in _rows_with_models(shared_models) if row["status"] == "ok"]
    if not found:
        pytest.skip("no measured model is in ../shared/models")
    for row, path in found:
        # Cortex-M4 images are built by arm-none-eabi GCC (short enums), Arm Linux with int-sized enums
        pointer = 8 if row["target"].startswith("x86_64") else 4
        estimate = estimate_arena([path], row["kernels"], pointer, short_enums=row["target"].startswith("cortex-m"))
        measured = int(row["min_arena_bytes"])
        assert estimate.total_bytes >= measured, row["model"]  # never an arena TFLM refuses
        if estimate.exact:
            assert estimate.total_bytes - measured <= 16, row["model"]



def test_models_tflm_cannot_allocate_are_refused(shared_models):
    """Models whose AllocateTensors() failed on TFLM for their types (uint8, hybrid, ...) are refused, not sized."""
    refused = [(row, path) for row, path in _rows_with_models(shared_models) if row["status"] == "allocate_failed"]
    if not refused:
        pytest.skip("no model TFLM refuses is in ../shared/models")
    for row, path in refused:
        with pytest.raises(ModelError):
            estimate_arena([path], row["kernels"], 4)
