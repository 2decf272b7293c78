"""TFLM's allocator generations as data: how a build, a tree or a name tells which one a firmware links."""

import pytest

from tflm_facts.allocator_generations import (
    BY_KEY, CURRENT, GEN_2019, GEN_2020, GEN_2020_06, GEN_2021, GEN_2021_05, GEN_2022, GEN_2022_01, GEN_2022_03,
    GEN_2022_04, GENERATIONS, MEASURED, from_struct_names, from_symbols, from_tree_files, named,
)
from tflm_facts.kernel_memory import PARAM_STRUCTS, REFERENCE_OP_DATA, STRUCTS


def test_the_generations_are_ordered_and_only_measured_ones_are_used_as_rules():
    assert [g.key for g in GENERATIONS] == ["2019", "2020-06", "2020", "2021-05", "2021", "2022-01", "2022-03",
                                            "2022-04", "2022"]
    assert CURRENT is GEN_2022
    assert MEASURED == GENERATIONS
    assert all(generation.modelled for generation in GENERATIONS)
    assert [g.key for g in GENERATIONS if g.tensor_array] == ["2019", "2020-06"]
    for generation in MEASURED:
        assert generation.measured_kernels and generation.measured_abis


def test_tables_name_only_known_facts():
    for generation in GENERATIONS:
        for abi, table in generation.structs.items():
            assert abi in ("ilp32", "eabi", "lp64")
            assert set(table) <= set(STRUCTS) | {"SimpleMemoryAllocator"}
        for table in generation.params.values():
            assert set(table) <= set(PARAM_STRUCTS)
        for table in generation.op_data.values():
            assert set(table) <= set(REFERENCE_OP_DATA)
        assert generation.measured_ops <= set(REFERENCE_OP_DATA) | {"RESHAPE", "QUANTIZE"}


def test_dwarf_struct_names_tell_the_generation():
    assert from_struct_names({"SingleArenaBufferAllocator", "MicroAllocator"}) is GEN_2022
    assert from_struct_names({"SimpleMemoryAllocator", "TfLiteEvalTensor", "SubgraphAllocations"}) is GEN_2021
    assert from_struct_names({"SimpleMemoryAllocator", "TfLiteEvalTensor", "MicroAllocator"}) is GEN_2020
    assert from_struct_names({"SimpleMemoryAllocator", "MicroAllocator", "TfLiteTensor"}) is GEN_2019
    assert from_struct_names({"SimpleMemoryAllocator", "TfLiteEvalTensor", "SubgraphAllocations",
                              "INonPersistentBufferAllocator"}) is GEN_2022_04
    # MicroContext (2022-01-07) with the SimpleMemoryAllocator: after the measured 2021 revision, before the interfaces
    assert from_struct_names({"SimpleMemoryAllocator", "TfLiteEvalTensor", "SubgraphAllocations", "MicroContext"}) \
        is GEN_2022_01
    # one plan across subgraphs (8c41f96, 2022-03-01): micro_allocation_info.h's GraphAllocationInfo
    assert from_struct_names({"SimpleMemoryAllocator", "TfLiteEvalTensor", "SubgraphAllocations", "MicroContext",
                              "GraphAllocationInfo"}) is GEN_2022_03
    # the planner on the stack before a1f4b88 (2021-09-09): MicroAllocator without memory_planner_
    older = {"SimpleMemoryAllocator", "TfLiteEvalTensor", "SubgraphAllocations"}
    assert from_struct_names(older, {"MicroAllocator": ("memory_allocator_", "builtin_data_allocator_",
                                                        "error_reporter_")}) is GEN_2021_05
    assert from_struct_names(older, {"MicroAllocator": ("memory_allocator_", "memory_planner_")}) is GEN_2021
    # members not read: the generation whose figure is the larger (the planner in the arena)
    assert from_struct_names(older, {}) is GEN_2021
    assert from_struct_names({"SimpleMemoryAllocator", "TfLiteEvalTensor", "SubgraphAllocations", "MicroContext",
                              "IPersistentBufferAllocator"}) is GEN_2022_04
    assert from_struct_names({"MicroAllocator", "TfLiteTensor"}) is None


