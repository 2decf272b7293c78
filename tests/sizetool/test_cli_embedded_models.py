"""size-report on a firmware's own models: `fit` and `ops` with no model answer for the models linked in; `check`
ties the firmware to a .tflite (--embedded-model) and to a committed header (--header), and limits the models' bytes
([model] flash)."""

import hashlib
import json

from resolver_gen.cli import main as gen_resolver
from sizetool import cli
from tests.conftest import REPO_ROOT

OUT = REPO_ROOT / "fixtures/embedded_models/out"
ELF = str(OUT / "tflm-two-models/firmware.elf")
MODELS = REPO_ROOT / "fixtures/models"
VISION, ADDS = MODELS / "int8_vision.tflite", MODELS / "arena_add_chain.tflite"


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_fit_without_a_model_answers_for_the_models_linked_in(capsys):
    status, out, _ = run(capsys, "fit", ELF, "-f", "json", "--no-cache")
    data = json.loads(out)
    assert data["models"] == [f"{ELF}:keyword::model_data", f"{ELF}:g_model"]
    assert [m["op"] for m in data["missing"]] == ["PAD", "TRANSPOSE"] and status == 1  # g_model needs them
    assert [(m["symbol"], m["sha256"]) for m in data["embedded_models"]] == [
        ("keyword::model_data", hashlib.sha256(ADDS.read_bytes()).hexdigest()),
        ("g_model", hashlib.sha256(VISION.read_bytes()).hexdigest())]
    assert data["arena"]["needed_bytes"] > 0


def test_fit_on_the_same_models_given_as_files_gives_the_same_answer(capsys):
    _, embedded, _ = run(capsys, "fit", ELF, "-f", "json")
    _, given, _ = run(capsys, "fit", ELF, ADDS, VISION, "-f", "json")
    embedded, given = json.loads(embedded), json.loads(given)
    assert embedded["missing"] != [] and [m["op"] for m in embedded["missing"]] == [m["op"] for m in given["missing"]]
    assert embedded["arena"]["needed_bytes"] == given["arena"]["needed_bytes"]
    assert embedded["predicted_rom"] == given["predicted_rom"]


def test_ops_without_a_model_cross_checks_the_models_linked_in(capsys):
    status, out, _ = run(capsys, "ops", ELF, "-f", "json")
    assert status == 1 and json.loads(out)["models"] == [f"{ELF}:keyword::model_data", f"{ELF}:g_model"]
    status, out, _ = run(capsys, "ops", str(OUT / "no-models/firmware.elf"), "-f", "json")
    assert status == 2 or "models" not in json.loads(out)  # no model: the plain table (no registrations here: 2)


def test_fit_on_a_firmware_without_a_model_asks_for_one(capsys):
    status, _, err = run(capsys, "fit", str(OUT / "no-models/firmware.elf"))
    assert status == 2 and "no TFLite model found in the firmware's stored data" in err
    assert err.count("\n") == 1


def test_check_embedded_model_names_both_digests_when_they_differ(capsys):
    assert run(capsys, "check", ELF, "--embedded-model", VISION)[0] == 0
    other = MODELS / "hybrid.tflite"
    status, out, err = run(capsys, "check", ELF, "--embedded-model", other, "--reasons", "-f", "json")
    (rule,) = json.loads(out)["rules"]
    assert status == 1 and not rule["passed"] and rule["rule"] == "embedded_model[hybrid.tflite]"
    for digest in (hashlib.sha256(p.read_bytes()).hexdigest() for p in (other, VISION, ADDS)):
        assert digest in rule["note"] and digest in err
    status, out, _ = run(capsys, "check", str(OUT / "no-models/firmware.elf"), "--embedded-model", VISION)
    assert status == 1 and "the firmware holds no TFLite model" in out


def test_check_header_passes_for_the_firmwares_models_and_fails_for_another(capsys, tmp_path):
    header = tmp_path / "ops.h"
    assert gen_resolver([str(VISION), str(ADDS), "--allow-unsupported", "-o", str(header)]) == 0
    capsys.readouterr()
    assert run(capsys, "check", ELF, "--header", header, "--header-args=--allow-unsupported")[0] == 0
    assert gen_resolver([str(ADDS), "-o", str(header)]) == 0
    capsys.readouterr()
    status, out, err = run(capsys, "check", ELF, "--header", header, "--header-args=--allow-unsupported")
    assert status == 1 and "header[ops.h]" in out and "+  status = resolver.AddAveragePool2D();" in err
    status, _, err = run(capsys, "check", ELF)
    assert status == 2 and "nothing to check" in err


