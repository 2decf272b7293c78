"""model_fit.py: the models' tensor arena against the linked arena and the free RAM.

The estimate is resolver_gen's (tested there); here it is given, so each rule of the comparison is checked on its
own: which kernel set, which pointer size, which region's free RAM, and when the answer fails.
"""

from dataclasses import dataclass, replace

import pytest

from sizetool.errors import SizeToolError
from sizetool.inputs.elf_reader import Symbol, read_elf
from sizetool.fit.arena_finder import FOUND_BY_CONSTRUCTOR, LinkedArena
from sizetool.fit.model_fit import KernelChoice, detect_kernels, esp_nn_chip, fit, model_fit, pointer_bytes, verdict
from sizetool.report.report_model import MemoryRegion, SizeEntry, SizeReport
from tests.conftest import FIXTURES

FIRMWARE = FIXTURES / "firmware" / "out"


@dataclass(frozen=True)
class Part:  # the shape of tflm_model.arena_estimate.ArenaPart
    name: str
    bytes: int


@dataclass(frozen=True)
class Estimate:  # the shape of tflm_model.arena_estimate.ArenaEstimate
    total_bytes: int
    exact: bool = True
    kernels: str = "reference"
    pointer_bytes: int = 4
    parts: tuple = (Part("tensors", 0),)
    notes: tuple = ()
    guessed_ops: tuple = ()  # every op modelled
    without_guessed: int | None = None


REFERENCE = KernelChoice("reference", "detected: no CMSIS-NN kernel linked")
ARENA = LinkedArena("tensor_arena", 0x20001000, 4096, ".bss", FOUND_BY_CONSTRUCTOR, 4096, "setup", 0x100)
# RAM 0x20000000..+64K: 8K of static data (the arena among it), a 2K reserved stack, the rest free.
REPORT = SizeReport("fw.elf", "arm", 1000, 65536, [
    SizeEntry("ram", ("app", "main.cc"), "tensor_arena", ".bss", 0x20001000, 8192),
    SizeEntry("ram", ("(free)",), "(free) RAM", "", 0x20002000, 65536 - 8192 - 2048),
    SizeEntry("ram", ("(reserved)",), ".stack", ".stack", 0x2000F800, 2048),
], regions=[MemoryRegion("RAM", 0x20000000, 65536, 65536, "rwx", "ram")])


def test_the_kernel_set_is_cmsis_nn_when_its_kernels_are_linked_else_reference_and_kernels_overrides():
    image = read_elf(str(FIRMWARE / "cortex-m4" / "firmware.elf"))
    assert detect_kernels(image) == REFERENCE
    cmsis = replace(image, symbols=image.symbols + [Symbol("arm_convolve_s8", 0x100, 64, "func", "global", 1),
                                                    Symbol("arm_nn_mat_mult_kernel_s8_s16", 0x200, 8, "func",
                                                           "global", 1)])
    choice = detect_kernels(cmsis)
    assert choice.kernels == "cmsis_nn" and "arm_convolve_s8" in choice.how
    dsp_only = replace(image, symbols=image.symbols + [Symbol("arm_mat_mult_q7", 0x100, 64, "func", "global", 1)])
    assert detect_kernels(dsp_only).kernels == "reference"  # CMSIS-DSP is not CMSIS-NN
    assert detect_kernels(cmsis, "reference") == KernelChoice("reference", "--kernels")
    with pytest.raises(SizeToolError, match="unknown --kernels 'xtensa'"):
        detect_kernels(image, "xtensa")


def test_the_kernel_set_is_esp_nn_when_esp_nn_functions_are_linked():
    # esp-tflite-micro's esp_nn kernels call esp-nn (esp_nn_conv_s8_opt on an ESP32-C3, ..._esp32s3 on an S3)
    image = read_elf(str(FIRMWARE / "cortex-m4" / "firmware.elf"))
    esp = replace(image, symbols=image.symbols + [Symbol("esp_nn_conv_s8_opt", 0x100, 64, "func", "global", 1),
                                                  Symbol("esp_nn_softmax_s8_opt", 0x200, 8, "func", "global", 1)])
    choice = detect_kernels(esp)
    assert choice == KernelChoice("esp_nn", "detected: esp_nn_conv_s8_opt and 1 more esp-nn functions linked")
    assert detect_kernels(esp, "reference").kernels == "reference"
    assert detect_kernels(image, "esp_nn") == KernelChoice("esp_nn", "--kernels")


