"""gen-resolver end to end: real models' exact method lists, exit codes, one-line errors, --check, g++ compile."""

import re
import shutil
import subprocess

import pytest

from resolver_gen.cli import main


def methods_in(header: str) -> list[str]:
    return re.findall(r"resolver\.(Add\w+)\(", header)


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("model, methods", [
    ("hello_world_int8.tflite", ["AddFullyConnected"]),
    ("hello_world_float.tflite", ["AddFullyConnected"]),
    ("person_detect.tflite", ["AddAveragePool2D", "AddConv2D", "AddDepthwiseConv2D", "AddReshape", "AddSoftmax"]),
    ("micro_speech_quantized.tflite", ["AddDepthwiseConv2D", "AddFullyConnected", "AddReshape", "AddSoftmax"]),
    ("keyword_scrambled.tflite", ["AddFullyConnected", "AddQuantize", "AddSoftmax", "AddSvdf"]),
    ("trained_lstm_int8.tflite", ["AddFullyConnected", "AddReshape", "AddSoftmax", "AddUnidirectionalSequenceLSTM"]),
    ("multi_subgraphs_while.tflite", ["AddAdd", "AddLess", "AddMul", "AddWhile"]),
    ("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite",
     ["AddConcatenation", "AddConv2D", "AddDepthwiseConv2D", "AddDetectionPostprocess", "AddLogistic", "AddReshape"]),
    ("audio_preprocessor_int8.tflite",
     ["AddAdd", "AddCast", "AddConcatenation", "AddDiv", "AddEnergy", "AddFftAutoScale", "AddFilterBank",
      "AddFilterBankLog", "AddFilterBankSpectralSubtraction", "AddFilterBankSquareRoot", "AddMaximum", "AddMinimum",
      "AddMul", "AddPCAN", "AddReshape", "AddRfft", "AddStridedSlice", "AddWindow"]),
])
def test_real_models_exact_methods(shared_models, capsys, model, methods):
    status, out, err = run(capsys, shared_models / model)
    assert (status, err) == (0, "")
    assert methods_in(out) == methods
    assert f"constexpr int kNumOps = {len(methods)};" in out


def test_custom_sinh_gets_addcustom_with_declaration(shared_models, capsys):
    status, out, _ = run(capsys, shared_models / "custom_sinh.tflite")
    assert status == 0
    assert 'resolver.AddCustom("Sinh", tflite::Register_SINH());' in out
    assert "TFLMRegistration* Register_SINH();" in out


@pytest.mark.parametrize("model, op", [("lstm.tflite", "LSTM"), ("multi_add_flex.tflite", "FlexAddV2")])
def test_real_unsupported_ops_exit_1(shared_models, capsys, model, op):
    status, out, err = run(capsys, shared_models / model)
    assert status == 1 and out == ""
    assert f"unsupported op {op} in {model}" in err
    assert "AddAdd" not in err  # the Flex entry is not read as a phantom ADD


def test_union_of_models_names_each_model(fixtures_dir, capsys):
    models = fixtures_dir / "models"
    status, out, _ = run(capsys, models / "deprecated_codes.tflite", models / "unused_opcodes.tflite", "--name", "Kws")
    assert status == 0
    assert methods_in(out) == ["AddConv2D", "AddFullyConnected", "AddSoftmax"]
    assert "constexpr int Kws_kNumOps = 3;" in out
    assert "using Kws_OpResolver = tflite::MicroMutableOpResolver<Kws_kNumOps>;" in out
    assert "deprecated_codes.tflite (sha256 " in out and "unused_opcodes.tflite (sha256 " in out


def test_unsupported_fixture_and_allow_unsupported(fixtures_dir, capsys):
    model = fixtures_dir / "models" / "unsupported_ops.tflite"
    status, _, err = run(capsys, model)
    assert status == 1 and "LSTM" in err and "FlexAddV2" in err
    status, out, _ = run(capsys, model, "--allow-unsupported")
    assert status == 0
    assert methods_in(out) == ["AddFullyConnected"]
    assert "NOT REGISTERED" in out and "LSTM" in out


def test_model_without_operators_exits_1(fixtures_dir, capsys):
    status, out, err = run(capsys, fixtures_dir / "models" / "no_operators.tflite")
    assert status == 1 and out == "" and "no operators" in err


@pytest.mark.parametrize("name", ["truncated.tflite", "wrong_identifier.tflite", "opcode_index_out_of_range.tflite",
                                  "unknown_builtin_code.tflite", "missing.tflite", ""])
