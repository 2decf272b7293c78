"""The arena for TFLM's 2020-06 allocator generation (TensorFlow 2.3's micro: MicroAllocator::Create, a TfLiteTensor
per tensor) against the smallest arena a real copy of it accepts: Edge Impulse's inferencing-sdk-cpp of 2021-03,
reference kernels built for Cortex-M0+ with the flags of the be7b099 build (short enums, no TF_LITE_STATIC_MEMORY),
bisected to the byte under qemu mps2-an385 with every op of its AllOpsResolver registered
(tests/data/ei202103_arena_truth.csv; how: docs/arena.md). Its DWARF's classes are those of the 2019 generation; its
allocator functions (MicroAllocator::Create, StartModelAllocation, no InitializeFromFlatbuffer) tell the two apart.
The table itself is held with the 2019 generation's in test_tensor_array_arena_truth.py."""

from pathlib import Path

import pytest

from tests.tflm_model import arena_truth_tables
from tflm_facts.allocator_generations import GEN_2019, GEN_2020_06, from_struct_names, from_symbols
from tflm_model.arena_estimate import estimate_arena
from tflm_model.errors import ModelError

REPO_ROOT = Path(__file__).resolve().parents[2]
TABLE = "ei202103_arena_truth.csv"
FACTS = "ei202103_dwarf_facts.json"



def test_its_dwarf_tells_the_family_and_its_functions_the_generation():
    sizes = arena_truth_tables.dwarf_sizes(FACTS)
    assert from_struct_names(set(sizes.structs)) is GEN_2019  # the classes are alike
    assert sizes.structs["AllocationInfo"] == 24 and sizes.structs["MicroAllocator"] == 24
    for name, size in GEN_2020_06.structs["eabi"].items():
        assert sizes.structs.get(name, size) == size, name
    # the measured build's allocator functions (arm-none-eabi-nm -C)
    assert from_symbols(["tflite::MicroAllocator::Create(unsigned char*, unsigned int, tflite::ErrorReporter*)",
                         "tflite::MicroAllocator::StartModelAllocation(tflite::Model const*, TfLiteContext*, "
                         "tflite::MicroOpResolver const&, tflite::NodeAndRegistration**)",
                         "tflite::MicroAllocator::AllocateTfLiteTensorArray(TfLiteContext*, tflite::SubGraph const*)",
                         "tflite::SimpleMemoryAllocator::AllocateFromTail(unsigned int, unsigned int)"]) is GEN_2020_06



def test_offline_plans_are_read_and_a_wrong_count_refused():
    rows = {row["model"]: row for row in arena_truth_tables.truth_rows(TABLE)}
    models = REPO_ROOT / "fixtures" / "models"
    assert rows["arena_offline_plan_wrong_count.tflite"]["status"] == "allocate_failed"
    with pytest.raises(ModelError, match="OfflineMemoryAllocation"):
        estimate_arena([models / "arena_offline_plan_wrong_count.tflite"], short_enums=True, generation=GEN_2020_06)
    planned = estimate_arena([models / "arena_offline_plan.tflite"], short_enums=True, generation=GEN_2020_06)
    assert planned.total_bytes == int(rows["arena_offline_plan.tflite"]["min_arena_bytes"])
    assert rows["arena_offline_plan.tflite"]["min_arena_bytes"] != rows["arena_add_chain.tflite"]["min_arena_bytes"]
