"""Benchmark: size-report on a large C++ ELF with DWARF (built by make_large_elf.py, never committed), or on a real
firmware ELF with its linker map.

Times the whole `size-report ELF [--map MAP] --format json` command (and the default tree) in fresh processes: cold
(empty report cache) and cached (unchanged ELF), and prints each run's own peak RSS (os.wait4 rusage of that child
alone). Each figure is the fastest of --repeat runs (the machine may be busy; the fastest run is the command's cost).

    python benchmarks/bench_size_report.py [--elf large.elf [--map large.map] | --units 250 --functions 160]
                                           [--keep DIR] [--repeat 3]

With --peers, it compares with the peers on --elf (and --map) and prints the issue's three speed targets, each run
as wall time and CPU time (user + sys of the child: on a shared machine the wall time says as much about the
neighbours as about the tool):
- a cached report within 2x bloaty (`--bloaty PATH` to time bloaty too; else the reference figure
  --bloaty-seconds, bloaty 81a414c's CPU time on the 87 KB real TFLM firmware with DWARF of docs/size-report.md);
- a cold report at most 0.05x Zephyr's size_report (`--zephyr-size-report PATH`, run with `--zephyr-python PY`,
  which needs pyelftools, anytree < 2.9 and colorama);
- the operator table (`--ops`) under 1 s cold on a ~500 KB firmware (`--ops-elf`, e.g. from make_allops_elf.py).
Compiled bytecode is allowed (PYTHONPYCACHEPREFIX in a temporary directory, warmed first), as in an installation.
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


def measure_cpu(argv: list[str], env: dict, repeat: int = 1) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of the run with the least CPU time among `repeat` runs."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        with open(os.devnull, "wb") as sink:
            child = subprocess.Popen(argv, stdout=sink, stderr=sink, env=env, cwd=REPO)
            _, status, usage = os.wait4(child.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{' '.join(argv)} failed with status {os.waitstatus_to_exitcode(status)}")
        runs.append((time.perf_counter() - start, usage.ru_utime + usage.ru_stime))
    return min(runs, key=lambda run: run[1])


def peers(args, scratch: str) -> None:
    """The three speed targets against bloaty and Zephyr's size_report."""
    env = dict(os.environ, SIZETOOL_CACHE_DIR=os.path.join(scratch, "cache"),
               PYTHONPYCACHEPREFIX=os.path.join(scratch, "pycache"))
    for name in ("SIZETOOL_NO_CACHE", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    print(f"machine: {os.cpu_count()} CPUs, {_cpu_model()}, load average {os.getloadavg()[0]:.1f}; "
          f"Python {sys.version.split()[0]}")
    base = [sys.executable, "-m", "sizetool.cli", args.elf] + (["--map", args.map] if args.map else [])
    measure_cpu([sys.executable, "-c", "pass"], env)
    start_wall, start_cpu = measure_cpu([sys.executable, "-c", "pass"], env, args.repeat)
    print(f"python -c pass (interpreter start-up):   {start_wall:6.3f} s wall {start_cpu:6.3f} s CPU")
    measure_cpu(base + ["--no-cache"], env)  # compiles the bytecode once
    cold_wall, cold_cpu = measure_cpu(base + ["--no-cache"], env, args.repeat)
    print(f"size-report, cold:                       {cold_wall:6.3f} s wall {cold_cpu:6.3f} s CPU")
    measure_cpu(base, env)  # fills the cache
    cached_wall, cached_cpu = measure_cpu(base, env, args.repeat)
    print(f"size-report, cached:                     {cached_wall:6.3f} s wall {cached_cpu:6.3f} s CPU")
    if args.bloaty:
        bloaty_wall, bloaty_cpu = measure_cpu([args.bloaty, "-d", "compileunits", args.elf], env, args.repeat)
        print(f"bloaty -d compileunits:                  {bloaty_wall:6.3f} s wall {bloaty_cpu:6.3f} s CPU")
        reference = bloaty_cpu
    else:
        reference = args.bloaty_seconds
        print(f"bloaty: not run here; reference figure   {reference:6.3f} s (CPU, bloaty 81a414c, measured earlier)")
    print(f"  target cached <= 2x bloaty: {cached_cpu / reference:.2f}x (CPU) "
          f"{'met' if cached_cpu <= 2 * reference else 'NOT met'}")
    if args.zephyr_size_report:
        out = os.path.join(scratch, "zephyr-out")
        os.makedirs(out, exist_ok=True)
        zephyr = [args.zephyr_python or sys.executable, args.zephyr_size_report, "-k", args.elf, "-z",
                  os.path.dirname(os.path.abspath(args.elf)), "-o", out, "-q", "rom"]
        zephyr_wall, zephyr_cpu = measure_cpu(zephyr, env, 1)
        print(f"Zephyr size_report rom:                  {zephyr_wall:6.3f} s wall {zephyr_cpu:6.3f} s CPU")
        print(f"  target cold <= 0.05x Zephyr: {cold_cpu / zephyr_cpu:.3f}x (CPU), {cold_wall / zephyr_wall:.3f}x (wall) "
              f"{'met' if cold_cpu <= 0.05 * zephyr_cpu else 'NOT met'}")
    if args.ops_elf:
        ops = [sys.executable, "-m", "sizetool.cli", args.ops_elf, "--ops", "--no-cache"]
        measure_cpu(ops, env)
        ops_wall, ops_cpu = measure_cpu(ops, env, args.repeat)
        print(f"size-report --ops, cold ({os.path.getsize(args.ops_elf) / 1e6:.1f} MB ELF): {ops_wall:6.3f} s wall "
              f"{ops_cpu:6.3f} s CPU")
        print(f"  target --ops cold < 1 s: {'met' if ops_cpu < 1.0 else 'NOT met'} (CPU)")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as stream:
            for line in stream:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


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
    parser.add_argument("--peers", action="store_true", help="compare with bloaty and Zephyr's size_report on --elf")
    parser.add_argument("--bloaty", help="bloaty executable (else --bloaty-seconds is the reference)")
    parser.add_argument("--bloaty-seconds", type=float, default=0.074,
                        help="bloaty's CPU time (-d compileunits) on the 87 KB real TFLM firmware with DWARF of "
                             "docs/size-report.md, bloaty 81a414c (default 0.074)")
    parser.add_argument("--zephyr-size-report", help="Zephyr's scripts/footprint/size_report")
    parser.add_argument("--zephyr-python", help="the Python that runs it (with its dependencies)")
    parser.add_argument("--ops-elf", help="a ~500 KB all-ops firmware for the --ops target")
    args = parser.parse_args()
    if args.peers:
        if not args.elf:
            parser.error("--peers needs --elf")
        with tempfile.TemporaryDirectory() as scratch:
            peers(args, scratch)
        return
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
