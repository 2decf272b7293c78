"""Why a firmware does not fit its models, one line per reason: for build systems that show a failed command's
output and nothing else (`size-report fit --reasons`, run by CMake's tflm_size_check after each link), as
`size-report check --reasons` gives one line per failed budget rule."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from sizetool.fit.model_fit import ArenaFit, verdict

if TYPE_CHECKING:
    from sizetool.operators.model_crosscheck import ModelCrosscheck


def fit_failure_reasons(crosscheck: ModelCrosscheck | None, fit: ArenaFit | None) -> list[str]:
    """Each op a model needs that the firmware does not register, each use its kernels cannot run, and the arena
    verdict when the arena is too small: one line each, with names from the models made safe for a terminal."""
    reasons = []
    if crosscheck is not None:
        for missing in crosscheck.missing:
            models = ", ".join(os.path.basename(m) for m in missing.models)
            reasons.append(f"{missing.op.name} ({missing.op.kind}) is not registered; needed by {models}")
        reasons += [problem.message for problem in crosscheck.type_problems]
    if fit is not None and not fit.passed:
        reasons.append(verdict(fit))
    return [console_line(reason) for reason in reasons]


def console_line(text: str) -> str:
    """One printable line: control characters (a model's custom op name may hold any) written as escapes."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def budget_reasons(over: dict[str, int], changes) -> list[str]:
    """One line per budget missed, naming the change that saves most of that memory (sizetool/advice/)."""
    reasons = []
    for memory, bytes_over in sorted(over.items()):
        top = next((c for c in changes if c.memory == memory and c.bytes), None)
        hint = f"; largest saving: {top.change} ({top.bytes} bytes, {top.certainty}): {top.how}" if top else ""
        reasons.append(console_line(f"{memory} is {bytes_over} bytes over budget{hint}"))
    return reasons


def top_change_reason(changes, memories=("flash", "ram")) -> str:
    """The change that saves the most bytes of the memories over budget, in one line (the CMake check's reasons name
    it)."""
    top = next((c for c in changes if c.bytes and c.memory in memories), None)
    if top is None:
        return "no change found that would save bytes"
    return console_line(f"largest saving: {top.change}: {top.bytes} bytes {top.memory} ({top.certainty}): {top.how}")
