"""Will TFLM run these tensor types, and which type-reduced registration runs every use of an op?

Pure functions over typed operator uses (operator_uses) and TFLM's type facts (tflm_facts.type_rules):
- signature(): an operator's types as shown to users, e.g. "int8×int8→int8" (the inputs its kernel dispatches on).
- rejection_reason(): why TFLM's kernel would refuse a combination (hybrid, legacy uint8, float16, int64, ...), or
  None when it accepts it.
- model_rejections(): every refused combination of some models, with model, op, subgraph and operator indices.
- choose_variant(): the one automatic KernelVariant that runs every given use of an op, or None and why.

type_rejections(), variant_every_model_allows(), variant_choices() and variant_misfits() are the same answers straight
from model paths, for other tools (size-report --model): they read the models themselves and raise ModelError
on a missing or corrupt model.

The rules are those of TFLM_REVISION's kernels unless `linked` is given: the types the kernel functions a firmware
links take (tflm_facts.linked_types), whose TFLM may be older (uint8 kernels, 2020) or newer. A use one linked
instantiation of its op takes is not refused; a refusal under the assumed revision's rules says which rules they are.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable

from tflm_model.operator_uses import ModelUses, OpKey
from tflm_model.tflite_reader import TensorTypes
from tflm_facts import TFLM_REVISION
from tflm_facts.linked_types import takes
from tflm_facts.type_rules import (
    ABSENT, TENSOR_TYPE_CODES, TENSOR_TYPE_NAMES, UNALLOCATABLE_TYPES, VARIANTS_BY_OP, KernelVariant, OpTypes,
    op_types, type_name,
)

_UINT8, _INT64 = TENSOR_TYPE_CODES["uint8"], TENSOR_TYPE_CODES["int64"]
_FLOAT32 = TENSOR_TYPE_CODES["float32"]
_HALF_FLOATS = {TENSOR_TYPE_CODES["float16"], TENSOR_TYPE_CODES["bfloat16"]}
_NARROW_INTS = {TENSOR_TYPE_CODES["int8"], TENSOR_TYPE_CODES["int4"], TENSOR_TYPE_CODES["int2"],
                TENSOR_TYPE_CODES["uint4"]}
_MAX_LISTED_OPERATORS = 5


def signature(key: OpKey, types: TensorTypes) -> str:
    """The types an op's kernel dispatches on: shown inputs joined by ×, then → and the outputs ("int8×int8→int8");
    "" for an operator without any tensor."""
    if not types.inputs and not types.outputs:
        return ""
    shown = op_types(key.kind, key.name).shown_inputs
    positions = range(len(types.inputs)) if shown is None else shown
    inputs = [type_name(types.inputs[p]) if p < len(types.inputs) else "-" for p in positions]
    if shown is None:  # trailing omitted optional inputs say nothing
        while inputs and inputs[-1] == "-":
            inputs.pop()
    return "×".join(inputs) + "→" + ",".join(type_name(t) for t in types.outputs)


def accepted_signatures(key: OpKey) -> list[str]:
    """What TFLM's kernel for the op accepts, in the notation of signatures (for messages and docs)."""
    rule = op_types(key.kind, key.name)
    return list(dict.fromkeys(pattern.display(rule.shown_inputs) for pattern in rule.accepts or ()))


def accepts(rule: OpTypes, types: TensorTypes) -> bool:
    return rule.accepts is None or any(p.matches(types.inputs, types.outputs) for p in rule.accepts)


def rejection_reason(key: OpKey, types: TensorTypes, linked: dict | None = None) -> str | None:
    """Why TFLM's kernel for the op refuses these tensor types (the likely cause first), or None if it runs them
    (`linked`: the firmware's own kernel types, tflm_facts.linked_types, which take precedence).

    An operator without any tensor says nothing about types and is not refused here. Tensors of a type TFLM cannot
    allocate (string, ...) or does not know are refused for any op, custom ops included."""
    present = [t for t in types.inputs + types.outputs if t != ABSENT]
    unknown = sorted({t for t in present if t not in TENSOR_TYPE_NAMES})
    if unknown:
        return f"tensor type code {unknown[0]} is not in the TFLite schema TFLM knows"
    unallocatable = [t for t in present if t in UNALLOCATABLE_TYPES]
    if unallocatable:
        return f"{type_name(unallocatable[0])} tensors, which TFLM cannot allocate"
    rule = op_types(key.kind, key.name)
    if (not types.inputs and not types.outputs) or accepts(rule, types):
        return None
    if key.kind == "builtin" and takes(linked, key.name, (type_name(t) for t in present)):
        return None
    constant = [t for t, const in zip(types.inputs, types.constant_inputs) if const]
    if _UINT8 in present:
        whose = ("the firmware links no uint8 kernel for it" if linked is not None
                 else f"the rules of {TFLM_REVISION}, assumed: no firmware's kernels were read")
        return ("uint8 tensors: legacy uint8 quantization, which TFLM's kernels no longer run "
                f"(convert the model with int8 quantization; {whose})")
    if _HALF_FLOATS & set(present):
        what = "weights" if _HALF_FLOATS & set(constant) else "tensors"
        return (f"float16 {what}: TFLM has no float16 kernels, and its DEQUANTIZE takes only int8, int16 or uint8 "
                "(convert with float32 or int8 weights)")
    activations = [t for t, const in zip(types.inputs, types.constant_inputs) if not const and t != ABSENT]
    if _FLOAT32 in activations and _NARROW_INTS & set(constant):
        weight = type_name(sorted(_NARROW_INTS & set(constant))[0])
        return (f"hybrid: float32 activations with {weight} weights (dynamic-range quantization), which TFLM does "
                "not run (quantize the activations too, or keep float32 weights)")
    extra = [i for i, t in enumerate(types.inputs) if t != ABSENT and not _may_be(rule, i, present=True)]
    missing = [i for i, t in enumerate(types.inputs) if t == ABSENT and not _may_be(rule, i, present=False)]
    if extra or missing:
        parts = [f"{_inputs(extra)} given"] if extra else []
        parts += [f"{_inputs(missing)} omitted"] if missing else []
        return f"{' and '.join(parts)}, which TFLM's {key.name} kernel does not allow"
    if _misplaced(rule, types, _INT64):
        return f"int64 tensors, which TFLM's {key.name} kernel does not take"
    return f"TFLM's {key.name} kernel does not take these types"


