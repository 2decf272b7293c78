"""gen-resolver end to end: real models' exact method lists, exit codes, one-line errors, -o, --check, --list."""

import re
import json
import subprocess
import sys
from pathlib import Path

import pytest

from resolver_gen.cli import main

REPO_ROOT = Path(__file__).resolve().parents[2]


def methods_in(header: str) -> list[str]:
    return re.findall(r"resolver\.(Add\w+)\(", header)


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def models(fixtures_dir):
    return fixtures_dir / "models"


@pytest.mark.parametrize("model, methods", [
    ("hello_world_int8.tflite", ["AddFullyConnected"]),
    ("hello_world_float.tflite", ["AddFullyConnected"]),
    ("person_detect.tflite", ["AddAveragePool2D", "AddConv2D", "AddDepthwiseConv2D", "AddReshape", "AddSoftmax"]),
    ("micro_speech_quantized.tflite", ["AddDepthwiseConv2D", "AddFullyConnected", "AddReshape", "AddSoftmax"]),
    ("keyword_scrambled.tflite", ["AddFullyConnected", "AddQuantize", "AddSoftmax", "AddSvdf"]),
    ("trained_lstm_int8.tflite", ["AddFullyConnected", "AddReshape", "AddSoftmax", "AddUnidirectionalSequenceLSTM"]),
    ("multi_subgraphs_while.tflite", ["AddAdd", "AddLess", "AddMul", "AddWhile"]),
    # builtin registrations first, then the signal library's custom ones (tflm_model/plan.py, PlannedOp.sort_key)
    ("audio_preprocessor_int8.tflite",
     ["AddAdd", "AddCast", "AddConcatenation", "AddDiv", "AddMaximum", "AddMinimum", "AddMul", "AddReshape",
      "AddStridedSlice", "AddEnergy", "AddFftAutoScale", "AddFilterBank", "AddFilterBankLog",
      "AddFilterBankSpectralSubtraction", "AddFilterBankSquareRoot", "AddPCAN", "AddRfft", "AddWindow"]),
])
def test_real_models_exact_methods(shared_models, capsys, model, methods):
    status, out, err = run(capsys, shared_models / model)
    assert (status, err) == (0, "")
    assert methods_in(out) == methods
    assert f"constexpr unsigned int kNumOps = {len(methods)};" in out


def test_real_custom_sinh_gets_addcustom_with_declaration(shared_models, capsys):
    status, out, _ = run(capsys, shared_models / "custom_sinh.tflite")
    assert status == 0
    assert methods_in(out) == ["AddCustom"]
    assert 'resolver.AddCustom("Sinh", tflite::Register_SINH());' in out
    assert "TFLMRegistration* Register_SINH();" in out


@pytest.mark.parametrize("model, op", [("lstm.tflite", "LSTM"), ("multi_add_flex.tflite", "FlexAddV2")])
def test_real_unsupported_ops_exit_1(shared_models, capsys, model, op):
    status, out, err = run(capsys, shared_models / model)
    assert status == 1 and out == ""
    assert f"unsupported op {op} in {model}" in err
    assert "ADD" not in err.replace("FlexAddV2", "")  # the Flex entry is not read as a phantom ADD


def test_real_union_of_all_supported_models(shared_models, capsys):
    names = ["person_detect.tflite", "micro_speech_quantized.tflite", "audio_preprocessor_int8.tflite"]
    status, out, _ = run(capsys, *[shared_models / n for n in names], "--name", "App")
    assert status == 0
    assert "constexpr unsigned int App_kNumOps = 23;" in out
    assert "// RESHAPE: audio_preprocessor_int8.tflite v1 (" in out
    line = next(l for l in out.splitlines() if l.startswith("  // DEPTHWISE_CONV_2D:"))
    assert "micro_speech_quantized.tflite" in line and "person_detect.tflite" in line


