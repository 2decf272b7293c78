"""Only what the user's TFLM has (issue 40): `size-report ops` and `fit` suggest a registration (`AddXxx()` for a
missing op, `AddSoftmax(tflite::Register_SOFTMAX_INT8())` for a type-reduced kernel) only when the linked TFLM has
it: from --tflm DIR, else from the ELF's DWARF and symbols; an unknown one says it is unverified.

fixtures/old_tflm is a firmware on a 2021-fork-shaped TFLM (its AddXxx() take no argument, it declares no
Register_*_INT8) embedding int8_vision.tflite, whose ops all allow type-reduced kernels; its src/ is that TFLM's tree.
fixtures/embedded_models' tflm-two-models is the same application shape on a TFLM whose AddXxx() take a registration
and which links Register_CONV_2D_INT8."""

import csv
import io
import json

import pytest

from sizetool import cli
from sizetool.inputs.dwarf_resolver_api import read_resolver_api
from sizetool.operators.tflm_offer import NO, UNKNOWN, YES, TflmOffer, judge_method, judge_variant, offer_from_tree
from tests.conftest import FIXTURES
from tests.resolver_gen.tflm_trees import VISION_METHODS, VISION_VARIANTS, write_tree

OLD = FIXTURES / "old_tflm"
OLD_ELF = str(OLD / "out" / "firmware.elf")
MODERN_ELF = str(FIXTURES / "embedded_models" / "out" / "tflm-two-models" / "firmware.elf")
VARIANTS = ("SOFTMAX_INT8", "FULLY_CONNECTED_INT8", "DEPTHWISE_CONV_2D_INT8", "AVERAGE_POOL_2D_INT8",
            "MAX_POOL_2D_INT8")


def run(capsys, *argv):
    status = cli.main([*argv, "--no-cache"])
    return status, capsys.readouterr().out


def test_the_dwarf_shows_the_forks_resolver_methods_and_that_they_take_no_registration():
    api = read_resolver_api(OLD_ELF)
    assert api.methods is not None and api.methods["AddSoftmax"] is False and api.methods["AddFullyConnected"] is False
    assert "AddConv2D" in api.methods  # declared, never called: the class's entry lists it all the same
    assert "AddPad" not in api.methods and "AddTranspose" not in api.methods
    assert "Register_SOFTMAX" in api.registrations and not any(r.endswith("_INT8") for r in api.registrations)
    modern = read_resolver_api(MODERN_ELF)
    assert modern.methods["AddSoftmax"] is True and modern.methods["AddConv2D"] is True
    assert "Register_CONV_2D_INT8" in modern.registrations


@pytest.mark.parametrize("command", ["ops", "fit"])
@pytest.mark.parametrize("output_format", ["tree", "markdown", "json"])
@pytest.mark.parametrize("tflm", [False, True])
def test_no_output_recommends_a_registration_the_forks_tflm_lacks(capsys, command, output_format, tflm):
    argv = [command, OLD_ELF, "--format", output_format] + (["--tflm", str(OLD / "src")] if tflm else [])
    if command == "fit" and output_format == "tree":
        status, out = run(capsys, *argv)  # the answer first: what it names, it names as the TFLM has it
        assert status == 1 and "Register_SOFTMAX_INT8" not in out and "cannot: this TFLM has no AddTranspose()" in \
            " ".join(out.split())
        argv.append("--verbose")  # every section, the registrations not offered among them
    status, out = run(capsys, *argv)
    assert status == 1  # PAD and TRANSPOSE: the model needs them, the firmware lacks them
    if output_format != "json":  # (JSON names them as data, under variants_not_offered)
        for variant in VARIANTS:
            assert f"Register_{variant}" not in out
        assert "AddPad()" not in out.replace("no AddPad()", "")  # its TFLM has no AddPad(): not suggested either
    if output_format == "json":
        data = json.loads(out)
        assert data["variants"] == []
        assert sorted(v["variant"] for v in data["variants_not_offered"]) == sorted(VARIANTS)
        softmax = next(v for v in data["variants_not_offered"] if v["variant"] == "SOFTMAX_INT8")
        assert softmax["available"] == NO and softmax["available_note"].startswith(
            "AddSoftmax() in this TFLM takes no registration")
        missing = {m["op"]: m for m in data["missing"]}
        assert missing["PAD"]["available"] == NO and missing["CONV_2D"]["available"] == YES
    else:
        assert "SOFTMAX_INT8 (AddSoftmax() in this TFLM takes no registration)" in " ".join(out.split())
        assert "cannot: this TFLM has no AddTranspose()" in " ".join(out.split())


