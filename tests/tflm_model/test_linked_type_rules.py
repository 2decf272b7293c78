"""type_support with a firmware's linked kernel types: a type the linked kernels take is not refused; without a
firmware, a refusal names the revision whose rules were assumed."""

from tflm_model.arena_estimate import estimate_arena
from tflm_model.type_support import type_rejections
from tflm_facts import TFLM_REVISION
from tests.conftest import FIXTURES

MODEL = FIXTURES / "models" / "uint8_conv_softmax.tflite"
UINT8_KERNELS = {"CONV_2D": (frozenset({"uint8", "int32"}),), "SOFTMAX": (frozenset({"uint8"}),)}


def test_without_a_firmware_todays_rules_refuse_uint8_and_say_they_were_assumed():
    rejections = type_rejections([MODEL])
    assert [r.op for r in rejections] == ["CONV_2D", "SOFTMAX"]
    assert all(f"the rules of {TFLM_REVISION}, assumed" in r.reason for r in rejections)


def test_the_linked_kernels_types_are_not_refused_and_the_arena_is_estimated():
    assert type_rejections([MODEL], UINT8_KERNELS) == []
    with_linked = estimate_arena([MODEL], linked_types=UINT8_KERNELS)
    assert with_linked.total_bytes > 0


def test_a_firmware_that_links_no_uint8_kernel_for_an_op_still_refuses_it():
    rejections = type_rejections([MODEL], {"CONV_2D": UINT8_KERNELS["CONV_2D"]})
    assert [r.op for r in rejections] == ["SOFTMAX"]
    assert "the firmware links no uint8 kernel for it" in rejections[0].reason
