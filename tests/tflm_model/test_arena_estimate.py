"""The tensor-arena estimate: each allocation rule of TFLM on its own, over the arena fixtures."""

import pytest

from tflm_model.arena_estimate import ELEMENT_BYTES, estimate_arena
from tflm_model.errors import ModelError
from tflm_facts.kernel_memory import STRUCTS


def model(fixtures_dir, name):
    return fixtures_dir / "models" / name


def part(estimate, name):
    return sum(p.bytes for p in estimate.parts if p.name == name)


def test_parts_sum_to_the_total(fixtures_dir):
    for name in ("arena_add_chain.tflite", "arena_while.tflite", "arena_conv_per_channel.tflite"):
        for kernels in ("reference", "cmsis_nn"):
            for pointer in (4, 8):
                estimate = estimate_arena([model(fixtures_dir, name)], kernels, pointer)
                assert sum(p.bytes for p in estimate.parts) == estimate.total_bytes
                assert estimate.kernels == kernels and estimate.pointer_bytes == pointer


def test_greedy_plan_reuses_activations_of_a_chain(fixtures_dir):
    # input -> 4 ADDs of 400-byte float tensors: two live buffers at a time, each aligned to 16 -> 2 x 400.
    estimate = estimate_arena([model(fixtures_dir, "arena_add_chain.tflite")])
    assert estimate.plan_bytes == 800
    assert part(estimate, "non-persistent tensors (greedy plan)") == 800


def test_offline_plan_is_honoured(fixtures_dir):
    # The metadata puts the 5 activations one after the other: 5 x 400 B, no reuse.
    chain = estimate_arena([model(fixtures_dir, "arena_add_chain.tflite")])
    offline = estimate_arena([model(fixtures_dir, "arena_offline_plan.tflite")])
    assert offline.plan_bytes == 2000
    assert offline.total_bytes - chain.total_bytes == 1200


def test_offline_plan_with_wrong_tensor_count_is_refused(fixtures_dir):
    with pytest.raises(ModelError, match="OfflineMemoryAllocation metadata has 5 offsets for 6 tensors"):
        estimate_arena([model(fixtures_dir, "arena_offline_plan_wrong_count.tflite")])


def test_eval_tensor_arrays_cover_every_subgraph(fixtures_dir):
    estimate = estimate_arena([model(fixtures_dir, "arena_while.tflite")])
    tensors = 2 + 3 + 3
    assert part(estimate, "TfLiteEvalTensor arrays") == tensors * STRUCTS["TfLiteEvalTensor"]["ilp32"][0]
    assert part(estimate, "NodeAndRegistration arrays") == 3 * STRUCTS["NodeAndRegistration"]["ilp32"][0]
    # WHILE, LESS and ADD each allocate their OpData (16-byte aligned in the tail)
    assert {p.name for p in estimate.parts} >= {"OpData WHILE", "OpData LESS", "OpData ADD"}


def test_body_subgraph_tensors_are_planned(fixtures_dir):
    # Main: in/out 40 B each (48 aligned) alive together; the cond/body tensors are planned inside WHILE's step.
    estimate = estimate_arena([model(fixtures_dir, "arena_while.tflite")])
    assert estimate.plan_bytes >= 3 * 48


def test_per_channel_quantization_arrays(fixtures_dir):
    # CONV_2D with 6 output channels: multiplier and shift arrays of 6 int32 each, each 16-byte aligned.
    estimate = estimate_arena([model(fixtures_dir, "arena_conv_per_channel.tflite")])
    assert part(estimate, "kernel buffers CONV_2D") == 2 * 24
    # input and output TfLiteTensors each copy their quantization: TfLiteAffineQuantization + 1-entry zero points
    per_tensor = STRUCTS["TfLiteTensor"]["ilp32"][0] + STRUCTS["TfLiteAffineQuantization"]["ilp32"][0] + 8
    assert part(estimate, "input/output TfLiteTensors") == 2 * 4 + 2 * per_tensor


def test_variable_tensors_live_in_the_tail(fixtures_dir):
    estimate = estimate_arena([model(fixtures_dir, "arena_variable.tflite")])
    assert part(estimate, "variable tensors") == 64 * ELEMENT_BYTES[0]


def test_pointer_size_changes_the_runtime_structs(fixtures_dir):
    small = estimate_arena([model(fixtures_dir, "arena_add_chain.tflite")], pointer_bytes=4)
    large = estimate_arena([model(fixtures_dir, "arena_add_chain.tflite")], pointer_bytes=8)
    assert part(small, "TfLiteEvalTensor arrays") == 6 * 12
    assert part(large, "TfLiteEvalTensor arrays") == 6 * 24
    assert large.total_bytes > small.total_bytes


def test_models_sharing_one_allocator_share_the_head(fixtures_dir):
    a = model(fixtures_dir, "arena_add_chain.tflite")
    b = model(fixtures_dir, "arena_offline_plan.tflite")
    one, two = estimate_arena([a]), estimate_arena([b])
    both = estimate_arena([a, b])
    assert both.plan_bytes == max(one.plan_bytes, two.plan_bytes)
    assert max(one.total_bytes, two.total_bytes) < both.total_bytes < one.total_bytes + two.total_bytes


def test_estimate_is_deterministic(fixtures_dir):
    path = model(fixtures_dir, "arena_while.tflite")
    assert estimate_arena([path]) == estimate_arena([path])


@pytest.mark.parametrize("name, message", [
    ("arena_dynamic_shape.tflite", "has a dynamic shape"),
    ("truncated.tflite", "truncated or corrupt|outside the file|past the end"),
    ("unsupported_ops.tflite", "unsupported op"),
])
def test_bad_models_raise_one_user_facing_error(fixtures_dir, name, message):
    with pytest.raises(ModelError, match=message):
        estimate_arena([model(fixtures_dir, name)])


def test_unknown_kernel_set_and_pointer_size(fixtures_dir):
    path = model(fixtures_dir, "arena_add_chain.tflite")
    with pytest.raises(ModelError, match="unknown kernel set 'xtensa'"):
        estimate_arena([path], kernels="xtensa")
    with pytest.raises(ModelError, match="pointer size 2"):
        estimate_arena([path], pointer_bytes=2)


def test_unmodelled_kernel_gives_an_upper_bound_with_a_note(fixtures_dir):
    # A custom op of the user's (gen-resolver registers it with the user's kernel): its allocations are unknown
    estimate = estimate_arena([model(fixtures_dir, "odd_custom_name.tflite")])
    assert not estimate.exact
    assert estimate.notes and "not modelled" in estimate.notes[0]


def test_models_without_the_tensors_a_kernel_needs_are_refused(fixtures_dir):
    # vision_subset.tflite's CONV_2D has no tensors at all: TFLM's kernel would fail in Prepare
    with pytest.raises(ModelError, match="lacks the tensors or shapes its TFLM kernel needs"):
        estimate_arena([model(fixtures_dir, "vision_subset.tflite")])
