"""Benchmark: the whole gen-resolver command on a large model, wall time and peak memory.

    python benchmarks/bench_gen_resolver.py [--size-mib 100 256] [--operators 20000] [--runs 7]

For each size, writes a model of that many MiB (one big weights buffer, as in a real model, plus --operators operators
over three subgraphs) into a temporary directory with the flatbuffers Builder of fixtures/models/make_models.py (in a
child process, so this process stays small: a child inherits its parent's peak RSS at fork), then runs
`python -m resolver_gen.cli MODEL -o ops.h` as a child process --runs times and prints the median and worst wall time
and the child's peak RSS (getrusage via os.wait4). Also printed, for scale: a bare interpreter start (`python -c pass`)
and the in-process operator scan alone. The models are deleted afterwards; nothing is committed.
Target (issue 2): at most a third of TFLM's generator, which takes 0.6-0.8 s on a 100 MB model, i.e. about 0.2 s.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))


def load_make_models():
    spec = importlib.util.spec_from_file_location("make_models", REPO_ROOT / "fixtures" / "models" / "make_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_large_model(path: Path, size_mb: int, operators: int) -> None:
    """An int8 model: ten builtin ops with their real tensor types (constant weights in the one big buffer), a TFLM
    custom op, and an unused LSTM entry that must not count."""
    make_models = load_make_models()
    Op = make_models.Op
    codes = [{"builtin": code, "version": 1 + code % 3} for code in (3, 4, 9, 22, 25, 0, 18, 1, 17, 2)]
    codes += [{"custom": "SignalWindow", "deprecated": 32}, {"builtin": 16}]
    weighted = ("int8", "const int8", "const int32")
    shapes = {0: Op(0, weighted, ("int8",)), 1: Op(1, weighted, ("int8",)), 2: Op(2, weighted, ("int8",)),
              3: Op(3, ("int8", "const int32"), ("int8",)), 4: Op(4, ("int8",), ("int8",)),
              5: Op(5, ("int8", "int8"), ("int8",)), 6: Op(6, ("int8", "int8"), ("int8",)),
              7: Op(7, ("int8",), ("int8",)), 8: Op(8, ("int8",), ("int8",)),
              9: Op(9, ("int8", "int8", "int8"), ("int8",)),
              10: Op(10, ("int16", "const int16"), ("int16",))}
    per_subgraph = operators // 3
    subgraphs = [[shapes[i % 9] for i in range(per_subgraph)], [shapes[9]] * per_subgraph,
                 [shapes[10]] * (operators - 2 * per_subgraph)]
    data = make_models.build_model(codes, subgraphs, weights_bytes=size_mb * 1024 * 1024)
    path.write_bytes(data)


def run_child(argv: list[str], env: dict) -> tuple[float, int, int]:
    """(wall seconds, peak RSS in KiB, exit status) of one child process."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    child.stderr.close()
    return wall, usage.ru_maxrss, child.returncode


def measure(argv: list[str], env: dict, runs: int) -> tuple[list[float], int]:
    walls, peak = [], 0
    for _ in range(runs):
        wall, rss, status = run_child(argv, env)
        if status != 0:
            raise SystemExit(f"{' '.join(argv)} exited {status}")
        walls.append(wall)
        peak = max(peak, rss)
    return walls, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=int, nargs="+", default=[100, 256])
    parser.add_argument("--operators", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--write-model", nargs=2, metavar=("PATH", "MIB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write_model:
        write_large_model(Path(args.write_model[0]), int(args.write_model[1]), args.operators)
        return

    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    baseline, baseline_rss = measure([sys.executable, "-c", "pass"], env, args.runs)
    print(f"bare interpreter start (python -c pass): median {statistics.median(baseline):.3f} s, "
          f"peak RSS {baseline_rss / 1024:.1f} MiB")
    from resolver_gen.tflite_reader import read_operator_table

    for size_mib in args.size_mib:
        with tempfile.TemporaryDirectory(prefix="bench-gen-resolver-") as temp:
            model = Path(temp) / "large.tflite"
            subprocess.run([sys.executable, __file__, "--operators", str(args.operators),
                            "--write-model", str(model), str(size_mib)], check=True, env=env)
            print(f"model: {model.stat().st_size / 1e6:.1f} MB, {args.operators} operators in 3 subgraphs")
            started = time.perf_counter()
            read_operator_table(model)
            print(f"  operator scan alone (in process, no hashing): {time.perf_counter() - started:.3f} s")
            for label, extra in (("header", []), ("json", ["--format", "json"]), ("--list", ["--list"])):
                output = [] if label == "--list" else ["-o", str(Path(temp) / "out")]
                argv = [sys.executable, "-m", "resolver_gen.cli", str(model), *output, *extra]
                walls, rss = measure(argv, env, args.runs)
                print(f"  gen-resolver {label:8} whole command: median {statistics.median(walls):.3f} s, "
                      f"worst {max(walls):.3f} s, peak RSS {rss / 1024:.1f} MiB ({args.runs} runs, warm page cache)")


if __name__ == "__main__":
    main()
