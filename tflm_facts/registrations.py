"""How TFLM registers an operator: names that tie a model's op to the firmware's symbols.

A model op is served by the registration TFLM would use for it:
- builtin X: Register_X, or a kernel variant named by its types: Register_X_INT8, _INT16, _INT4, _FLOAT32,
  _INT8_INT16 ... (TFLM passes those to the same Add<Op>() method, so the interpreter finds the op either way);
- a custom op TFLM registers by name (SignalWindow, TFLite_Detection_PostProcess, ...): the function its Add<Op>()
  method uses, i.e. TFLite's name for it (Register_DETECTION_POSTPROCESS) or Register_ + the method's op in upper
  snake case (AddWindow -> Register_WINDOW, which TFLM keeps in namespace tflm_signal; AddEthosU -> Register_ETHOSU is
  the one exception), and its typed variants (Register_RFFT_INT16);
- any other custom op: gen-resolver's naming rule (custom "Sinh" -> Register_SINH).
Op names in a firmware are registration names without "Register_" and without namespace ("CONV_2D_INT8").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tflm_facts.registry import (
    BUILTIN_OPS,
    TFLITE_CUSTOM_REGISTRATIONS,
    TFLM_CUSTOM_OPS,
    registration_for,
    registration_function_name,
)

REGISTER_PREFIX = "Register_"
# What may follow the op's name in a kernel variant's registration: element types (CONV_2D_INT8, SOFTMAX_INT8_INT16).
VARIANT_TAIL = re.compile(r"(?:_(?:U?INT\d+(?:X\d+)?|FLOAT\d*)(?:REF)?)+")
# Registration functions of TFLM's named custom ops that do not follow the naming rule (micro_mutable_op_resolver.h).
TFLM_CUSTOM_FUNCTIONS = {"ethos-u": "Register_ETHOSU"}
# TFLM's builtin-data parsers that serve several ops (the rest are "Parse" + the method name without "Add").
SHARED_PARSERS = {
    "AveragePool2D": "Pool", "MaxPool2D": "Pool", "L2Pool2D": "Pool",
    "Mean": "Reducer", "Sum": "Reducer", "ReduceMax": "Reducer", "ReduceMin": "Reducer", "ReduceAll": "Reducer",
}


@dataclass(frozen=True)
class ModelOp:
    """One op a model needs, named as gen-resolver names it (builtin enum name, or the custom_code)."""

    kind: str  # "builtin" or "custom"
    name: str
    method: str  # the MicroMutableOpResolver method that registers it ("AddConv2D", "AddCustom"), or ""
    registration: str  # the registration function TFLM or gen-resolver uses, e.g. "Register_CONV_2D"
    unsupported_reason: str = ""  # set when TFLM has no kernel for the op (LSTM, Flex ops)

    @property
    def application_kernel(self) -> bool:
        """A custom op TFLM does not ship: registered with AddCustom(name, Register_X()), its kernel the
        application's own (model_op gives AddCustom to these alone)."""
        return self.method == "AddCustom"

    def is_registered_by(self, firmware_op: str) -> bool:
        """Whether a firmware registration (op name as in the operator table, e.g. "CONV_2D_INT8") provides this op."""
        base = self.registration[len(REGISTER_PREFIX):]
        return firmware_op == base or (
            firmware_op.startswith(base) and VARIANT_TAIL.fullmatch(firmware_op, len(base)) is not None
        )


def model_op(kind: str, name: str) -> ModelOp:
    """How TFLM registers one model op, from the registration table and gen-resolver's naming rule."""
    registration = registration_for(kind, name)
    if kind == "builtin":
        function = REGISTER_PREFIX + name
        method = registration.method or ""
    elif registration.method:  # a custom op TFLM registers by name through its own Add<Op>() method
        function = (TFLM_CUSTOM_FUNCTIONS.get(name) or TFLITE_CUSTOM_REGISTRATIONS.get(name)
                    or registration_function_name(registration.method[len("Add"):]))
        method = registration.method
    else:  # a user custom op: AddCustom(name, Register_<NAME>())
        function = registration.custom_registration or registration_function_name(name)
        method = "AddCustom" if registration.supported else ""
    return ModelOp(kind, name, method, function, registration.unsupported_reason or "")


def registration_methods() -> dict[str, str]:
    """Op name as spelled in Register_<OP> -> the MicroMutableOpResolver method that registers it. Custom ops are
    named as model_op names them, so a firmware's table and a model's ops agree."""
    methods = {name: method for name, (_code, method) in BUILTIN_OPS.items() if method}
    for custom_name, method in TFLM_CUSTOM_OPS.items():
        if method:
            methods.setdefault(model_op("custom", custom_name).registration[len(REGISTER_PREFIX):], method)
    return methods


def method_for_registration(op: str, methods: dict[str, str]) -> str | None:
    """The Add<Op>() method of a registration name (from registration_methods()), a kernel variant included:
    CONV_2D_INT8 -> AddConv2D."""
    if op in methods:
        return methods[op]
    for cut in range(len(op) - 1, 0, -1):
        if op[cut] == "_" and op[:cut] in methods and VARIANT_TAIL.fullmatch(op, cut):
            return methods[op[:cut]]
    return None


def parser_name(method: str | None) -> str | None:
    """The builtin-data parser an Add<Op>() method uses, lower-cased without "Parse" (AddMaxPool2D -> "pool")."""
    if not method:
        return None
    stem = method[len("Add"):]
    return SHARED_PARSERS.get(stem, stem).lower()
