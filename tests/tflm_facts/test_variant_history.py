"""The variant history covers every type-reduced registration, and the era rule keeps only those older than the
resolver's TFLMRegistration parameter."""

from tflm_facts.type_rules import KERNEL_VARIANTS
from tflm_facts.variant_history import DECLARED_BY_TFLM_REGISTRATION_ERA, VARIANT_SINCE


def test_every_variant_has_its_first_commit():
    assert set(VARIANT_SINCE) == {v.name for v in KERNEL_VARIANTS}


def test_the_era_rule_keeps_the_older_variants_only():
    assert {"SOFTMAX_INT8", "CONV_2D_INT8", "FULLY_CONNECTED_INT8"} <= DECLARED_BY_TFLM_REGISTRATION_ERA
    assert not {"PAD_INT8", "TRANSPOSE_INT8", "CONV_2D_INT4", "RFFT_INT16"} & DECLARED_BY_TFLM_REGISTRATION_ERA
