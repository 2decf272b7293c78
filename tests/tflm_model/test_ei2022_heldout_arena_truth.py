"""The held-out check of the 2020-2021 allocator generation: Edge Impulse's inferencing-sdk-cpp of 2022-09-16
(4c96547), whose TFLM the generation's rules were not read from, built with its own flags for Cortex-M0+ (reference
kernels, arm-none-eabi GCC, short enums, no TF_LITE_STATIC_MEMORY), every op registered, the smallest arena
AllocateTensors() accepts bisected to the byte under qemu mps2-an385 for 205 models, 166 of them public
(tests/data/ei2022_arena_truth.csv; how: docs/arena.md).

The heldout_* columns are what `size-report fit HARNESS.elf MODEL` and `gen-resolver MODEL --arena --tflm TREE` (with
and without --short-enums) printed before any rule was changed; the other columns are the estimate as the code gives
it now, recomputed here from the build's DWARF sizes (tests/data/ei2022_dwarf_facts.json) for every model present."""

from tests.tflm_model import arena_truth_tables
from tflm_facts.allocator_generations import GEN_2020, from_struct_names
from tflm_model.arena_estimate import estimate_arena

TABLE = "ei2022_arena_truth.csv"
FACTS = "ei2022_dwarf_facts.json"
REVISION = "Edge Impulse inferencing-sdk-cpp 4c96547"


def _measured(public_only: bool = False) -> list[dict]:
    rows = [row for row in arena_truth_tables.truth_rows(TABLE) if row["status"] == "ok"]
    return [row for row in rows if not (public_only and row["source"].startswith("fixtures/"))]


def _tally(rows: list[dict], column: str) -> tuple[int, int, int]:
    diffs = [int(row[column]) - int(row["min_arena_bytes"]) for row in rows]
    return sum(d == 0 for d in diffs), sum(d < 0 for d in diffs), sum(d > 0 for d in diffs)


def test_table_is_well_formed():
    rows = arena_truth_tables.truth_rows(TABLE)
    assert {(row["kernels"], row["tflm"]) for row in rows} == {("reference", REVISION)}
    assert len(_measured(public_only=True)) >= 60
    for row in rows:
        assert len(row["sha256"]) == 64 and not row["source"].startswith("/")


def test_the_held_out_answers_as_recorded():
    # before any rule changed: the DWARF path exact on 134 of 166 public models and 22 below (PAD's OpData read from
    # another kernel's struct); the tree with short enums never below; with int-sized enums 90b983c's struct sizes
    # stood in for the generation's and 135 were below
    public = _measured(public_only=True)
    assert _tally(public, "heldout_fit_bytes") == (134, 22, 10)
    assert _tally(public, "heldout_tree_bytes") == (134, 0, 32)
    assert _tally(public, "heldout_tree_int_enums_bytes")[1] == 135


def test_after_the_fixes_every_model_is_exact_and_called_so():
    # the fixes (docs/arena.md): PAD's OpData and the kernels' plain OpData structs read from the older build's own
    # units; FULLY_CONNECTED per tensor only, TRANSPOSE_CONV int16 without scratch, CONCATENATION's persistent scales
    public = _measured(public_only=True)
    for column in ("fit_bytes", "tree_bytes"):
        assert _tally(public, column) == (len(public), 0, 0)
    for row in _measured():
        minimum = int(row["min_arena_bytes"])
        assert int(row["fit_bytes"]) == int(row["tree_bytes"]) == minimum, row["model"]
        assert row["fit_exact"] == row["tree_exact"] == "true", row["model"]
        # int-sized enums: only the short-enum build was measured, so a bound, never below it
        assert int(row["tree_int_enums_bytes"]) >= minimum, row["model"]
        assert int(row["estimate_unknown_bytes"]) >= minimum, row["model"]


def test_the_dwarf_facts_tell_the_2020_generation():
    sizes = arena_truth_tables.dwarf_sizes(FACTS)
    assert from_struct_names(set(sizes.structs)) is GEN_2020
    assert sizes.op_data["PAD"] == 48 and sizes.op_data["MUL"] == 36 and sizes.structs["TfLiteTensor"] == 64


def test_recomputed_from_the_models_present():
    sizes = arena_truth_tables.dwarf_sizes(FACTS)
    rows = [(row, path) for row, path in arena_truth_tables.rows_with_models(TABLE) if row["status"] == "ok"]
    assert sum(row["source"].startswith("fixtures/") for row, _ in rows) >= 30
    for row, path in rows:
        fit = estimate_arena([path], "reference", 4, short_enums=True, sizes=sizes, generation=GEN_2020)
        assert fit.total_bytes == int(row["fit_bytes"]) and str(fit.exact).lower() == row["fit_exact"], row["model"]
        tree = estimate_arena([path], "reference", 4, short_enums=True, generation=GEN_2020)
        assert tree.total_bytes == int(row["tree_bytes"]) and str(tree.exact).lower() == row["tree_exact"]
        wide = estimate_arena([path], "reference", 4, generation=GEN_2020)
        assert wide.total_bytes == int(row["tree_int_enums_bytes"]) and not wide.exact, row["model"]
