"""Build a real TFLM all-ops firmware for Cortex-M4 with CMSIS-NN and -g (never committed), for
benchmarks/bench_dwarf_speed.py: the ELF issue 43 measured (about 13 MB at TFLM 90b983c).

The TFLM, CMSIS-NN, flatbuffers, gemmlowp and ruy trees are checkouts you give (nothing is downloaded; TFLM's own
Makefile would fetch them): by option or environment variable (TFLM_TREE, CMSIS_NN_TREE, FLATBUFFERS_TREE,
GEMMLOWP_TREE, RUY_TREE). The library's sources are the ones TFLM's Makefile lists for
`TARGET=cortex_m_generic TARGET_ARCH=cortex-m4 OPTIMIZED_KERNEL_DIR=cmsis_nn` (`make list_library_sources
list_third_party_sources`, run with the trees linked into its downloads folder, so it downloads nothing: CMSIS-NN's
int sources), less the signal library (it needs kissfft); compiled with Debian's arm-none-eabi-gcc at TFLM's flags (-Os core, -O2 kernels) plus -g, and
linked with a generated main: a MicroMutableOpResolver that adds every builtin TFLM registers and a model (a .tflite
you name, embedded as a C array) run by a MicroInterpreter.

    python benchmarks/make_tflm_allops_elf.py OUTDIR [--model m.tflite] [--jobs 2]   # prints the ELF's path
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

MAKEFILE = "tensorflow/lite/micro/tools/make/Makefile"
TARGET = ["TARGET=cortex_m_generic", "TARGET_ARCH=cortex-m4", "OPTIMIZED_KERNEL_DIR=cmsis_nn",
          "TARGET_TOOLCHAIN_ROOT=/usr/bin/"]
ARCH = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16", "-mlittle-endian", "-fsigned-char"]
COMMON = ["-g", "-fno-unwind-tables", "-fno-asynchronous-unwind-tables", "-ffunction-sections", "-fdata-sections",
          "-DTF_LITE_STATIC_MEMORY", "-DTF_LITE_DISABLE_X86_NEON", "-DTF_LITE_MCU_DEBUG_LOG", "-DCMSIS_NN",
          "-DCPU_M4=1", "-DARM_NN_ENABLE_F16=0", "-DARM_NN_ENABLE_F32=0", "-fomit-frame-pointer", "-w"]
CXX = ["-std=c++17", "-fno-rtti", "-fno-exceptions", "-fno-threadsafe-statics"]

MAIN = """#include <stdint.h>
#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/schema/schema_generated.h"
extern const unsigned char g_model[];
alignas(16) static uint8_t tensor_arena[200 * 1024];
int main() {
  static tflite::MicroMutableOpResolver<%(count)d> resolver;
%(adds)s
  const tflite::Model* model = tflite::GetModel(g_model);
  static tflite::MicroInterpreter interpreter(model, resolver, tensor_arena, sizeof(tensor_arena));
  if (interpreter.AllocateTensors() != kTfLiteOk) return 1;
  return interpreter.Invoke() == kTfLiteOk ? 0 : 2;
}
extern "C" void _exit(int) { for (;;) {} }
"""

# A Cortex-M4 part's memory: 2 MB of flash at 0x08000000, 320 KB of RAM at 0x20000000 (an STM32F4-like layout of our
# own), so the report places code and constants in flash and the arena in RAM
LINKER_SCRIPT = """MEMORY
{
  FLASH (rx) : ORIGIN = 0x08000000, LENGTH = 2048K
  RAM (rwx) : ORIGIN = 0x20000000, LENGTH = 320K
}
ENTRY(_start)
__stack = ORIGIN(RAM) + LENGTH(RAM);
_stack = __stack;
SECTIONS
{
  .text : { KEEP(*(.isr_vector)) *(.text*) KEEP(*(.init)) KEEP(*(.fini)) *(.rodata*) . = ALIGN(4); } > FLASH
  .ARM.extab : { *(.ARM.extab* .gnu.linkonce.armextab.*) } > FLASH
  .ARM.exidx : { __exidx_start = .; *(.ARM.exidx*) __exidx_end = .; } > FLASH
  .preinit_array : { PROVIDE_HIDDEN(__preinit_array_start = .); KEEP(*(.preinit_array*))
                     PROVIDE_HIDDEN(__preinit_array_end = .); } > FLASH
  .init_array : { PROVIDE_HIDDEN(__init_array_start = .); KEEP(*(SORT(.init_array.*))) KEEP(*(.init_array*))
                  PROVIDE_HIDDEN(__init_array_end = .); } > FLASH
  .fini_array : { PROVIDE_HIDDEN(__fini_array_start = .); KEEP(*(SORT(.fini_array.*))) KEEP(*(.fini_array*))
                  PROVIDE_HIDDEN(__fini_array_end = .); } > FLASH
  .data : { __data_start__ = .; *(.data*) . = ALIGN(4); __data_end__ = .; } > RAM AT> FLASH
  .bss (NOLOAD) : { __bss_start__ = .; *(.bss*) *(COMMON) . = ALIGN(4); __bss_end__ = .; } > RAM
  end = .;
  PROVIDE(_end = .);
}
"""


def _tree(value: str | None, variable: str) -> Path:
    text = value or os.environ.get(variable)
    if not text or not Path(text).is_dir():
        sys.exit(f"make_tflm_allops_elf: give the {variable} checkout (option or environment variable)")
    return Path(text).resolve()


def library_sources(tflm: Path, trees: dict[str, Path]) -> list[str]:
    """The sources TFLM's Makefile lists for the target (relative to the TFLM tree), less the signal library."""
    downloads = tflm / "tensorflow/lite/micro/tools/make/downloads"
    for name in ("cmsis/Cortex_DFP", "pigweed", "kissfft"):  # present, so its scripts skip their downloads
        (downloads / name).mkdir(parents=True, exist_ok=True)
    for name, path in trees.items():
        link = downloads / name
        if not link.exists():
            link.symlink_to(path)
    listed = subprocess.run(["make", "-f", MAKEFILE, *TARGET, "list_library_sources", "list_third_party_sources"],
                            cwd=tflm, check=True, capture_output=True, text=True).stdout.split()
    # The target's micro_time.cc reads the DWT cycle counter through CMSIS-Core's device headers: the generic one
    return [source.replace("micro/cortex_m_generic/micro_time.cc", "micro/micro_time.cc") for source in listed
            if source.endswith((".cc", ".c")) and not source.startswith("signal/")]


