"""linked_types.py: the tensor types a firmware's own kernels take, from the kernel functions it links.

fixtures/real_builds/out/uint8-kernels links TFLM-2020-shaped uint8 kernels (reference_ops::Conv on unsigned char,
Softmax<unsigned char, unsigned char>); fixtures/firmware's builds link today's shapes only."""

import pytest

from sizetool.inputs.elf_reader import read_elf
from tflm_facts.linked_types import beyond_today, instantiation_types, linked_kernel_types, takes
from tests.conftest import FIXTURES

UINT8 = FIXTURES / "real_builds" / "out" / "uint8-kernels" / "firmware.elf"


def functions(elf):
    return [s.name for s in read_elf(str(elf)).symbols if s.kind == "func"]


def test_a_2020_firmware_links_uint8_conv_and_softmax():
    linked = linked_kernel_types(functions(UINT8))
    assert linked == {"CONV_2D": (frozenset({"uint8", "int32"}),), "SOFTMAX": (frozenset({"uint8"}),)}
    assert beyond_today(linked) == {"CONV_2D": frozenset({"uint8"}), "SOFTMAX": frozenset({"uint8"})}
    assert takes(linked, "CONV_2D", ["uint8", "uint8", "int32", "uint8"])
    assert not takes(linked, "CONV_2D", ["float32", "int8"]) and not takes(linked, "ADD", ["uint8"])


@pytest.mark.parametrize("elf", [FIXTURES / "firmware" / "out" / "cortex-m4" / "firmware.elf",
                                 FIXTURES / "embedded_models" / "out" / "tflm-two-models" / "firmware.elf"])
def test_todays_builds_take_nothing_beyond_todays_rules(elf):
    assert beyond_today(linked_kernel_types(functions(elf))) == {}


@pytest.mark.parametrize("name, expected", [
    ("void tflite::reference_ops::Softmax<signed char, short>(tflite::SoftmaxParams const&, tflite::RuntimeShape "
     "const&, signed char const*, tflite::RuntimeShape const&, short*)", ("SOFTMAX", {"int8", "int16"})),
    ("tflite::reference_ops::Softmax(tflite::SoftmaxParams const&, tflite::RuntimeShape const&, float const*, "
     "tflite::RuntimeShape const&, float*)", ("SOFTMAX", {"float32"})),
    ("tflite::reference_ops::MaximumMinimumBroadcastSlow<unsigned char, unsigned char (*)(unsigned char, unsigned "
     "char), 5>(tflite::RuntimeShape const&, unsigned char const*)", ("MAXIMUM,MINIMUM", {"uint8"})),
    ("tflite::reference_ops::HybridConv(tflite::ConvParams const&, float*, float const*, signed char const*)", None),
    ("tflite::ops::micro::conv::Eval(TfLiteContext*, TfLiteNode*)", None),
])
def test_instantiation_types_read_template_arguments_and_data_pointers(name, expected):
    found = instantiation_types(name)
    assert (found if found is None else (found[0], set(found[1]))) == expected
