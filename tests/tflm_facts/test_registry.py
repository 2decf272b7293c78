"""The TFLM registration table is consistent data and names TFLM's exact methods."""

from collections import Counter

import pytest

from tflm_facts.registry import (
    BUILTIN_OPS, CUSTOM_BUILTIN_CODE, TFLM_CUSTOM_OPS, builtin_name, registration_for, registration_function_name,
)


def test_no_duplicate_names_codes_or_methods():
    codes = Counter(code for code, _method in BUILTIN_OPS.values())
    methods = Counter(m for _code, m in BUILTIN_OPS.values() if m) + Counter(TFLM_CUSTOM_OPS.values())
    assert [c for c, n in codes.items() if n > 1] == []
    assert [m for m, n in methods.items() if n > 1] == []


def test_covers_every_schema_code_it_claims():
    # The schema's BuiltinOperator enum is contiguous from ADD = 0 to STABLEHLO_CASE = 209.
    assert sorted(code for code, _ in BUILTIN_OPS.values()) == list(range(210))
    assert all(builtin_name(code) is not None for code in range(210))
    assert builtin_name(210) is None and builtin_name(-1) is None
    assert CUSTOM_BUILTIN_CODE == 32 and BUILTIN_OPS["PLACEHOLDER_FOR_GREATER_OP_CODES"][0] == 127


def test_every_method_is_a_tflm_add_method():
    for method in [m for _c, m in BUILTIN_OPS.values() if m] + list(TFLM_CUSTOM_OPS.values()):
        assert method.startswith("Add") and method.isidentifier()
    # TFLM registers exactly 100 builtin ops and 18 named custom ops (ethos-u included) in micro_mutable_op_resolver.h.
    assert sum(1 for _c, m in BUILTIN_OPS.values() if m) == 100
    assert len(TFLM_CUSTOM_OPS) == 18


@pytest.mark.parametrize("op, method", [
    ("UNIDIRECTIONAL_SEQUENCE_LSTM", "AddUnidirectionalSequenceLSTM"), ("BATCH_TO_SPACE_ND", "AddBatchToSpaceNd"),
    ("L2_POOL_2D", "AddL2Pool2D"), ("REVERSE_V2", "AddReverseV2"), ("BATCH_MATMUL", "AddBatchMatMul"),
    ("PADV2", "AddPadV2"), ("CUMSUM", "AddCumSum"), ("SVDF", "AddSvdf"), ("PRELU", "AddPrelu"),
    ("RESIZE_NEAREST_NEIGHBOR", "AddResizeNearestNeighbor"), ("DYNAMIC_UPDATE_SLICE", "AddDynamicUpdateSlice"),
])
def test_irregular_builtin_methods(op, method):
    assert BUILTIN_OPS[op][1] == method


@pytest.mark.parametrize("name, method", [
    ("TFLite_Detection_PostProcess", "AddDetectionPostprocess"), ("SignalWindow", "AddWindow"),
    ("SignalPCAN", "AddPCAN"), ("ethos-u", "AddEthosU"), ("CIRCULAR_BUFFER", "AddCircularBuffer"),
    ("TFLM_DECODE", "AddDecode"),
])
def test_custom_ops_tflm_registers_by_name(name, method):
    registration = registration_for("custom", name)
    assert registration.method == method and registration.supported
    assert (registration.note is not None) == (name == "ethos-u")


@pytest.mark.parametrize("op", ["LSTM", "TILE", "GELU", "CONV_3D", "TOPK_V2", "RNN", "SELECT", "STABLEHLO_ADD"])
def test_ops_without_tflm_kernel_are_unsupported(op):
    assert "TFLM has no kernel" in registration_for("builtin", op).unsupported_reason


def test_flex_user_custom_and_overrides():
    assert "Flex" in registration_for("custom", "FlexAddV2").unsupported_reason
    assert registration_for("custom", "Sinh").custom_registration == "Register_SINH"
    assert registration_for("custom", "Sinh", {"Sinh": "MySinh"}).custom_registration == "MySinh"
    assert registration_for("custom", "SignalWindow", {"SignalWindow": "MyWindow"}).custom_registration == "MyWindow"


@pytest.mark.parametrize("name, function", [
    ("Sinh", "Register_SINH"), ("Atan", "Register_ATAN"), ("FilterBankLog", "Register_FILTER_BANK_LOG"),
    ("tftext:WhitespaceTokenizer", "Register_TFTEXT_WHITESPACE_TOKENIZER"), ("3d-op", "Register_3D_OP"),
    ("a__b", "Register_A_B"), ("", "Register_OP"), ("PCAN", "Register_PCAN"),
])
def test_registration_function_names_are_identifiers(name, function):
    assert registration_function_name(name) == function
    assert function.isidentifier() and "__" not in function
