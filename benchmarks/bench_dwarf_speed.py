"""Benchmark (issue 43): `size-report ops`, `fit` and the tree on a large -g all-ops firmware, cold and cached, beside
bloaty's `-d compileunits` and `-d symbols`, in one run.

The ELF: a real TFLM all-ops build for Cortex-M4 with CMSIS-NN and -g (make_tflm_allops_elf.py builds one from
checkouts you give, about 13 MB at TFLM 90b983c), given with --elf. Its symbol-only copy is made here with
`arm-none-eabi-strip --strip-debug` (or `strip`). --pico-elf adds `ops` on a real pico-tflmicro example ELF.

Each figure is the least of --repeat runs of the whole command in a fresh process (on a shared machine the others'
load only ever adds), as CPU time (user + sys of the child, all its threads and the processes it waited for: bloaty's
threads, our second process) with the least wall time beside it, and the child's own peak RSS; the runs of a row take
turns (ours cold, ours cached, bloaty, then again). Every target is judged in CPU time and in wall time (bloaty runs
threads, and a cold report of a large ELF scans its DWARF in a second process: their wall time can be the smaller). Cold: a first run on
an empty cache directory (nothing cached: the report, the operator graph, the DWARF types, the file digests); cached:
the same command again on the unchanged ELF. Compiled bytecode is allowed (PYTHONPYCACHEPREFIX, warmed first), as in
an installation. Without bloaty (--bloaty PATH, else `bloaty` on PATH) its column says it is absent.

The tree is also run in one process (SIZETOOL_SERIAL=1): a cold report of a large ELF scans its DWARF in a second
process meanwhile (sizetool/inputs/background_read.py), which shortens the wall time on two cores, not the CPU time.
The interpreter's own start-up is printed first (an editable install adds its import hook to every start).

Targets: ops and fit <= 1 s cold and <= 0.3 s cached on the 13 MB ELF; a cold tree <= 1.5x bloaty -d compileunits;
the symbol-only tree <= 2x bloaty -d symbols.

With --before DIR (a checkout of the code before, e.g. `git worktree add /tmp/before main`), each row also gives
that code's cold and cached runs, taking turns with the others.

    python benchmarks/bench_dwarf_speed.py --elf allops_cmsis.elf [--pico-elf example.elf] [--before DIR] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SIZE_REPORT = [sys.executable, "-c", "import sys; from sizetool.cli import main; sys.exit(main())"]


def run(argv: list[str], env: dict, fresh_cache: str | None = None, cwd: Path = REPO) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of one run of argv from cwd (the checkout whose sizetool runs); with fresh_cache,
    on that cache directory emptied first."""
    if fresh_cache is not None:
        shutil.rmtree(fresh_cache, ignore_errors=True)
        env = dict(env, SIZETOOL_CACHE_DIR=fresh_cache)
    start = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        child = subprocess.Popen(argv, stdout=sink, stderr=sink, env=env, cwd=cwd)
        _, status, usage = os.wait4(child.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # 1: a gate failed (a model that does not fit), still a whole answer
        raise SystemExit(f"{' '.join(argv)} failed with status {code}")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def row(commands: list[tuple], env: dict, repeat: int) -> list[tuple[float, float, float]]:
    """run() of each (argv, fresh cache directory or None, env, cwd) taking turns, the least of each figure."""
    samples: list[list[tuple[float, float, float]]] = [[] for _ in commands]
    for _ in range(repeat):
        for (argv, fresh, command_env, cwd), taken in zip(commands, samples):
            taken.append(run(argv, command_env or env, fresh, cwd))
    return [tuple(min(sample[i] for sample in taken) for i in range(3)) for taken in samples]


def _figure(figures) -> str:
    wall, cpu, peak = figures
    return f"{cpu:6.3f} ({wall:6.3f}) {peak:4.0f} MB"


def _target(value: float, limit: float, unit: str = "s") -> str:
    return f"{'met' if value <= limit else 'NOT met'} (<= {limit:g}{unit})"


def _strip_debug(elf: str, scratch: str) -> str | None:
    target = os.path.join(scratch, "symbol-only-" + os.path.basename(elf))
    for strip in ("arm-none-eabi-strip", "strip"):
        try:
            done = subprocess.run([strip, "--strip-debug", "-o", target, elf], capture_output=True)
        except OSError:
            continue
        if done.returncode == 0:
            return target
    return None


def _editable_hooks() -> list[str]:
    """The editable installs' import hooks site loads at every start of this interpreter (~14 ms here)."""
    import site
    import glob

    return [hook for directory in site.getsitepackages() for hook in glob.glob(os.path.join(directory, "__editable__*.pth"))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elf", required=True, help="the -g all-ops firmware (make_tflm_allops_elf.py)")
    parser.add_argument("--pico-elf", help="a pico-tflmicro example ELF (its `ops` row)")
    parser.add_argument("--bloaty", default=shutil.which("bloaty"), help="bloaty executable (default: on PATH)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", help="a checkout of the code before (its cold and cached runs printed beside)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        cache, fresh = os.path.join(scratch, "cache"), os.path.join(scratch, "fresh")
        env = dict(os.environ, SIZETOOL_CACHE_DIR=cache, PYTHONPYCACHEPREFIX=os.path.join(scratch, "pycache"))
        for name in ("SIZETOOL_NO_CACHE", "PYTHONDONTWRITEBYTECODE"):
            env.pop(name, None)
        load = os.getloadavg()[0]
        print(f"machine: {os.cpu_count()} CPUs, load average {load:.1f}; Python {sys.version.split()[0]}; "
              f"least of {args.repeat} runs: CPU s (wall s) peak RSS")
        print(f"bloaty: {args.bloaty}" if args.bloaty else
              "bloaty: absent (not in Debian's archive nor on PyPI here; give --bloaty PATH for its column)")
        symbol_only = _strip_debug(args.elf, scratch)
        start_up = row([([sys.executable, "-c", "pass"], None, None, REPO)], env, args.repeat)[0]
        print(f"this interpreter's start-up alone (python -c pass): {_figure(start_up)}"
              + ("; an editable install's import hook (__editable__*.pth) adds to every run: measure from a "
                 "non-editable one" if _editable_hooks() else ""))
        rows = [("ops", SIZE_REPORT + ["ops", args.elf], args.elf, "compileunits", (1.0, 0.3, None), None),
                ("fit", SIZE_REPORT + ["fit", args.elf], args.elf, "compileunits", (1.0, 0.3, None), None),
                ("tree", SIZE_REPORT + [args.elf], args.elf, "compileunits", (None, None, 1.5), None),
                # the same in one process: the DWARF scan not read beside (inputs/background_read.py)
                ("tree, one process", SIZE_REPORT + [args.elf], args.elf, "compileunits", (None, None, 1.5),
                 {"SIZETOOL_SERIAL": "1"})]
        if symbol_only:
            rows.append(("tree, symbol-only", SIZE_REPORT + [symbol_only], symbol_only, "symbols", (None, None, 2.0),
                         None))
        if args.pico_elf:
            rows.append(("ops, pico example", SIZE_REPORT + ["ops", args.pico_elf], args.pico_elf, "compileunits",
                         (None, None, None), None))
        before = Path(args.before).resolve() if args.before else None
        before_env = dict(env, SIZETOOL_CACHE_DIR=os.path.join(scratch, "before-cache"),
                          PYTHONPYCACHEPREFIX=os.path.join(scratch, "before-pycache"))
        before_columns = f"  {'cold before':>24}  {'cached before':>24}" if before else ""
        print(f"{'command':18} {'ELF MB':>6}{before_columns}  {'cold':>24}  {'cached':>24}  {'bloaty':>24}  targets")
        for label, argv, elf, view, (cold_limit, cached_limit, ratio_limit), extra in rows:
            row_env = dict(env, **extra) if extra else env
            commands = []
            if before:
                old_env = dict(before_env, **extra) if extra else before_env
                run(argv, old_env, fresh, before)
                run(argv, old_env, None, before)
                commands += [(argv, fresh, old_env, before), (argv, None, old_env, before)]
            run(argv, row_env, fresh)  # compiles the bytecode
            run(argv, row_env)  # fills the cache
            commands += [(argv, fresh, row_env, REPO), (argv, None, row_env, REPO)]
            if args.bloaty:
                commands.append(([args.bloaty, "-d", view, elf], None, None, REPO))
            figures = row(commands, env, args.repeat)
            old = figures[:2] if before else []
            cold, cached, *peer = figures[len(old):]
            line = f"{label:18} {os.path.getsize(elf) / 1e6:6.1f}  "
            line += "".join(f"{_figure(figure)}  " for figure in old)
            line += f"{_figure(cold)}  {_figure(cached)}  "
            line += f"{_figure(peer[0]) if peer else 'absent':>24}  "
            targets = []
            if cold_limit is not None:
                targets.append(f"cold CPU {_target(cold[1], cold_limit)}, wall {_target(cold[0], cold_limit)}")
            if cached_limit is not None:
                targets.append(f"cached CPU {_target(cached[1], cached_limit)}, wall {_target(cached[0], cached_limit)}")
            if ratio_limit is not None:
                targets.append(f"cold/bloaty -d {view} " + (
                    f"CPU {cold[1] / peer[0][1]:.2f}x {_target(cold[1] / peer[0][1], ratio_limit, 'x')}, "
                    f"wall {cold[0] / peer[0][0]:.2f}x {_target(cold[0] / peer[0][0], ratio_limit, 'x')}; "
                    f"cached/bloaty CPU {cached[1] / peer[0][1]:.2f}x, wall {cached[0] / peer[0][0]:.2f}x" if peer
                    else "not measured (bloaty absent)"))
            print(line + "; ".join(targets))


if __name__ == "__main__":
    main()
