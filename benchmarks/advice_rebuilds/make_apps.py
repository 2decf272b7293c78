"""Write the app directories (ops.h, arena.h, model.cc) behind the advice's rebuild checks on Zephyr's module.

keep_MODEL: gen-resolver MODEL (as the keep-only apps of issue 40); all10_MODEL: ten registrations (OMIT_OP leaves
one out) with MODEL; reduced_MODEL_OP: keep_MODEL with OP's type-reduced variant; reduced_MODEL: gen-resolver
--reduce-types; strip_MODEL: the model rewritten without names and metadata; nobuf_MODEL: its unused buffers emptied;
arena_MODEL_SIZE: keep_MODEL with kArenaSize = SIZE.
"""
import json, re, subprocess, sys
from pathlib import Path

VENV = "/work/venvs/advice2/bin/"
MODELS = Path("/work/shared/models")
import os
HERE = Path(os.environ.get("APPS", Path(__file__).parent))  # APPS=/work/ext/advice2/papps for pico-tflmicro
TEN = ["ADD", "AVERAGE_POOL_2D", "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "MAX_POOL_2D", "QUANTIZE",
       "RESHAPE", "SHAPE", "SOFTMAX"]
if os.environ.get("PICO"):  # pico-tflmicro's library as built for the keep-only apps links no SHAPE kernel and
    TEN[TEN.index("SHAPE")] = "SVDF"  # not CMSIS-NN's max pooling: nine registrations there
    TEN.remove("MAX_POOL_2D")
METHOD = {"ADD": "AddAdd", "AVERAGE_POOL_2D": "AddAveragePool2D", "CONV_2D": "AddConv2D",
          "DEPTHWISE_CONV_2D": "AddDepthwiseConv2D", "FULLY_CONNECTED": "AddFullyConnected",
          "MAX_POOL_2D": "AddMaxPool2D", "QUANTIZE": "AddQuantize", "RESHAPE": "AddReshape", "SHAPE": "AddShape",
          "SOFTMAX": "AddSoftmax", "SVDF": "AddSvdf"}


def model_cc(data: bytes) -> str:
    rows = ",\n".join("  " + ", ".join(f"0x{b:02x}" for b in data[i:i + 16]) for i in range(0, len(data), 16))
    return (f"alignas(16) extern const unsigned char g_model[] = {{\n{rows}\n}};\n"
            f"extern const unsigned int g_model_len = {len(data)};\n")


def gen(args):
    if "-o" in args:  # gen-resolver writes a header file: read it back
        out = HERE / ".gen.h"
        args = [a if a != "/dev/stdout" else str(out) for a in args]
        subprocess.run([VENV + "gen-resolver", *args], check=True, capture_output=True, text=True)
        return out.read_text()
    return subprocess.run([VENV + "gen-resolver", *args], check=True, capture_output=True, text=True).stdout


def write(name, ops, arena, data):
    out = HERE / name
    out.mkdir(exist_ok=True)
    (out / "ops.h").write_text(ops)
    (out / "arena.h").write_text(f"constexpr unsigned int kArenaSize = {arena};\n")
    (out / "model.cc").write_text(model_cc(data))


def arena_of(model):
    info = json.loads(gen([str(model), "--arena", "--short-enums", "--format", "json"]))
    return -(-info["arena"]["total_bytes"] // 16) * 16


def main():
    from tflm_model.model_layout import rewrite
    kind, name = sys.argv[1], sys.argv[2]
    model = MODELS / f"{name}.tflite"
    data = model.read_bytes()
    keep = gen([str(model), "-o", "/dev/stdout"])
    arena = arena_of(model)
    if kind == "keep":
        write(f"keep_{name}", keep, arena, data)
    elif kind == "all10":
        lines = [f"#ifndef OMIT_{op}\n  if (resolver.{METHOD[op]}() != kTfLiteOk) return kTfLiteError;\n#endif"
                 for op in TEN]
        ops = ("#include \"tensorflow/lite/micro/micro_mutable_op_resolver.h\"\n"
               f"constexpr unsigned int kNumOps = {len(TEN)};\n"
               "using OpResolver = tflite::MicroMutableOpResolver<kNumOps>;\n"
               "inline TfLiteStatus RegisterOps(OpResolver& resolver) {\n" + "\n".join(lines) +
               "\n  return kTfLiteOk;\n}\n")
        write(f"all10_{name}", ops, arena, data)
    elif kind == "reduced":
        write(f"reduced_{name}", gen([str(model), "--reduce-types", "-o", "/dev/stdout"]), arena, data)
        reduced = gen([str(model), "--reduce-types", "-o", "/dev/stdout"])
        includes = "".join(l + "\n" for l in reduced.splitlines() if l.startswith("#include"))
        for call in re.findall(r"resolver\.(\w+)\(tflite::Register_(\w+)\(\)\)", reduced):
            method, variant = call
            ops = keep.replace(f"resolver.{method}()", f"resolver.{method}(tflite::Register_{variant}())")
            ops = ops.replace("#include \"tensorflow/lite/micro/micro_mutable_op_resolver.h\"\n", includes)
            write(f"reduced_{name}_{variant}", ops, arena, data)
    elif kind == "both":  # keep_MODEL and a second resolver with every variant --reduce-types writes (linked both)
        reduced = gen([str(model), "--reduce-types", "-o", "/dev/stdout"])
        includes = "".join(l + "\n" for l in reduced.splitlines() if l.startswith("#include"))
        calls = re.findall(r"resolver\.(\w+)\(tflite::Register_(\w+)\(\)\)", reduced)
        second = (f"tflite::MicroMutableOpResolver<{len(calls)}> g_variants;\n"
                  "inline void RegisterVariants() {\n"
                  + "".join(f"  g_variants.{m}(tflite::Register_{v}());\n" for m, v in calls) + "}\n")

        def both(ops):
            ops = ops.replace("#include \"tensorflow/lite/micro/micro_mutable_op_resolver.h\"\n", includes)
            ops = ops.replace("inline TfLiteStatus RegisterOps(OpResolver& resolver) {",
                              second + "inline TfLiteStatus RegisterOps(OpResolver& resolver) {\n  RegisterVariants();")
            return ops
        write(f"both_{name}", both(keep), arena, data)
        for method, variant in calls:
            write(f"bothreduced_{name}_{variant}", both(keep.replace(
                f"resolver.{method}()", f"resolver.{method}(tflite::Register_{variant}())")), arena, data)
    elif kind == "strip":
        write(f"strip_{name}", keep, arena, rewrite(model, strip=True))
    elif kind == "nobuf":
        write(f"nobuf_{name}", keep, arena, rewrite(model, empty_unused=True))
    elif kind == "arena":
        write(f"arena_{name}_{sys.argv[3]}", keep, int(sys.argv[3]), data)


if __name__ == "__main__":
    main()
