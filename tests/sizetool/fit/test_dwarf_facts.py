"""The arena's struct sizes from a firmware's DWARF: fixtures/dwarf_facts holds a TFLM-shaped program of our own built
twice with arm-none-eabi-g++ -g, revision-a with tflite-micro 90b983c's sizes and revision-b with others; the arena
read with each one's facts moves by exactly what its structs change."""

import dataclasses

import pytest

from sizetool.errors import SizeToolError
from sizetool.fit.dwarf_facts import dwarf_facts
from sizetool.fit.model_fit import ArenaFit, KernelChoice, facts_from_dwarf, facts_lines
from sizetool.inputs.dwarf_structs import DwarfType, read_dwarf_types
from sizetool.inputs.elf_reader import read_elf
from tests.conftest import FIXTURES
from tflm_facts.build_sizes import MEMBER_STRUCTS, differences
from tflm_model.arena_estimate import estimate_arena

OUT = FIXTURES / "dwarf_facts" / "out"
ADD_CHAIN = FIXTURES / "models" / "arena_add_chain.tflite"  # 4 ADD, 6 tensors, one input and one output


def facts(revision: str, kernels: str = "reference", ops=("ADD", "MEAN", "CONCATENATION", "CONV_2D", "EQUAL")):
    types = read_dwarf_types(OUT / f"revision-{revision}.elf", MEMBER_STRUCTS)
    return dwarf_facts(types, kernels, list(ops), "fixture DWARF")


def test_reader_names_structs_in_their_namespaces_and_units():
    types = read_dwarf_types(OUT / "revision-b.elf", frozenset({"OpDataReduce"}))
    named = {(t.unit, t.name, t.kind): t.byte_size for t in types}
    reduce = next(t for t in types if t.name == "tflite::OpDataReduce")
    assert reduce.members == ("multiplier", "shift", "temp_buffer_idx", "resolved_axis_idx", "input_zp",
                              "input_scale", "output_zp")
    assert all(t.members == () for t in types if t is not reduce)  # only the structs asked for
    assert named[("tensorflow/lite/micro/micro_allocator.cc", "TfLiteTensor", "struct")] == 36
    assert named[("tensorflow/lite/micro/micro_allocator.cc", "tflite::internal::NodeAndRegistration", "struct")] == 32
    assert named[("tensorflow/lite/micro/micro_allocator.cc", "tflite::(anonymous)::MicroBuiltinDataAllocator",
                  "struct")] == 8
    assert named[("tensorflow/lite/micro/micro_allocator.cc", "TfLiteConvParams", "typedef")] == 28
    assert named[("tensorflow/lite/micro/kernels/cmsis_nn/conv.cpp", "tflite::(anonymous)::OpData", "struct")] == 76
    assert named[("tensorflow/lite/micro/kernels/comparisons.cc", "tflite::(anonymous)::OpData", "struct")] == 200


def test_each_kernel_takes_the_opdata_of_its_own_compile_unit():
    reference, cmsis = facts("b"), facts("b", "cmsis_nn")
    # three units define tflite::(anonymous)::OpData; each kernel gets its own
    assert reference.sizes.op_data == {"ADD": 76, "MEAN": 28, "CONCATENATION": 40, "EQUAL": 200}
    assert cmsis.sizes.op_data["CONV_2D"] == 76  # kernels/cmsis_nn/conv.cpp: a .cpp unit for cmsis_nn/conv.cc
    assert "OpData CONV_2D" in reference.defaults  # the reference conv.h struct is not in this program
    assert "OpData ADD" in cmsis.defaults  # CMSIS-NN's add.cc is not either
    assert reference.sizes.enum_bytes == 1 and "enum size (TfLiteType)" in reference.from_elf
    assert reference.sizes.params == {"TfLiteReducerParams": 1, "TfLiteConvParams": 28}


def test_revision_a_has_the_default_sizes_and_the_same_arena():
    same = facts("a")
    assert differences(same.sizes, "eabi", "reference") == ["OpData EQUAL 32 -> 200"]  # only the decoy kernel
    default = estimate_arena([ADD_CHAIN], short_enums=True)
    with_facts = estimate_arena([ADD_CHAIN], short_enums=True, sizes=same.sizes)
    assert with_facts.revision.endswith("with the build's own sizes")
    assert dataclasses.replace(with_facts, revision=default.revision) == default


