"""The SimpleMemoryAllocator generations of upstream tflite-micro against the smallest arena each measured revision
accepts: reference kernels for Cortex-M0+, arm-none-eabi GCC, TF_LITE_STATIC_MEMORY, bisected to the byte under qemu
mps2-an385 (tests/data/tflm20*_arena_truth.csv; how: docs/arena.md). Each build's DWARF tells its generation
(tests/data/tflm20*_dwarf_facts.json), and with the generation's rules both its DWARF sizes (size-report fit) and its
name (--tflm-revision, or its tree) give the measured minimum on every model.

- 2021-05 at 5e65f82 (2021-09-08): as 2021 below, but the greedy planner is on the stack, not in the arena (its
  DWARF: MicroAllocator without memory_planner_); 606b7b2f0's tables are above it by the planner on every model.
- 2021 at 606b7b2f0 (2021-12-31): subgraphs and the planner in the arena, but the 2020 generation's plan beside the
  scratch requests, variables after it and a temporary TfLiteTensor per GetInput()/GetOutput(); today's rules are
  above the minimum on every model (today's larger structs and OpData).
- 2022-01 at 05b427e (2022-03-01): the 2021 rules with MicroContext and a larger SimpleMemoryAllocator (36 B):
  606b7b2f0's tables would be below its minimum on every model.
- 2022-03 at d6eb8ce (2022-04-04): one plan across subgraphs (two multi-subgraph models measured), the 2022-04
  sequence with smaller allocator classes; 1bdc373d4's tables are above it on every model.
- 2022-04 at 1bdc373d4 (2022-04-25): today's allocation sequence behind a SimpleMemoryAllocator; today's rules
  would be below the minimum on half the models.
"""

import json
from dataclasses import dataclass

import pytest

from tests.tflm_model import arena_truth_tables
from tflm_facts.allocator_generations import (GEN_2021, GEN_2021_05, GEN_2022_01, GEN_2022_03, GEN_2022_04,
                                              Generation, from_struct_names, named)
from tflm_model.arena_estimate import estimate_arena
from tflm_model.errors import ModelError


@dataclass(frozen=True)
class Revision:
    table: str
    facts: str
    revision: str  # as the table's tflm column names it
    generation: Generation
    current_below: bool  # today's rules (90b983c) are below the minimum on some models (else above on all)
    current_off_on_at_least: int
    told_by_extra: frozenset = frozenset()  # classes the facts file leaves out that its DWARF has
    members: dict | None = None  # the class members the DWARF lists that tell the generation (the facts file has none)
    # another generation's tables for this revision: (generation, its figure is below the minimum on some models)
    neighbour: tuple = ()


_ON_THE_STACK = {"MicroAllocator": ("_vptr.MicroAllocator", "memory_allocator_", "builtin_data_allocator_",
                                     "error_reporter_", "model_is_allocating_", "scratch_buffer_request_count_",
                                     "max_head_buffer_usage_")}
REVISIONS = [
    Revision("tflm2021_05_arena_truth.csv", "tflm2021_05_dwarf_facts.json", "tflite-micro 5e65f82", GEN_2021_05, False,
             35, members=_ON_THE_STACK, neighbour=(GEN_2021, False)),
    Revision("tflm2021_arena_truth.csv", "tflm2021_dwarf_facts.json", "tflite-micro 606b7b2f0", GEN_2021, False, 40),
    Revision("tflm2022_01_arena_truth.csv", "tflm2022_01_dwarf_facts.json", "tflite-micro 05b427e", GEN_2022_01, False,
             40, frozenset({"MicroContext"}), neighbour=(GEN_2021, True)),
    Revision("tflm2022_03_arena_truth.csv", "tflm2022_03_dwarf_facts.json", "tflite-micro d6eb8ce", GEN_2022_03, False,
             30, frozenset({"MicroContext", "GraphAllocationInfo"}), neighbour=(GEN_2022_04, False)),
    Revision("tflm2022_arena_truth.csv", "tflm2022_dwarf_facts.json", "tflite-micro 1bdc373d4", GEN_2022_04, True, 10,
             frozenset({"IPersistentBufferAllocator"})),
]
ids = [revision.revision for revision in REVISIONS]


