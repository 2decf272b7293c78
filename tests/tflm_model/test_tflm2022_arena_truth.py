"""The 2022-04 allocator generation (today's allocation sequence behind a SimpleMemoryAllocator) against the smallest
arena tflite-micro 1bdc373d4 (2022-04-25) accepts: reference kernels for Cortex-M0+, arm-none-eabi GCC,
TF_LITE_STATIC_MEMORY, bisected to the byte under qemu mps2-an385 (tests/data/tflm2022_arena_truth.csv; how:
docs/arena.md). Its DWARF tells the generation (tests/data/tflm2022_dwarf_facts.json); today's rules would be below
the minimum on half the models."""

import json
from pathlib import Path

from tests.tflm_model import arena_truth_tables
from tflm_facts.allocator_generations import GEN_2022_04, from_struct_names
from tflm_facts.build_sizes import BuildSizes
from tflm_model.arena_estimate import estimate_arena

REPO_ROOT = Path(__file__).resolve().parents[2]
TABLE = "tflm2022_arena_truth.csv"
FACTS = REPO_ROOT / "tests" / "data" / "tflm2022_dwarf_facts.json"
REVISION = "tflite-micro 1bdc373d4"


def dwarf_sizes() -> BuildSizes:
    return arena_truth_tables.dwarf_sizes(FACTS.name)


def test_table_holds_the_generation_to_the_measured_minimum():
    rows = arena_truth_tables.truth_rows(TABLE)
    measured = [row for row in rows if row["status"] == "ok"]
    assert len(measured) >= 40 and {row["tflm"] for row in rows} == {REVISION}
    below = 0
    for row in measured:
        minimum = int(row["min_arena_bytes"])
        assert int(row["estimate_dwarf_bytes"]) == minimum, row["model"]
        assert int(row["estimate_revision_bytes"]) == minimum and row["estimate_revision_exact"] == "true"
        assert int(row["estimate_unknown_bytes"]) >= minimum
        below += int(row["estimate_current_bytes"]) < minimum
    assert below >= 10


def test_the_dwarf_facts_tell_the_generation():
    data = json.loads(FACTS.read_text())
    assert data["generation"] == GEN_2022_04.key
    assert from_struct_names(set(data["structs"]) | {"IPersistentBufferAllocator"}) is GEN_2022_04


def test_recomputed_from_the_models_present():
    sizes = dwarf_sizes()
    rows = arena_truth_tables.rows_with_models(TABLE)
    assert sum(row["source"].startswith("fixtures/") for row, _ in rows) >= 30
    for row, path in rows:
        if row["status"] != "ok":
            continue
        minimum = int(row["min_arena_bytes"])
        fit = estimate_arena([path], "reference", 4, short_enums=True, sizes=sizes, generation=GEN_2022_04)
        assert fit.total_bytes == minimum and fit.exact, row["model"]
        tree = estimate_arena([path], "reference", 4, short_enums=True, generation=GEN_2022_04, revision=REVISION)
        assert tree.total_bytes == minimum and tree.exact, row["model"]
