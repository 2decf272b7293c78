"""model_crosscheck.py: registered operators no model uses, and model ops the firmware lacks.

The tables here are built by hand (names as the fixture firmware spells its registrations, see
fixtures/firmware/README.md); the models are the committed fixtures of fixtures/models/make_models.py, whose ops are
written out in that script.
"""

import json
import re

import pytest

from resolver_gen import cli as gen_resolver
from sizetool.errors import SizeToolError
from sizetool.operators.model_crosscheck import VariantSuggestion, crosscheck_models, read_model_ops, variant_note
from sizetool.report.operator_records import OperatorCost, OperatorTable
from tests.conftest import FIXTURES

MODELS = FIXTURES / "models"
VISION = str(MODELS / "vision_subset.tflite")  # CONV_2D DEPTHWISE_CONV_2D ADD RESHAPE SOFTMAX Sinh SignalWindow
#                                                TFLite_Detection_PostProcess
CUSTOM = str(MODELS / "custom_ops.tflite")  # Atan, tftext:WhitespaceTokenizer, TFLite_Detection_PostProcess, CONV_2D
UNSUPPORTED = str(MODELS / "unsupported_ops.tflite")  # LSTM, FlexAddV2, FULLY_CONNECTED


def cost(op, exclusive, namespace="tflite::"):
    return OperatorCost(op, f"{namespace}Register_{op}()", exclusive, 100, (f"kernels/{op.lower()}.cc",))


TABLE = OperatorTable(
    operators=[cost("DETECTION_POSTPROCESS", 2900), cost("FULLY_CONNECTED", 1039), cost("MUL", 998),
               cost("WINDOW", 920, "tflite::tflm_signal::"), cost("SINH", 284), cost("CONV_2D_INT8", 130),
               cost("SOFTMAX", 50)],
    runtime_bytes=9000, total_rom=20000)


def test_unused_and_missing_against_one_model():
    result = crosscheck_models(TABLE, [VISION])
    # Registered and used: the INT8 conv kernel serves CONV_2D, and the named custom ops map to their functions.
    assert [u.op for u in result.used] == ["CONV_2D_INT8", "DETECTION_POSTPROCESS", "SINH", "SOFTMAX", "WINDOW"]
    assert [(u.op, u.exclusive_bytes) for u in result.unused] == [("FULLY_CONNECTED", 1039), ("MUL", 998)]
    assert result.unused_bytes == 1039 + 998
    assert [(m.op.kind, m.op.name, m.op.method) for m in result.missing] == [
        ("builtin", "ADD", "AddAdd"), ("builtin", "DEPTHWISE_CONV_2D", "AddDepthwiseConv2D"),
        ("builtin", "RESHAPE", "AddReshape")]
    assert all(m.models == (VISION,) for m in result.missing)
    assert not result.passed


def test_every_op_present_passes_and_unused_names_the_rest():
    table = OperatorTable(operators=[cost(op, 10) for op in
                                     ("ADD", "CONV_2D", "DEPTHWISE_CONV_2D", "RESHAPE", "SOFTMAX", "SINH", "WINDOW",
                                      "DETECTION_POSTPROCESS", "LOGISTIC")])
    result = crosscheck_models(table, [VISION])
    assert result.passed and result.missing == []
    assert [u.op for u in result.unused] == ["LOGISTIC"]


def test_missing_ops_name_every_model_that_needs_them_in_the_given_order():
    table = OperatorTable(operators=[cost("SOFTMAX", 10)])
    result = crosscheck_models(table, [VISION, CUSTOM, UNSUPPORTED])
    by_name = {m.op.name: m for m in result.missing}
    assert by_name["CONV_2D"].models == (VISION, CUSTOM)
    assert by_name["TFLite_Detection_PostProcess"].models == (VISION, CUSTOM)
    assert by_name["Atan"].models == (CUSTOM,) and by_name["FULLY_CONNECTED"].models == (UNSUPPORTED,)
    # Ops TFLM cannot run are missing too, with the reason gen-resolver gives.
    assert "no kernel" in by_name["LSTM"].op.unsupported_reason
    assert "Flex" in by_name["FlexAddV2"].op.unsupported_reason
    assert [u.op for u in result.used] == ["SOFTMAX"] and [u.models for u in result.used] == [(VISION,)]


def test_registration_names_agree_with_the_header_gen_resolver_writes(capsys):
    """Every op of the models gets the method (and, for AddCustom, the function) that gen-resolver's header uses."""
    models = [str(MODELS / name) for name in ("vision_subset.tflite", "custom_ops.tflite", "tflm_custom_ops.tflite",
                                               "control_flow.tflite")]
    assert gen_resolver.main(models) == 0
    header = capsys.readouterr().out
    calls = dict(re.findall(r"// (\S+): .*\n\s*status = resolver\.(\w+\(.*\));", header))
    ops = {op.name: op for path in models for op in read_model_ops(path)}
    assert set(calls) == set(ops)
    for name, call in calls.items():
        op = ops[name]
        assert call.startswith(op.method + "("), name
        if op.method == "AddCustom":
            assert f"tflite::{op.registration}()" in call


