"""Which tensor types TFLM refuses, and which type-reduced registration runs every use: fixtures per type rule, real
models, and the path-based API size-report uses."""

import pytest

from tflm_model.errors import ModelError
from tflm_model.operator_uses import OpKey, read_model_uses
from tflm_model.tflite_reader import TensorTypes
from tflm_facts.type_rules import TENSOR_TYPE_CODES as T
from tflm_model.type_support import (
    choose_variant, model_rejections, rejection_reason, signature, type_rejections, variant_choices,
    variant_every_model_allows, variant_misfits,
)

CONV = OpKey("builtin", "CONV_2D")


def types(inputs, outputs, constant=None):
    inputs = tuple(-1 if t == "-" else T[t] for t in inputs)
    return TensorTypes(inputs, tuple(T[t] for t in outputs), tuple(constant or [i > 0 for i in range(len(inputs))]))


def rejections_of(fixtures_dir, *names):
    return model_rejections([read_model_uses(fixtures_dir / "models" / n, hash_in_background=False) for n in names])


def summary(rejections):
    return [(r.op, r.subgraph, r.operators, r.types) for r in rejections]


def test_signature_shows_the_inputs_the_kernel_dispatches_on():
    assert signature(CONV, types(("int8", "int8", "int32"), ("int8",))) == "int8×int8→int8"
    assert signature(OpKey("builtin", "TRANSPOSE_CONV"), types(("int32", "int8", "int16", "int64"), ("int16",))) \
        == "int16×int8→int16"
    assert signature(OpKey("builtin", "ADD"), types(("int8", "int8"), ("int8",))) == "int8×int8→int8"
    assert signature(OpKey("custom", "Sinh"), types(("float32", "-"), ("float32",))) == "float32→float32"
    assert signature(CONV, TensorTypes((), (), ())) == ""


@pytest.mark.parametrize("inputs, outputs, constant, reason", [
    (("float32", "int8", "float32"), ("float32",), None, "hybrid: float32 activations with int8 weights"),
    (("uint8", "uint8", "int32"), ("uint8",), None, "uint8 tensors: legacy uint8 quantization"),
    (("float32", "float16", "float32"), ("float32",), None, "float16 weights"),
    (("float32", "float16"), ("float32",), (False, False), "float16 tensors"),
    (("int16", "int16", "int64"), ("int16",), None, "TFLM's CONV_2D kernel does not take these types"),
    (("int64", "int8"), ("int64",), None, "int64 tensors, which TFLM's CONV_2D kernel does not take"),
])
def test_refusal_reasons_name_the_likely_cause(inputs, outputs, constant, reason):
    assert rejection_reason(CONV, types(inputs, outputs, constant)).startswith(reason)


@pytest.mark.parametrize("inputs, outputs", [
    (("float32", "float32", "float32"), ("float32",)), (("int8", "int8", "int32"), ("int8",)),
    (("int8", "int4", "int32"), ("int8",)), (("int16", "int8", "int64"), ("int16",)), (("int16", "int8"), ("int16",)),
])
def test_what_tflm_conv_runs_is_not_refused(inputs, outputs):
    assert rejection_reason(CONV, types(inputs, outputs)) is None


def test_types_tflm_cannot_allocate_are_refused_for_any_op_custom_ops_included():
    string = types(("string", "int32"), ("string",), (False, True))
    assert rejection_reason(OpKey("builtin", "RESHAPE"), string) == "string tensors, which TFLM cannot allocate"
    assert rejection_reason(OpKey("custom", "MyOp"), string) == "string tensors, which TFLM cannot allocate"
    assert rejection_reason(OpKey("builtin", "WHILE"), types(("int32",), ("float8e5m2",))) == \
        "float8e5m2 tensors, which TFLM cannot allocate"
    assert rejection_reason(OpKey("custom", "MyOp"), types(("int8",), ("int8",))) is None
    unknown = TensorTypes((9,), (42,), (False,))
    assert rejection_reason(OpKey("builtin", "RESHAPE"), unknown) == \
        "tensor type code 42 is not in the TFLite schema TFLM knows"