def resolver_adds(tflm: Path) -> list[str]:
    """Every AddXxx() of MicroMutableOpResolver that takes no argument or only defaulted ones, less the signal
    library's (tflm_signal::, not built)."""
    header = (tflm / "tensorflow/lite/micro/micro_mutable_op_resolver.h").read_text()
    methods = list(re.finditer(r"TfLiteStatus (Add\w+)\(([^)]*)\)", header))
    adds = []
    for method, following in zip(methods, [*methods[1:], None]):
        name, parameters = method.group(1), method.group(2)
        body = header[method.end() : following.start() if following else len(header)]
        if (not parameters.strip() or "=" in parameters) and name not in ("AddCustom", "AddBuiltin") \
                and "tflm_signal" not in parameters + body and name not in adds:
            adds.append(name)
    return adds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("--model", default=str(Path(__file__).resolve().parents[2] / "shared/models/person_detect.tflite"))
    parser.add_argument("--jobs", type=int, default=2)
    for option, variable in (("--tflm", "TFLM_TREE"), ("--cmsis-nn", "CMSIS_NN_TREE"),
                             ("--flatbuffers", "FLATBUFFERS_TREE"), ("--gemmlowp", "GEMMLOWP_TREE"),
                             ("--ruy", "RUY_TREE")):
        parser.add_argument(option, help=f"default: ${variable}")
    args = parser.parse_args()
    tflm = _tree(args.tflm, "TFLM_TREE")
    trees = {"cmsis_nn": _tree(args.cmsis_nn, "CMSIS_NN_TREE"), "flatbuffers": _tree(args.flatbuffers, "FLATBUFFERS_TREE"),
             "gemmlowp": _tree(args.gemmlowp, "GEMMLOWP_TREE"), "ruy": _tree(args.ruy, "RUY_TREE")}
    out = Path(args.outdir).resolve()
    (out / "obj").mkdir(parents=True, exist_ok=True)
    sources = [tflm / source for source in library_sources(tflm, trees)]  # CMSIS-NN's by their downloads path
    adds = resolver_adds(tflm)
    (out / "main.cc").write_text(MAIN % {"count": len(adds), "adds": "\n".join(f"  resolver.{a}();" for a in adds)})
    model = Path(args.model).read_bytes()
    rows = ",".join(str(byte) for byte in model)
    (out / "model_data.cc").write_text(
        f"alignas(16) extern const unsigned char g_model[] = {{{rows}}};\n")
    sources += [out / "main.cc", out / "model_data.cc"]
    includes = [f"-I{tflm}", f"-I{trees['gemmlowp']}", f"-I{trees['flatbuffers'] / 'include'}",
                f"-I{trees['ruy']}", f"-I{trees['cmsis_nn']}", f"-I{trees['cmsis_nn'] / 'Include'}"]

    def compile_one(source: Path) -> Path:
        target = out / "obj" / (re.sub(r"[^A-Za-z0-9_.]", "_", str(source.relative_to(source.anchor))) + ".o")
        if target.exists() and target.stat().st_mtime > source.stat().st_mtime:
            return target
        kernel = "/kernels/" in str(source) or "/cmsis_nn/" in str(source)  # TFLM: -O2 kernels, CMSIS-NN too
        level = "-O2" if kernel else "-Os"
        tool = ["arm-none-eabi-gcc", "-std=c11"] if source.suffix == ".c" else ["arm-none-eabi-g++", *CXX]
        subprocess.run(["nice", "-n", "10", *tool, *ARCH, level, *COMMON, *includes, "-c", str(source),
                        "-o", str(target)], check=True)
        return target

    with ThreadPoolExecutor(args.jobs) as pool:
        objects = list(pool.map(compile_one, sources))
    elf = out / "allops_cmsis.elf"
    (out / "layout.ld").write_text(LINKER_SCRIPT)
    subprocess.run(["arm-none-eabi-g++", *ARCH, "-Wl,--gc-sections", "--specs=nosys.specs", "--specs=nano.specs",
                    f"-T{out / 'layout.ld'}", f"-Wl,-Map={out / 'allops_cmsis.map'}", *map(str, objects), "-lm",
                    "-o", str(elf)], check=True)
    print(elf)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
