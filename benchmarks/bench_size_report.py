"""Benchmark: size-report on a large C++ ELF with DWARF (built by make_large_elf.py, never committed), or on a real
firmware ELF with its linker map.

Times the whole `size-report ELF [--map MAP] --format json` command (and the default tree) in fresh processes: cold
(empty report cache) and cached (unchanged ELF), and prints each run's own peak RSS (os.wait4 rusage of that child
alone). Each figure is the fastest of --repeat runs (the machine may be busy; the fastest run is the command's cost).

    python benchmarks/bench_size_report.py [--elf large.elf [--map large.map] | --units 250 --functions 160]
                                           [--keep DIR] [--repeat 3]

With --peers, it compares with bloaty (`--bloaty PATH`) side by side in one run and prints the speed targets, each
figure the median of --repeat runs as CPU time (user + sys of the child: on a shared machine the wall time says as
much about the neighbours as about the tool) with the wall time beside it, the cold, cached and bloaty runs of a row
taking turns:
- on --elf (with --map), a build with DWARF: a cached report at most 1x `bloaty -d compileunits`, a cold one
  (--no-cache) at most 1.5x;
- on a symbol-only ELF (--symbol-only, else --elf stripped of DWARF here with `arm-none-eabi-strip --strip-debug` or
  `strip --strip-debug`): a cached report at most 2x `bloaty -d symbols` (Python's own start-up is most of bloaty's
  whole run there);
- with --fixtures, the same rows on the committed Cortex-M4 fixture (firmware.elf with its map, firmware-nodebug.elf);
- the operator table (`size-report ops`) under 1 s cold on an all-ops firmware (`--ops-elf`: a 13 MB -g build, or
  make_allops_elf.py's; with `--ops-map`, also with its map);
- a cold report at most 0.05x Zephyr's size_report (`--zephyr-size-report PATH`, run with `--zephyr-python PY`,
  which needs pyelftools, anytree < 2.9 and colorama).
Without --bloaty the bloaty columns are left out. Compiled bytecode is allowed (PYTHONPYCACHEPREFIX in a temporary
directory, warmed first), as in an installation.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_large_elf import build  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
# The size-report command as its console script runs it (`python -m` would add runpy's imports, ~3 ms), from this
# checkout (the current directory comes first on the path of `python -c`).
SIZE_REPORT = [sys.executable, "-c", "import sys; from sizetool.cli import main; sys.exit(main())"]


def measure_cpu(argv: list[str], env: dict, repeat: int = 1) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child), each the median of `repeat` runs."""
    return measure_interleaved([argv], env, repeat)[0]


def measure_interleaved(commands: list[list[str]], env: dict, repeat: int) -> list[tuple[float, float]]:
    """measure_cpu of each command, the commands taking turns (ours cold, ours cached, bloaty, then again): a
    machine whose speed drifts during the run moves every figure of a row alike, and their ratios stay fair."""
    samples: list[list[tuple[float, float]]] = [[] for _ in commands]
    for _ in range(repeat):
        for argv, taken in zip(commands, samples):
            start = time.perf_counter()
            with open(os.devnull, "wb") as sink:
                child = subprocess.Popen(argv, stdout=sink, stderr=sink, env=env, cwd=REPO)
                _, status, usage = os.wait4(child.pid, 0)
            if os.waitstatus_to_exitcode(status) != 0:
                raise SystemExit(f"{' '.join(argv)} failed with status {os.waitstatus_to_exitcode(status)}")
            taken.append((time.perf_counter() - start, usage.ru_utime + usage.ru_stime))
    return [(statistics.median(w for w, _ in taken), statistics.median(c for _, c in taken)) for taken in samples]