@pytest.mark.parametrize("model", ["truncated.tflite", "not_a_flatbuffer.tflite", "no_such_model.tflite",
                                   "unknown_builtin_code.tflite"])
def test_a_bad_model_is_a_one_line_error_naming_it(model):
    with pytest.raises(SizeToolError) as error:
        crosscheck_models(TABLE, [VISION, str(MODELS / model)])
    assert str(MODELS / model) in str(error.value) and "\n" not in str(error.value)


def test_a_firmware_without_registrations_cannot_be_checked():
    with pytest.raises(SizeToolError, match="no TFLM operator registrations"):
        crosscheck_models(OperatorTable(notes=["stripped"]), [VISION], firmware="firmware-stripped.elf")


def test_a_model_without_operators_leaves_every_registration_unused():
    result = crosscheck_models(TABLE, [str(MODELS / "no_operators.tflite")])
    assert result.passed and result.used == []
    assert [u.op for u in result.unused] == [o.op for o in TABLE.operators]  # already largest first


# Set answers on the real fixture firmware, against its keep-only builds (fixtures/firmware/build.sh).

OUT = FIXTURES / "firmware" / "out"
FIRMWARE = str(OUT / "cortex-m4" / "firmware.elf")
UNUSED_OPCODES = str(MODELS / "unused_opcodes.tflite")  # FULLY_CONNECTED


@pytest.fixture(scope="module")
def fixture_firmware():
    import json

    from sizetool.operators.graph_cache import load_operator_graph
    from sizetool.operators.operator_cost import operator_table_for_graph
    from sizetool.report.report_builder import build_report

    graph = load_operator_graph(FIRMWARE, use_cache=False)
    table = operator_table_for_graph(graph, build_report(FIRMWARE, use_cache=False), FIRMWARE)
    return graph, table, json.loads((OUT / "manifest.json").read_text())["builds"]


def near(predicted, real):
    return abs(predicted - real) <= max(256, 0.01 * real)


def test_firmware_with_exactly_the_models_ops_is_predicted_from_the_set_saving(fixture_firmware):
    graph, table, builds = fixture_firmware
    result = crosscheck_models(table, [VISION], operator_graph=graph)
    sets = result.sets
    assert set(sets.unused.ops) == {u.op for u in result.unused}
    assert sets.predicted_rom == table.total_rom - sets.unused.saving
    assert near(sets.predicted_rom, builds["keep-only/cortex-m4/vision_subset.elf"]["flash_bytes"])
    # The set saving covers code only the unused ops share (pooling code, ParsePool): more than their sum.
    assert sets.unused.saving > result.unused_bytes
    assert sets.no_operators_rom == table.runtime_bytes


def test_several_models_each_cost_and_what_each_adds(fixture_firmware):
    graph, table, builds = fixture_firmware
    result = crosscheck_models(table, [VISION, UNUSED_OPCODES], operator_graph=graph)
    vision, fully_connected = result.sets.models
    assert fully_connected.registrations == fully_connected.only_ops == ("FULLY_CONNECTED",)
    assert near(result.sets.predicted_rom, builds["keep-only/cortex-m4/vision_subset+unused_opcodes.elf"]["flash_bytes"])
    assert near(vision.firmware_bytes, builds["keep-only/cortex-m4/vision_subset.elf"]["flash_bytes"])
    assert near(fully_connected.firmware_bytes, builds["keep-only/cortex-m4/unused_opcodes.elf"]["flash_bytes"])
    # What FULLY_CONNECTED adds to a vision firmware: the two keep-only links differ by that much.
    real_addition = (builds["keep-only/cortex-m4/vision_subset+unused_opcodes.elf"]["flash_bytes"]
                     - builds["keep-only/cortex-m4/vision_subset.elf"]["flash_bytes"])
    assert abs(fully_connected.adds_to_others - real_addition) <= 64
    assert vision.on_top_of_runtime == vision.firmware_bytes - result.sets.no_operators_rom
    assert vision.missing == () and fully_connected.missing == ()


def test_a_model_needing_missing_ops_says_so_in_its_cost(fixture_firmware):
    graph, table, _ = fixture_firmware
    result = crosscheck_models(table, [CUSTOM, VISION], operator_graph=graph)
    custom = result.sets.models[0]
    assert set(custom.missing) == {"Atan", "tftext:WhitespaceTokenizer"}
    assert set(custom.registrations) == {"CONV_2D", "CONV_2D_INT8", "DETECTION_POSTPROCESS"}


def test_model_firmware_for_a_budget(fixture_firmware):
    from sizetool.operators.model_crosscheck import model_firmware

    graph, table, builds = fixture_firmware
    predicted, kept, missing = model_firmware(graph, table.total_rom, UNUSED_OPCODES)
    assert kept == ("FULLY_CONNECTED",) and missing == ()
    assert near(predicted, builds["keep-only/cortex-m4/unused_opcodes.elf"]["flash_bytes"])


# Tensor types: the same rule as gen-resolver (tflm_model.type_support), and type-reduced registrations.

