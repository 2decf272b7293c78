"""The current allocator generation on an older revision of it: tflite-micro 02414075e (2023-06-16), reference
kernels built for Cortex-M0+ with arm-none-eabi GCC and TF_LITE_STATIC_MEMORY (its Makefile's default), bisected to
the byte under qemu mps2-an385 (tests/data/tflm2023_arena_truth.csv; how: docs/arena.md). Its DWARF sizes
(tests/data/tflm2023_dwarf_facts.json) make `size-report fit` exact on every model; without them the current tables
(90b983c's sizes) are above on the models whose kernels' OpData shrank since, never below, and a --tflm tree of this
revision is labelled an upper bound."""

from pathlib import Path

from tests.tflm_model import arena_truth_tables
from tflm_facts.allocator_generations import CURRENT, from_struct_names
from tflm_facts.build_sizes import BuildSizes
from tflm_model.arena_estimate import estimate_arena

REPO_ROOT = Path(__file__).resolve().parents[2]
TABLE = "tflm2023_arena_truth.csv"
FACTS = REPO_ROOT / "tests" / "data" / "tflm2023_dwarf_facts.json"
REVISION = "tflite-micro 02414075e"


def dwarf_sizes() -> BuildSizes:
    return arena_truth_tables.dwarf_sizes(FACTS.name)


def test_table_holds_the_estimate_to_the_measured_minimum():
    rows = arena_truth_tables.truth_rows(TABLE)
    measured = [row for row in rows if row["status"] == "ok"]
    assert len(measured) >= 40 and {row["tflm"] for row in rows} == {REVISION}
    above = 0
    for row in measured:
        minimum = int(row["min_arena_bytes"])
        assert int(row["estimate_dwarf_bytes"]) == minimum, row["model"]
        assert int(row["estimate_revision_bytes"]) >= minimum and row["estimate_revision_exact"] == "false"
        assert int(row["estimate_unknown_bytes"]) >= minimum
        above += int(row["estimate_current_bytes"]) > minimum
    assert above >= 10  # 90b983c's sizes are not this revision's: the reason it is not called exact


def test_the_dwarf_facts_tell_the_current_generation_with_the_older_sizes():
    sizes = dwarf_sizes()
    assert from_struct_names(set(sizes.structs)) is CURRENT
    assert sizes.op_data["FULLY_CONNECTED"] == 36 and sizes.rules == {"reduce_accumulator_only"}


def test_recomputed_from_the_models_present():
    sizes = dwarf_sizes()
    rows = arena_truth_tables.rows_with_models(TABLE)
    assert sum(row["source"].startswith("fixtures/") for row, _ in rows) >= 30
    for row, path in rows:
        if row["status"] != "ok":
            continue
        minimum = int(row["min_arena_bytes"])
        fit = estimate_arena([path], "reference", 4, short_enums=True, sizes=sizes)
        assert fit.total_bytes == minimum and fit.exact, row["model"]
        tree = estimate_arena([path], "reference", 4, short_enums=True, revision=f"the --tflm tree, {REVISION}")
        assert tree.total_bytes == int(row["estimate_revision_bytes"]) >= minimum and not tree.exact, row["model"]
