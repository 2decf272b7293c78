"""Multi-subgraph models (IF, CALL_ONCE) and zero-size tensors on the SimpleMemoryAllocator generations, against the
smallest arena each revision accepts (tests/data/subgraph_arena_truth.csv: qemu mps2-an385, reference kernels for
Cortex-M0+, bisected to the byte; how: docs/arena.md, "Several subgraphs and zero-size tensors").

- Before 8c41f96 (2022-03-01; generations 2021-05, 2021, 2022-01) FinishModelAllocation plans each subgraph on its
  own, each plan fitting above the head the earlier ones left: the estimate replays it and gives the minimum.
- 2022-01 (05b427e): IF keeps persistent copies of its inputs and outputs (kernel_memory.IF_INTERMEDIATE_BUFFERS).
- 2021-05 (5e65f82): an operator output nothing reads lives for no time; the estimate keeps it alive, a bound.
- Before 78bb847 (2022-04) a zero-size tensor is still a planner buffer (Generation.zero_size_planned).
- Before 6f99907d3 (2022-08-25) FinishModelAllocation allocates the scratch buffer handles once per subgraph
  (Generation.scratch_handles_per_subgraph): IF with a scratch request on 2022-03 and 2022-04.
"""

import csv
from dataclasses import replace
from pathlib import Path

import pytest

from tflm_facts.allocator_generations import named
from tflm_facts.build_sizes import BuildSizes
from tflm_model.arena_estimate import estimate_arena

ROOT = Path(__file__).resolve().parents[2]
ROWS = list(csv.DictReader((ROOT / "tests/data/subgraph_arena_truth.csv").open()))


def _estimate(row):
    return estimate_arena([ROOT / row["source"]], "reference", 4, short_enums=True,
                          generation=named(row["generation"]))


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['model']}@{r['tflm']}" for r in ROWS])
def test_estimate_against_the_measured_minimum(row):
    estimate = _estimate(row)
    assert estimate.total_bytes == int(row["estimate_revision_bytes"])
    assert str(estimate.exact).lower() == row["estimate_revision_exact"]
    minimum = int(row["min_arena_bytes"])
    measured_here = row["tflm"] in named(row["generation"]).tables_of  # the tables are that revision's
    if estimate.exact and measured_here:
        assert estimate.total_bytes == minimum
    else:  # a bound: another revision's tables, or a rule the estimate does not replay
        assert estimate.total_bytes >= minimum


def test_the_older_generations_are_exact_on_all_three_but_one():
    older = [r for r in ROWS if r["generation"] in ("2021-05", "2021", "2022-01")]
    assert len(older) == 9
    inexact = [(r["model"], r["generation"]) for r in older if r["estimate_revision_exact"] != "true"]
    assert inexact == [("arena_call_once.tflite", "2021-05")]
    assert all(int(r["estimate_revision_bytes"]) >= int(r["min_arena_bytes"]) for r in older)


def test_no_possibly_low_label_is_left():
    for row in ROWS:
        assert not any("may be low" in note for note in _estimate(row).notes)


def test_zero_size_tensors_cost_planner_memory_before_78bb847():
    rows = {r["generation"]: r for r in ROWS if r["model"] == "arena_zero_size.tflite"}
    before = [g for g in ("2021-05", "2021", "2022-01", "2022-03") if named(g).zero_size_planned]
    assert before == ["2021-05", "2021", "2022-01", "2022-03"]
    assert not named("2022-04").zero_size_planned and not named("90b983c").zero_size_planned
    # the same model without the planner buffers would be hundreds of bytes smaller on the older ones
    assert int(rows["2022-03"]["min_arena_bytes"]) - int(rows["2022-04"]["min_arena_bytes"]) > 500


def test_scratch_handles_once_per_subgraph_before_6f99907d3():
    """d6eb8ce and 1bdc373d4 allocate every request's handle once per subgraph (arena_if: 3 subgraphs, one request):
    without it their IF figure was 16 B below the minimum."""
    rows = {r["generation"]: r for r in ROWS if r["model"] == "arena_if.tflite"}
    for key in ("2022-03", "2022-04"):
        generation = named(key)
        assert generation.scratch_handles_per_subgraph
        once = estimate_arena([ROOT / rows[key]["source"]], "reference", 4, short_enums=True,
                              generation=replace(generation, scratch_handles_per_subgraph=False))
        assert once.total_bytes < int(rows[key]["min_arena_bytes"]) == _estimate(rows[key]).total_bytes
    assert not named("90b983c").scratch_handles_per_subgraph


def test_a_2022_build_of_unknown_revision_counts_the_early_revisions_handles_as_a_bound():
    """86abc0a to 6f99907d3 (2022-07 to 2022-08) are generation 2022 yet allocate the handles once per subgraph, and
    a build's DWARF does not tell them from later ones: with the build's sizes (revision unknown) a multi-subgraph
    model with a scratch request gets the larger figure, as a bound; a named revision keeps its exact figure."""
    current = named("90b983c")
    assert current.handles_per_subgraph_until
    model = [ROOT / "fixtures/models/arena_if.tflite"]
    sizes = BuildSizes(structs={"TfLiteTensor": 32}, source="firmware.elf DWARF")
    from_dwarf = estimate_arena(model, "reference", 4, short_enums=True, sizes=sizes, generation=current)
    later = estimate_arena(model, "reference", 4, short_enums=True, sizes=sizes,
                           generation=replace(current, handles_per_subgraph_until=""))
    assert from_dwarf.total_bytes == later.total_bytes + 16 and not from_dwarf.exact  # (3 subgraphs, one request)
    assert any("once per subgraph" in note for note in from_dwarf.notes)
    named_revision = estimate_arena(model, "reference", 4, short_enums=True, generation=current)
    assert named_revision.exact
    one_subgraph = [ROOT / "fixtures/models/arena_add_chain.tflite"]  # nothing to count twice: no such note
    assert not any("once per subgraph" in note for note in estimate_arena(
        one_subgraph, "reference", 4, short_enums=True, sizes=sizes, generation=current).notes)