def test_revision_b_moves_the_arena_by_what_its_structs_change():
    other = facts("b")
    assert differences(other.sizes, "eabi", "reference") == [
        "MicroAllocator 36 -> 44", "TfLiteEvalTensor 12 -> 16", "TfLiteTensor 32 -> 36", "OpData ADD 60 -> 76",
        "OpData CONCATENATION 24 -> 40", "OpData EQUAL 32 -> 200", "OpData MEAN 44 -> 28",
        "MEAN/SUM scratch: the accumulator only"]
    default = estimate_arena([ADD_CHAIN], short_enums=True)
    moved = estimate_arena([ADD_CHAIN], short_enums=True, sizes=other.sizes)
    before, after = dict((p.name, p.bytes) for p in default.parts), dict((p.name, p.bytes) for p in moved.parts)
    assert after["allocator objects"] - before["allocator objects"] == 44 - 36
    assert after["TfLiteEvalTensor arrays"] - before["TfLiteEvalTensor arrays"] == 6 * (16 - 12)
    assert after["OpData ADD x4"] - before["OpData ADD x4"] == 4 * (76 - 60)
    assert after["input/output TfLiteTensors"] - before["input/output TfLiteTensors"] == 2 * (36 - 32)
    # ADD's Prepare holds three temporary TfLiteTensors at once: the head's peak grows by 3 * 4 B
    assert after["planning and prepare working memory (head peak above the plan)"] == 3 * (36 - 32)
    # and the 16-byte alignment of the tail absorbs 4 B of it
    assert after["alignment"] - before["alignment"] == -4
    assert moved.total_bytes - default.total_bytes == 8 + 24 + 64 + 8 + 12 - 4


def test_a_member_only_an_older_revision_has_tells_its_mean_scratch_buffers():
    # revision-b's OpDataReduce keeps one scratch index (temp_buffer_idx), as TFLM's MEAN did before it also asked
    # for the input-iterator and resolved-axis buffers: int8 MEAN then plans only the int32 accumulator
    assert facts("a").sizes.rules == frozenset() and facts("b").sizes.rules == {"reduce_accumulator_only"}
    model = FIXTURES / "models" / "arena_mean_int8.tflite"  # [1,8,8,16] -> [1,1,1,16] over axes 1 and 2
    parts = {p.name: p.bytes for p in estimate_arena([model], short_enums=True, sizes=facts("b").sizes).parts}
    assert parts["scratch buffers (in the plan)"] == 4 * 16 and parts["scratch buffer handles"] == 4
    default = {p.name: p.bytes for p in estimate_arena([model], short_enums=True).parts}
    assert default["scratch buffers (in the plan)"] == 4 * 16 + 16 + 16  # rank and axes, each 16-aligned
    assert default["scratch buffer handles"] == 3 * 4


def test_fit_lines_say_what_came_from_the_elf_and_what_differs():
    image = read_elf(str(OUT / "revision-b.elf"))
    found = facts_from_dwarf(image, "reference", [str(ADD_CHAIN)])
    assert found.sizes.op_data == {"ADD": 76} and found.defaults == ()
    result = ArenaFit((str(ADD_CHAIN),), KernelChoice("reference", "--kernels"), 4, 1600, True, (), None, None,
                      facts=found, facts_differ=tuple(differences(found.sizes, "eabi", "reference")))
    lines = facts_lines(result)
    assert lines[0].startswith("arena facts from revision-b.elf DWARF: SingleArenaBufferAllocator, ")
    assert lines[0].endswith("OpData ADD, 2 builtin params structs, MEAN/SUM scratch: the accumulator only "
                             "(OpDataReduce.temp_buffer_idx), enum size (TfLiteType)")
    assert lines[1] == ("the linked TFLM differs from tflm_facts (tflite-micro 90b983c (August 2026)): "
                        "MicroAllocator 36 -> 44, TfLiteEvalTensor 12 -> 16, TfLiteTensor 32 -> 36, OpData ADD 60 -> 76, "
                        "MEAN/SUM scratch: the accumulator only")
    assert len(lines) == 2


