"""TFLM's GreedyMemoryPlanner, step for step: where each non-persistent buffer goes in the arena's head.

Buffers are (size, first_time_used, last_time_used, offline_offset or ONLINE). Offline-planned buffers keep their
offsets and are placed first, in the order given; the online ones are taken largest first (ties: the buffer added
last goes first, as TFLM fills its sort array from the tail and bubble-sorts it) and each goes at the lowest offset
where it fits between the buffers already placed that are alive at the same time (first fit in offset order).
The plan's size is the highest end offset of any buffer.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

ONLINE = -1  # kOnlinePlannedBuffer


@dataclass(frozen=True)
class PlannedBuffer:
    size: int
    first_used: int
    last_used: int
    offline_offset: int = ONLINE


def plan_offsets(buffers: list[PlannedBuffer]) -> tuple[list[int], int]:
    """(offset of each buffer, the plan's size in bytes), as GreedyMemoryPlanner::CalculateOffsetsIfNeeded."""
    count = len(buffers)
    if not count:
        return [], 0
    offline = [i for i, b in enumerate(buffers) if b.offline_offset != ONLINE]
    online = [i for i in reversed(range(count)) if buffers[i].offline_offset == ONLINE]
    online.sort(key=lambda i: -buffers[i].size)  # stable, like TFLM's bubble sort
    order = offline + online
    offsets = [-1] * count
    for i in offline:
        offsets[i] = buffers[i].offline_offset
    # Placed buffers in offset order; equal offsets keep insertion order (a new one goes after its equals).
    placed_offsets: list[int] = []
    placed_ids: list[int] = []
    first = order[0]
    if buffers[first].offline_offset == ONLINE:
        offsets[first] = 0
    placed_offsets.append(offsets[first])
    placed_ids.append(first)
    for buffer_id in order[1:]:
        wanted = buffers[buffer_id]
        if wanted.offline_offset == ONLINE:
            candidate = 0
            for position, other in enumerate(placed_ids):
                other_buffer = buffers[other]
                if other_buffer.first_used > wanted.last_used or wanted.first_used > other_buffer.last_used:
                    continue
                gap = placed_offsets[position] - candidate
                if gap >= wanted.size:
                    break
                candidate = max(candidate, placed_offsets[position] + other_buffer.size)
        else:
            candidate = wanted.offline_offset
        offsets[buffer_id] = candidate
        if placed_offsets[0] > candidate:
            placed_offsets.insert(0, candidate)
            placed_ids.insert(0, buffer_id)
        else:
            # After the first entry, before the first later entry whose offset is greater.
            position = max(1, bisect_right(placed_offsets, candidate))
            placed_offsets.insert(position, candidate)
            placed_ids.insert(position, buffer_id)
    size = max((offsets[i] + buffers[i].size for i in range(count)), default=0)
    return offsets, size