def test_an_esp32s3_or_p4_esp_nn_build_gets_no_arena_figure_rather_than_a_wrong_one():
    # esp-nn's S3/P4 functions request other scratch buffers than the generic C that --kernels esp_nn models
    image = read_elf(str(FIRMWARE / "cortex-m4" / "firmware.elf"))
    generic = replace(image, symbols=image.symbols + [Symbol("esp_nn_conv_s8_opt", 0x100, 64, "func", "global", 1)])
    s3 = replace(image, symbols=image.symbols + [Symbol("esp_nn_conv_s8_esp32s3", 0x100, 64, "func", "global", 1)])
    assert esp_nn_chip(generic) is None and esp_nn_chip(s3) == "esp32s3"
    model = str(FIXTURES / "models" / "arena_conv_per_channel.tflite")
    answer = model_fit(s3, None, REPORT, [model])
    assert answer.kernels.kernels == "esp_nn" and answer.needed is None and answer.passed
    assert "ESP32-S3 functions are linked" in answer.error and "not modelled" in verdict(answer)
    answered = model_fit(generic, None, REPORT, [model])
    assert answered.needed is not None and answered.error == ""


def test_the_pointer_size_is_the_elf_class():
    assert pointer_bytes(read_elf(str(FIRMWARE / "cortex-m4" / "firmware.elf"))) == 4
    assert pointer_bytes(read_elf(str(FIRMWARE / "host-x86_64" / "firmware.elf"))) == 8


def test_an_arena_large_enough_fits_with_its_spare_bytes():
    result = fit(["m.tflite"], REFERENCE, 4, Estimate(3000, parts=(Part("tensors", 2800), Part("persistent", 200))),
                 ARENA, REPORT)
    assert (result.needed, result.linked, result.spare, result.passed) == (3000, 4096, 1096, True)
    assert result.free_ram == 65536 - 8192 - 2048 and result.free_region == "RAM"
    assert result.parts == (("tensors", 2800), ("persistent", 200))
    assert verdict(result) == ("fits: the models need 3000 bytes of tensor arena (reference kernels); tensor_arena "
                               "gives 4096 (1096 to spare)")


def test_a_too_small_arena_fails_naming_both_figures_and_says_whether_free_ram_could_take_the_rest():
    result = fit(["m.tflite"], REFERENCE, 4, Estimate(10000), ARENA, REPORT)
    assert not result.passed and result.spare == -5904 and result.grows_into_free_ram
    assert verdict(result).startswith("arena too small: the models need 10000 bytes")
    assert "tensor_arena gives 4096 (5904 short); growing it by 5904 fits in the 55296 bytes of free RAM" in \
        verdict(result)
    huge = fit(["m.tflite"], REFERENCE, 4, Estimate(100000, exact=False), ARENA, REPORT)
    assert not huge.passed and huge.grows_into_free_ram is False
    assert "need at most 100000" in verdict(huge) and "are not enough to grow it" in verdict(huge)


def test_the_size_passed_to_the_interpreter_is_what_it_may_use():
    told_less = replace(ARENA, passed_size=2048)
    assert fit(["m"], REFERENCE, 4, Estimate(3000), told_less, REPORT).passed is False
    told_more = replace(ARENA, passed_size=8192)
    result = fit(["m"], REFERENCE, 4, Estimate(3000), told_more, REPORT)
    assert result.linked == 4096 and any("may write past the array" in note for note in result.notes)


def test_without_an_arena_the_models_must_fit_in_the_free_ram_and_without_regions_nothing_fails():
    fits = fit(["m"], REFERENCE, 4, Estimate(50000), None, REPORT)
    assert fits.passed and "an arena that size fits in the 55296 bytes of free RAM" in verdict(fits)
    too_big = fit(["m"], REFERENCE, 4, Estimate(60000), None, REPORT)
    assert not too_big.passed and verdict(too_big).startswith("does not fit")
    unknown = fit(["m"], REFERENCE, 4, Estimate(60000), None, replace(REPORT, regions=[]))
    assert unknown.passed and unknown.free_ram is None and "free RAM is unknown" in verdict(unknown)


def test_the_estimates_notes_and_the_finders_notes_are_kept():
    result = fit(["m"], REFERENCE, 4, Estimate(10, notes=("upper bound for LSTM",)), ARENA, REPORT,
                 notes=["2 interpreters"])
    assert result.notes == ("2 interpreters", "upper bound for LSTM")


def test_without_an_estimate_the_ram_answer_is_unanswered_and_does_not_fail():
    result = replace(fit(["m"], REFERENCE, 4, None, ARENA, REPORT), error="m: dynamic shape")
    assert result.needed is None and result.spare is None and result.grows_into_free_ram is None and result.passed
    assert verdict(result) == "tensor arena not estimated: m: dynamic shape"


def test_short_enums_come_from_an_arm_elfs_build_attributes():
    from sizetool.inputs.elf_reader import arm_short_enums

    assert arm_short_enums(FIRMWARE / "cortex-m4" / "firmware.elf") is True  # arm-none-eabi GCC: Tag_ABI_enum_size small
    assert arm_short_enums(FIRMWARE / "riscv32" / "firmware.elf") is False
    assert arm_short_enums(FIRMWARE / "host-x86_64" / "firmware.elf") is False
