"""Generate and build a large C++ ELF with DWARF for benchmarks/bench_size_report.py (never committed).

The sources are our own generated C++: many translation units, each a namespace with class templates and their
instantiations, out-of-line member functions, class-scope static members, file-scope tables and a few hundred
noinline functions, so the DWARF has the shapes size-report must handle (templates defined in a header, static
members via DW_AT_specification, namespaces, inlined code). Built with the host g++ -O1 -g into a directory you name.

    python benchmarks/make_large_elf.py OUTDIR [--units 250] [--functions 160]   # prints the ELF's path
"""

from __future__ import annotations

import argparse
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HEADER = """#pragma once
#include <cstdint>
namespace bench {
template <typename T, int N> struct Buffer {
  T data[N];
  static int instances;
  T Sum() const { T s = 0; for (int i = 0; i < N; ++i) s += data[i] * (i + 1); return s; }
  void Scale(T k) { for (int i = 0; i < N; ++i) data[i] = data[i] * k + static_cast<T>(i); }
};
template <typename T, int N> int Buffer<T, N>::instances = N;
template <typename T> T Clamp(T v, T lo, T hi) { return v < lo ? lo : (v > hi ? hi : v); }
template <int K> struct Kernel {
  static const int32_t kTable[16];
  __attribute__((noinline)) static int32_t Eval(int32_t x) { return kTable[x & 15] * K + Clamp<int32_t>(x, -K, K); }
};
template <int K> const int32_t Kernel<K>::kTable[16] = {K, K + 1, K + 2, K + 3, K + 4, K + 5, K + 6, K + 7,
                                                        K + 8, K + 9, K + 10, K + 11, K + 12, K + 13, K + 14, K + 15};
}  // namespace bench
"""


def write_sources(directory: Path, units: int, functions: int) -> list[Path]:
    (directory / "include").mkdir(exist_ok=True)
    (directory / "include" / "shapes.h").write_text(HEADER)
    (directory / "src").mkdir(exist_ok=True)
    sources = []
    for unit in range(units):
        lines = ['#include "shapes.h"', f"namespace unit{unit} {{", "using namespace bench;",
                 f"static int32_t table{unit}[64] = {{{unit}}};",
                 "struct Counter { static int32_t hits; int32_t Bump(int32_t x); };",
                 f"int32_t Counter::hits = {unit};",
                 "__attribute__((noinline)) int32_t Counter::Bump(int32_t x) { hits += x; return hits; }"]
        for index in range(functions):
            lines.append(
                f"__attribute__((noinline)) int32_t f{index}(int32_t x) {{\n"
                f"  Buffer<int32_t, {index % 17 + 2}> b{{}}; b.data[0] = x; b.Scale({index + 1});\n"
                f"  return Clamp<int32_t>(b.Sum() + table{unit}[x & 63], -{index}, {index * 7 + 1})"
                f" + Kernel<{(unit * functions + index) % 997}>::Eval(x) + Buffer<int32_t, {index % 17 + 2}>::instances; }}"
            )
        lines.append("int32_t run(int32_t x) { int32_t s = 0; Counter c;")
        lines += [f"  s += f{index}(x + s);" for index in range(functions)]
        lines.append("  return s + c.Bump(s); }\n}")
        source = directory / "src" / f"unit{unit}.cc"
        source.write_text("\n".join(lines) + "\n")
        sources.append(source)
    main_lines = [f"namespace unit{u} {{ int run(int); }}" for u in range(units)]
    main_lines.append("int main(int argc, char**) { int s = 0;")
    main_lines += [f"  s += unit{u}::run(argc);" for u in range(units)]
    main_lines.append("  return s & 1; }")
    main = directory / "src" / "main.cc"
    main.write_text("\n".join(main_lines) + "\n")
    return sources + [main]


def build(directory: Path, units: int = 250, functions: int = 160) -> Path:
    """Write the sources into `directory`, compile them in parallel and link large.elf; returns its path."""
    directory.mkdir(parents=True, exist_ok=True)
    sources = write_sources(directory, units, functions)

    def compile_one(source: Path) -> Path:
        obj = source.with_suffix(".o")
        subprocess.run(["g++", "-O1", "-g", "-Iinclude", "-c", str(source.relative_to(directory)), "-o", str(obj)],
                       check=True, cwd=directory)
        return obj

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        objects = list(pool.map(compile_one, sources))
    elf = directory / "large.elf"
    subprocess.run(["g++", *map(str, objects), "-o", str(elf)], check=True, cwd=directory)
    return elf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("--units", type=int, default=250)
    parser.add_argument("--functions", type=int, default=160)
    args = parser.parse_args()
    print(build(Path(args.outdir), args.units, args.functions))


if __name__ == "__main__":
    main()
