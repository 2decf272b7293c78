"""Generate and build a large TFLM-shaped all-ops firmware for Cortex-M4 (never committed), for
benchmarks/bench_operator_sets.py.

Our own generated C++: one kernel file per TFLM builtin op (named as TFLM names them, from resolver_gen's table),
each with a `tflite::Register_<OP>()` returning Init/Prepare/Eval pointers, its own template kernels and lookup
tables; helper files shared by groups of ops (as TFLM's conv/pooling/reduce helpers are); a runtime (interpreter loop,
logging); and a `MicroMutableOpResolver<N>` whose `Add<Op>()` methods `main` calls for every op.
Built with arm-none-eabi-g++ -Os -ffunction-sections, --gc-sections, about 500 KB of flash by default.

    python benchmarks/make_allops_elf.py OUTDIR [--ops 100] [--kernels 18]   # prints the ELF's path
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

COMMON = """#pragma once
#include <stdint.h>
#include <stddef.h>
namespace tflite {
struct TfLiteContext { int32_t* scratch; int32_t size; };
struct TfLiteNode { const int8_t* input; int32_t* output; int32_t n; int32_t op; };
typedef int (*EvalFn)(TfLiteContext*, TfLiteNode*);
struct TFLMRegistration { void* (*init)(TfLiteContext*, const char*, size_t); EvalFn prepare; EvalFn invoke;
                          int builtin_code; const char* custom_name; };
typedef int (*BuiltinParseFunction)(const void* op, void* allocator, void** data);
int32_t RuntimeLog(const char* format, int32_t value);
template <int K> __attribute__((noinline)) int32_t Kern(const int8_t* in, int32_t* out, int32_t n) {
  int32_t acc = K;
  for (int32_t i = 0; i < n; ++i) {
    int32_t v = in[i] * (K % 7 + 1) + (acc >> (K % 5 + 1));
    if (v > K * 3) v -= K; else if (v < -K) v = v * 3 + K;
    out[i % 16] += v ^ (K * 2654435761u);
    acc += (v * (K % 11 + 3)) >> 2;
    for (int32_t j = 0; j < (K % 4) + 2; ++j) acc ^= (out[(i + j) % 16] << (j + 1)) + K;
  }
  return acc + (n > K * 5 ? RuntimeLog("kernel %d", acc) : acc);
}
}  // namespace tflite
"""


def op_names(count: int) -> list[tuple[str, str]]:
    """(OP, Add method) pairs from resolver_gen's table of TFLM builtins."""
    from tflm_facts.registry import BUILTIN_OPS

    pairs = sorted((name, method) for name, (_code, method) in BUILTIN_OPS.items() if method)
    return pairs[:count]


def kernel_file(index: int, op: str, kernels: int) -> str:
    base = 1000 + index * kernels
    group = index // 5  # five ops share a helper file, as TFLM's pooling or reduce ops share theirs
    lines = ['#include "common.h"', "namespace tflite {", f"int32_t Helper{group}(int32_t x);", "namespace {",
             f"const int32_t kTable[{64 + index % 5 * 32}] = {{{', '.join(str(index * 7 + i) for i in range(8))}}};",
             "void* Init(TfLiteContext* c, const char*, size_t) { return c->scratch; }",
             "int Prepare(TfLiteContext* c, TfLiteNode* n) {",
             f'  if (n->n > c->size) return RuntimeLog("{op}: input of %d elements too large", n->n);',
             "  return 0; }",
             "int Eval(TfLiteContext* c, TfLiteNode* n) {", "  int32_t s = kTable[n->n & 63];"]
    lines += [f"  s += Kern<{base + k}>(n->input, n->output, n->n + {k});" for k in range(kernels)]
    lines += [f"  return s + Helper{group}(s) + c->size; }}", "}  // namespace",
              f"TFLMRegistration Register_{op}() {{ return {{Init, Prepare, Eval, {index}, nullptr}}; }}",
              f"int Parse{op.title().replace('_', '')}(const void* op, void*, void** data) {{",
              f"  *data = const_cast<void*>(op); return {index}; }}",
              "}  // namespace tflite"]
    return "\n".join(lines) + "\n"


def helpers_file(groups: int) -> str:
    lines = ['#include "common.h"', "namespace tflite {"]
    for group in range(groups):
        lines.append(f"__attribute__((noinline)) int32_t Helper{group}(int32_t x) {{ int32_t s = 0;")
        lines += [f"  s += Kern<{90000 + group * 6 + k}>((const int8_t*)&x, &s, x & 7);" for k in range(6)]
        lines.append("  return s; }")
    lines.append("}  // namespace tflite")
    return "\n".join(lines) + "\n"


def runtime_file(functions: int) -> str:
    lines = ['#include "common.h"', "namespace tflite {", "volatile int32_t g_sink;"]
    for index in range(functions):
        lines.append(f"__attribute__((noinline)) int32_t Runtime{index}(int32_t x) {{ int32_t s = x;")
        lines += [f"  s += Kern<{50000 + index * 4 + k}>((const int8_t*)&x, &s, x & 15);" for k in range(4)]
        lines.append("  g_sink = s; return s; }")
    lines.append('int32_t RuntimeLog(const char* format, int32_t value) { g_sink = format[0] + value;')
    lines += [f"  if (value == {index}) return Runtime{index}(value);" for index in range(functions)]
    lines += ["  return value; }", "}  // namespace tflite"]
    return "\n".join(lines) + "\n"