def test_function_names_tell_the_generation_without_dwarf():
    assert from_symbols(["tflite::SingleArenaBufferAllocator::AllocateTemp(unsigned int, unsigned int)"]) is GEN_2022
    assert from_symbols(["tflite::SimpleMemoryAllocator::AllocateTemp(unsigned int, unsigned int)",
                         "tflite::MicroGraph::InitSubgraphs()"]) is GEN_2021
    assert from_symbols(["tflite::SimpleMemoryAllocator::AllocateTemp(unsigned int, unsigned int)",
                         "tflite::MicroGraph::InitSubgraphs()",
                         "tflite::MicroContext::AllocateTempInputTensor(TfLiteNode const*, int)"]) is GEN_2022_01
    assert from_symbols(["tflite::SimpleMemoryAllocator::AllocateTemp(unsigned int, unsigned int)",
                         "tflite::MicroGraph::InitSubgraphs()",
                         "tflite::MicroContext::AllocateTempInputTensor(TfLiteNode const*, int)",
                         "tflite::AllocationInfoBuilder::MarkAllocationLifetimes(int, "
                         "tflite::internal::ScratchBufferRequest*, tflite::ScratchBufferHandle*, "
                         "tflite::SubgraphAllocations*)"]) is GEN_2022_03
    assert from_symbols(["tflite::SimpleMemoryAllocator::AllocateTemp(unsigned int, unsigned int)",
                         "tflite::MicroGraph::InitSubgraphs()",
                         "tflite::GreedyMemoryPlanner::GreedyMemoryPlanner(unsigned char*, int)"]) is GEN_2021_05
    assert from_symbols(["tflite::SimpleMemoryAllocator::AllocateTemp(unsigned int, unsigned int)",
                         "tflite::MicroGraph::InitSubgraphs()", "tflite::GreedyMemoryPlanner::GreedyMemoryPlanner()",
                         "tflite::GreedyMemoryPlanner::Init(unsigned char*, int)"]) is GEN_2021
    assert from_symbols(["tflite::SimpleMemoryAllocator::AllocateFromTail(unsigned int, unsigned int)"]) is GEN_2020
    assert from_symbols(["tflite::SimpleMemoryAllocator::AllocateFromTail(unsigned int, unsigned int)",
                         "tflite::MicroAllocator::AllocateTfLiteTensorArray(TfLiteContext*, tflite::SubGraph const*)"]
                        ) is GEN_2020_06
    # the STM32 CIFAR-10 app's symbols (no DWARF): the interpreter builds its own MicroAllocator
    assert from_symbols(["tflite::SimpleMemoryAllocator::AllocateFromTail(unsigned int, unsigned int)",
                         "tflite::MicroAllocator::AllocateTfLiteTensorArray()",
                         "tflite::MicroAllocator::FinishTensorAllocation()"]) is GEN_2019
    assert from_symbols(["tflite::SimpleMemoryAllocator::Create(tflite::ErrorReporter*, unsigned char*, unsigned int)",
                         "tflite::MicroAllocator::InitializeFromFlatbuffer(tflite::MicroOpResolver const&, "
                         "tflite::NodeAndRegistration**)"]) is GEN_2019
    assert from_symbols(["main", "tflite::MicroAllocator::Create(unsigned char*, unsigned int)"]) is None
    assert from_symbols(["tflite::SimpleMemoryAllocator::AllocateTemp(unsigned int, unsigned int)",
                         "tflite::INonPersistentBufferAllocator::~INonPersistentBufferAllocator()"]) is GEN_2022_04


def test_tree_files_tell_the_generation():
    def has(*paths):
        return lambda path: path in paths

    assert from_tree_files(has("arena_allocator/single_arena_buffer_allocator.h"), "") is GEN_2022
    header_2021 = "TfLiteEvalTensor* tensors; SubgraphAllocations; MicroMemoryPlanner* memory_planner_;"
    assert from_tree_files(has("simple_memory_allocator.h"), header_2021) is GEN_2021
    assert from_tree_files(has("simple_memory_allocator.h"), "TfLiteEvalTensor* tensors; SubgraphAllocations") \
        is GEN_2021_05
    assert from_tree_files(has("simple_memory_allocator.h", "micro_context.h"), header_2021) is GEN_2022_01
    assert from_tree_files(has("simple_memory_allocator.h", "micro_context.h", "micro_allocation_info.h"),
                           header_2021) is GEN_2022_03
    assert from_tree_files(has("simple_memory_allocator.h"), "TfLiteEvalTensor** eval_tensors") is GEN_2020
    assert from_tree_files(has("simple_memory_allocator.h"), "AllocateTfLiteTensorArray(") is GEN_2020_06
    assert from_tree_files(has("simple_memory_allocator.h"), "TfLiteStatus InitializeFromFlatbuffer(") is GEN_2019
    assert from_tree_files(has("arena_allocator/simple_memory_allocator.h", "arena_allocator/ibuffer_allocator.h"),
                           "SubgraphAllocations* StartModelAllocation(const Model* model); TfLiteEvalTensor") \
        is GEN_2022_04
    assert from_tree_files(has(), "") is None


def test_names_users_give():
    assert named("2020") is GEN_2020 and named("Edge-Impulse-2021") is GEN_2020 and named("current") is CURRENT
    assert named("tf2.2") is GEN_2019 and named("tf2.3") is GEN_2020_06 and named("7adcab5") is GEN_2020_06
    assert all(named(key) is generation for key, generation in BY_KEY.items())
    with pytest.raises(ValueError, match="unknown TFLM revision"):
        named("1999")


def test_a_known_generation_with_eval_tensors_is_not_bounded_by_the_tensor_array_ones():
    # a generation not measured (every one is now: 2022-01 as it was before 05b427e was) gets the bound over the
    # measured generations that keep TfLiteEvalTensors
    from dataclasses import replace

    from tests.conftest import FIXTURES
    from tflm_model.arena_estimate import estimate_arena

    model = [FIXTURES / "models" / "arena_conv_per_channel.tflite"]
    unmeasured = replace(GEN_2022_01, measured=())
    bound = estimate_arena(model, short_enums=True, generation=unmeasured)
    assert not bound.exact and "was not measured" in bound.notes[0]
    assert GEN_2020.label in bound.notes[0] and GEN_2019.label not in bound.notes[0]
    # an unnamed revision's bound leaves both out too, and names them with the flag that gives their figure
    unknown = estimate_arena(model, short_enums=True, generation=None)
    for left in (GEN_2019, GEN_2020_06):
        assert f"leaves out {left.label}: name it with --tflm-revision {left.key}" in unknown.notes
        assert left.label not in unknown.notes[0]


def test_the_measured_older_trees_are_known_so_their_tree_is_exact():
    # gen-resolver --tflm TREE names a copied tree by its fingerprint; a name holding the generation's table revision
    # makes the tree's figure exact (the measured trees: the STM32 app's, Edge Impulse's 2021-03 SDK's, tflite-micro
    # 606b7b2f0)
    from tflm_facts.tree_revisions import KNOWN_REVISIONS

    for generation in (GEN_2019, GEN_2020_06, GEN_2021):
        assert any(generation.tables_of.split(" (")[0] in name for name in KNOWN_REVISIONS.values()), generation.key