def test_bad_input_is_one_line_exit_2_and_nothing_written(fixtures_dir, tmp_path, capsys, name):
    model = fixtures_dir / "models" / name if name else tmp_path  # "" -> a directory
    output = tmp_path / "ops.h"
    status, out, err = run(capsys, model, "-o", output)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"gen-resolver: error: {model}: ")
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_empty_file_is_exit_2(tmp_path, capsys):
    empty = tmp_path / "empty.tflite"
    empty.write_bytes(b"")
    status, _, err = run(capsys, empty)
    assert status == 2 and "empty file" in err


def test_output_file_and_check(fixtures_dir, tmp_path, capsys):
    model = fixtures_dir / "models" / "deprecated_codes.tflite"
    header = tmp_path / "ops.h"
    assert run(capsys, model, "-o", header)[0] == 0
    assert [p.name for p in tmp_path.iterdir()] == ["ops.h"]
    assert run(capsys, model, "--check", header)[0] == 0
    status, _, err = run(capsys, fixtures_dir / "models" / "new_codes.tflite", "--check", header)
    assert status == 1 and "stale" in err and "+  status = resolver.AddCumSum();" in err


def test_json_format(fixtures_dir, capsys):
    import json

    status, out, _ = run(capsys, fixtures_dir / "models" / "two_subgraphs.tflite", "--format", "json")
    assert status == 0
    ops = {op["name"]: op for op in json.loads(out)["models"][0]["ops"]}
    assert ops["ADD"]["uses_per_subgraph"] == {"2": 2} and ops["WHILE"]["tflm_method"] == "AddWhile"


def test_output_is_deterministic(fixtures_dir, capsys):
    model = fixtures_dir / "models" / "custom_ops.tflite"
    assert run(capsys, model)[1] == run(capsys, model)[1]


STAND_IN_RESOLVER = """
#pragma once
typedef enum { kTfLiteOk = 0, kTfLiteError = 1 } TfLiteStatus;
struct TFLMRegistration { int unused; };
namespace tflite {
template <unsigned int tOpCount>
class MicroMutableOpResolver {
 public:
  TfLiteStatus AddCustom(const char* name, const TFLMRegistration* registration) { return kTfLiteOk; }
%s
};
}  // namespace tflite
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="no system g++")
def test_generated_header_compiles(fixtures_dir, tmp_path, capsys):
    from resolver_gen.tflm_registry import BUILTIN_OPS, TFLM_CUSTOM_OPS

    methods = sorted({m for _c, m in BUILTIN_OPS.values() if m} | set(TFLM_CUSTOM_OPS.values()))
    api = tmp_path / "tensorflow" / "lite" / "micro" / "micro_mutable_op_resolver.h"
    api.parent.mkdir(parents=True)
    api.write_text(STAND_IN_RESOLVER % "\n".join(f"  TfLiteStatus {m}() {{ return kTfLiteOk; }}" for m in methods))
    models = fixtures_dir / "models"
    for name, model in [("Vision", "custom_ops.tflite"), ("Kws", "new_codes.tflite")]:
        status, out, _ = run(capsys, models / model, "--name", name)
        assert status == 0
        (tmp_path / f"{name}.h").write_text(out)
    main_cc = tmp_path / "main.cc"
    main_cc.write_text('#include "Vision.h"\n#include "Kws.h"\n'
                       "namespace tflite {\nTFLMRegistration* Register_ATAN() { return nullptr; }\n"
                       "TFLMRegistration* Register_TFTEXT_WHITESPACETOKENIZER() { return nullptr; }\n}\n"
                       "int main() { Vision_OpResolver a; Kws_OpResolver b;\n"
                       "  return Vision_RegisterOps(a) + Kws_RegisterOps(b) + Vision_kNumOps + Kws_kNumOps; }\n")
    result = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", "-I", str(tmp_path), str(main_cc)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_output_to_a_directory_is_exit_2_and_leaves_no_temp_file(fixtures_dir, tmp_path, capsys):
    target = tmp_path / "ops.h"
    target.mkdir()
    status, _, err = run(capsys, fixtures_dir / "models" / "deprecated_codes.tflite", "-o", target)
    assert status == 2 and err.startswith(f"gen-resolver: error: {target}: cannot write")
    assert [p.name for p in tmp_path.iterdir()] == ["ops.h"]