def test_union_names_each_model_and_prefixes_names(models, capsys):
    status, out, _ = run(capsys, models / "deprecated_codes.tflite", models / "unused_opcodes.tflite", "--name", "Kws")
    assert status == 0
    assert methods_in(out) == ["AddConv2D", "AddFullyConnected", "AddSoftmax"]
    assert "constexpr unsigned int Kws_kNumOps = 3;" in out
    assert "using Kws_OpResolver = tflite::MicroMutableOpResolver<Kws_kNumOps>;" in out
    assert "inline TfLiteStatus Kws_RegisterOps(Kws_OpResolver& resolver) {" in out
    assert "//   deprecated_codes.tflite: 2 distinct operators (3 operator nodes) in 1 subgraph\n" in out
    assert "//   unused_opcodes.tflite: 1 distinct operator (1 operator node) in 1 subgraph\n" in out
    assert "// CONV_2D: deprecated_codes.tflite v2 (2 uses)" in out


def test_unsupported_ops_exit_1_naming_each_and_allow_unsupported(models, capsys):
    model = models / "unsupported_ops.tflite"
    status, out, err = run(capsys, model)
    assert status == 1 and out == ""
    assert "unsupported op LSTM in unsupported_ops.tflite" in err
    assert "unsupported op FlexAddV2 in unsupported_ops.tflite" in err
    status, out, _ = run(capsys, model, "--allow-unsupported")
    assert status == 0
    assert methods_in(out) == ["AddFullyConnected"]
    assert "// NOT REGISTERED" in out and "//   LSTM (unsupported_ops.tflite)" in out


def test_only_unsupported_ops_is_exit_1_even_when_allowed(models, capsys):
    status, out, err = run(capsys, models / "only_unsupported.tflite", "--allow-unsupported")
    assert status == 1 and out == "" and "nothing to write" in err


def test_model_without_operators_exits_1(models, capsys):
    status, out, err = run(capsys, models / "no_operators.tflite")
    assert status == 1 and out == "" and "has no operators" in err


def test_custom_override(models, capsys):
    status, out, _ = run(capsys, models / "custom_ops.tflite", "--custom", "Atan=MyAtanKernel")
    assert status == 0
    assert 'resolver.AddCustom("Atan", tflite::MyAtanKernel());' in out
    assert "TFLMRegistration* MyAtanKernel();" in out and "Register_ATAN" not in out


@pytest.mark.parametrize("argv, problem", [
    (["--custom", "Atan"], "expected NAME=FUNCTION"),
    (["--custom", "Atan=not-an-identifier"], "expected NAME=FUNCTION"),
    (["--custom", "Nope=Fn"], "no model uses a custom op named 'Nope'"),
    (["--name", "1bad"], "not a valid C++ identifier"),
    (["--namespace", "a::"], "not a valid C++ namespace name"),
    (["--format", "yaml"], "invalid choice"),
    (["--list", "-o", "ops.h"], "does not combine with -o or --check"),
])
def test_usage_errors_are_one_line_exit_2(models, capsys, argv, problem):
    status, out, err = run(capsys, models / "custom_ops.tflite", *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and problem in err


def test_same_file_name_twice_is_exit_2(models, capsys):
    status, _, err = run(capsys, models / "custom_ops.tflite", models / "custom_ops.tflite")
    assert status == 2 and "given more than once" in err


BAD_MODELS = ["truncated.tflite", "wrong_identifier.tflite", "not_a_flatbuffer.tflite", "too_short.tflite",
              "schema_version_2.tflite", "root_offset_out_of_range.tflite", "vtable_out_of_range.tflite",
              "vector_past_end.tflite", "opcode_index_out_of_range.tflite", "unknown_builtin_code.tflite",
              "custom_without_name.tflite", "missing.tflite", ""]


@pytest.mark.parametrize("name", BAD_MODELS)
def test_bad_input_is_one_line_exit_2_and_nothing_written(models, tmp_path, capsys, name):
    model = models / name if name else tmp_path  # "" -> a directory
    output = tmp_path / "ops.h"
    status, out, err = run(capsys, models / "deprecated_codes.tflite", model, "-o", output)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"gen-resolver: error: {model}: ")
    assert list(tmp_path.iterdir()) == []


