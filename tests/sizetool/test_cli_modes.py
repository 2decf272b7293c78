"""`size-report ops|fit|stack ELF ...` are the report's modes as sub-commands; the old flags stay as their aliases and
print the same bytes."""

import json

import pytest

from sizetool import cli
from tests.conftest import REPO_ROOT

ELF = str(REPO_ROOT / "fixtures/firmware/out/cortex-m4/firmware.elf")
MODEL = str(REPO_ROOT / "fixtures/models/vision_subset.tflite")
OTHER_MODEL = str(REPO_ROOT / "fixtures/models/unused_opcodes.tflite")


def run(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("mode,alias", [
    (["ops", ELF], [ELF, "--ops"]),
    (["ops", ELF, MODEL, OTHER_MODEL], [ELF, "--model", MODEL, OTHER_MODEL]),
    (["ops", ELF, "--model", MODEL, "-f", "json"], [ELF, "--model", MODEL, "-f", "json"]),
    (["ops", ELF, "--drop", "CONV_2D,ADD", "-f", "markdown"], [ELF, "--drop", "CONV_2D,ADD", "-f", "markdown"]),
    (["ops", ELF, "--keep", MODEL], [ELF, "--keep", MODEL]),
    (["stack", ELF], [ELF, "--stack"]),
    (["stack", ELF, "main", "-f", "json"], [ELF, "--stack", "main", "-f", "json"]),
    (["stack", ELF, "--model", MODEL], [ELF, "--stack", "--model", MODEL]),
], ids=["ops", "ops-models", "ops-model-json", "drop", "keep", "stack", "stack-root", "stack-model"])
def test_a_mode_prints_what_its_alias_prints(capsys, monkeypatch, mode, alias):
    monkeypatch.setenv("SIZETOOL_NO_CACHE", "1")
    assert run(capsys, *mode) == run(capsys, *alias)


def test_fit_prints_the_models_answer_without_the_operator_table(capsys):
    status, fit_text, _ = run(capsys, "fit", ELF, MODEL)
    _, verbose_text, _ = run(capsys, "fit", ELF, MODEL, "--verbose")
    _, ops_text, _ = run(capsys, "ops", ELF, MODEL)
    assert status == 0
    assert "alone saves: what removing this one AddXxx() saves" in ops_text
    assert "alone saves: what removing this one AddXxx() saves" not in fit_text + verbose_text
    lines = fit_text.splitlines()  # the verdict and its figures first, the same lines in --verbose
    summary = [lines[0], lines[1], lines[4]]  # under the flash line: its parts and static RAM (the model swapped in)
    assert summary[0].startswith("fits: firmware.elf (arm) has every op") and summary[1].startswith("flash: ")
    assert lines[2].startswith("  = ") and lines[3].startswith("static RAM: ")
    assert summary[2].startswith("RAM: ") and verbose_text.splitlines()[:5] == lines[:5]
    # ops answers the firmware with exactly the models' ops; fit, the firmware running them (its arrays out and in)
    assert summary[0] in ops_text and summary[2] in ops_text and "running the models in place of its own" in summary[1]
    models_section = ops_text[ops_text.index("Models: "):]
    assert models_section in verbose_text  # --verbose: the same words as after the table


def test_fit_gives_its_verdict_first_and_what_to_act_on_within_30_lines(capsys):
    firmware = str(REPO_ROOT / "fixtures/embedded_models/out/tflm-two-models/firmware.elf")
    status, text, _ = run(capsys, "fit", firmware)
    lines = text.splitlines()
    assert status == 1 and len(lines) <= 30
    assert lines[0] == "does not fit: firmware.elf (arm) lacks 2 ops the models need (PAD, TRANSPOSE)"
    assert lines[1].startswith("flash: ") and " B with exactly the models' ops, the 2 missing added (calibrated, " in lines[1]
    # the fixture names none of TFLM's allocator classes: its revision is not known, so the arena is a bound
    assert lines[4].startswith("RAM: tensor arena ") and " B needed (upper bound), 12,288 B linked (" in lines[4]
    assert "AddPad()" in text and "Registered, but used by no model: 5" in text
    status, verbose, _ = run(capsys, "fit", firmware, "--verbose")
    assert "This firmware with exactly its models' ops (gen-resolver's resolver for them)" in verbose
    assert "non-persistent tensors" in verbose
    assert "non-persistent tensors" not in text and len(verbose.splitlines()) > len(lines)


def test_fit_json_carries_the_cross_check_and_the_arena(capsys):
    status, out, _ = run(capsys, "fit", ELF, MODEL, "-f", "json")
    data = json.loads(out)
    assert status == 0 and data["source"] == "firmware.elf"
    assert data["models"] == [MODEL] and "arena" in data and "operators" not in data


def test_fit_fails_when_a_model_needs_an_op_the_firmware_lacks(capsys):
    status, out, _ = run(capsys, "fit", ELF, str(REPO_ROOT / "fixtures/models/control_flow.tflite"))
    assert status == 1 and "Needed by a model, but not registered: 4" in out and "AddCallOnce()" in out


@pytest.mark.parametrize("argv,message", [
    (["fit", ELF], "no model given and no TFLite model found in the firmware's stored data"),
    (["fit", ELF, MODEL, "-f", "csv"], "fit prints tree, json, markdown, not csv"),
    (["stack", ELF, "--drop", "ADD"], "unrecognized arguments: --drop"),
    (["ops", ELF, "--stack"], "unrecognized arguments: --stack"),
])
def test_a_mode_takes_only_its_own_options(capsys, argv, message):
    status, _, err = run(capsys, *argv)
    assert status == 2 and message in err and err.count("\n") == 1


def test_a_missed_budget_is_in_fits_first_line(capsys):
    firmware = str(REPO_ROOT / "fixtures/embedded_models/out/tflm-two-models/firmware.elf")
    status, text, _ = run(capsys, "fit", firmware, "--flash", "20K")
    assert status == 1 and text.splitlines()[0].startswith("does not fit: firmware.elf (arm) flash ")
    assert " B over the budget" in text.splitlines()[0]
    status, data, _ = run(capsys, "fit", firmware, "--flash", "1M", "-f", "json")
    assert json.loads(data)["budget"]["over"] == {}


def test_fit_on_an_image_that_runs_from_ram_counts_what_it_stores():
    # a RAM-loaded image has no ROM: the firmware running its models is every byte the ELF stores, not 0
    from sizetool.cli import main

    firmware = str(REPO_ROOT / "fixtures/real_builds/out/ram-image/firmware.elf")
    import io
    import contextlib

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["fit", firmware, "-f", "json"])
    data = json.loads(out.getvalue())
    assert data["calibrated"]["flash"] > 0 and data["calibrated"]["low"] <= data["calibrated"]["flash"]
    assert not data["summary"][1].startswith("flash: 0 B")