def main_file(ops: list[tuple[str, str]]) -> str:
    lines = ['#include "common.h"', "namespace tflite {"]
    lines += [f"TFLMRegistration Register_{op}();" for op, _ in ops]
    lines += [f"int Parse{op.title().replace('_', '')}(const void* op, void*, void** data);" for op, _ in ops]
    lines += ["template <unsigned N> class MicroMutableOpResolver {", " public:",
              "  int AddBuiltin(int code, const TFLMRegistration& r, BuiltinParseFunction parser) {",
              '    if (count_ >= N) return RuntimeLog("resolver full: %d", code);',
              "    for (unsigned i = 0; i < count_; ++i) if (regs_[i].builtin_code == code) return 1;",
              "    regs_[count_] = r; parsers_[count_++] = parser; return 0; }"]
    for op, method in ops:
        lines.append(f"  int {method}(const TFLMRegistration& r = Register_{op}()) "
                     f"{{ return AddBuiltin(r.builtin_code, r, Parse{op.title().replace('_', '')}); }}")
    lines += ["  int Invoke(TfLiteContext* c, TfLiteNode* n) {",
              "    for (unsigned i = 0; i < count_; ++i) if (regs_[i].builtin_code == n->op) "
              "return regs_[i].prepare(c, n) + regs_[i].invoke(c, n) + parsers_[i](n, c, nullptr);",
              "    return -1; }",
              " private:", "  TFLMRegistration regs_[N]; BuiltinParseFunction parsers_[N]; unsigned count_ = 0;", "};",
              "}  // namespace tflite",
              f"static tflite::MicroMutableOpResolver<{len(ops)}> resolver;",
              "static int8_t input[64]; static int32_t output[16]; static int32_t scratch[64];",
              "int main() {"]
    lines += [f"  if (resolver.{method}() != 0) return 1;" for _, method in ops]
    lines += ["  tflite::TfLiteContext context{scratch, 64};",
              "  for (int32_t op = 0;; ++op) { tflite::TfLiteNode node{input, output, op & 63, op % "
              f"{len(ops)}}}; resolver.Invoke(&context, &node); }}", "}",
              'extern "C" void Reset_Handler() { main(); }',
              'extern "C" void Default_Handler() { for (;;) {} }',
              '__attribute__((section(".isr_vector"), used)) void (*const g_vectors[16])() = '
              "{ reinterpret_cast<void (*)()>(0x20010000), Reset_Handler, Default_Handler };"]
    return "\n".join(lines) + "\n"


LINKER = """MEMORY { FLASH (rx) : ORIGIN = 0x08000000, LENGTH = 2048K  RAM (rwx) : ORIGIN = 0x20000000, LENGTH = 256K }
ENTRY(Reset_Handler)
SECTIONS {
  .isr_vector : { KEEP(*(.isr_vector)) } > FLASH
  .text : { *(.text*) *(.rodata*) } > FLASH
  .ARM.exidx : { *(.ARM.exidx*) } > FLASH
  .data : { *(.data*) } > RAM AT > FLASH
  .bss (NOLOAD) : { *(.bss*) *(COMMON) } > RAM
}
"""


def build(directory: Path, op_count: int = 100, kernels: int = 18) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "common.h").write_text(COMMON)
    ops = op_names(op_count)
    sources = {f"op_{op.lower()}.cc": kernel_file(index, op, kernels) for index, (op, _) in enumerate(ops)}
    sources["helpers.cc"] = helpers_file((len(ops) + 4) // 5)
    sources["runtime.cc"] = runtime_file(160)
    sources["main.cc"] = main_file(ops)
    for name, text in sources.items():
        (directory / name).write_text(text)
    (directory / "firmware.ld").write_text(LINKER)
    flags = ["-mcpu=cortex-m4", "-mthumb", "-Os", "-g", "-std=c++17", "-ffunction-sections", "-fdata-sections",
             "-fno-exceptions", "-fno-rtti", "-fno-threadsafe-statics", "-I", str(directory)]

    def compile_one(name: str) -> Path:
        target = directory / (name + ".o")
        subprocess.run(["arm-none-eabi-g++", *flags, "-c", str(directory / name), "-o", str(target)], check=True)
        return target

    with ThreadPoolExecutor(max_workers=2) as pool:
        objects = list(pool.map(compile_one, sorted(sources)))
    elf = directory / "allops.elf"
    subprocess.run(["arm-none-eabi-g++", "-mcpu=cortex-m4", "-mthumb", "-nostdlib", "-T", str(directory / "firmware.ld"),
                    "-Wl,--gc-sections", f"-Wl,-Map={directory / 'allops.map'}", *map(str, objects), "-lgcc",
                    "-o", str(elf)], check=True)
    return elf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("--ops", type=int, default=100, help="registrations (at most the 100 builtins TFLM adds)")
    parser.add_argument("--kernels", type=int, default=18, help="template kernels per op (18: about 500 KB)")
    args = parser.parse_args()
    print(build(Path(args.outdir), args.ops, args.kernels))


if __name__ == "__main__":
    main()
