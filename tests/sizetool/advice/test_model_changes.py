"""The advice's model changes: a model's buffers no tensor uses, emptied by the toolkit's writer, sized as the
model's C array against the writer's output (what a rebuild saves: tests/data/advice_truth.csv), and with names and
metadata stripped too, what emptying them adds (counted once in a combination)."""

from sizetool.advice.changes import combination
from sizetool.advice.firmware_advice import unused_buffer_change
from tflm_model.model_layout import rewrite
from tflm_model.target_fit import embedded_bytes


def test_unused_buffers_are_measured_on_the_model_as_its_array(shared_models):
    model = shared_models / "trained_lstm_int8.tflite"
    change = unused_buffer_change(model)
    assert change.kind == "unused-buffers" and change.certainty == "measured" and change.memory == "flash"
    assert change.bytes == embedded_bytes(model.stat().st_size) - embedded_bytes(len(rewrite(model, empty_unused=True)))
    assert change.bytes > 0 and "60 bytes of data" in change.change and "empty_unused=True" in change.how
    stripped = len(rewrite(model, strip=True))
    assert change.combined_bytes == embedded_bytes(stripped) - embedded_bytes(len(rewrite(model, strip=True,
                                                                                             empty_unused=True)))
    assert change.shares == ("model-strip",)


def test_a_model_without_unused_buffers_gets_no_such_change(shared_models):
    assert unused_buffer_change(shared_models / "person_detect.tflite") is None


def test_with_the_strip_chosen_the_combination_counts_what_emptying_adds(shared_models):
    from sizetool.advice.profile_advice import _model_changes

    model = shared_models / "trained_lstm_int8.tflite"
    changes = _model_changes([model])
    strip = next(c for c in changes if c.kind == "model-strip")
    empty = next(c for c in changes if c.kind == "unused-buffers")
    plan = combination(changes, "flash", strip.bytes + empty.bytes)
    both = embedded_bytes(model.stat().st_size) - embedded_bytes(len(rewrite(model, strip=True, empty_unused=True)))
    assert [step.change.kind for step in plan.steps] == ["model-strip", "unused-buffers"]
    assert plan.saved == both == strip.bytes + empty.combined_bytes
