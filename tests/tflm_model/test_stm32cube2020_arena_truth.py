"""The arena for TFLM's 2019 allocator generation (TensorFlow's micro to about 2020-06: a TfLiteTensor per tensor in
the arena, the interpreter's own MicroAllocator) against the smallest arena a real copy of it accepts: the TFLM the
STM32L552 CIFAR-10 app (notaJiminLee/STM-Cube-TFLM- 61588d6) vendors, reference kernels with the app's Release flags
(-Os, gnu++14, no TF_LITE_STATIC_MEMORY) built for Cortex-M3, bisected to the byte under qemu mps2-an385 with every op
of its AllOpsResolver registered (tests/data/stm32cube2020_arena_truth.csv; how: docs/arena.md). The struct sizes
size-report reads from that build's DWARF are tests/data/stm32cube2020_dwarf_facts.json. The table itself (every
path recomputed without the build) is held with the 2020-06 generation's in test_tensor_array_arena_truth.py; here,
what this revision does differently."""

from pathlib import Path

import pytest

from tests.tflm_model import arena_truth_tables
from tflm_facts.allocator_generations import GEN_2019, from_struct_names
from tflm_model.arena_estimate import estimate_arena
from tflm_model.errors import ModelError

REPO_ROOT = Path(__file__).resolve().parents[2]
TABLE = "stm32cube2020_arena_truth.csv"
REVISION = "STM32 CIFAR-10 app TFLM 61588d6"



def test_the_dwarf_facts_tell_the_generation():
    sizes = arena_truth_tables.dwarf_sizes("stm32cube2020_dwarf_facts.json")
    assert from_struct_names(set(sizes.structs)) is GEN_2019
    assert sizes.structs["TfLiteTensor"] == 64 and sizes.structs["SimpleMemoryAllocator"] == 24
    assert "TfLiteEvalTensor" not in sizes.structs and "ScratchBufferRequest" not in sizes.structs
    # what the generation's table holds is what its build's DWARF says
    for name, size in GEN_2019.structs["eabi"].items():
        assert sizes.structs.get(name, size) == size, name



def test_what_the_revision_refuses_is_refused():
    rows = {row["model"]: row for row in arena_truth_tables.truth_rows(TABLE)}
    fixtures = REPO_ROOT / "fixtures"
    # one subgraph only; no kernel for TRANSPOSE_CONV at this revision
    assert rows["arena_while.tflite"]["status"] == "allocate_failed"
    with pytest.raises(ModelError, match="supports one only"):
        estimate_arena([fixtures / "models" / "arena_while.tflite"], short_enums=True, generation=GEN_2019)
    assert rows["mve_transpose_conv_c8.tflite"]["status"] == "allocate_failed"
    with pytest.raises(ModelError, match="no kernel for TRANSPOSE_CONV"):
        estimate_arena([fixtures / "mve_models" / "mve_transpose_conv_c8.tflite"], short_enums=True,
                       generation=GEN_2019)


def test_offline_plans_are_ignored_and_models_do_not_share_an_arena():
    rows = {row["model"]: row for row in arena_truth_tables.truth_rows(TABLE)}
    models = REPO_ROOT / "fixtures" / "models"
    # the offline plan's metadata is not read at this revision: the same arena as without it (measured)
    assert rows["arena_offline_plan.tflite"]["min_arena_bytes"] == rows["arena_add_chain.tflite"]["min_arena_bytes"]
    chain = estimate_arena([models / "arena_add_chain.tflite"], short_enums=True, generation=GEN_2019)
    variable = estimate_arena([models / "arena_variable.tflite"], short_enums=True, generation=GEN_2019)
    both = estimate_arena([models / "arena_add_chain.tflite", models / "arena_variable.tflite"], short_enums=True,
                          generation=GEN_2019)
    assert both.total_bytes == chain.total_bytes + variable.total_bytes
    assert sum(part.bytes for part in both.parts) == both.total_bytes
    assert "one arena per interpreter" in both.notes[0]


def test_kernels_the_revision_did_not_have_measured_are_not_called_exact():
    # SVDF's and QUANTIZE's allocations were read from the revision's source: no model of the bank ran them there
    assert {"SVDF", "QUANTIZE"} <= set(GEN_2019.arena_kernels) and not {"SVDF", "QUANTIZE"} & GEN_2019.measured_ops
    path = arena_truth_tables.MODELS_ROOT / "shared" / "models" / "keyword_scrambled.tflite"
    if not path.is_file():
        pytest.skip(f"{path} is not there (the shared models)")
    estimate = estimate_arena([path], short_enums=True, generation=GEN_2019)
    assert not estimate.exact and any("SVDF: its kernel's allocations" in note for note in estimate.notes)
    assert any(part.name == "scratch buffer handles" for part in estimate.parts)


def test_a_uint8_model_named_for_the_revision_is_estimated_not_refused(capsys):
    """gen-resolver --arena --tflm-revision 2019: that revision's kernels take uint8 (its builds link the uint8
    reference kernels), so its legacy uint8 model is estimated, at the measured minimum; today's rules refuse it."""
    import json

    from resolver_gen.cli import main

    model = REPO_ROOT / "fixtures" / "models" / "arena_uint8_conv.tflite"
    row = next(row for row in arena_truth_tables.truth_rows(TABLE) if row["model"] == model.name)
    assert row["status"] == "ok" and row["estimate_current_bytes"] == ""
    status = main([str(model), "--arena", "--short-enums", "--tflm-revision", "2019", "--format", "json"])
    arena = json.loads(capsys.readouterr().out)["arena"]
    assert status == 0 and arena["total_bytes"] == int(row["min_arena_bytes"]) and arena["exact"]
    assert main([str(model), "--arena", "--short-enums", "--format", "json"]) != 0
    assert "uint8" in capsys.readouterr().err
