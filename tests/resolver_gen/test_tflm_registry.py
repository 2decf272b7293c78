"""The TFLM registration table is consistent data."""

from collections import Counter

from resolver_gen.tflm_registry import BUILTIN_OPS, TFLM_CUSTOM_OPS, custom_registration_function, registration_for


def test_no_duplicate_codes_or_methods():
    codes = Counter(code for code, _method in BUILTIN_OPS.values())
    methods = Counter(m for _code, m in BUILTIN_OPS.values() if m) + Counter(TFLM_CUSTOM_OPS.values())
    assert [c for c, n in codes.items() if n > 1] == []
    assert [m for m, n in methods.items() if n > 1] == []


def test_codes_are_contiguous_and_methods_well_formed():
    assert sorted(code for code, _ in BUILTIN_OPS.values()) == list(range(len(BUILTIN_OPS)))
    for method in [m for _c, m in BUILTIN_OPS.values() if m] + list(TFLM_CUSTOM_OPS.values()):
        assert method.startswith("Add") and method.isidentifier()


def test_irregular_names():
    assert BUILTIN_OPS["UNIDIRECTIONAL_SEQUENCE_LSTM"][1] == "AddUnidirectionalSequenceLSTM"
    assert BUILTIN_OPS["BATCH_TO_SPACE_ND"][1] == "AddBatchToSpaceNd"
    assert BUILTIN_OPS["L2_POOL_2D"][1] == "AddL2Pool2D"
    assert BUILTIN_OPS["REVERSE_V2"][1] == "AddReverseV2"
    assert BUILTIN_OPS["STABLEHLO_CASE"][0] == 209
    assert TFLM_CUSTOM_OPS["TFLite_Detection_PostProcess"] == "AddDetectionPostprocess"
    assert TFLM_CUSTOM_OPS["SignalWindow"] == "AddWindow"
    assert registration_for(None, "ethos-u").method == "AddEthosU"


def test_unsupported_and_user_custom_ops():
    for name in ("LSTM", "TILE", "GELU", "CONV_3D", "TOPK_V2"):
        assert registration_for(BUILTIN_OPS[name][0], name).unsupported_reason
    assert registration_for(None, "FlexAddV2").unsupported_reason
    assert registration_for(None, "Sinh").custom_registration == "Register_SINH"
    assert custom_registration_function("tftext:WhitespaceTokenizer").isidentifier()
    assert custom_registration_function("3d-op").isidentifier()
