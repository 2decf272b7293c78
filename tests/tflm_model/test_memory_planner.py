"""TFLM's greedy memory planner, rule by rule."""

from tflm_model.memory_planner import PlannedBuffer, plan_offsets


def test_buffers_alive_at_different_times_share_memory():
    offsets, size = plan_offsets([PlannedBuffer(400, 0, 1), PlannedBuffer(400, 1, 2), PlannedBuffer(400, 2, 3)])
    assert offsets == [0, 400, 0]
    assert size == 800


def test_largest_buffer_is_placed_first_at_offset_zero():
    offsets, _ = plan_offsets([PlannedBuffer(16, 0, 5), PlannedBuffer(64, 0, 5)])
    assert offsets == [64, 0]


def test_equal_sizes_place_the_buffer_added_last_first():
    offsets, _ = plan_offsets([PlannedBuffer(32, 0, 5), PlannedBuffer(32, 0, 5)])
    assert offsets == [32, 0]


def test_first_fit_uses_a_gap_between_live_buffers():
    # A (0..2) at 0, B (0..9) at 100; C (3..9) fits in A's place once A is dead.
    offsets, size = plan_offsets([PlannedBuffer(100, 0, 2), PlannedBuffer(200, 0, 9), PlannedBuffer(80, 3, 9)])
    assert offsets == [200, 0, 200]
    assert size == 300


def test_offline_offsets_are_kept_and_online_buffers_fit_around_them():
    offsets, size = plan_offsets([PlannedBuffer(64, 0, 9, offline_offset=32), PlannedBuffer(16, 0, 9),
                                  PlannedBuffer(48, 0, 9)])
    assert offsets[0] == 32
    assert offsets[1] == 0  # 16 B fit below the offline buffer
    assert offsets[2] == 96
    assert size == 144


def test_no_buffers_plan_nothing():
    assert plan_offsets([]) == ([], 0)