def _inputs(positions: list[int]) -> str:
    return f"input{'s' if len(positions) > 1 else ''} {', '.join(map(str, positions))}"


def _may_be(rule: OpTypes, position: int, present: bool) -> bool:
    """Whether some accepted pattern lets input `position` be given (present) or omitted."""
    for pattern in rule.accepts or ():
        if present and any(pattern.allows(False, position, code) for code in TENSOR_TYPE_NAMES):
            return True
        if not present and pattern.allows(False, position, ABSENT):
            return True
    return False


def _misplaced(rule: OpTypes, types: TensorTypes, code: int) -> bool:
    """Whether some tensor of type `code` sits where no accepted pattern of the op takes that type."""
    for output, side in ((False, types.inputs), (True, types.outputs)):
        for position, actual in enumerate(side):
            if actual == code and not any(p.allows(output, position, code) for p in rule.accepts or ()):
                return True
    return False


@dataclass(frozen=True)
class TypeRejection:
    """Operators of one model whose tensor types TFLM's kernel refuses (at allocation or at the first invoke)."""

    model: str  # the model path as given
    op: str  # builtin enum name or custom_code
    subgraph: int
    operators: tuple[int, ...]  # indices within the subgraph, ascending
    types: str  # the signature, e.g. "float32×int8→float32"
    reason: str
    accepted: tuple[str, ...]  # the signatures TFLM's kernel takes

    @property
    def operator_list(self) -> str:
        """"operator 3" or "operators 3, 7, 9 and 12 more"."""
        shown = ", ".join(str(i) for i in self.operators[:_MAX_LISTED_OPERATORS])
        more = len(self.operators) - _MAX_LISTED_OPERATORS
        word = "operator" if len(self.operators) == 1 else "operators"
        return f"{word} {shown}" + (f" and {more} more" if more > 0 else "")

    def message(self) -> str:
        """One line: model, op, subgraph, operators, types, why, and what the kernel takes."""
        takes = f"; TFLM's kernel takes {', '.join(self.accepted)}" if self.accepted else ""
        return (f"{self.model}: {self.op} in subgraph {self.subgraph}, {self.operator_list} ({self.types}): "
                f"{self.reason}{takes}")


def model_rejections(models: Iterable[ModelUses], linked: dict | None = None) -> list[TypeRejection]:
    """Every refused type combination of the models, per model in the order given, then by op, subgraph, operator
    (`linked`: the firmware's own kernel types, see rejection_reason)."""
    from tflm_facts.registry import registration_for

    rejections = []
    for model in models:
        found = []
        for use in model.ops:
            if not registration_for(use.key.kind, use.key.name).supported:
                continue  # no TFLM kernel at all: reported as an unsupported op, whatever its types
            for (sub, types), operators in use.typed.items():
                reason = rejection_reason(use.key, types, linked if linked is not None else model.kernel_types)
                if reason is not None:
                    found.append(TypeRejection(str(model.path), use.name, sub, tuple(operators),
                                               signature(use.key, types), reason,
                                               tuple(accepted_signatures(use.key))))
        rejections += sorted(found, key=lambda r: (r.op, r.subgraph, r.operators))
    return rejections


@dataclass(frozen=True)
class VariantChoice:
    """The type-reduced registration for one op across some models, or None with the reason."""

    op: str
    variant: KernelVariant | None
    reason: str


def _signature_list(key: OpKey, uses: list[TensorTypes]) -> str:
    texts = list(dict.fromkeys(signature(key, types) for types in uses))
    return texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]


