"""A stack path and its warnings in a few lines for a terminal: the first frames, the largest frame, the deepest
function and the total, each run of steps left out said in one line; the warnings of one kind as one line with a
count and the functions holding most of them.
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
    """Warnings of one kind: one line, the sites counted and the functions holding most of them named."""

    kind: str
    sites: int
    functions: tuple[tuple[str, int], ...]  # (function, its sites), most first
    single: str = ""  # the warning itself, when it is the only one of its kind

    def text(self, named: int = 3) -> str:
        if self.single:
            return self.single
        shown = ", ".join(short_name(name) + (f" {count}" if count > 1 else "")
                          for name, count in self.functions[:named])
        more = f", {len(self.functions) - named} more" if len(self.functions) > named else ""
        return (f"{self.kind}: {self.sites} sites in {len(self.functions)} function"
                f"{'s' if len(self.functions) != 1 else ''} ({shown}{more}; --verbose lists them)")


def short_name(function: str) -> str:
    """A function's name without its parameter list: `tflite::(anonymous namespace)::Prepare(TfLiteContext*, ...)`
    -> `tflite::(anonymous namespace)::Prepare`."""
    hidden = function.replace("(anonymous namespace)", "\0")
    return hidden.split("(", 1)[0].replace("\0", "(anonymous namespace)") or function


def grouped_warnings(warnings) -> list[WarningGroup]:
    """Warnings (kind, function, address, detail, text()) grouped by kind, in the order first seen."""
    groups: dict[str, list] = {}
    for warning in warnings:
        groups.setdefault(warning.kind, []).append(warning)
    result = []
    for kind, members in groups.items():
        counts: dict[str, int] = {}
        for warning in members:
            counts[warning.function] = counts.get(warning.function, 0) + 1
        functions = tuple(sorted(counts.items(), key=lambda item: (-item[1], list(counts).index(item[0]))))
        result.append(WarningGroup(kind, len(members), functions, members[0].text() if len(members) == 1 else ""))
    return result
