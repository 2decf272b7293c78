"""Union of the ops of one or more models, each op paired with its TFLM registration (pure data, no output)."""

from __future__ import annotations

from dataclasses import dataclass, field

from resolver_gen.tflite_reader import ModelOps
from resolver_gen.tflm_registry import Registration, registration_for


@dataclass
class PlannedOp:
    name: str
    builtin_code: int | None
    registration: Registration
    versions_by_model: dict[str, list[int]] = field(default_factory=dict)
    uses_by_model: dict[str, dict[int, int]] = field(default_factory=dict)

    @property
    def sort_key(self) -> tuple[str, str]:
        return (self.registration.method or self.name, self.name)


@dataclass
class ResolverPlan:
    models: list[ModelOps]
    ops: list[PlannedOp]  # sorted, every op of every model once

    @property
    def registered(self) -> list[PlannedOp]:
        return [op for op in self.ops if op.registration.unsupported_reason is None]

    @property
    def unsupported(self) -> list[PlannedOp]:
        return [op for op in self.ops if op.registration.unsupported_reason is not None]


def build_plan(models: list[ModelOps]) -> ResolverPlan:
    planned: dict[tuple, PlannedOp] = {}
    for model in models:
        for use in model.ops:
            op = planned.get(use.key)
            if op is None:
                op = planned[use.key] = PlannedOp(use.name, use.builtin_code, registration_for(use.builtin_code, use.name))
            op.versions_by_model[model.path.name] = list(use.versions)
            op.uses_by_model[model.path.name] = dict(use.uses_per_subgraph)
    return ResolverPlan(models, sorted(planned.values(), key=lambda op: op.sort_key))
