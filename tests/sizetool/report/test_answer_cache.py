"""The cache of `size-report ops` and `fit` answers (output_cache.answer_key): a repeated run prints exactly what the
first did, exit status 1 (a gate that failed) included, without loading the command code; a change to any file an
argument names (the ELF, a model, a model inside a file as FILE:ARRAY), to the arguments or the working directory is a
fresh run; runs that write elsewhere or fill nothing are never kept."""

import shutil

import pytest

from sizetool import cli
from sizetool.report.output_cache import answer_key
from tests.sizetool.report.test_output_cache import REPO, run_in_fresh_interpreter

FIRMWARE = REPO / "fixtures" / "firmware" / "out" / "cortex-m4" / "firmware.elf"
EMBEDDED = REPO / "fixtures" / "embedded_models" / "out" / "tflm-two-models" / "firmware.elf"
MODEL = REPO / "fixtures" / "models" / "arena_add_chain.tflite"


@pytest.mark.parametrize("argv", [["ops", str(FIRMWARE), str(MODEL)], ["fit", str(FIRMWARE), str(MODEL)],
                                  ["fit", str(EMBEDDED)], ["ops", str(EMBEDDED), "-f", "json"]],
                         ids=["ops with a model", "fit with a model", "fit of the linked models", "ops json"])
def test_a_repeated_answer_prints_the_same_and_loads_no_command_code(tmp_path, argv):
    first = run_in_fresh_interpreter(argv, tmp_path)
    assert "sizetool.fit.model_fit" in first["modules"]  # the first run answered
    again = run_in_fresh_interpreter(argv, tmp_path)
    assert (again["status"], again["out"], again["err"]) == (first["status"], first["out"], first["err"])
    assert again["out"]
    assert not set(again["modules"]) & {"argparse", "sizetool.commands.ops", "sizetool.commands.fit",
                                        "sizetool.fit.model_fit", "elftools", "capstone", "rich"}


def test_a_failed_gate_is_an_answer_kept_with_its_status(tmp_path, capsys):
    argv = ["fit", str(EMBEDDED)]
    status = cli.main(argv)
    first = capsys.readouterr()
    assert status == 1  # the fixture's linked models need more than it has (its own test says why)
    assert cli.main(argv) == 1
    assert capsys.readouterr() == first
    assert len(list((tmp_path / "sizetool-cache").glob("*.output"))) == 1


def test_the_key_covers_every_file_named_and_the_arguments(tmp_path):
    model = tmp_path / "model.tflite"
    shutil.copy(MODEL, model)
    elf = str(FIRMWARE)
    plain = answer_key("ops", [elf, str(model)])
    assert plain and answer_key("ops", [elf, str(model)]) == plain
    assert answer_key("fit", [elf, str(model)]) not in (None, plain)
    assert answer_key("ops", [elf, str(model), "--kernels", "cmsis_nn"]) not in (None, plain)
    model.write_bytes(model.read_bytes() + b"\0")
    assert answer_key("ops", [elf, str(model)]) not in (None, plain)
    source = tmp_path / "model_data.cc"
    source.write_text("const unsigned char g_model[] = {0x1c, 0, 0, 0};\n")
    in_file = answer_key("ops", [elf, f"{source}:g_model"])
    source.write_text("const unsigned char g_model[] = {0x1c, 0, 0, 1};\n")
    assert answer_key("ops", [elf, f"{source}:g_model"]) not in (None, in_file)


def test_the_working_directory_is_part_of_the_key(tmp_path, monkeypatch):
    elf = str(FIRMWARE)
    here = answer_key("ops", [elf])
    monkeypatch.chdir(tmp_path)
    assert answer_key("ops", [elf]) not in (None, here)


@pytest.mark.parametrize("options", [["--no-cache"], ["--save", "r.json"], ["-o", "out.txt"], ["--output=out.txt"],
                                     ["--help"]])
def test_answers_that_write_elsewhere_or_fill_nothing_are_not_kept(options):
    assert answer_key("ops", [str(FIRMWARE), *options]) is None


def test_no_key_without_the_cache_or_for_other_commands(monkeypatch):
    assert answer_key("stack", [str(FIRMWARE)]) is None
    monkeypatch.setenv("SIZETOOL_NO_CACHE", "1")
    assert answer_key("ops", [str(FIRMWARE)]) is None