def test_csv_lists_the_variants_not_offered_apart(capsys):
    status, out = run(capsys, "ops", OLD_ELF, "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert not [r for r in rows if r and r[0] == "variant"]
    assert sorted(r[2] for r in rows if r and r[0] == "variant_not_offered") == sorted(
        f"tflite::Register_{v}" for v in VARIANTS)


def test_on_a_tflm_that_takes_registrations_an_unseen_variant_is_marked_unverified_and_a_linked_one_is_plain(
        capsys):
    status, out = run(capsys, "fit", MODERN_ELF, "--format", "json")
    variants = {v["variant"]: v for v in json.loads(out)["variants"]}
    assert variants["CONV_2D_INT8"]["available"] == YES  # linked, and AddConv2D() takes a registration
    assert variants["SOFTMAX_INT8"]["available"] == UNKNOWN
    status, out = run(capsys, "fit", MODERN_ELF, "--format", "markdown")
    row = next(line for line in out.splitlines() if line.startswith("| SOFTMAX |"))
    assert "`AddSoftmax(tflite::Register_SOFTMAX_INT8())` (unverified: your TFLM may lack Register_SOFTMAX_INT8()" \
        in row and "--tflm DIR checks" in row
    conv = next(line for line in out.splitlines() if line.startswith("| CONV_2D |"))
    assert "unverified" not in conv


def test_a_tree_that_declares_the_variants_makes_them_plain_suggestions(capsys, tmp_path):
    tree = write_tree(tmp_path / "tflm", VISION_METHODS, VISION_VARIANTS)
    status, out = run(capsys, "fit", MODERN_ELF, "--format", "json", "--tflm", str(tree))
    data = json.loads(out)
    assert {v["variant"]: v["available"] for v in data["variants"]}["SOFTMAX_INT8"] == YES
    assert data["variants_not_offered"] == []
    without = write_tree(tmp_path / "no-softmax", VISION_METHODS, {k: v for k, v in VISION_VARIANTS.items()
                                                                  if k != "softmax.h"})
    status, out = run(capsys, "fit", MODERN_ELF, "--format", "json", "--tflm", str(without))
    softmax = next(v for v in json.loads(out)["variants_not_offered"] if v["variant"] == "SOFTMAX_INT8")
    assert softmax["available_note"].startswith("this TFLM declares no Register_SOFTMAX_INT8()")


def test_a_folder_without_tflm_is_one_line_and_exit_2(capsys, tmp_path):
    status = cli.main(["fit", MODERN_ELF, "--tflm", str(tmp_path), "--no-cache"])
    err = capsys.readouterr().err
    assert status == 2 and "no tensorflow/lite/micro/micro_mutable_op_resolver.h" in err
    assert len(err.strip().splitlines()) == 1


def test_the_judgements():
    tree_like = TflmOffer("a tree", {"AddSoftmax": True, "AddReshape": False}, frozenset({"Register_SOFTMAX_INT8"}),
                          registrations_complete=True)
    assert judge_variant(tree_like, "AddSoftmax", "tflite::Register_SOFTMAX_INT8").availability == YES
    assert judge_variant(tree_like, "AddSoftmax", "tflite::Register_SOFTMAX_INT16").availability == NO
    assert judge_variant(tree_like, "AddConv2D", "tflite::Register_CONV_2D_INT8").reason == \
        "this TFLM has no AddConv2D()"
    elf_like = TflmOffer("the firmware's DWARF", {"AddSoftmax": True}, frozenset())
    assert judge_variant(elf_like, "AddSoftmax", "tflite::Register_SOFTMAX_INT8").availability == UNKNOWN
    no_dwarf = TflmOffer("the firmware's symbols", None, frozenset({"Register_SOFTMAX_INT8"}))
    judged = judge_variant(no_dwarf, "AddSoftmax", "tflite::Register_SOFTMAX_INT8")
    assert judged.availability == UNKNOWN and "may take no registration" in judged.reason
    assert judge_method(elf_like, "AddPad").availability == NO
    assert judge_method(no_dwarf, "AddPad").availability == UNKNOWN
    assert judge_method(None, "AddCustom").availability == YES


def test_offer_from_the_forks_tree_reads_its_methods_and_registrations():
    offer = offer_from_tree(str(OLD / "src"))
    assert offer.methods["AddSoftmax"] is False and offer.registrations_complete
    assert "Register_SOFTMAX" in offer.registrations and "Register_SOFTMAX_INT8" not in offer.registrations


def test_a_resolver_taking_tflm_registration_dates_the_tflm_and_makes_its_older_variants_known(tmp_path):
    """A host program on a synthetic tree whose methods take `const TFLMRegistration&` (TFLM since 2023-05-26):
    SOFTMAX_INT8 (declared since 2022) is then known from the DWARF alone; PAD_INT8 (2025) stays unverified."""
    import shutil
    import subprocess

    from sizetool.operators.tflm_offer import offer_from_elf

    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    tree = write_tree(tmp_path / "tflm", VISION_METHODS, VISION_VARIANTS)
    (tmp_path / "main.cc").write_text(
        '#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"\n'
        "int main() { static tflite::MicroMutableOpResolver<3> resolver; return resolver.AddReshape(); }\n")
    elf = tmp_path / "app"
    subprocess.run(["g++", "-g", "-O0", f"-I{tree}", str(tmp_path / "main.cc"), "-o", str(elf)], check=True)
    api = read_resolver_api(elf)
    assert api.registration_types == {"TFLMRegistration"} and api.methods["AddSoftmax"] is True
    offer = offer_from_elf(str(elf), set())
    assert "2023-05-26" in offer.source
    assert judge_variant(offer, "AddSoftmax", "tflite::Register_SOFTMAX_INT8").availability == YES
    assert judge_variant(offer, "AddPad", "tflite::Register_PAD_INT8").availability == UNKNOWN
    old = read_resolver_api(OLD_ELF)
    assert old.registration_types == frozenset()  # the fork's methods take nothing
