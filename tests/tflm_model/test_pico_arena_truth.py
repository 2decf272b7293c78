"""The arena with a firmware's DWARF facts against the smallest arena another TFLM revision accepts: pico-tflmicro's
sync (dfea53b) built for Cortex-M4 with CMSIS-NN and -g, bisected under qemu mps2-an386
(tests/data/pico_arena_truth.csv; how it was measured: docs/arena.md). The struct sizes and revision rules size-report
read from that build's DWARF are tests/data/pico_tflmicro_dwarf_facts.json, so the estimate is recomputed here
without the build.

Each row names its model by a path: `fixtures/...` in this repository (always checked), or `shared/...` in the folder
beside the repo (MODELS_ROOT overrides it), checked when the file is there with the same SHA-256."""

from pathlib import Path

from tests.tflm_model import arena_truth_tables
from tflm_facts.build_sizes import BuildSizes
from tflm_model.arena_estimate import estimate_arena

REPO_ROOT = Path(__file__).resolve().parents[2]
FACTS = REPO_ROOT / "tests" / "data" / "pico_tflmicro_dwarf_facts.json"


def truth_rows() -> list[dict]:
    return arena_truth_tables.truth_rows("pico_arena_truth.csv")


def dwarf_sizes() -> BuildSizes:
    return arena_truth_tables.dwarf_sizes(FACTS.name)


def _rows_with_models() -> list[tuple[dict, Path]]:
    return arena_truth_tables.rows_with_models("pico_arena_truth.csv")


def test_truth_table_is_well_formed_and_the_dwarf_estimate_is_the_measured_minimum():
    rows = truth_rows()
    measured = [row for row in rows if row["status"] == "ok"]
    assert len(measured) >= 20
    assert {(row["kernels"], row["target"], row["tflm"]) for row in rows} == {
        ("cmsis_nn", "cortex-m4-qemu", "pico-tflmicro dfea53b")}
    for row in measured:
        assert len(row["sha256"]) == 64 and not Path(row["source"]).is_absolute()
        assert int(row["estimate_dwarf_bytes"]) == int(row["min_arena_bytes"]), row["model"]


def test_the_committed_facts_differ_from_90b983c_where_the_sync_does():
    sizes = dwarf_sizes()
    assert sizes.rules == {"reduce_accumulator_only"} and sizes.enum_bytes == 1
    assert sizes.op_data["MEAN"] == 40  # OpDataReduce without 90b983c's third scratch index


def test_recomputed_from_the_models_present():
    sizes = dwarf_sizes()
    rows = _rows_with_models()
    assert any(row["source"].startswith("fixtures/") for row, _ in rows)
    for row, path in rows:
        if row["status"] != "ok":
            continue
        with_facts = estimate_arena([path], "cmsis_nn", 4, short_enums=True, sizes=sizes).total_bytes
        assert with_facts == int(row["estimate_dwarf_bytes"]) == int(row["min_arena_bytes"]), row["model"]
        default = estimate_arena([path], "cmsis_nn", 4, short_enums=True).total_bytes
        assert default == int(row["estimate_default_bytes"]), row["model"]
