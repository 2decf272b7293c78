"""A firmware whose model Edge Impulse's EON Compiler turned into code (AmbiqAI/edgeimpulse-examples' Apollo4/5
builds: `trained_model_init`, `tflite_learn_7_init`) stores no FlatBuffer. `size-report fit` and `gen-resolver`
cannot read a model from it and exit 2, and say why and what to give instead, rather than only that none was found.
Fixture: fixtures/real_builds/out/eon-compiled (src/eon_model.cc)."""

import pytest

from resolver_gen import cli as resolver_cli
from sizetool import cli
from tflm_facts.eon import eon_entry, no_model_reason
from tests.conftest import FIXTURES

EON = FIXTURES / "real_builds" / "out" / "eon-compiled" / "firmware.elf"


@pytest.mark.parametrize("names,entry", [
    (["main", "_Z18trained_model_initPFPvjjE"], "trained_model_init"),
    (["tflite_learn_7_init(void* (*)(unsigned int, unsigned int))"], "tflite_learn_7_init"),
    (["trained_model_init"], "trained_model_init"),
    (["trained_model_initialise", "my_trained_model_init", "tflite_learn_init"], None),
])
def test_the_eon_entry_points_are_told_by_name(names, entry):
    assert eon_entry(names) == entry
    assert bool(no_model_reason(names)) == (entry is not None)


def test_fit_and_gen_resolver_say_the_model_is_compiled_into_code(capsys):
    assert cli.main(["fit", "--no-cache", str(EON)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "EON Compiler (trained_model_init)" in err and "give the .tflite" in err
    assert resolver_cli.main([str(EON)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "EON Compiler (trained_model_init)" in err


def test_a_firmware_without_eon_entry_points_keeps_the_plain_message(capsys):
    plain = FIXTURES / "layouts" / "out" / "flash0" / "firmware.elf"  # no model, no EON code
    assert cli.main(["fit", "--no-cache", str(plain)]) == 2
    err = capsys.readouterr().err
    assert err.endswith("stored data (give the .tflite after the ELF)\n") and "EON" not in err
