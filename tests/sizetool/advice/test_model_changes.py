"""The advice's model changes: a model's buffers no tensor uses, emptied by the toolkit's writer, sized as the
model's C array against the writer's output (what a rebuild saves: tests/data/advice_truth.csv), and with names and
metadata stripped too, what emptying them adds (counted once in a combination)."""

import shlex

from sizetool import cli
from sizetool.advice.changes import combination
from sizetool.advice.firmware_advice import unused_buffer_change
from tflm_model.model_layout import rewrite
from tflm_model.model_sources import load_models
from tflm_model.target_fit import embedded_bytes


def run_how(how: str, directory) -> bytes:
    """Run the size-report command a change names (its words before the first parenthesis), writing into
    `directory`: the array it writes, read back as the firmware's compiler would."""
    words = shlex.split(how.split(" (", 1)[0])
    assert words[:2] == ["size-report", "strip-model"]
    output = words.index("-o") + 1
    words[output] = str(directory / words[output])
    assert cli.main(words[1:]) == 0
    (model,) = load_models(words[output])
    return model.data


def test_unused_buffers_are_measured_on_the_model_as_its_array(shared_models, tmp_path):
    model = shared_models / "trained_lstm_int8.tflite"
    change = unused_buffer_change(model)
    assert change.kind == "unused-buffers" and change.certainty == "measured" and change.memory == "flash"
    assert change.bytes == embedded_bytes(model.stat().st_size) - embedded_bytes(len(rewrite(model, empty_unused=True)))
    assert change.bytes > 0 and "60 bytes of data" in change.change
    written = run_how(change.how, tmp_path)  # the command the advice names makes the change it sized
    assert embedded_bytes(model.stat().st_size) - embedded_bytes(len(written)) == change.bytes
    stripped = len(rewrite(model, strip=True))
    assert change.combined_bytes == embedded_bytes(stripped) - embedded_bytes(len(rewrite(model, strip=True,
                                                                                             empty_unused=True)))
    assert change.shares == ("model-strip",)


def test_a_model_without_unused_buffers_gets_no_such_change(shared_models):
    assert unused_buffer_change(shared_models / "person_detect.tflite") is None


def test_with_the_strip_chosen_the_combination_counts_what_emptying_adds(shared_models, tmp_path):
    from sizetool.advice.profile_advice import _model_changes

    model = shared_models / "trained_lstm_int8.tflite"
    changes = _model_changes([model])
    strip = next(c for c in changes if c.kind == "model-strip")
    empty = next(c for c in changes if c.kind == "unused-buffers")
    plan = combination(changes, "flash", strip.bytes + empty.bytes)
    both = embedded_bytes(model.stat().st_size) - embedded_bytes(len(rewrite(model, strip=True, empty_unused=True)))
    assert [step.change.kind for step in plan.steps] == ["model-strip", "unused-buffers"]
    assert embedded_bytes(model.stat().st_size) - embedded_bytes(len(run_how(strip.how, tmp_path))) == strip.bytes
    assert plan.saved == both == strip.bytes + empty.combined_bytes


def test_the_command_quotes_the_model_and_names_a_c_identifier():
    from sizetool.advice.firmware_advice import STRIP_HOW, model_command

    how = model_command(STRIP_HOW, "my models/2nd modèle {x}.tflite")
    words = shlex.split(how)
    assert words[2] == "my models/2nd modèle {x}.tflite"  # one word, braces and spaces kept
    assert words[-1] == "_2nd_mod_le__x" and words[-3] == "_2nd_mod_le__x.cc"
    assert model_command(STRIP_HOW, "model_data.cc:int").split()[-1] == "_int"
    assert model_command(STRIP_HOW, "MODEL", "(anonymous namespace)::g_model".rsplit("::", 1)[-1]).endswith(
        "--name g_model")
