"""Benchmark: size-report on a large C++ ELF with DWARF (built by make_large_elf.py, never committed), or on a real
firmware ELF with its linker map.

Times the whole `size-report ELF [--map MAP] --format json` command (and the default tree) in fresh processes: cold
(empty report cache) and cached (unchanged ELF), and prints each run's own peak RSS (os.wait4 rusage of that child
alone). Each figure is the fastest of --repeat runs (the machine may be busy; the fastest run is the command's cost).

    python benchmarks/bench_size_report.py [--elf large.elf [--map large.map] | --units 250 --functions 160]
                                           [--keep DIR] [--repeat 3]
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
from make_large_elf import build  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


def measure(argv: list[str], env: dict, repeat: int = 1) -> tuple[float, float]:
    """(wall seconds, peak RSS in MiB) of the fastest of `repeat` runs of one child process."""
    return min(_measure_once(argv, env) for _ in range(repeat))


def _measure_once(argv: list[str], env: dict) -> tuple[float, float]:
    start = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        child = subprocess.Popen(argv, stdout=sink, env=env, cwd=REPO)
        _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed with status {os.waitstatus_to_exitcode(status)}")
    return elapsed, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elf", help="benchmark this ELF instead of building one")
    parser.add_argument("--map", help="the ELF's linker map (a real firmware: placement by its memory regions)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure; the fastest is printed")
    parser.add_argument("--units", type=int, default=250)
    parser.add_argument("--functions", type=int, default=160)
    parser.add_argument("--keep", help="build in this directory and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch, tempfile.TemporaryDirectory() as cache:
        if args.elf:
            elf = Path(args.elf)
        else:
            started = time.perf_counter()
            elf = build(Path(args.keep or scratch), args.units, args.functions)
            print(f"built {elf}: {elf.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - started:.0f} s")
        print(f"ELF: {elf.stat().st_size / 1e6:.1f} MB" + (f", map: {Path(args.map).stat().st_size / 1e6:.1f} MB"
                                                          if args.map else ""))
        env = dict(os.environ, SIZETOOL_CACHE_DIR=cache)
        env.pop("SIZETOOL_NO_CACHE", None)
        command = [sys.executable, "-m", "sizetool.cli", str(elf)] + (["--map", args.map] if args.map else [])
        for label, extra in (("json", ["--format", "json"]), ("tree", [])):
            seconds, peak = measure(command + extra + ["--no-cache"], env, args.repeat)
            print(f"size-report --format {label} (cold, no cache):     {seconds:6.2f} s wall, peak RSS {peak:6.0f} MiB")
        measure(command + ["--format", "json"], env)  # fills the cache
        for label, extra in (("json", ["--format", "json"]), ("tree", [])):
            seconds, peak = measure(command + extra, env, args.repeat)
            print(f"size-report --format {label} (cached, same ELF):   {seconds:6.2f} s wall, peak RSS {peak:6.0f} MiB")


if __name__ == "__main__":
    main()