@pytest.mark.parametrize("op, inputs, outputs", [
    # Both found by running real models on TFLM: RSQRT's Prepare check never fires, its Eval takes int16;
    # QUANTIZE requantizes int8 to uint8.
    ("RSQRT", ("int16",), ("int16",)), ("QUANTIZE", ("int8",), ("uint8",)),
])
def test_combinations_tflm_runs_although_a_first_reading_said_otherwise(op, inputs, outputs):
    assert rejection_reason(OpKey("builtin", op), types(inputs, outputs)) is None


def lstm(present: set[int], activation="int8", weights="int8", cell="int16"):
    names = {0: activation, 18: activation, 19: cell, **{i: weights for i in range(1, 9)},
             **{i: "int32" for i in range(12, 16)}}
    inputs = tuple(names.get(i, weights) if i in present else "-" for i in range(24))
    return types(inputs, (activation,), [i not in (0, 18, 19) for i in range(24)])


def test_lstm_inputs_tflm_refuses():
    key = OpKey("builtin", "UNIDIRECTIONAL_SEQUENCE_LSTM")
    plain = set(range(9)) | set(range(12, 16)) | {18, 19}
    assert rejection_reason(key, lstm(plain)) is None
    assert rejection_reason(key, lstm(plain, "int16")) is None
    assert rejection_reason(key, lstm(plain | {16, 17, 20})) == \
        "inputs 16, 17, 20 given, which TFLM's UNIDIRECTIONAL_SEQUENCE_LSTM kernel does not allow"
    assert rejection_reason(key, lstm(plain - {1})) == \
        "input 1 omitted, which TFLM's UNIDIRECTIONAL_SEQUENCE_LSTM kernel does not allow"  # CIFG
    assert signature(key, lstm(plain)) == "int8×int8→int8"


def test_an_operator_without_tensors_is_not_type_checked():
    assert rejection_reason(CONV, TensorTypes((), (), ())) is None


def test_hybrid_fixture(fixtures_dir):
    [rejection] = rejections_of(fixtures_dir, "hybrid.tflite")
    assert summary([rejection]) == [("FULLY_CONNECTED", 0, (1,), "float32×int8→float32")]
    assert rejection.reason.startswith("hybrid")
    assert rejection.accepted == ("float32×float32→float32", "int8×int8|int4→int8", "int16×int8→int16")
    assert rejection.message() == (
        f"{fixtures_dir / 'models' / 'hybrid.tflite'}: FULLY_CONNECTED in subgraph 0, operator 1 "
        f"(float32×int8→float32): {rejection.reason}; TFLM's kernel takes float32×float32→float32, "
        "int8×int8|int4→int8, int16×int8→int16")


def test_uint8_fixture_refuses_uint8_kernels_but_not_the_uint8_to_int8_quantize(fixtures_dir):
    rejections = rejections_of(fixtures_dir, "uint8_legacy.tflite")
    assert summary(rejections) == [("CONV_2D", 0, (1,), "uint8×uint8→uint8"), ("SOFTMAX", 0, (2,), "uint8→uint8")]
    assert all("legacy uint8 quantization" in r.reason for r in rejections)


def test_float16_weights_fixture(fixtures_dir):
    [rejection] = rejections_of(fixtures_dir, "float16_weights.tflite")
    assert summary([rejection]) == [("DEQUANTIZE", 0, (0,), "float16→float32")]
    assert rejection.reason.startswith("float16 weights")


def test_int64_and_int32_fixture_names_subgraph_1(fixtures_dir):
    rejections = rejections_of(fixtures_dir, "int64_and_int32.tflite")
    assert summary(rejections) == [("ARG_MAX", 1, (1,), "float32→int64"), ("FLOOR_MOD", 1, (0,), "int32×int32→int32")]
    assert rejections[0].reason.startswith("int64 tensors")