@pytest.mark.parametrize("measured", REVISIONS, ids=ids)
def test_table_holds_the_generation_to_the_measured_minimum(measured):
    rows = arena_truth_tables.truth_rows(measured.table)
    ok = [row for row in rows if row["status"] == "ok"]
    assert len(ok) >= 39 and {row["tflm"] for row in rows} == {measured.revision}
    off = 0
    for row in ok:
        minimum = int(row["min_arena_bytes"])
        assert int(row["estimate_dwarf_bytes"]) == minimum, row["model"]
        assert int(row["estimate_revision_bytes"]) == minimum and row["estimate_revision_exact"] == "true"
        assert int(row["estimate_unknown_bytes"]) >= minimum  # the bound without a revision: never below
        current = int(row["estimate_current_bytes"])
        off += current < minimum if measured.current_below else current > minimum
    assert off >= measured.current_off_on_at_least


@pytest.mark.parametrize("measured", REVISIONS, ids=ids)
def test_the_dwarf_facts_tell_the_generation(measured):
    data = json.loads((arena_truth_tables.REPO_ROOT / "tests" / "data" / measured.facts).read_text())
    assert data["generation"] == measured.generation.key
    assert from_struct_names(set(data["structs"]) | measured.told_by_extra, measured.members) is measured.generation
    assert named(measured.revision.split()[-1]) is measured.generation


@pytest.mark.parametrize("measured", REVISIONS, ids=ids)
def test_recomputed_from_the_models_present(measured):
    sizes = arena_truth_tables.dwarf_sizes(measured.facts)
    rows = arena_truth_tables.rows_with_models(measured.table)
    assert sum(row["source"].startswith("fixtures/") for row, _ in rows) >= 30
    for row, path in rows:
        if row["status"] == "eval_unsupported":  # AllocateTensors() accepts it, the kernel's Eval() rejects its types
            with pytest.raises(ModelError, match="unsupported types"):
                estimate_arena([path], "reference", 4, short_enums=True, generation=measured.generation)
            continue
        if row["status"] != "ok":
            continue
        minimum = int(row["min_arena_bytes"])
        fit = estimate_arena([path], "reference", 4, short_enums=True, sizes=sizes, generation=measured.generation)
        assert fit.total_bytes == minimum and fit.exact, row["model"]
        tree = estimate_arena([path], "reference", 4, short_enums=True, generation=measured.generation,
                              revision=measured.revision)
        assert tree.total_bytes == minimum and tree.exact, row["model"]
        assert measured.revision in tree.revision


@pytest.mark.parametrize("measured", [r for r in REVISIONS if r.neighbour], ids=lambda r: r.revision)
def test_the_neighbouring_generations_tables_are_not_this_revisions(measured):
    """The generation next to the measured one, whose rules but not sizes it shares: its figure is off the minimum on
    every model (above for the planner on the stack and for 2022-04's larger allocator classes, below for 2021's
    smaller SimpleMemoryAllocator at 2022-01), which is why each revision range is a generation of its own."""
    other, below = measured.neighbour
    rows = arena_truth_tables.rows_with_models(measured.table)
    checked = 0
    for row, path in rows:
        if row["status"] != "ok":
            continue
        figure = estimate_arena([path], "reference", 4, short_enums=True, generation=other).total_bytes
        minimum = int(row["min_arena_bytes"])
        assert figure < minimum if below else figure > minimum, row["model"]
        checked += 1
    assert checked >= 30


def test_a_multi_subgraph_model_on_the_2021_generation_is_replayed_per_subgraph():
    """606b7b2f0 plans each subgraph on its own (planning across subgraphs came 2022-03-01): the estimate replays it
    (measured: tests/tflm_model/test_subgraph_arena_truth.py), so an IF model is exact and no figure is "may be low";
    WHILE, which that revision lacks, keeps 90b983c's kernel rules, named as assumed."""
    from tests.conftest import FIXTURES

    found = estimate_arena([FIXTURES / "models" / "arena_if.tflite"], short_enums=True, generation=GEN_2021)
    assert found.exact and not any("may be low" in n for n in found.notes)
    while_ = estimate_arena([FIXTURES / "models" / "arena_while.tflite"], short_enums=True, generation=GEN_2021)
    assert not while_.exact and "WHILE kernel rules" in while_.assumed
    single = estimate_arena([FIXTURES / "models" / "arena_add_chain.tflite"], short_enums=True, generation=GEN_2021)
    assert single.exact and single.total_bytes < found.total_bytes
