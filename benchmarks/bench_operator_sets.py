"""Benchmark: set questions (`--keep`, `--drop`, `--model`) and the operator table on a large all-ops firmware.

Times whole `size-report` commands in fresh processes: cold (empty caches: the report is built and the code
disassembled) and a second question on the same ELF (report and operator graph from the caches). Prints wall time and
the child's own CPU time (on a shared machine the CPU time is the comparable figure). The issue's targets: under 2 s
cold and under 0.5 s for a second question, on a 500 KB-flash all-ops ELF.

Without --elf it builds our own TFLM-shaped all-ops firmware (make_allops_elf.py, about 500 KB of flash; needs
arm-none-eabi-g++). With --elf, any all-ops build (e.g. real TFLM, built outside this repository).

    python benchmarks/bench_operator_sets.py [--elf allops.elf [--map allops.map]] [--model M.tflite] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_allops_elf import build  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
MODEL = REPO / "fixtures" / "models" / "vision_subset.tflite"


def measure(argv: list[str], env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one child process; exit status 1 (a model gate) is not an error here."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        child = subprocess.Popen(argv, stdout=sink, env=env, cwd=REPO)
        _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed with status {os.waitstatus_to_exitcode(status)}")
    return elapsed, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elf", help="benchmark this all-ops ELF instead of building one")
    parser.add_argument("--map", help="its GNU ld map file")
    parser.add_argument("--model", default=str(MODEL), help="a .tflite model for --keep and --model")
    parser.add_argument("--keep", help="build in this directory and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        if args.elf:
            elf = Path(args.elf)
        else:
            started = time.perf_counter()
            elf = build(Path(args.keep or scratch) / "allops")
            print(f"built {elf} in {time.perf_counter() - started:.0f} s")
        size = subprocess.run(["arm-none-eabi-size", "-B", str(elf)], capture_output=True, text=True)
        text, data = (int(v) for v in size.stdout.splitlines()[-1].split()[:2]) if size.returncode == 0 else (0, 0)
        print(f"ELF: {elf} ({(text + data) / 1024:.0f} KB flash){'  --map ' + args.map if args.map else ''}")
        base = [sys.executable, "-m", "sizetool.cli", str(elf)] + (["--map", args.map] if args.map else [])
        env = dict(os.environ)
        env.pop("SIZETOOL_NO_CACHE", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # a normal install has compiled bytecode
        measure([sys.executable, "-c", "import sizetool.cli, sizetool.operators.what_if, sizetool.render.operators"],
                env)
        questions = [("--keep MODEL", ["--keep", args.model]), ("--drop 3 ops", ["--drop", "ADD,MUL,CONV_2D"]),
                     ("--model MODEL", ["--model", args.model]), ("--ops (table)", ["--ops"])]
        print(f"{'question':16} {'cold wall':>10} {'cold CPU':>9} {'2nd wall':>9} {'2nd CPU':>8}")
        for label, extra in questions:
            with tempfile.TemporaryDirectory() as cache:
                env["SIZETOOL_CACHE_DIR"] = cache
                cold = measure(base + extra, env)
                second = measure(base + (["--keep", "ADD"] if extra[0] != "--keep" else ["--drop", "ADD"]), env)
                again = measure(base + extra, env)
            print(f"{label:16} {cold[0]:9.2f}s {cold[1]:8.2f}s {second[0]:8.2f}s {second[1]:7.2f}s"
                  f"   (the same question again: {again[0]:.2f} s wall, {again[1]:.2f} s CPU)")
        with tempfile.TemporaryDirectory() as cache:
            env["SIZETOOL_CACHE_DIR"] = cache
            startup = measure([sys.executable, "-m", "sizetool.cli", "--help"], env)
        print(f"for scale: size-report --help takes {startup[0]:.2f} s wall, {startup[1]:.2f} s CPU")


if __name__ == "__main__":
    main()
