"""Check a firmware's operator registrations against the .tflite models it is meant to run.

Two questions, answered from the operator table (sizetool.operators.operator_cost) and the models' operator codes
(resolver_gen, the reader gen-resolver uses, so both tools name and map ops alike):
- which registered operators no given model uses, and what removing them saves (their exclusive bytes);
- which ops a model needs that the firmware does not register: TFLM's interpreter would stop at start-up with
  "Didn't find op for builtin opcode ..." (or "... custom opcode ...").

A model op is satisfied by the registrations TFLM would use for it:
- builtin X: Register_X, or a kernel variant named by its types: Register_X_INT8, _INT16, _INT4, _FLOAT32,
  _INT8_INT16 ... (TFLM passes those to the same Add<Op>() method, so the interpreter finds the op either way);
- a custom op TFLM registers by name (SignalWindow, TFLite_Detection_PostProcess, ...): the function its Add<Op>()
  method uses, i.e. TFLite's name for it (Register_DETECTION_POSTPROCESS) or Register_ + the method's op in upper
  snake case (AddWindow -> Register_WINDOW, which TFLM keeps in namespace tflm_signal; AddEthosU ->
  Register_ETHOSU is the one exception), and its typed variants (Register_RFFT_INT16);
- any other custom op: gen-resolver's naming rule (custom "Sinh" -> Register_SINH).
Op names in the firmware table are registration names without "Register_" and without namespace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sizetool.errors import SizeToolError
from sizetool.report.report_model import OperatorTable

REGISTER_PREFIX = "Register_"
# What may follow the op's name in a kernel variant's registration: element types (CONV_2D_INT8, SOFTMAX_INT8_INT16).
VARIANT_TAIL = re.compile(r"(?:_(?:U?INT\d+(?:X\d+)?|FLOAT\d*))+")
# Registration functions of TFLM's named custom ops that do not follow the naming rule (micro_mutable_op_resolver.h).
_TFLM_CUSTOM_FUNCTIONS = {"ethos-u": "Register_ETHOSU"}


@dataclass(frozen=True)
class ModelOp:
    """One op a model needs, named as gen-resolver names it (builtin enum name, or the custom_code)."""

    kind: str  # "builtin" or "custom"
    name: str
    method: str  # the MicroMutableOpResolver method that registers it ("AddConv2D", "AddCustom"), or ""
    registration: str  # the registration function TFLM or gen-resolver uses, e.g. "Register_CONV_2D"
    unsupported_reason: str = ""  # set when TFLM has no kernel for the op (LSTM, Flex ops)

    def is_registered_by(self, firmware_op: str) -> bool:
        """Whether a firmware registration (op name as in the operator table, e.g. "CONV_2D_INT8") provides this op."""
        base = self.registration[len(REGISTER_PREFIX):]
        return firmware_op == base or (
            firmware_op.startswith(base) and VARIANT_TAIL.fullmatch(firmware_op, len(base)) is not None
        )


@dataclass(frozen=True)
class UnusedOperator:
    """A registered operator that none of the models uses: removing its AddXxx() saves exclusive_bytes."""

    op: str
    registration: str
    exclusive_bytes: int


@dataclass(frozen=True)
class MissingOperator:
    """An op some model needs that the firmware does not register."""

    op: ModelOp
    models: tuple[str, ...]


@dataclass(frozen=True)
class UsedOperator:
    op: str  # firmware op name, e.g. "CONV_2D_INT8"
    registration: str
    models: tuple[str, ...]


@dataclass
class ModelCrosscheck:
    models: list[str]  # the model paths as given
    used: list[UsedOperator]
    unused: list[UnusedOperator]  # largest saving first
    missing: list[MissingOperator]  # sorted by kind, then name

    @property
    def unused_bytes(self) -> int:
        """Sum of the unused operators' exclusive bytes: a lower bound of what dropping all of them saves (code shared
        only among them comes on top)."""
        return sum(u.exclusive_bytes for u in self.unused)

    @property
    def passed(self) -> bool:
        return not self.missing


def model_op(kind: str, name: str) -> ModelOp:
    """How TFLM registers one model op, from resolver_gen's registration table and naming rule."""
    from resolver_gen.tflm_registry import TFLITE_CUSTOM_REGISTRATIONS, registration_for, registration_function_name

    registration = registration_for(kind, name)
    if kind == "builtin":
        function = REGISTER_PREFIX + name
        method = registration.method or ""
    elif registration.method:  # a custom op TFLM registers by name through its own Add<Op>() method
        function = (_TFLM_CUSTOM_FUNCTIONS.get(name) or TFLITE_CUSTOM_REGISTRATIONS.get(name)
                    or registration_function_name(registration.method[len("Add"):]))
        method = registration.method
    else:  # a user custom op: AddCustom(name, Register_<NAME>())
        function = registration.custom_registration or registration_function_name(name)
        method = "AddCustom" if registration.supported else ""
    return ModelOp(kind, name, method, function, registration.unsupported_reason or "")


def read_model_ops(path: str) -> list[ModelOp]:
    """The ops one .tflite model uses (every subgraph), in gen-resolver's order; SizeToolError on a bad file."""
    from resolver_gen.errors import ResolverGenError
    from resolver_gen.operator_uses import read_model_uses

    try:
        uses = read_model_uses(path, hash_in_background=False)
    except ResolverGenError as error:
        raise SizeToolError(str(error)) from None
    return [model_op(use.key.kind, use.key.name) for use in uses.ops]


def crosscheck_models(table: OperatorTable, model_paths: list[str], firmware: str = "the firmware") -> ModelCrosscheck:
    """Registered operators no model uses, and model ops the firmware lacks. `firmware` names the ELF in errors."""
    if not model_paths:
        raise SizeToolError("no models given to check the firmware against")
    if not table.operators:
        raise SizeToolError(
            f"{firmware}: no TFLM operator registrations found (stripped, or not a TFLM firmware), so the models "
            "cannot be checked against it"
        )
    needed: dict[tuple[str, str], tuple[ModelOp, list[str]]] = {}
    for path in model_paths:
        for op in read_model_ops(path):
            entry = needed.setdefault((op.kind, op.name), (op, []))
            if path not in entry[1]:
                entry[1].append(path)

    users: dict[str, list[str]] = {o.op: [] for o in table.operators}
    missing = []
    for key in sorted(needed):
        op, models = needed[key]
        satisfied_by = [name for name in users if op.is_registered_by(name)]
        if not satisfied_by:
            missing.append(MissingOperator(op, tuple(models)))
        for name in satisfied_by:
            users[name].extend(models)

    def in_given_order(models: list[str]) -> tuple[str, ...]:
        return tuple(sorted(set(models), key=model_paths.index))

    used, unused = [], []
    for o in table.operators:
        if users[o.op]:
            used.append(UsedOperator(o.op, o.registration, in_given_order(users[o.op])))
        else:
            unused.append(UnusedOperator(o.op, o.registration, o.exclusive_bytes))
    used.sort(key=lambda u: (u.op, u.registration))
    unused.sort(key=lambda u: (-u.exclusive_bytes, u.op, u.registration))
    return ModelCrosscheck(list(model_paths), used, unused, missing)