def test_without_dwarf_every_fact_is_a_default():
    image = read_elf(str(FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware-nodebug.elf"))
    assert facts_from_dwarf(image, "reference", [str(ADD_CHAIN)]) is None
    result = ArenaFit((str(ADD_CHAIN),), KernelChoice("reference", "--kernels"), 4, 1488, True, (), None, None)
    assert facts_lines(result) == ["arena facts: tflm_facts' defaults (tflite-micro 90b983c (August 2026)); the ELF "
                                   "has no DWARF describing TFLM's structs"]


def test_a_kernel_unit_is_told_by_its_path_not_by_a_longer_name():
    types = [DwarfType("src/kernels/my_concatenation.cc", "tflite::(anonymous)::OpData", "struct", 99),
             DwarfType("x/tensorflow/lite/micro/kernels/concatenation.cpp", "tflite::(anonymous)::OpData", "struct", 40)]
    assert dwarf_facts(types, "reference", ["CONCATENATION"], "").sizes.op_data == {"CONCATENATION": 40}


def test_corrupt_dwarf_is_one_line_error(tmp_path):
    data = bytearray((OUT / "revision-b.elf").read_bytes())
    image = read_elf(str(OUT / "revision-b.elf"))
    info = next(s for s in image.sections if s.name == ".debug_info")
    data[info.offset + 4:info.offset + 64] = b"\xff" * 60  # version and abbreviation offset garbled
    (tmp_path / "bad.elf").write_bytes(bytes(data))
    with pytest.raises(SizeToolError, match="bad.elf: cannot read its DWARF"):
        read_dwarf_types(tmp_path / "bad.elf")


def test_revision_c_tells_the_2020_generation_and_gives_its_measured_arena():
    """revision-c has the 2020-2021 allocator's layout (a SimpleMemoryAllocator, no SubgraphAllocations, a 64-byte
    TfLiteTensor): its DWARF names the generation, whose rules the estimate then replays. arena_add_chain's figure
    is the smallest arena Edge Impulse's 2021 SDK accepted for it (tests/data/ei2021_arena_truth.csv)."""
    from tests.tflm_model.arena_truth_tables import truth_rows
    from tflm_facts.allocator_generations import GEN_2020

    old = facts("c", ops=("ADD",))
    assert old.generation is GEN_2020
    assert old.sizes.structs["SimpleMemoryAllocator"] == 28 and "SubgraphAllocations" not in old.sizes.structs
    assert "SingleArenaBufferAllocator" not in old.from_elf + old.defaults
    measured = next(int(row["min_arena_bytes"]) for row in truth_rows("ei2021_arena_truth.csv")
                    if row["model"] == ADD_CHAIN.name)
    estimate = estimate_arena([ADD_CHAIN], short_enums=True, sizes=old.sizes, generation=old.generation)
    assert estimate.total_bytes == measured and estimate.exact
    current = estimate_arena([ADD_CHAIN], short_enums=True, sizes=old.sizes)  # the current rules with its sizes
    assert current.total_bytes != measured


def test_fit_names_the_generation_the_elf_tells():
    from sizetool.fit.model_fit import linked_generation

    image = read_elf(str(OUT / "revision-c.elf"))
    found = facts_from_dwarf(image, "reference", [str(ADD_CHAIN)])
    generation, how = linked_generation(image, found)
    assert generation.key == "2020" and how == "told by its allocator classes in the DWARF"
    result = ArenaFit((str(ADD_CHAIN),), KernelChoice("reference", "--kernels"), 4, 1504, True, (), None, None,
                      facts=found, revision=f"{generation.label} ({how})")
    assert facts_lines(result)[0].startswith("TFLM allocator: TFLM 2020-2021 (TensorFlow 2.4-2.5")
    assert linked_generation(read_elf(str(OUT / "revision-a.elf")), facts("a"))[0].key == "2022"
    nodebug = read_elf(str(FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware-nodebug.elf"))
    unknown, why = linked_generation(nodebug, None)
    assert unknown is None and "names none of TFLM's allocator classes" in why


def test_revision_d_tells_the_2019_generation_and_gives_its_measured_arena():
    """revision-d has the 2019 allocator's layout (the interpreter's own MicroAllocator, a 64-byte TfLiteTensor per
    tensor, no TfLiteEvalTensor, no ScratchBufferRequest): its DWARF names the generation, whose TfLiteTensor-array
    allocation the estimate replays. arena_add_chain's figure is the smallest arena the STM32 CIFAR-10 app's 2020 TFLM
    accepted for it (tests/data/stm32cube2020_arena_truth.csv)."""
    from sizetool.fit.model_fit import linked_generation
    from tests.tflm_model.arena_truth_tables import truth_rows
    from tflm_facts.allocator_generations import GEN_2019

    image = read_elf(str(OUT / "revision-d.elf"))
    found = facts_from_dwarf(image, "reference", [str(ADD_CHAIN)])
    generation, how = linked_generation(image, found)
    assert generation is GEN_2019 and how == "told by its allocator classes in the DWARF"
    assert found.sizes.structs["TfLiteTensor"] == 64 and found.sizes.structs["SimpleMemoryAllocator"] == 24
    assert found.sizes.structs["NodeAndRegistration"] == 40 and found.sizes.structs["AllocationInfo"] == 20
    assert "TfLiteEvalTensor" not in found.sizes.structs
    measured = next(int(row["min_arena_bytes"]) for row in truth_rows("stm32cube2020_arena_truth.csv")
                    if row["model"] == ADD_CHAIN.name)
    estimate = estimate_arena([ADD_CHAIN], short_enums=True, sizes=found.sizes, generation=generation)
    assert estimate.total_bytes == measured and estimate.exact
    assert any(part.name == "TfLiteTensor arrays" and part.bytes == 6 * 64 for part in estimate.parts)
    assert estimate_arena([ADD_CHAIN], short_enums=True, sizes=found.sizes).total_bytes != measured