def test_budget_model_flash_limits_the_bytes_of_the_models_linked_in(capsys, tmp_path):
    budget = tmp_path / "size-budget.toml"
    held = VISION.stat().st_size + ADDS.stat().st_size
    for limit, passes in ((held, True), (held - 1, False)):
        budget.write_text(f"[model]\nflash = {limit}\n")
        status, out, _ = run(capsys, "check", ELF, "--budget", budget, "-f", "json")
        (rule,) = json.loads(out)["rules"]
        assert (rule["rule"], rule["actual"], rule["passed"], status) == ("model.flash", held, passes,
                                                                          0 if passes else 1)
    budget.write_text('[model]\nflash = "5%"\n')
    rule = json.loads(run(capsys, "check", ELF, "--budget", budget, "-f", "json")[1])["rules"][0]
    assert rule["limit"] < held and not rule["passed"]


def test_model_rules_name_a_model_linked_in_by_its_symbol(capsys, tmp_path):
    budget = tmp_path / "size-budget.toml"
    budget.write_text('[models]\n"firmware:keyword::model_data" = { flash = "64K", arena = "64K" }\n')
    status, out, _ = run(capsys, "check", ELF, "--budget", budget, "-f", "json")
    rules = {r["rule"]: r for r in json.loads(out)["rules"]}
    assert status == 0 and set(rules) == {"models[firmware:keyword::model_data].flash",
                                          "models[firmware:keyword::model_data].arena"}
    (tmp_path / "adds.tflite").write_bytes(ADDS.read_bytes())
    budget.write_text('[models]\n"adds.tflite" = { flash = "64K", arena = "64K" }\n')
    by_file = {r["rule"].replace("adds.tflite", "firmware:keyword::model_data"): r["actual"]
               for r in json.loads(run(capsys, "check", ELF, "--budget", budget, "-f", "json")[1])["rules"]}
    assert by_file == {name: rule["actual"] for name, rule in rules.items()}  # the same model, the same answers
    budget.write_text('[models]\n"firmware:g_modle" = "64K"\n')
    status, _, err = run(capsys, "check", ELF, "--budget", budget)
    assert status == 2 and "no model linked into" in err and "keyword::model_data, g_model" in err


def test_a_saved_report_answers_the_model_tie_and_the_model_bytes_rule(capsys, tmp_path):
    saved = tmp_path / "report.json"
    assert run(capsys, "--no-cache", ELF, "--save", saved)[0] == 0
    budget = tmp_path / "size-budget.toml"
    budget.write_text("[model]\nflash = 100\n")
    status, out, _ = run(capsys, "check", saved, "--budget", budget, "--embedded-model", VISION, "-f", "json")
    rules = {r["rule"]: r["passed"] for r in json.loads(out)["rules"]}
    assert status == 1 and rules == {"model.flash": False, "embedded_model[int8_vision.tflite]": True}
    status, _, err = run(capsys, "check", saved, "--header", tmp_path / "ops.h")
    assert status == 2 and "--header needs the ELF" in err


def test_check_embedded_model_takes_the_model_as_a_c_array(capsys, tmp_path):
    """The application's own model_data.cc is what the tie is usually checked against: FILE:NAME picks its array."""
    from tests.tflm_model.c_array_styles import several_arrays

    source = tmp_path / "model_data.cc"
    source.write_text(several_arrays({"g_model": VISION.read_bytes(), "g_other": MODELS.joinpath(
        "hybrid.tflite").read_bytes()}, b"not a model"))
    assert run(capsys, "check", ELF, "--embedded-model", f"{source}:g_model")[0] == 0
    status, out, _ = run(capsys, "check", ELF, "--embedded-model", f"{source}:g_other", "-f", "json")
    (rule,) = json.loads(out)["rules"]
    assert status == 1 and rule["rule"] == "embedded_model[model_data.cc:g_other]"
    assert hashlib.sha256(MODELS.joinpath("hybrid.tflite").read_bytes()).hexdigest() in rule["note"]


def test_check_header_that_is_not_there_is_one_line_and_exit_2(capsys, tmp_path):
    for firmware in (ELF, str(OUT / "no-models/firmware.elf")):  # with models to check and without
        status, out, err = run(capsys, "check", firmware, "--header", tmp_path / "missing.h")
        assert status == 2 and out == "" and err == f"size-report check: error: {tmp_path / 'missing.h'}: no such file\n"
