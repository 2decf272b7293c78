"""The advice (sizetool/advice/): the changes that would save flash or RAM, ranked, and the combination that reaches
the budget, as text lines, markdown (for a pull-request comment) and JSON (`advice`: a list of objects with change,
bytes, memory, certainty and how; `advice_plan`: the combination per memory over its budget)."""

from __future__ import annotations

from sizetool.advice.changes import Plan, change_to_dict, plan_to_dict
from sizetool.text_escaping import markdown_code, markdown_text

CERTAINTY_WORDS = {"measured": "measured", "predicted": "predicted from a profile",
                   "bound": "a bound: at least this much", "unsized": "not sized"}


def _bytes(value: int | None) -> str:
    return "not sized" if value is None else f"{value:,} B"


def plan_sentence(plan: Plan) -> str:
    """One line: which changes reach the budget, or how far all of them fall short."""
    names = "; ".join(f"{step.change.change} ({step.bytes:,} B)" for step in plan.steps)
    if not plan.steps:
        return f"{plan.memory}: {plan.over_by:,} B over budget, and no sized change here saves {plan.memory}"
    if plan.reaches:
        return (f"{plan.memory}: {plan.over_by:,} B over budget; these reach it ({plan.saved:,} B together, shared "
                f"savings counted once): {names}")
    return (f"{plan.memory}: {plan.over_by:,} B over budget; every sized change together saves {plan.saved:,} B, "
            f"{plan.over_by - plan.saved:,} B short: {names}")


def advice_lines(changes, plans: list[Plan] = ()) -> list[str]:
    """Plain text: the combination first, then every change, ranked."""
    lines = [plan_sentence(plan) for plan in plans]
    if not changes:
        return lines + ["No change found that would save flash or RAM."]
    lines.append(f"Changes that save flash or RAM ({len(changes)}, most bytes first):")
    for rank, change in enumerate(changes, 1):
        figure = (f"{_bytes(change.bytes)} {change.memory} ({CERTAINTY_WORDS.get(change.certainty, change.certainty)})"
                  if change.bytes is not None else f"{change.memory}, not sized")
        lines.append(f"  {rank}. {change.change}: {figure}")
        lines.append(f"     how: {change.how}")
        lines.append(f"     costs: {change.costs}")
        if change.combined_bytes is not None and change.combined_bytes != change.bytes:
            lines.append(f"     with {', '.join(change.shares)} made too: {_bytes(change.combined_bytes)}")
        if change.note:
            lines.append(f"     figure: {change.note}")
    return lines


def advice_markdown(changes, plans: list[Plan] = ()) -> list[str]:
    lines = ["### What would make it fit" if any(not p.reaches or p.over_by > 0 for p in plans) else
             "### Changes that save flash or RAM", ""]
    lines += [f"- {markdown_text(plan_sentence(plan))}" for plan in plans]
    if plans:
        lines.append("")
    if not changes:
        return lines + ["No change found that would save flash or RAM.", ""]
    lines += ["| # | change | saves | memory | certainty | how | costs |", "|---:|---|---:|---|---|---|---|"]
    for rank, change in enumerate(changes, 1):
        lines.append(f"| {rank} | {markdown_text(change.change)} | {_bytes(change.bytes)} | {change.memory} | "
                     f"{CERTAINTY_WORDS.get(change.certainty, change.certainty)} | {markdown_code(change.how)} | "
                     f"{markdown_text(change.costs)} |")
    return lines + [""]


def advice_to_dict(changes, plans: list[Plan] = ()) -> dict:
    return {"advice": [change_to_dict(change) for change in changes],
            "advice_plan": [plan_to_dict(plan) for plan in plans]}
