"""The union of the ops of one or more models, each op paired with its TFLM registration (pure data, no output).

With reduce_types, each op also gets the type-reduced registration (KernelVariant) that runs every use of it in every
model, when there is one; the plan also lists every use whose tensor types TFLM's kernels refuse.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tflm_model.errors import ModelError
from tflm_model.operator_uses import ModelUses, OperatorUse, OpKey
from tflm_model.tflite_reader import TensorTypes
from tflm_facts.registry import Registration, registration_for
from tflm_model.type_support import TypeRejection, VariantChoice, choose_variant, model_rejections


@dataclass
class PlannedOp:
    """One op of the union resolver: its registration and, per model file name, how that model uses it."""

    key: OpKey
    builtin_code: int | None
    registration: Registration
    uses_by_model: dict[str, OperatorUse] = field(default_factory=dict)
    variant: VariantChoice | None = None  # set with reduce_types, for ops TFLM registers with its own method

    @property
    def name(self) -> str:
        return self.key.name

    @property
    def tensor_types(self) -> list[TensorTypes]:
        """The distinct type combinations of the op across all models (models in the order given)."""
        return list(dict.fromkeys(t for use in self.uses_by_model.values() for t in use.tensor_types))

    @property
    def versions(self) -> list[int]:
        return sorted({v for use in self.uses_by_model.values() for v in use.versions})

    @property
    def sort_key(self) -> tuple[bool, str, str, str]:
        """Builtin ops first, then custom ones (TFLM's named ones such as AddWindow() and AddCustom() calls), each
        by method. At -O3 GCC inlines the registration machinery into the first ten or so AddXxx() calls of a
        function; a custom op's inlined call carries AddCustom()'s search of the names registered so far, unrolled
        for a small resolver (about 800 bytes a call on RP2040 with 18 ops, against about 190 for a builtin), so
        builtin calls first keep those out of line: audio_preprocessor's resolver is 3.4 KB smaller on pico-tflmicro
        (docs/gen-resolver.md). The order means nothing to TFLM."""
        return (self.key.kind != "builtin", self.registration.method or self.key.name, self.key.kind, self.key.name)


@dataclass
class ResolverPlan:
    models: list[ModelUses]
    ops: list[PlannedOp]  # every op of every model once: builtin ones, then custom ones, each by method (or name)
    type_rejections: list[TypeRejection] = field(default_factory=list)  # uses TFLM's kernels refuse for types
    reduce_types: bool = False

    @property
    def registered(self) -> list[PlannedOp]:
        return [op for op in self.ops if op.registration.supported]

    @property
    def unsupported(self) -> list[PlannedOp]:
        return [op for op in self.ops if not op.registration.supported]


def build_plan(models: list[ModelUses], custom_overrides: dict[str, str] | None = None,
               reduce_types: bool = False, linked_types: dict | None = None) -> ResolverPlan:
    """Union of the models' ops. Two models with the same file name would be indistinguishable: that is an error.

    reduce_types picks a type-reduced registration per op where one runs every use (not for ops TFLM cannot run,
    nor for custom ops registered with a user's function)."""
    names = [model.name for model in models]
    for name in sorted({n for n in names if names.count(n) > 1}):
        raise ModelError(f"{name}: given more than once (models are told apart by file name)")
    planned: dict[OpKey, PlannedOp] = {}
    for model in models:
        for use in model.ops:
            op = planned.get(use.key)
            if op is None:
                registration = registration_for(use.key.kind, use.key.name, custom_overrides)
                op = planned[use.key] = PlannedOp(use.key, use.builtin_code, registration)
            op.uses_by_model[model.name] = use
    ops = sorted(planned.values(), key=lambda op: op.sort_key)
    _check_custom_functions_distinct(ops)
    if reduce_types:
        for op in ops:
            if op.registration.method:
                op.variant = choose_variant(op.key, op.tensor_types)
    return ResolverPlan(models, ops, model_rejections(models, linked_types), reduce_types)


def _check_custom_functions_distinct(ops: list[PlannedOp]) -> None:
    owner: dict[str, str] = {}
    for op in ops:
        function = op.registration.custom_registration
        if function is None:
            continue
        if function in owner:
            raise ModelError(f"custom ops {owner[function]!r} and {op.name!r} would both use {function}(); "
                                   f"name one with --custom {op.name}=FUNCTION")
        owner[function] = op.name
