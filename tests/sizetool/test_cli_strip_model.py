"""`size-report strip-model MODEL -o OUT`: the model written again without names and metadata (--strip) and without
unused buffers' data (--empty-unused-buffers), as a .tflite or as the C/C++ array the firmware links; the command the
advice names for those savings (tests/sizetool/advice/test_model_changes.py runs it from the advice's own words)."""

import shutil
import subprocess

import pytest

from sizetool import cli
from tests.conftest import FIXTURES
from tflm_model.model_layout import rewrite
from tflm_model.model_sources import load_models

MODEL = FIXTURES / "models" / "int8_vision.tflite"


def run(capsys, *argv):
    status = cli.main(["strip-model", *map(str, argv)])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_a_tflite_out_is_the_writer_s_model_and_the_line_says_what_it_saved(capsys, tmp_path):
    model = FIXTURES / "models" / "deprecated_codes.tflite"
    out = tmp_path / "stripped.tflite"
    status, printed, _ = run(capsys, model, "--strip", "-o", out)
    written = out.read_bytes()
    before = model.stat().st_size
    assert status == 0 and written == rewrite(model, strip=True) and len(written) < before
    assert printed == (f"wrote {out}: the model is {len(written):,} B, {before - len(written):,} B less than "
                       f"{before:,} without names and metadata (regenerate or relink the firmware to take the "
                       "saving)\n")


def test_a_model_the_writer_packs_larger_is_said_to_be_no_smaller(capsys, tmp_path):
    # The fixture has no names or metadata to drop, and the toolkit's writer lays it out larger than its own writer
    # did: the line says keep the source, never a negative saving.
    out = tmp_path / "stripped.tflite"
    status, printed, _ = run(capsys, MODEL, "--strip", "-o", out)
    grown = len(out.read_bytes()) - MODEL.stat().st_size
    assert status == 0 and grown > 0
    assert f"{grown:,} B more than {MODEL.stat().st_size:,}" in printed and "keep the source" in printed
    assert "-" not in printed.split(": the model is", 1)[1]


def test_a_c_out_holds_the_model_as_an_aligned_const_array_named_as_the_source(capsys, tmp_path):
    source = tmp_path / "model_data.cc"
    source.write_text("const unsigned char my_model[] = {" + ",".join(str(b) for b in MODEL.read_bytes()) + "};\n")
    out = tmp_path / "my_model.cc"
    status, printed, _ = run(capsys, source, "--strip", "--empty-unused-buffers", "-o", out)
    (model,) = load_models(str(out))
    assert status == 0 and " as the array my_model:" in printed
    assert model.array == "my_model" and model.data == rewrite(MODEL, strip=True, empty_unused=True)
    text = out.read_text()
    assert "alignas(16) const unsigned char my_model[]" in text and f"my_model_len = {len(model.data)}u;" in text


@pytest.mark.parametrize("compiler, flags, suffix", [("g++", ["-std=c++11"], ".cc"), ("gcc", ["-std=c11"], ".c")])
def test_the_c_out_compiles_and_keeps_external_linkage(capsys, tmp_path, compiler, flags, suffix):
    if shutil.which(compiler) is None:
        pytest.skip(f"no system {compiler}")
    out = tmp_path / f"g_model{suffix}"
    assert run(capsys, MODEL, "--strip", "-o", out, "--name", "g_model")[0] == 0
    user = tmp_path / f"user{suffix}"
    user.write_text("extern const unsigned char g_model[];\nextern const unsigned int g_model_len;\n"
                    "int main(void) { return g_model[4] == 'T' && g_model_len > 0 ? 0 : 1; }\n")
    program = tmp_path / "program"
    subprocess.run([compiler, *flags, "-Wall", "-Werror", "-o", program, out, user], check=True)
    assert subprocess.run([program]).returncode == 0


def test_a_hostile_source_name_stays_inside_the_comment(capsys, tmp_path):
    hostile = tmp_path / "evil\nint x = 1; \\.tflite"
    hostile.write_bytes(MODEL.read_bytes())
    out = tmp_path / "out.cc"
    assert run(capsys, hostile, "--strip", "-o", out)[0] == 0
    comment = out.read_text().splitlines()[0]
    assert comment.startswith("// Written by size-report strip-model from ") and "int x" in comment
    assert "\\" not in comment and "g_model[]" in out.read_text()


@pytest.mark.parametrize("extra, message", [
    ([], "nothing to write: ask for --strip, --empty-unused-buffers or both"),
    (["--strip", "--name", "int"], "'int' is not a C identifier an array can be named"),
    (["--strip", "--name", "9lives"], "'9lives' is not a C identifier an array can be named"),
])
def test_bad_requests_are_one_line_and_write_nothing(capsys, tmp_path, extra, message):
    out = tmp_path / "out.cc"
    status, printed, err = run(capsys, MODEL, "-o", out, *extra)
    assert status == 2 and printed == "" and err == f"size-report strip-model: error: {message}\n"
    assert not out.exists()


def test_a_damaged_model_is_refused_and_the_old_output_kept(capsys, tmp_path):
    out = tmp_path / "out.tflite"
    out.write_bytes(b"previous")
    status, _, err = run(capsys, FIXTURES / "models" / "truncated.tflite", "--strip", "-o", out)
    assert status == 2 and err.count("\n") == 1 and "truncated.tflite" in err
    assert out.read_bytes() == b"previous"