@pytest.mark.parametrize("name", ["int8_vision.tflite", "int16x8.tflite", "int4_weights.tflite", "mixed_float.tflite",
                                  "signal_rfft_int16.tflite", "control_flow.tflite"])
def test_models_tflm_runs_are_not_refused(fixtures_dir, name):
    assert rejections_of(fixtures_dir, name) == []


def chosen(fixtures_dir, *names):
    models = [read_model_uses(fixtures_dir / "models" / n, hash_in_background=False) for n in names]
    keys = sorted({use.key for model in models for use in model.ops})
    from tflm_model.type_support import variant_for_models

    return {key.name: (choice.variant.name if choice.variant else None)
            for key in keys for choice in [variant_for_models(models, key)]}


def test_int8_model_gets_every_int8_variant(fixtures_dir):
    assert chosen(fixtures_dir, "int8_vision.tflite") == {
        "AVERAGE_POOL_2D": "AVERAGE_POOL_2D_INT8", "CONV_2D": "CONV_2D_INT8",
        "DEPTHWISE_CONV_2D": "DEPTHWISE_CONV_2D_INT8", "FULLY_CONNECTED": "FULLY_CONNECTED_INT8",
        "MAX_POOL_2D": "MAX_POOL_2D_INT8", "PAD": "PAD_INT8", "RESHAPE": None, "SOFTMAX": "SOFTMAX_INT8",
        "TRANSPOSE": "TRANSPOSE_INT8"}


def test_int16x8_and_int4_models(fixtures_dir):
    assert chosen(fixtures_dir, "int16x8.tflite") == {
        "AVERAGE_POOL_2D": "AVERAGE_POOL_2D_INT16", "CONV_2D": "CONV_2D_INT16",
        "DEPTHWISE_CONV_2D": "DEPTHWISE_CONV_2D_INT16", "FULLY_CONNECTED": "FULLY_CONNECTED_INT16",
        "SOFTMAX": "SOFTMAX_INT16"}
    assert chosen(fixtures_dir, "int4_weights.tflite") == {
        "CONV_2D": "CONV_2D_INT4", "DEPTHWISE_CONV_2D": "DEPTHWISE_CONV_2D_INT4",
        "FULLY_CONNECTED": "FULLY_CONNECTED_INT4"}


def test_two_models_sharing_an_op_with_different_types_keep_the_generic_registration(fixtures_dir):
    both = chosen(fixtures_dir, "int8_vision.tflite", "mixed_float.tflite")
    assert both["FULLY_CONNECTED"] is None and both["SOFTMAX"] is None
    assert both["CONV_2D"] == "CONV_2D_INT8"  # int8 in both models
    assert chosen(fixtures_dir, "mixed_float.tflite")["SOFTMAX"] == "SOFTMAX_INT8_INT16"


def test_signal_rfft_and_an_omitted_bias(fixtures_dir):
    assert chosen(fixtures_dir, "signal_rfft_int16.tflite") == {
        "FULLY_CONNECTED": "FULLY_CONNECTED_INT8", "SignalRfft": "RFFT_INT16"}


def test_choose_variant_says_why():
    int8 = types(("int8", "int8", "int32"), ("int8",))
    int16 = types(("int16", "int8", "int64"), ("int16",))
    assert choose_variant(CONV, [int8]).reason == "every use is int8×int8→int8"
    none = choose_variant(CONV, [int8, int16])
    assert none.variant is None
    assert none.reason == ("no single type-reduced registration (CONV_2D_INT4, CONV_2D_INT8, CONV_2D_INT16) runs "
                           "int8×int8→int8 and int16×int8→int16")
    reshape = choose_variant(OpKey("builtin", "RESHAPE"), [int8])
    assert reshape.variant is None and reshape.reason == "TFLM has no type-reduced registration for RESHAPE"


# --- the API for size-report ----------------------------------------------------------------------------------------

