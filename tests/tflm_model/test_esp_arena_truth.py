"""The arena with esp-tflite-micro's esp_nn kernel set against the smallest arena that TFLM distribution accepts:
esp-tflite-micro v1.3.8 with esp-nn 1.2.3's generic C kernels, the ESP32-C3 build of the
`esp-tflite-micro-esp32c3-esp_nn` profile, bisected under qemu-system-riscv32 -M virt (tests/data/esp_arena_truth.csv;
how it was measured: docs/arena.md).

Each row names its model by a path: `fixtures/...` in this repository (always checked), or `shared/...` in the folder
beside the repo (MODELS_ROOT overrides it), checked when the file is there with the same SHA-256."""

from pathlib import Path

from tests.tflm_model import arena_truth_tables
from tflm_model.arena_estimate import estimate_arena

REPO_ROOT = Path(__file__).resolve().parents[2]


def truth_rows() -> list[dict]:
    return arena_truth_tables.truth_rows("esp_arena_truth.csv")


def _rows_with_models() -> list[tuple[dict, Path]]:
    return arena_truth_tables.rows_with_models("esp_arena_truth.csv")


def _measured(row: dict) -> bool:
    return row["status"] in ("ok", "ok_per_run")  # ok_per_run: TFLM faulted below the minimum, one run per size


def test_truth_table_is_well_formed_and_the_esp_nn_estimate_is_the_measured_minimum():
    rows = truth_rows()
    measured = [row for row in rows if _measured(row)]
    assert len(measured) >= 20
    assert {(row["kernels"], row["target"], row["tflm"]) for row in rows} == {
        ("esp_nn", "esp32c3-qemu-virt", "esp-tflite-micro v1.3.8 + esp-nn 1.2.3")}
    for row in measured:
        assert len(row["sha256"]) == 64 and not Path(row["source"]).is_absolute()
        assert int(row["estimate_esp_nn_bytes"]) == int(row["min_arena_bytes"]), row["model"]
        assert row["estimate_exact"] == "true", row["model"]
    # the reference rules are below the minimum wherever an esp_nn kernel keeps its NodeData or esp-nn's scratch
    below = [row for row in measured if int(row["estimate_reference_bytes"]) < int(row["min_arena_bytes"])]
    assert len(below) >= 20


def test_recomputed_from_the_models_present():
    rows = _rows_with_models()
    assert any(row["source"].startswith("fixtures/esp_models/") for row, _ in rows)
    for row, path in rows:
        if not _measured(row):
            continue
        estimate = estimate_arena([path], kernels="esp_nn", pointer_bytes=4)
        assert estimate.total_bytes == int(row["min_arena_bytes"]), row["model"]
        assert estimate.exact, row["model"]
        reference = estimate_arena([path], kernels="reference", pointer_bytes=4).total_bytes
        assert reference == int(row["estimate_reference_bytes"]), row["model"]


def test_the_softmax_scratch_is_four_bytes_per_input_dims_1_not_per_row():
    # esp_softmax_rank3 is [1, 40, 30]: the kernel asks esp-nn for 4 x dims[1] = 160 B, though it runs rows of 30
    rows = {row["model"]: row for row, _ in _rows_with_models()}
    rank3 = REPO_ROOT / "fixtures" / "esp_models" / "esp_softmax_rank3.tflite"
    estimate = estimate_arena([rank3], kernels="esp_nn")
    reference = estimate_arena([rank3], kernels="reference")
    assert estimate.total_bytes - reference.total_bytes == 160 + 8  # the scratch, NodeData 64 B against 56
    assert estimate.total_bytes == int(rows["esp_softmax_rank3.tflite"]["min_arena_bytes"])
