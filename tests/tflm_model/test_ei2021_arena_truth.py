"""The arena for TFLM's 2020-2021 allocator generation against the smallest arena a real fork of it accepts: Edge
Impulse's inferencing-sdk-cpp of 2021-08-31 (be7b099, TFLM as tflite-micro a37043f), reference kernels built for
Cortex-M0+ with arm-none-eabi GCC (short enums, no TF_LITE_STATIC_MEMORY), bisected to the byte under qemu mps2-an385
with every op of the fork registered (tests/data/ei2021_arena_truth.csv; how: docs/arena.md). The struct sizes
size-report reads from that build's DWARF are tests/data/ei2021_dwarf_facts.json, so every path is recomputed here
without the build: `size-report fit` (DWARF sizes, generation told by the DWARF's allocator classes),
`gen-resolver --arena --tflm TREE` / `--tflm-revision 2020` (the generation's own tables), the current rules (what
the toolkit gave before it knew generations: 17 rows below the minimum) and the unknown-revision bound."""

from pathlib import Path

from tests.tflm_model import arena_truth_tables
from tflm_facts.allocator_generations import CURRENT, GEN_2020, from_struct_names
from tflm_facts.build_sizes import BuildSizes
from tflm_model.arena_estimate import estimate_arena

REPO_ROOT = Path(__file__).resolve().parents[2]
TABLE = "ei2021_arena_truth.csv"
FACTS = REPO_ROOT / "tests" / "data" / "ei2021_dwarf_facts.json"


def dwarf_sizes() -> BuildSizes:
    return arena_truth_tables.dwarf_sizes(FACTS.name)


def _int(text: str) -> int:
    return int(text)


def test_table_is_well_formed_and_the_generation_rules_are_the_measured_minimum():
    rows = arena_truth_tables.truth_rows(TABLE)
    measured = [row for row in rows if row["status"] == "ok"]
    assert len(measured) >= 40
    assert {(row["kernels"], row["tflm"]) for row in rows} == {
        ("reference", "Edge Impulse inferencing-sdk-cpp be7b099")}
    below = 0
    for row in measured:
        minimum = _int(row["min_arena_bytes"])
        assert len(row["sha256"]) == 64 and not Path(row["source"]).is_absolute()
        assert _int(row["estimate_dwarf_bytes"]) == minimum, row["model"]
        assert _int(row["estimate_revision_bytes"]) == minimum and row["estimate_revision_exact"] == "true", row["model"]
        assert _int(row["estimate_unknown_bytes"]) >= minimum, row["model"]
        below += _int(row["estimate_current_bytes"]) < minimum
    assert below >= 10  # the current generation's rules are no bound for this fork: the reason generations exist


def test_the_dwarf_facts_tell_the_generation():
    sizes = dwarf_sizes()
    assert from_struct_names(set(sizes.structs)) is GEN_2020
    assert sizes.structs["TfLiteTensor"] == 64 and sizes.structs["SimpleMemoryAllocator"] == 28
    assert "SubgraphAllocations" not in sizes.structs


def test_recomputed_from_the_models_present():
    sizes = dwarf_sizes()
    rows = arena_truth_tables.rows_with_models(TABLE)
    assert sum(row["source"].startswith("fixtures/") for row, _ in rows) >= 30
    for row, path in rows:
        if row["status"] != "ok":
            continue
        minimum = _int(row["min_arena_bytes"])
        fit = estimate_arena([path], "reference", 4, short_enums=True, sizes=sizes, generation=GEN_2020)
        assert fit.total_bytes == minimum and fit.exact and fit.revision == GEN_2020.label, row["model"]
        tree = estimate_arena([path], "reference", 4, short_enums=True, generation=GEN_2020)
        assert tree.total_bytes == minimum and tree.exact, row["model"]
        current = estimate_arena([path], "reference", 4, short_enums=True, generation=CURRENT).total_bytes
        assert current == _int(row["estimate_current_bytes"]), row["model"]
        unknown = estimate_arena([path], "reference", 4, short_enums=True, sizes=sizes, generation=None)
        assert unknown.total_bytes == _int(row["estimate_unknown_bytes"]) >= minimum and not unknown.exact


def test_a_model_the_generation_refuses_is_refused():
    # one subgraph only in 2020-2021: AllocateTensors() fails on a WHILE model, and so does the estimate
    import pytest
    from tflm_model.errors import ModelError

    rows = {row["model"]: row for row in arena_truth_tables.truth_rows(TABLE)}
    assert rows["arena_while.tflite"]["status"] == "allocate_failed"
    with pytest.raises(ModelError, match="supports one only"):
        estimate_arena([REPO_ROOT / "fixtures" / "models" / "arena_while.tflite"], generation=GEN_2020)
