"""A change that saves flash or RAM, the ranking, and the combination of changes that reaches a budget.

Each change says what to change, what it saves (`bytes`: an integer, or None where nothing the toolkit has measured
sizes it: such a change is named, never given a guessed number), in which memory, how sure the figure is, the one
command or edit that makes it, and what it costs the user.

Certainty, most sure first:
- "measured": on this ELF (a set question on its own operator graph, within the bound that question states; a
  model's bytes written again without names and metadata);
- "predicted": from a shipped profile (another build of the same distribution and CPU), scaled on this firmware
  where it was built differently;
- "bound": at most (or at least) this much, named as such;
- "unsized": no figure.

Changes of different kinds can share savings: switching kernel sets saves less once registrations no model uses are
gone (their kernels were part of the difference). Such a change carries what it saves with the others made too
(`combined_bytes`, with the kinds it shares with in `shares`), and the combination counts that figure when those
kinds are in it, so a shared byte is counted once.
"""

from __future__ import annotations

from dataclasses import dataclass

CERTAINTIES = ("measured", "predicted", "bound", "unsized")
MEMORIES = ("flash", "ram")

# Kinds of change, the order the toolkit lists them in at equal bytes (the ones that cost the user nothing first).
KINDS = ("unused-registrations", "type-reduced", "model-strip", "unused-buffers", "arena", "kernel-set", "build-flags")
# Kinds that cost speed: the combination takes them only when the others do not reach the budget.
COSTS_SPEED = ("kernel-set", "build-flags")


@dataclass(frozen=True)
class Change:
    kind: str  # one of KINDS
    change: str  # what to change, one line
    bytes: int | None  # what it saves; None: cannot be sized here
    memory: str  # "flash" or "ram"
    certainty: str  # one of CERTAINTIES
    how: str  # the command, CMake option or resolver line that makes it
    costs: str  # what it costs the user: speed, accuracy, work
    combined_bytes: int | None = None  # what it saves when the changes of the kinds in `shares` are made too
    shares: tuple[str, ...] = ()
    note: str = ""  # how the figure was found, and what it leaves out
    may_save_more: int = 0  # the stated bound: the real saving may exceed `bytes` by up to this
    may_save_less: int = 0  # ... or fall short of it by up to this


@dataclass(frozen=True)
class Step:
    change: Change
    bytes: int  # what it adds to the combination (shared savings counted once)


@dataclass(frozen=True)
class Plan:
    memory: str
    over_by: int  # bytes over the budget
    steps: tuple[Step, ...]
    saved: int

    @property
    def reaches(self) -> bool:
        return self.saved >= self.over_by


def ranked(changes) -> list[Change]:
    """Most bytes first; changes without a figure last; ties by kind (KINDS order), then by text."""
    return sorted(changes, key=lambda c: (c.bytes is None, -(c.bytes or 0), KINDS.index(c.kind) if c.kind in KINDS
                                          else len(KINDS), c.memory, c.change))


def combined_saving(chosen: list[Change]) -> list[int]:
    """What each chosen change adds, with savings shared between kinds counted once."""
    kinds = {change.kind for change in chosen}
    out = []
    for change in chosen:
        shared = change.combined_bytes is not None and any(kind in kinds for kind in change.shares
                                                           if kind != change.kind)
        out.append(change.combined_bytes if shared else change.bytes or 0)
    return out


def combination(changes, memory: str, over_by: int) -> Plan:
    """Ranked changes of one memory whose savings together reach `over_by`, or all of them when even they do not:
    the changes that cost no speed first, largest first, then the others. Only sized savings count; a change that
    would add nothing once the others are made is left out."""
    chosen: list[Change] = []
    candidates = ranked(c for c in changes if c.memory == memory and c.bytes and c.bytes > 0)
    candidates.sort(key=lambda c: c.kind in COSTS_SPEED)  # stable: by bytes within each group
    for change in candidates:
        if sum(combined_saving(chosen)) >= over_by:
            break
        trial = chosen + [change]
        if combined_saving(trial)[-1] <= 0:
            continue
        chosen = trial
    savings = combined_saving(chosen)
    return Plan(memory, over_by, tuple(Step(c, b) for c, b in zip(chosen, savings)), sum(savings))


def change_to_dict(change: Change) -> dict:
    item = {"change": change.change, "bytes": change.bytes, "memory": change.memory, "certainty": change.certainty,
            "how": change.how, "costs": change.costs, "kind": change.kind}
    if change.shares:
        item["combined_bytes"] = change.combined_bytes
        item["shares_with"] = list(change.shares)
    if change.note:
        item["note"] = change.note
    if change.may_save_more or change.may_save_less:
        item["may_save_more"], item["may_save_less"] = change.may_save_more, change.may_save_less
    return item


def plan_to_dict(plan: Plan) -> dict:
    return {"memory": plan.memory, "over_by": plan.over_by, "saved": plan.saved, "reaches": plan.reaches,
            "changes": [{"change": step.change.change, "bytes": step.bytes} for step in plan.steps]}
