"""A model array without `const` (plain `xxd -i` output) is linked into .data: still a model, found by both commands,
shown in RAM as well as ROM, and the answer says what `const` gives back (fixtures/real_builds/out/data-model)."""

import json

from resolver_gen import cli as gen_cli
from sizetool import cli
from sizetool.inputs.elf_reader import read_elf
from sizetool.inputs.firmware_models import embedded_models
from tests.conftest import FIXTURES

ELF = FIXTURES / "real_builds" / "out" / "data-model" / "firmware.elf"
MODEL = FIXTURES / "models" / "arena_add_chain.tflite"


def test_a_model_in_data_is_found_and_marked_as_in_ram():
    image = read_elf(str(ELF))
    models = embedded_models(image)
    assert [(m.symbol, m.section, m.writable) for m in models] == [("cifar10_model_tflite", ".data", True)]
    assert models[0].data == MODEL.read_bytes()
    data = next(s for s in image.sections if s.name == ".data")
    assert data.is_writable and data.load_address != data.address  # stored in flash, run in RAM


def test_gen_resolver_writes_the_resolver_of_a_model_in_data(tmp_path):
    from_elf, from_model = tmp_path / "elf.h", tmp_path / "model.h"
    assert gen_cli.main([str(ELF), "-o", str(from_elf)]) == 0
    assert gen_cli.main([str(MODEL), "-o", str(from_model)]) == 0
    registrations = [[line for line in p.read_text().splitlines() if "Add" in line and "//" not in line]
                     for p in (from_elf, from_model)]
    assert registrations[0] == registrations[1] and any("AddAdd()" in line for line in registrations[0])


def test_fit_finds_the_model_and_says_const_gives_its_ram_back(capsys):
    assert cli.main(["fit", str(ELF)]) == 0
    out = capsys.readouterr().out
    size = len(MODEL.read_bytes())
    assert cli.main(["fit", str(ELF), "--format", "json"]) == 0
    assert [m.rsplit("/", 1)[-1] for m in json.loads(capsys.readouterr().out)["arena"]["models"]] == [
        "firmware.elf:cifar10_model_tflite"]
    assert (f"the model array cifar10_model_tflite ({size} bytes) is in .data: RAM, copied from flash at start-up, so it "
            f"costs its size in both; declared const it stays in flash and gives back {size} bytes of RAM") in out


def test_the_report_shows_the_model_in_both_trees_and_json(capsys):
    size = len(MODEL.read_bytes())
    assert cli.main([str(ELF)]) == 0
    out = capsys.readouterr().out
    assert f"declared const it gives back {size} bytes of RAM" in out
    assert cli.main([str(ELF), "--ram"]) == 0
    ram_tree = capsys.readouterr().out
    assert "cifar10_model_tflite" in ram_tree and "operators and options" in ram_tree
    assert cli.main([str(ELF), "--format", "json"]) == 0
    models = json.loads(capsys.readouterr().out)["embedded_models"]
    assert models[0]["in_ram"] is True and models[0]["const_saving"] == size and models[0]["section"] == ".data"


UINT8_ELF = FIXTURES / "real_builds" / "out" / "uint8-kernels" / "firmware.elf"


def test_a_firmware_with_uint8_kernels_runs_its_uint8_model(capsys):
    for mode in ("fit", "ops"):
        assert cli.main([mode, str(UINT8_ELF)]) == 0
        out = capsys.readouterr().out
        assert "cannot run" not in out
    assert cli.main(["fit", str(UINT8_ELF), "--format", "json"]) == 0
    arena = json.loads(capsys.readouterr().out)["arena"]
    assert arena["needed_bytes"] > 0 and arena["error"] is None and arena["fits"]
    assert any("its kernels run CONV_2D on uint8; SOFTMAX on uint8" in note for note in arena["notes"])


def test_the_same_uint8_model_on_todays_kernels_is_refused(capsys):
    todays = FIXTURES / "embedded_models" / "out" / "tflm-two-models" / "firmware.elf"
    assert cli.main(["fit", str(todays), str(FIXTURES / "models" / "uint8_conv_softmax.tflite")]) == 1
    out = capsys.readouterr().out
    assert "Tensor types this firmware's kernels cannot run: 2" in out
    assert "the firmware links no uint8 kernel for it" in out


def test_gen_resolver_checks_a_firmwares_models_against_its_own_kernels(tmp_path, capsys):
    # The uint8 firmware's model: written, since its kernels take uint8; the same model as a file: refused under the
    # rules assumed without a firmware.
    header = tmp_path / "ops.h"
    assert gen_cli.main([str(UINT8_ELF), "-o", str(header)]) == 0
    assert "AddConv2D()" in header.read_text() and "AddSoftmax()" in header.read_text()
    assert gen_cli.main([str(FIXTURES / "models" / "uint8_conv_softmax.tflite"), "-o", str(tmp_path / "f.h")]) == 1
    assert "assumed: no firmware's kernels were read" in capsys.readouterr().err
