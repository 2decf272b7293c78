"""Benchmark: size-report on a large C++ ELF with DWARF (generated here, never committed).

Generates C++ with thousands of functions, class templates and their instantiations across many translation units,
builds it with the host g++ -g, then times the whole `size-report ELF --format json` command, cold and with the
report cache warm, and reports peak memory (the largest child process so far).

    python benchmarks/bench_size_report.py [--units 120] [--functions 120] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def write_sources(directory: Path, units: int, functions: int) -> list[Path]:
    header = directory / "shapes.h"
    header.write_text(
        "#pragma once\n#include <cstdint>\n"
        "template <typename T, int N> struct Buffer {\n"
        "  T data[N];\n"
        "  T Sum() const { T s = 0; for (int i = 0; i < N; ++i) s += data[i] * (i + 1); return s; }\n"
        "  void Scale(T k) { for (int i = 0; i < N; ++i) data[i] = data[i] * k + static_cast<T>(i); }\n"
        "};\n"
        "template <typename T> T Clamp(T v, T lo, T hi) { return v < lo ? lo : (v > hi ? hi : v); }\n"
    )
    sources = []
    for unit in range(units):
        lines = ['#include "shapes.h"', f"namespace unit{unit} {{", f"static int32_t table{unit}[64] = {{{unit}}};"]
        for index in range(functions):
            lines.append(
                f"__attribute__((noinline)) int32_t f{index}(int32_t x) {{\n"
                f"  Buffer<int32_t, {index % 17 + 2}> b{{}}; b.data[0] = x; b.Scale({index + 1});\n"
                f"  return Clamp<int32_t>(b.Sum() + table{unit}[x & 63], -{index}, {index * 7 + 1}); }}"
            )
        lines.append(f"int32_t run(int32_t x) {{ int32_t s = 0;")
        lines += [f"  s += f{index}(x + s);" for index in range(functions)]
        lines.append("  return s; }\n}")
        source = directory / f"unit{unit}.cc"
        source.write_text("\n".join(lines) + "\n")
        sources.append(source)
    main_lines = [f"namespace unit{u} {{ int run(int); }}" for u in range(units)]
    main_lines.append("int main(int argc, char**) { int s = 0;")
    main_lines += [f"  s += unit{u}::run(argc);" for u in range(units)]
    main_lines.append("  return s & 1; }")
    main = directory / "main.cc"
    main.write_text("\n".join(main_lines) + "\n")
    return sources + [main]


def build(directory: Path, sources: list[Path]) -> Path:
    def compile_one(source: Path) -> Path:
        obj = source.with_suffix(".o")
        subprocess.run(["g++", "-O1", "-g", "-c", str(source), "-o", str(obj)], check=True, cwd=directory)
        return obj

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        objects = list(pool.map(compile_one, sources))
    elf = directory / "large.elf"
    subprocess.run(["g++", *map(str, objects), "-o", str(elf)], check=True, cwd=directory)
    return elf


def time_command(argv: list[str]) -> tuple[float, int]:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, peak_kib


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=250)
    parser.add_argument("--functions", type=int, default=160)
    parser.add_argument("--keep", help="build in this directory and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(args.keep or scratch)
        directory.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        elf = build(directory, write_sources(directory, args.units, args.functions))
        print(f"built {elf.name}: {elf.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - t0:.0f} s")
        command = [sys.executable, "-m", "sizetool.cli", str(elf), "--format", "json"]
        with tempfile.TemporaryDirectory() as cache:
            os.environ["SIZETOOL_CACHE_DIR"] = cache
            seconds, peak = time_command(command)
            print(f"size-report --format json (cold): {seconds:.2f} s wall, peak RSS {peak / 1024:.0f} MiB")
            seconds, _ = time_command(command)
            print(f"size-report --format json (cached, unchanged ELF): {seconds:.2f} s wall")


if __name__ == "__main__":
    main()
