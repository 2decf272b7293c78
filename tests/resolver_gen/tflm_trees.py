"""Small synthetic TFLM trees for gen-resolver --tflm tests: headers of our own with the shapes TFLM's declarations
take (a MicroMutableOpResolver class template with `TfLiteStatus AddXxx(...)` methods, some taking
`const TFLMRegistration& registration = Register_X()`, and `TFLMRegistration Register_X_INT8();` in kernel headers),
complete enough for g++ -fsyntax-only to compile a generated header against them."""

from __future__ import annotations

from pathlib import Path

RESOLVER = "tensorflow/lite/micro/micro_mutable_op_resolver.h"
KERNELS = "tensorflow/lite/micro/kernels"

# The methods int8_vision.tflite needs; True: takes a registration (all but AddReshape, as in TFLM)
VISION_METHODS = {"AddAveragePool2D": True, "AddConv2D": True, "AddDepthwiseConv2D": True, "AddFullyConnected": True,
                  "AddMaxPool2D": True, "AddPad": True, "AddReshape": False, "AddSoftmax": True,
                  "AddTranspose": True, "AddAdd": True}
VISION_VARIANTS = {"conv.h": ["CONV_2D_INT8", "CONV_2D_INT16"], "depthwise_conv.h": ["DEPTHWISE_CONV_2D_INT8"],
                   "fully_connected.h": ["FULLY_CONNECTED_INT8"], "pooling.h": ["AVERAGE_POOL_2D_INT8",
                                                                            "MAX_POOL_2D_INT8"],
                   "pad.h": ["PAD_INT8"], "softmax.h": ["SOFTMAX_INT8"], "transpose.h": ["TRANSPOSE_INT8"]}


def _op(method: str) -> str:
    return {"AddAveragePool2D": "AVERAGE_POOL_2D", "AddConv2D": "CONV_2D", "AddDepthwiseConv2D": "DEPTHWISE_CONV_2D",
            "AddFullyConnected": "FULLY_CONNECTED", "AddMaxPool2D": "MAX_POOL_2D", "AddPad": "PAD",
            "AddReshape": "RESHAPE", "AddSoftmax": "SOFTMAX", "AddTranspose": "TRANSPOSE", "AddAdd": "ADD",
            "AddReverseV2": "REVERSE_V2"}[method]


def write_tree(root: Path, methods: dict[str, bool], variants: dict[str, list[str]] | None = None,
               crlf: bool = False) -> Path:
    """Write a synthetic TFLM tree under root: the resolver header with `methods` (name -> takes a registration)
    and kernels/<header> declaring Register_<variant>() for each of `variants`."""
    lines = ["// A synthetic stand-in for TFLM's resolver header (test fixture).", "#pragma once",
             "typedef enum { kTfLiteOk = 0, kTfLiteError = 1 } TfLiteStatus;",
             "struct TFLMRegistration { int unused; };", "namespace tflite {"]
    lines += [f"TFLMRegistration Register_{_op(m)}();" for m in sorted(methods)]
    lines += ["template <unsigned int tOpCount>", "class MicroMutableOpResolver {", " public:",
              "  TfLiteStatus AddCustom(const char* name,", "                        const TFLMRegistration* r) {",
              "    return kTfLiteOk;", "  }"]
    for method, takes in sorted(methods.items()):
        if takes:  # the multi-line shape, with a default argument holding parentheses
            lines += [f"  TfLiteStatus {method}(", f"      const TFLMRegistration& registration = "
                      f"Register_{_op(method)}()) {{", "    return kTfLiteOk;", "  }"]
        else:
            lines += [f"  TfLiteStatus {method}() {{ return kTfLiteOk; }}"]
    lines += ["  // TfLiteStatus AddCommentedOut() {}", "  /* TfLiteStatus AddAlsoCommentedOut(); */",
              "};", "}  // namespace tflite", ""]
    newline = "\r\n" if crlf else "\n"
    (root / RESOLVER).parent.mkdir(parents=True, exist_ok=True)
    (root / RESOLVER).write_bytes(newline.join(lines).encode())
    (root / KERNELS).mkdir(parents=True, exist_ok=True)
    for header, names in (variants or {}).items():
        body = ["#pragma once", f'#include "{RESOLVER}"', "namespace tflite {"]
        body += [f"TFLMRegistration Register_{name}();" for name in names] + ["}  // namespace tflite", ""]
        (root / KERNELS / header).write_text("\n".join(body))
    return root