HYBRID = str(MODELS / "hybrid.tflite")  # CONV_2D float32, FULLY_CONNECTED float32×int8 (refused), SOFTMAX float32
UINT8 = str(MODELS / "uint8_legacy.tflite")  # CONV_2D and SOFTMAX in uint8 (refused), QUANTIZE uint8→int8
INT8_VISION = str(MODELS / "int8_vision.tflite")  # every op int8 (CONV_2D twice, pools, PAD, TRANSPOSE, ...)
TYPED_OPS = ("AVERAGE_POOL_2D", "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "MAX_POOL_2D", "PAD", "RESHAPE",
             "SOFTMAX", "TRANSPOSE", "QUANTIZE")


def test_types_tflm_refuses_fail_the_check_with_gen_resolvers_words(capsys):
    table = OperatorTable(operators=[cost(op, 10) for op in TYPED_OPS])
    result = crosscheck_models(table, [INT8_VISION, HYBRID, UINT8])
    assert result.missing == [] and not result.passed
    assert [(t.model, t.op, t.subgraph, t.types) for t in result.type_problems] == [
        (HYBRID, "FULLY_CONNECTED", 0, "float32×int8→float32"),
        (UINT8, "CONV_2D", 0, "uint8×uint8→uint8"),
        (UINT8, "SOFTMAX", 0, "uint8→uint8")]
    # gen-resolver refuses the same models for the same ops, in the same words.
    assert gen_resolver.main([HYBRID, UINT8]) == 1
    refused = capsys.readouterr().err
    for problem in result.type_problems:
        assert problem.message in refused


def test_models_whose_types_tflm_runs_pass():
    table = OperatorTable(operators=[cost(op, 10) for op in TYPED_OPS])
    assert crosscheck_models(table, [INT8_VISION]).passed


def test_a_type_reduced_kernel_alone_cannot_run_other_types():
    # CONV_2D_INT8 without the generic CONV_2D: the float conv of the hybrid model has no kernel on the device.
    table = OperatorTable(operators=[cost(op, 10) for op in ("CONV_2D_INT8", "FULLY_CONNECTED", "SOFTMAX")])
    problems = crosscheck_models(table, [HYBRID]).type_problems
    assert ("CONV_2D", "float32×float32→float32") in [(t.op, t.types) for t in problems]
    assert any("CONV_2D_INT8" in t.reason for t in problems)
    # With the generic registration beside it, the float conv runs.
    table.operators.append(cost("CONV_2D", 10))
    assert "CONV_2D" not in [t.op for t in crosscheck_models(table, [HYBRID]).type_problems]


def test_generic_registrations_every_model_allows_to_reduce():
    table = OperatorTable(operators=[cost(op, 10) for op in TYPED_OPS])
    suggestions = {v.op: v for v in crosscheck_models(table, [INT8_VISION]).variants}
    assert suggestions["CONV_2D"].variant == "CONV_2D_INT8"
    assert suggestions["CONV_2D"].call == "AddConv2D(tflite::Register_CONV_2D_INT8())"
    assert suggestions["FULLY_CONNECTED"].variant == "FULLY_CONNECTED_INT8"
    assert "RESHAPE" not in suggestions  # TFLM has no type-reduced RESHAPE
    assert all(v.saving is None for v in suggestions.values())  # no graph, and no variant linked here
    # A float model beside it: no single variant runs both, so nothing is suggested for the shared ops.
    both = {v.op for v in crosscheck_models(table, [INT8_VISION, HYBRID]).variants}
    assert "CONV_2D" not in both and "FULLY_CONNECTED" not in both


def test_the_saving_of_a_variant_already_linked_matches_the_leave_one_out_build(fixture_firmware):
    graph, table, builds = fixture_firmware
    result = crosscheck_models(table, [INT8_VISION], operator_graph=graph)
    conv = next(v for v in result.variants if v.op == "CONV_2D")
    # The fixture firmware links CONV_2D_INT8 too (its <3> resolver): dropping the generic CONV_2D is what
    # AddConv2D(Register_CONV_2D_INT8()) saves here, and the build without AddConv2D() measures it.
    sizes = json.loads((OUT / "sizes.json").read_text())  # `size` of each fixture ELF, recorded at build time
    flash = {name: s["text"] + s["data"] for name, s in sizes.items()}
    real = flash["cortex-m4/firmware.elf"] - flash["variants/cortex-m4/without_CONV_2D.elf"]
    assert conv.saving is not None and abs(conv.saving - real) <= max(64, 0.1 * real)


def test_a_variant_note_names_the_kernel_sets_that_implement_it_and_where_it_is_the_generic_kernel():
    conv = VariantSuggestion("CONV_2D", "AddConv2D", "CONV_2D_INT8", "tflite::Register_CONV_2D_INT8",
                             "tensorflow/lite/micro/kernels/conv.h", "every use is int8×int8→int8", ("cmsis_nn", "xtensa"))
    # esp-tflite-micro's conv.h maps Register_CONV_2D_INT8() to Register_CONV_2D(), as the reference build does
    assert variant_note(conv) == ("saves flash with cmsis_nn, xtensa kernels; with reference or esp_nn kernels it is "
                                  "the generic kernel")