def test_bad_input_leaves_an_existing_output_untouched(models, tmp_path, capsys):
    output = tmp_path / "ops.h"
    output.write_text("previous\n")
    assert run(capsys, models / "truncated.tflite", "-o", output)[0] == 2
    assert output.read_text() == "previous\n" and [p.name for p in tmp_path.iterdir()] == ["ops.h"]


def test_empty_file_is_exit_2(tmp_path, capsys):
    empty = tmp_path / "empty.tflite"
    empty.write_bytes(b"")
    status, _, err = run(capsys, empty)
    assert status == 2 and "empty file" in err


def test_output_file_then_check(models, tmp_path, capsys):
    model = models / "deprecated_codes.tflite"
    header = tmp_path / "ops.h"
    assert run(capsys, model, "-o", header) == (0, "", "")
    assert [p.name for p in tmp_path.iterdir()] == ["ops.h"]
    assert run(capsys, model, "--check", header) == (0, "", "")
    status, out, err = run(capsys, models / "new_codes.tflite", "--check", header)
    assert status == 1 and out == ""
    assert f"{header} is stale" in err and "+  status = resolver.AddCumSum();" in err
    assert "-  status = resolver.AddConv2D();" in err


def test_output_with_the_same_text_is_left_untouched_and_a_change_rewrites_it(models, tmp_path, capsys):
    """A build regenerating the header from a model touched without changing its ops recompiles nothing."""
    import os

    header = tmp_path / "ops.h"
    assert run(capsys, models / "deprecated_codes.tflite", "-o", header)[0] == 0
    os.utime(header, ns=(1_000_000_000, 1_000_000_000))
    inode = header.stat().st_ino
    assert run(capsys, models / "deprecated_codes.tflite", "-o", header) == (0, "", "")
    assert (header.stat().st_mtime_ns, header.stat().st_ino) == (1_000_000_000, inode)
    assert run(capsys, models / "new_codes.tflite", "-o", header)[0] == 0
    assert header.stat().st_mtime_ns > 1_000_000_000 and "resolver.AddCumSum();" in header.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["ops.h"]