def peers(args, scratch: str) -> None:
    """The speed targets against bloaty (and Zephyr's size_report), side by side."""
    env = dict(os.environ, SIZETOOL_CACHE_DIR=os.path.join(scratch, "cache"),
               PYTHONPYCACHEPREFIX=os.path.join(scratch, "pycache"))
    for name in ("SIZETOOL_NO_CACHE", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    print(f"machine: {os.cpu_count()} CPUs, {_cpu_model()}, load average {os.getloadavg()[0]:.1f}; "
          f"Python {sys.version.split()[0]}; median of {args.repeat} runs, CPU s (wall s)")
    measure_cpu([sys.executable, "-c", "pass"], env)
    start_wall, start_cpu = measure_cpu([sys.executable, "-c", "pass"], env, args.repeat)
    print(f"python -c pass (interpreter start-up): {start_cpu:.4f} ({start_wall:.4f})")
    rows = [("--elf", args.elf, args.map, "compileunits", 1.0, 1.5)]
    symbol_only = args.symbol_only or _strip_debug(args.elf, scratch)
    if symbol_only:
        rows.append(("symbol-only", symbol_only, None, "symbols", 2.0, None))
    if args.fixtures:
        fixture = REPO / "fixtures" / "firmware" / "out" / "cortex-m4"
        rows.append(("fixture", str(fixture / "firmware.elf"), str(fixture / "firmware.map"), "compileunits", 1.0, 1.5))
        rows.append(("fixture, symbol-only", str(fixture / "firmware-nodebug.elf"), None, "symbols", 2.0, None))
    print(f"{'input':22} {'ELF MB':>6} {'cold':>17} {'cached':>17} {'bloaty':>17}  cached/bloaty  cold/bloaty")
    cold_cpu = None
    for label, elf, map_path, bloaty_view, cached_target, cold_target in rows:
        base = SIZE_REPORT + [elf] + (["--map", map_path] if map_path else [])
        measure_cpu(base + ["--no-cache"], env)  # compiles the bytecode once
        measure_cpu(base, env)  # fills the cache
        commands = [base + ["--no-cache"], base] + ([[args.bloaty, "-d", bloaty_view, elf]] if args.bloaty else [])
        cold, cached, *peer = measure_interleaved(commands, env, args.repeat)
        if label == "--elf":
            cold_cpu = cold[1]
        line = f"{label:22} {os.path.getsize(elf) / 1e6:6.1f} {_pair(cold)} {_pair(cached)}"
        if args.bloaty:
            bloaty = peer[0]
            line += f" {_pair(bloaty)}  {_ratio(cached[1], bloaty[1], cached_target)}"
            line += f"  {_ratio(cold[1], bloaty[1], cold_target)}" if cold_target else ""
        print(line)
    if not args.bloaty:
        print("bloaty: not run (give --bloaty PATH for the ratios)")
    if args.zephyr_size_report:
        out = os.path.join(scratch, "zephyr-out")
        os.makedirs(out, exist_ok=True)
        zephyr = [args.zephyr_python or sys.executable, args.zephyr_size_report, "-k", args.elf, "-z",
                  os.path.dirname(os.path.abspath(args.elf)), "-o", out, "-q", "rom"]
        zephyr_wall, zephyr_cpu = measure_cpu(zephyr, env, 1)
        print(f"Zephyr size_report rom: {zephyr_cpu:.3f} ({zephyr_wall:.3f}); target cold <= 0.05x Zephyr: "
              f"{cold_cpu / zephyr_cpu:.3f}x {'met' if cold_cpu <= 0.05 * zephyr_cpu else 'NOT met'}")
    if args.ops_elf:
        for map_args in ([], ["--map", args.ops_map]) if args.ops_map else ([],):
            ops = SIZE_REPORT + ["ops", args.ops_elf, "--no-cache"] + map_args
            measure_cpu(ops, env)
            ops_wall, ops_cpu = measure_cpu(ops, env, args.repeat)
            print(f"size-report ops{' --map' if map_args else ''}, cold ({os.path.getsize(args.ops_elf) / 1e6:.1f} MB "
                  f"ELF): {ops_cpu:.3f} ({ops_wall:.3f}); target < 1 s: {'met' if ops_cpu < 1.0 else 'NOT met'}")


def _pair(figures: tuple[float, float]) -> str:
    wall, cpu = figures
    return f"{cpu:7.4f} ({wall:7.4f})"


def _ratio(ours: float, bloaty: float, target: float) -> str:
    return f"{ours / bloaty:5.2f}x {'met' if ours <= target * bloaty else 'NOT met':7} (<= {target:g}x)"


def _strip_debug(elf: str, scratch: str) -> str | None:
    """A copy of `elf` without its DWARF, made by the first strip that reads it; None when none does."""
    target = os.path.join(scratch, "symbol-only-" + os.path.basename(elf))
    for strip in ("arm-none-eabi-strip", "strip"):
        try:
            done = subprocess.run([strip, "--strip-debug", "-o", target, elf], capture_output=True)
        except OSError:
            continue
        if done.returncode == 0:
            return target
    return None


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
    parser.add_argument("--peers", action="store_true", help="compare with bloaty (and Zephyr's size_report) on --elf")
    parser.add_argument("--bloaty", help="bloaty executable")
    parser.add_argument("--symbol-only", help="a symbol-only ELF (default: --elf stripped of its DWARF here)")
    parser.add_argument("--fixtures", action="store_true", help="with --peers, also the committed Cortex-M4 fixture")
    parser.add_argument("--zephyr-size-report", help="Zephyr's scripts/footprint/size_report")
    parser.add_argument("--zephyr-python", help="the Python that runs it (with its dependencies)")
    parser.add_argument("--ops-elf", help="an all-ops firmware for the `ops` target")
    parser.add_argument("--ops-map", help="its linker map (then `ops` is timed with and without it)")
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
        command = SIZE_REPORT + [str(elf)] + (["--map", args.map] if args.map else [])
        for label, extra in (("json", ["--format", "json"]), ("tree", [])):
            seconds, peak = measure(command + extra + ["--no-cache"], env, args.repeat)
            print(f"size-report --format {label} (cold, no cache):     {seconds:6.2f} s wall, peak RSS {peak:6.0f} MiB")
        measure(command + ["--format", "json"], env)  # fills the cache
        for label, extra in (("json", ["--format", "json"]), ("tree", [])):
            seconds, peak = measure(command + extra, env, args.repeat)
            print(f"size-report --format {label} (cached, same ELF):   {seconds:6.2f} s wall, peak RSS {peak:6.0f} MiB")


if __name__ == "__main__":
    main()