def test_type_rejections_from_paths(fixtures_dir):
    paths = [fixtures_dir / "models" / n for n in ("int8_vision.tflite", "hybrid.tflite", "uint8_legacy.tflite")]
    rejections = type_rejections(paths)
    assert [(r.model, r.op) for r in rejections] == [
        (str(paths[1]), "FULLY_CONNECTED"), (str(paths[2]), "CONV_2D"), (str(paths[2]), "SOFTMAX")]


def test_variant_every_model_allows_from_paths(fixtures_dir):
    models = fixtures_dir / "models"
    choice = variant_every_model_allows([models / "int8_vision.tflite", models / "mixed_float.tflite"], "CONV_2D")
    assert choice.variant.name == "CONV_2D_INT8" and choice.reason == "every use is int8×int8→int8"
    choice = variant_every_model_allows([models / "int8_vision.tflite", models / "mixed_float.tflite"], "SOFTMAX")
    assert choice.variant is None and "int8→int8 and int8→int16" in choice.reason
    assert variant_every_model_allows([models / "int8_vision.tflite"], "LOGISTIC").reason == \
        "no model uses LOGISTIC"
    assert variant_every_model_allows([models / "signal_rfft_int16.tflite"], "SignalRfft").variant.name == "RFFT_INT16"
    with pytest.raises(ModelError, match="truncated.tflite"):
        variant_every_model_allows([models / "truncated.tflite"], "CONV_2D")


def test_variant_choices_reads_the_models_once_for_every_op(fixtures_dir):
    models = fixtures_dir / "models"
    choices = variant_choices([models / "int8_vision.tflite", models / "mixed_float.tflite"])
    assert sorted(choices) == ["AVERAGE_POOL_2D", "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "MAX_POOL_2D",
                               "PAD", "SOFTMAX", "TRANSPOSE"]  # not RESHAPE: it has no variant
    assert choices["CONV_2D"].variant.name == "CONV_2D_INT8" and choices["SOFTMAX"].variant is None


def test_variant_misfits_names_the_uses_a_registered_variant_cannot_run(fixtures_dir):
    models = fixtures_dir / "models"
    paths = [models / "int8_vision.tflite", models / "mixed_float.tflite"]
    assert variant_misfits(paths, "CONV_2D_INT8") == []
    [misfit] = variant_misfits(paths, "FULLY_CONNECTED_INT8")
    assert (misfit.model, misfit.subgraph, misfit.operators, misfit.types) == (
        str(paths[1]), 0, (0,), "float32×float32→float32")
    assert misfit.reason == "FULLY_CONNECTED_INT8 runs only int8×int8→int8"
    with pytest.raises(ModelError, match="CONV_2D_INT3: not a TFLM type-reduced registration"):
        variant_misfits(paths, "CONV_2D_INT3")


# --- real models ----------------------------------------------------------------------------------------------------

def test_real_models_variants(shared_models):
    assert variant_every_model_allows([shared_models / "keyword_scrambled.tflite"], "SOFTMAX").variant.name == \
        "SOFTMAX_INT8_INT16"
    assert variant_every_model_allows([shared_models / "keyword_scrambled.tflite"], "SVDF").variant.name == "SVDF_INT8"
    assert variant_every_model_allows([shared_models / "audio_preprocessor_int8.tflite"], "SignalRfft").variant.name \
        == "RFFT_INT16"
    assert variant_every_model_allows([shared_models / "hello_world_float.tflite"], "FULLY_CONNECTED").variant is None
    # person_detect ends in int8 -> int8, keyword_scrambled in int8 -> int16: no single SOFTMAX variant.
    both = [shared_models / "person_detect.tflite", shared_models / "keyword_scrambled.tflite"]
    assert variant_every_model_allows(both, "SOFTMAX").variant is None


def test_real_models_refused_for_types(shared_models):
    rejections = type_rejections(sorted(shared_models.glob("*.tflite")))
    coco = str(shared_models / "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite")
    assert {r.model for r in rejections} == {coco}
    assert [r.op for r in rejections] == ["CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "LOGISTIC"]
    assert all(r.types.startswith("uint8") for r in rejections)