def test_output_to_a_fifo_is_written_in_place_not_read_nor_replaced(models, tmp_path):
    """-o /dev/stdout or /dev/null: the header goes through the file as it is (reading it back blocked on one's own
    stdout, and os.replace put a regular file in place of the device). A separate process, so that a regression
    fails on its timeout instead of hanging the suite."""
    import os
    import stat
    import threading

    fifo = tmp_path / "out.h"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    command = [sys.executable, "-m", "resolver_gen.cli", str(models / "deprecated_codes.tflite"), "-o", str(fifo)]
    env = {"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"}
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    finally:
        if reader.is_alive():  # unblock the reader whatever happened
            with open(fifo, "w"):
                pass
        reader.join(timeout=10)
    assert done.returncode == 0, done.stderr
    assert "RegisterOps" in received[0] and stat.S_ISFIFO(fifo.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out.h"]


def test_check_of_a_missing_header_is_exit_2(models, tmp_path, capsys):
    status, _, err = run(capsys, models / "deprecated_codes.tflite", "--check", tmp_path / "nope.h")
    assert status == 2 and "nope.h: no such file" in err


def test_output_to_a_directory_is_exit_2_and_leaves_no_temp_file(models, tmp_path, capsys):
    target = tmp_path / "ops.h"
    target.mkdir()
    status, _, err = run(capsys, models / "deprecated_codes.tflite", "-o", target)
    assert status == 2 and err.startswith(f"gen-resolver: error: {target}: cannot write")
    assert [p.name for p in tmp_path.iterdir()] == ["ops.h"]


def test_json_format(models, capsys):
    import json

    status, out, _ = run(capsys, models / "control_flow.tflite", models / "custom_ops.tflite", "--format", "json")
    assert status == 0
    data = json.loads(out)
    assert [m["file"] for m in data["models"]] == ["control_flow.tflite", "custom_ops.tflite"]
    ops = {op["name"]: op for op in data["models"][0]["ops"]}
    assert ops["FULLY_CONNECTED"]["versions_per_subgraph"] == {"0": [1], "1": [3]}
    assert ops["VAR_HANDLE"]["uses_per_subgraph"] == {"3": 1} and ops["IF"]["tflm_method"] == "AddIf"
    atan = {op["name"]: op for op in data["models"][1]["ops"]}["Atan"]
    assert atan["kind"] == "custom" and atan["custom_registration"] == "Register_ATAN"
    assert data["resolver"]["op_count"] == 10


def test_json_reports_unsupported_ops_without_failing(models, capsys):
    import json

    status, out, _ = run(capsys, models / "unsupported_ops.tflite", "--format", "json")
    assert status == 0
    assert json.loads(out)["resolver"]["unsupported"] == ["LSTM", "FlexAddV2"]  # builtin ops first


def test_list_prints_a_table_per_model(models, capsys):
    status, out, _ = run(capsys, models / "control_flow.tflite", models / "unsupported_ops.tflite", "--list")
    assert status == 0
    assert "control_flow.tflite (4 subgraphs)" in out and "unsupported_ops.tflite (1 subgraph)" in out
    row = next(line for line in out.splitlines() if " FULLY_CONNECTED " in line and "1,3" in line)
    assert "0: 1, 1: 1" in row and "AddFullyConnected()" in row
    assert any(" LSTM " in line and "unsupported" in line for line in out.splitlines())


def test_output_is_deterministic(models, capsys):
    argv = [models / "custom_ops.tflite", models / "control_flow.tflite", models / "tflm_custom_ops.tflite"]
    first = run(capsys, *argv)[1]
    assert run(capsys, *argv)[1] == first


def test_console_entry_point_runs_as_a_process(models, tmp_path):
    """The real command: no traceback on bad input, exit statuses from a separate interpreter."""
    command = [sys.executable, "-m", "resolver_gen.cli"]
    env = {"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"}
    good = subprocess.run(command + [str(models / "two_subgraphs.tflite")], capture_output=True, text=True, env=env)
    assert good.returncode == 0 and "resolver.AddWhile();" in good.stdout
    bad = subprocess.run(command + [str(models / "vector_past_end.tflite")], capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and bad.stdout == "" and "Traceback" not in bad.stderr
    assert bad.stderr.count("\n") == 1


def test_output_file_is_readable_like_any_source_file(models, tmp_path, capsys):
    import os

    previous = os.umask(0o022)
    try:
        header = tmp_path / "ops.h"
        assert run(capsys, models / "deprecated_codes.tflite", "-o", header)[0] == 0
        assert header.stat().st_mode & 0o777 == 0o644  # not mkstemp's 0600
    finally:
        os.umask(previous)


# --- tensor types -----------------------------------------------------------------------------------------------------

def calls_in(header: str) -> list[str]:
    return re.findall(r"status = resolver\.(\w+\([^;]*\));", header)


def test_reduce_types_writes_each_variant_with_its_include_and_why(models, capsys):
    status, out, err = run(capsys, models / "int8_vision.tflite", "--reduce-types")
    assert (status, err) == (0, "")
    assert calls_in(out) == [
        "AddAveragePool2D(tflite::Register_AVERAGE_POOL_2D_INT8())", "AddConv2D(tflite::Register_CONV_2D_INT8())",
        "AddDepthwiseConv2D(tflite::Register_DEPTHWISE_CONV_2D_INT8())",
        "AddFullyConnected(tflite::Register_FULLY_CONNECTED_INT8())",
        "AddMaxPool2D(tflite::Register_MAX_POOL_2D_INT8())", "AddPad(tflite::Register_PAD_INT8())", "AddReshape()",
        "AddSoftmax(tflite::Register_SOFTMAX_INT8())", "AddTranspose(tflite::Register_TRANSPOSE_INT8())"]
    # PAD_INT8 and TRANSPOSE_INT8 are declared in headers micro_mutable_op_resolver.h does not include.
    for header in ("conv.h", "depthwise_conv.h", "fully_connected.h", "pad.h", "pooling.h", "softmax.h", "transpose.h"):
        assert f'#include "tensorflow/lite/micro/kernels/{header}"\n' in out
    assert ("  // CONV_2D: int8_vision.tflite v3 (2 uses: int8×int8→int8)\n"
            "  // CONV_2D_INT8: every use is int8×int8→int8\n"
            "  status = resolver.AddConv2D(tflite::Register_CONV_2D_INT8());\n") in out


def test_without_reduce_types_the_header_is_generic_but_shows_the_types(models, capsys):
    status, out, _ = run(capsys, models / "int8_vision.tflite")
    assert status == 0 and "Register_" not in out and "kernels/" not in out
    assert "  // SOFTMAX: int8_vision.tflite v2 (1 use: int8→int8)\n  status = resolver.AddSoftmax();" in out


def test_reduce_types_over_two_models_explains_the_generic_ones(models, capsys):
    status, out, _ = run(capsys, models / "int8_vision.tflite", models / "mixed_float.tflite", "--reduce-types")
    assert status == 0
    assert "AddConv2D(tflite::Register_CONV_2D_INT8())" in calls_in(out)
    assert "AddSoftmax()" in calls_in(out) and "AddFullyConnected()" in calls_in(out)
    assert ("  // generic SOFTMAX: no single type-reduced registration (SOFTMAX_INT8, SOFTMAX_INT8_INT16, "
            "SOFTMAX_INT16) runs int8→int8 and int8→int16\n") in out


def test_reduce_types_signal_rfft_is_passed_by_pointer(models, capsys):
    status, out, _ = run(capsys, models / "signal_rfft_int16.tflite", "--reduce-types")
    assert status == 0
    assert "AddRfft(tflite::tflm_signal::Register_RFFT_INT16())" in calls_in(out)
    assert '#include "signal/micro/kernels/rfft.h"' in out


def test_check_compares_with_the_same_option(models, tmp_path, capsys):
    header = tmp_path / "ops.h"
    model = models / "int16x8.tflite"
    assert run(capsys, model, "--reduce-types", "-o", header)[0] == 0
    assert run(capsys, model, "--reduce-types", "--check", header) == (0, "", "")
    status, _, err = run(capsys, model, "--check", header)
    assert status == 1 and "-  status = resolver.AddConv2D(tflite::Register_CONV_2D_INT16());" in err


@pytest.mark.parametrize("model, lines", [
    ("hybrid.tflite", ["FULLY_CONNECTED in subgraph 0, operator 1 (float32×int8→float32): hybrid: "]),
    ("uint8_legacy.tflite", ["CONV_2D in subgraph 0, operator 1 (uint8×uint8→uint8): uint8 tensors: ",
                             "SOFTMAX in subgraph 0, operator 2 (uint8→uint8): uint8 tensors: "]),
    ("float16_weights.tflite", ["DEQUANTIZE in subgraph 0, operator 0 (float16→float32): float16 weights: "]),
    ("int64_and_int32.tflite", ["ARG_MAX in subgraph 1, operator 1 (float32→int64): int64 tensors, ",
                                "FLOOR_MOD in subgraph 1, operator 0 (int32×int32→int32): TFLM's FLOOR_MOD kernel "]),
])
def test_types_tflm_refuses_exit_1_naming_model_op_subgraph_operator_and_types(models, capsys, model, lines):
    status, out, err = run(capsys, models / model)
    assert status == 1 and out == ""
    refusals = [line for line in err.splitlines() if line.startswith("gen-resolver: unsupported types: ")]
    assert len(refusals) == len(lines)
    for refusal, expected in zip(refusals, lines):
        assert refusal.startswith(f"gen-resolver: unsupported types: {models / model}: {expected}")
        assert "; TFLM's kernel takes " in refusal
    assert err.endswith("gen-resolver: use --allow-unsupported to write the header anyway\n")


def test_allow_unsupported_registers_the_op_and_lists_the_refusals(models, capsys):
    status, out, _ = run(capsys, models / "hybrid.tflite", "--allow-unsupported", "--reduce-types")
    assert status == 0
    assert "// TFLM WILL REFUSE these tensor types at run time (written with --allow-unsupported):\n" in out
    assert "//   hybrid.tflite: FULLY_CONNECTED in subgraph 0, operator 1 (float32×int8→float32): hybrid: " in out
    assert calls_in(out) == ["AddConv2D()", "AddFullyConnected()", "AddSoftmax()"]


def test_json_reports_types_refusals_and_variants_without_failing(models, capsys):
    import json

    status, out, _ = run(capsys, models / "hybrid.tflite", models / "int8_vision.tflite", "--format", "json",
                         "--reduce-types")
    assert status == 0
    data = json.loads(out)
    fully_connected = {op["name"]: op for op in data["models"][0]["ops"]}["FULLY_CONNECTED"]
    assert fully_connected["types"] == [{
        "subgraph": 0, "operators": [1], "signature": "float32×int8→float32",
        "inputs": ["float32", "int8", "float32"], "outputs": ["float32"], "constant_inputs": [False, True, True],
        "refused": fully_connected["types"][0]["refused"]}]
    assert fully_connected["types"][0]["refused"].startswith("hybrid")
    [rejection] = data["resolver"]["type_rejections"]
    assert (rejection["model"], rejection["op"], rejection["operators"]) == ("hybrid.tflite", "FULLY_CONNECTED", [1])
    reduced = data["resolver"]["type_reduced"]
    assert reduced["MAX_POOL_2D"] == {"variant": "MAX_POOL_2D_INT8", "function": "tflite::Register_MAX_POOL_2D_INT8",
                                      "reason": "every use is int8→int8"}
    assert reduced["FULLY_CONNECTED"]["variant"] is None


def test_list_shows_types_and_refusals(models, capsys):
    status, out, _ = run(capsys, models / "uint8_legacy.tflite", "--list", "--reduce-types")
    assert status == 0
    conv = next(line for line in out.splitlines() if " CONV_2D " in line)
    assert "uint8×uint8→uint8 (1) refused" in conv
    quantize = next(line for line in out.splitlines() if " QUANTIZE " in line)
    assert "uint8→int8 (1)" in quantize and "refused" not in quantize


def test_real_models_reduce_types(shared_models, capsys):
    status, out, _ = run(capsys, shared_models / "person_detect.tflite", "--reduce-types")
    assert status == 0
    assert calls_in(out) == [
        "AddAveragePool2D(tflite::Register_AVERAGE_POOL_2D_INT8())", "AddConv2D(tflite::Register_CONV_2D_INT8())",
        "AddDepthwiseConv2D(tflite::Register_DEPTHWISE_CONV_2D_INT8())", "AddReshape()",
        "AddSoftmax(tflite::Register_SOFTMAX_INT8())"]
    status, out, _ = run(capsys, shared_models / "keyword_scrambled.tflite", "--reduce-types")
    assert calls_in(out) == ["AddFullyConnected(tflite::Register_FULLY_CONNECTED_INT8())", "AddQuantize()",
                             "AddSoftmax(tflite::Register_SOFTMAX_INT8_INT16())", "AddSvdf(tflite::Register_SVDF_INT8())"]


def test_real_legacy_uint8_ssd_is_refused(shared_models, capsys):
    model = shared_models / "coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite"
    status, out, err = run(capsys, model)
    assert status == 1 and out == ""
    assert f"unsupported types: {model}: CONV_2D in subgraph 0, operators 0, 2, 4, 6, 8 and 29 more " \
           "(uint8×uint8→uint8): uint8 tensors: legacy uint8 quantization" in err
    status, out, _ = run(capsys, model, "--allow-unsupported")
    assert status == 0 and methods_in(out) == [
        "AddConcatenation", "AddConv2D", "AddDepthwiseConv2D", "AddLogistic", "AddReshape", "AddDetectionPostprocess"]


def test_arena_header_carries_the_size_and_kernel_set(capsys, models):
    status, out, _ = run(capsys, models / "arena_add_chain.tflite", "--arena", "--kernels", "cmsis_nn",
                         "--tflm-revision", "90b983c")
    assert status == 0
    size = int(re.search(r"constexpr size_t kTensorArenaSize = (\d+);", out).group(1))
    assert "CMSIS-NN kernels, 32-bit pointers, exact" in out
    from tflm_model.arena_estimate import estimate_arena

    assert size == estimate_arena([models / "arena_add_chain.tflite"], "cmsis_nn").total_bytes


def test_arena_mve_uses_cmsis_nn_mve_scratch_rules(capsys, models):
    model = models / "arena_conv_per_channel.tflite"
    status, out, _ = run(capsys, model, "--arena", "--kernels", "cmsis_nn", "--mve", "--short-enums",
                         "--tflm-revision", "90b983c")
    assert status == 0 and "CMSIS-NN kernels for MVE, 32-bit pointers, short enums, exact" in out
    size = int(re.search(r"constexpr size_t kTensorArenaSize = (\d+);", out).group(1))
    from tflm_model.arena_estimate import estimate_arena

    assert size == estimate_arena([model], "cmsis_nn", short_enums=True, cpu_features="mve").total_bytes
    assert size != estimate_arena([model], "cmsis_nn", short_enums=True).total_bytes


def test_arena_esp_nn_uses_esp_tflite_micro_rules(capsys, models):
    model = models / "arena_conv_per_channel.tflite"
    status, out, _ = run(capsys, model, "--arena", "--kernels", "esp_nn", "--tflm-revision", "current")
    assert status == 0 and "esp-nn kernels, 32-bit pointers, exact" in out
    size = int(re.search(r"constexpr size_t kTensorArenaSize = (\d+);", out).group(1))
    from tflm_model.arena_estimate import estimate_arena

    assert size == estimate_arena([model], "esp_nn").total_bytes
    assert size == estimate_arena([model], "reference").total_bytes + 4  # the conv's NodeData: 60 B, not 56


def test_header_without_arena_has_no_arena_size(capsys, models):
    status, out, _ = run(capsys, models / "arena_add_chain.tflite")
    assert status == 0 and "kTensorArenaSize" not in out


def test_arena_json(capsys, models):
    status, out, _ = run(capsys, models / "arena_while.tflite", "--arena", "--format", "json", "--pointer-size", "8")
    arena = json.loads(out)["arena"]
    assert status == 0
    assert arena["pointer_bytes"] == 8 and arena["kernels"] == "reference"
    assert sum(p["bytes"] for p in arena["parts"]) == arena["total_bytes"]


def test_arena_list_prints_the_breakdown(capsys, models):
    status, out, _ = run(capsys, models / "arena_add_chain.tflite", "--list", "--arena")
    assert status == 0
    assert "non-persistent tensors (greedy plan)" in out and "kTensorArenaSize" in out


@pytest.mark.parametrize("argv, message", [
    (["arena_dynamic_shape.tflite", "--arena"], "dynamic shape"),
    (["arena_add_chain.tflite", "--arena", "--kernels", "xtensa"], "unknown kernel set 'xtensa'"),
    (["arena_add_chain.tflite", "--arena", "--pointer-size", "2"], "pointer size 2"),
    (["arena_add_chain.tflite", "--kernels", "cmsis_nn"], "add --arena"),
    (["arena_add_chain.tflite", "--kernels", "cmsis_nn", "--mve"], "add --arena"),
    (["arena_add_chain.tflite", "--arena", "--format", "lite"], "not to --format lite"),
    (["unsupported_ops.tflite", "--arena", "--allow-unsupported"], "unsupported op"),
])
def test_arena_bad_input_is_one_line_and_exit_2(capsys, models, argv, message):
    status, out, err = run(capsys, models / argv[0], *argv[1:])
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err
