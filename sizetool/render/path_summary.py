"""A stack path and its warnings in a few lines for a terminal: the first frames, the largest frame, the deepest
function and the total, each run of steps left out said in one line; repeated warnings as one line with a count.
`--verbose` prints everything (JSON and CSV always do). Used by `size-report stack` and `gen-resolver --fit`."""

from __future__ import annotations

from dataclasses import dataclass

FIRST_FRAMES = 3  # steps shown from the root down


@dataclass(frozen=True)
class LeftOut:
    """Steps of a path not shown: how many and their frames' bytes."""

    steps: int
    bytes: int

    def text(self) -> str:
        return f"... {self.steps} more frame{'s' if self.steps != 1 else ''}, {self.bytes:,} B (--verbose lists them)"


def summarised(frames: list[int], verbose: bool = False, first: int = FIRST_FRAMES) -> list[int | LeftOut]:
    """The positions of a path's steps to show (`frames`: each step's own frame), with a LeftOut between those shown
    where steps are left out: the first `first`, the one with the largest frame, and the last (the deepest)."""
    count = len(frames)
    if verbose or count <= first + 2:
        return list(range(count))
    shown = set(range(first)) | {count - 1}
    shown.add(max(range(first, count - 1), key=lambda i: (frames[i], -i)))
    items: list[int | LeftOut] = []
    previous = -1
    for position in sorted(shown):
        if position > previous + 1:
            items.append(LeftOut(position - previous - 1, sum(frames[previous + 1:position])))
        items.append(position)
        previous = position
    return items


@dataclass(frozen=True)
class WarningGroup:
    """Warnings of one kind in one function: one line, the sites counted."""

    kind: str
    function: str
    sites: tuple[int, ...]
    detail: str  # the detail the sites share, or "" when they differ

    def text(self) -> str:
        if len(self.sites) == 1:
            where = f" at {self.sites[0]:#x}"
        else:
            where = f": {len(self.sites)} sites ({', '.join(f'{s:#x}' for s in self.sites[:3])}" + \
                    (", ...)" if len(self.sites) > 3 else ")")
        return f"{self.kind} in {self.function}{where}" + (f": {self.detail}" if self.detail else "")


def grouped_warnings(warnings) -> list[WarningGroup]:
    """Warnings (kind, function, address, detail) grouped by kind and function, in the order first seen."""
    groups: dict[tuple[str, str], list] = {}
    for warning in warnings:
        groups.setdefault((warning.kind, warning.function), []).append(warning)
    result = []
    for (kind, function), members in groups.items():
        details = {w.detail for w in members}
        result.append(WarningGroup(kind, function, tuple(sorted({w.address for w in members})),
                                   details.pop() if len(details) == 1 else ""))
    return result