def choose_variant(key: OpKey, uses: list[TensorTypes]) -> VariantChoice:
    """The automatic variant whose types cover every use, if exactly one does (variants of an op are disjoint)."""
    variants = [v for v in VARIANTS_BY_OP.get((key.kind, key.name), ()) if v.automatic]
    if not variants:
        return VariantChoice(key.name, None, f"TFLM has no type-reduced registration for {key.name}")
    if not uses:
        return VariantChoice(key.name, None, "no typed use to choose from")
    covering = [v for v in variants if all(v.accepts.matches(t.inputs, t.outputs) for t in uses)]
    described = _signature_list(key, uses)
    if len(covering) == 1:
        variant = covering[0]
        every = "every use is" if len(set(uses)) == 1 or len(uses) == 1 else "it runs every use:"
        return VariantChoice(key.name, variant, f"{every} {described}")
    if not covering:
        names = ", ".join(v.name for v in variants)
        return VariantChoice(key.name, None, f"no single type-reduced registration ({names}) runs {described}")
    raise AssertionError(f"variants {[v.name for v in covering]} overlap for {key.name}")


def variant_for_models(models: Iterable[ModelUses], key: OpKey) -> VariantChoice:
    """choose_variant over every use of the op in every model; models that do not use it do not constrain it."""
    uses: list[TensorTypes] = []
    for model in models:
        for use in model.ops:
            if use.key == key:
                uses += [t for t in use.tensor_types if t not in uses]
    if not uses:
        return VariantChoice(key.name, None, f"no model uses {key.name}")
    return choose_variant(key, uses)


# Public API for other tools (size-report --model): model paths in, plain records out.

def _read(model_paths: Iterable[str | os.PathLike]) -> list[ModelUses]:
    from tflm_model.operator_uses import read_model_uses

    return [read_model_uses(path, hash_in_background=False) for path in model_paths]


def type_rejections(model_paths: Iterable[str | os.PathLike], linked: dict | None = None) -> list[TypeRejection]:
    """Every operator of the models whose tensor types TFLM's kernels refuse (hybrid float32×int8, legacy uint8,
    float16 weights, int64 where unsupported, ...), in model order, then op, subgraph, operator index. Builtin ops
    TFLM has no kernel for at all are not listed (tflm_facts.registry reports those). ModelError on a
    missing or corrupt model. `linked`: the firmware's own kernel types (see rejection_reason)."""
    return model_rejections(_read(model_paths), linked)


def variant_every_model_allows(model_paths: Iterable[str | os.PathLike], op: str) -> VariantChoice:
    """The type-reduced registration (e.g. CONV_2D_INT8) that runs every use of `op` in every model, or variant None
    and the reason (no variant for the op, uses of several types, no model uses it). `op` is a builtin enum name
    ("CONV_2D") or a custom op's custom_code ("SignalRfft"). ModelError on a missing or corrupt model."""
    from tflm_facts.registry import BUILTIN_OPS

    kind = "builtin" if op in BUILTIN_OPS else "custom"
    return variant_for_models(_read(model_paths), OpKey(kind, op))


def variant_choices(model_paths: Iterable[str | os.PathLike]) -> dict[str, VariantChoice]:
    """variant_every_model_allows for every op of the models that has type-reduced registrations, read once:
    op name -> VariantChoice. Ops without any variant (RESHAPE, ...) and ops TFLM cannot run are left out."""
    models = _read(model_paths)
    keys = sorted({use.key for model in models for use in model.ops if VARIANTS_BY_OP.get((use.key.kind, use.key.name))})
    return {key.name: variant_for_models(models, key) for key in keys}


def variant_misfits(model_paths: Iterable[str | os.PathLike], variant_name: str) -> list[TypeRejection]:
    """Uses of the variant's op whose types the variant does not run (a firmware registering CONV_2D_INT8 for a model
    with a float32 CONV_2D fails at run time with CMSIS-NN). variant_name as in KERNEL_VARIANTS ("CONV_2D_INT8");
    ModelError for an unknown name."""
    from tflm_model.errors import ModelError
    from tflm_facts.type_rules import KERNEL_VARIANTS

    variant = next((v for v in KERNEL_VARIANTS if v.name == variant_name), None)
    if variant is None:
        raise ModelError(f"{variant_name}: not a TFLM type-reduced registration")
    key = OpKey(variant.kind, variant.op)
    misfits = []
    for model in _read(model_paths):
        for use in model.ops:
            if use.key != key:
                continue
            for (sub, types), operators in use.typed.items():
                if not variant.accepts.matches(types.inputs, types.outputs):
                    misfits.append(TypeRejection(
                        str(model.path), use.name, sub, tuple(operators), signature(key, types),
                        f"{variant.name} runs only {variant.accepts.display(op_types(key.kind, key.name).shown_inputs)}",
                        (variant.accepts.display(op_types(key.kind, key.name).shown_inputs),)))
    return misfits
