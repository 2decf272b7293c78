"""Benchmark: the whole gen-resolver command on large models, what each part costs, and the ratio to TFLM's generator.

    python benchmarks/bench_gen_resolver.py [--size-mib 100 256] [--operators 600 20000] [--runs 7]
        [--tflm-generator "PYTHON GENERATOR_PY"]

For each size and operator count, writes a model of that many MiB (one big weights buffer, as in a real model, and
--operators int8 operators with their real tensors over three subgraphs; constant weights point into the big buffer)
into a temporary directory with the flatbuffers Builder of fixtures/models/make_models.py (in a child process, so this
process stays small), then prints:
- start-up: a bare interpreter (`python -c pass`), and the imports of a header run (resolver_gen's modules, jinja2);
- in-process parts: the operator and tensor-type scan, and hashing the whole file (what the header comment cost
  before it named models by what was read; --format json still carries each model's SHA-256);
- the whole command as a child process (`python -m resolver_gen.cli MODEL -o ops.h`, with --reduce-types, --format
  json and --list): median and worst wall time and peak RSS (getrusage via os.wait4), --runs times, warm page cache.
With --tflm-generator, TFLM's generate_micro_mutable_op_resolver_from_model.py (it needs TensorFlow-side Python:
absl, mako, numpy and tflite_micro's schema on the path; give the command that runs it) runs alternately with
gen-resolver on the same model, pair by pair, and the median of the per-pair ratios is printed.
The target (issue 10): the whole header command at most 0.25x TFLM's generator, flat in model size.
The models are deleted afterwards; nothing is committed.

Last run (2-core machine shared with other work; the table is in docs/gen-resolver.md, "Speed"): a header for a
105 MB or a 269 MB model with 600 operators takes 0.12 s, 0.10-0.11x TFLM's generator pair by pair. Of that,
interpreter start-up is 0.025 s, resolver_gen's modules 0.035-0.045 s, jinja2 0.025-0.045 s, the operator and
tensor-type scan 0.005 s (0.15 s for 20,000 operators), rendering a few ms; hashing (0.065 s per 100 MB) only in json.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
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


def median_of(argv: list[str], env: dict, runs: int) -> float:
    return statistics.median(measure(argv, env, runs)[0])


def in_process(function, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def start_up(env: dict, runs: int) -> None:
    python = [sys.executable, "-c"]
    bare = median_of(python + ["pass"], env, runs)
    ours = median_of(python + ["import resolver_gen.cli, tflm_model.operator_uses, tflm_model.plan, "
                               "resolver_gen.render"], env, runs)
    jinja = median_of(python + ["import resolver_gen.cli, tflm_model.operator_uses, tflm_model.plan, "
                                "resolver_gen.render, jinja2"], env, runs)
    print(f"start-up: bare interpreter (python -c pass) {bare:.3f} s; resolver_gen's modules +{ours - bare:.3f} s; "
          f"jinja2 +{jinja - ours:.3f} s (median of {runs})")


def pairwise_ratio(ours: list[str], theirs: list[str], env: dict, runs: int) -> tuple[float, float, float]:
    """Median gen-resolver time, median TFLM generator time and median of per-pair ratios, runs alternating."""
    mine, tflm, ratios = [], [], []
    for _ in range(runs):
        a = run_child(ours, env)
        b = run_child(theirs, {**os.environ})
        if a[2] or b[2]:
            raise SystemExit(f"exit {a[2]} / {b[2]} from {ours} / {theirs}")
        mine.append(a[0])
        tflm.append(b[0])
        ratios.append(a[0] / b[0])
    return statistics.median(mine), statistics.median(tflm), statistics.median(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=int, nargs="+", default=[100, 256])
    parser.add_argument("--operators", type=int, nargs="+", default=[600, 20000])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tflm-generator", metavar="COMMAND",
                        help="command that runs TFLM's generate_micro_mutable_op_resolver_from_model.py")
    parser.add_argument("--write-model", nargs=3, metavar=("PATH", "MIB", "OPERATORS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write_model:
        write_large_model(Path(args.write_model[0]), int(args.write_model[1]), int(args.write_model[2]))
        return

    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    start_up(env, args.runs)
    from tflm_model.digest import sha256_of_file
    from tflm_model.tflite_reader import read_operator_table

    for operators in args.operators:
        for size_mib in args.size_mib:
            with tempfile.TemporaryDirectory(prefix="bench-gen-resolver-") as temp:
                model = Path(temp) / "large.tflite"
                subprocess.run([sys.executable, __file__, "--write-model", str(model), str(size_mib), str(operators)],
                               check=True, env=env)
                print(f"model: {model.stat().st_size / 1e6:.1f} MB, {operators} operators in 3 subgraphs")
                scan = in_process(lambda: read_operator_table(model), args.runs)
                hashing = in_process(lambda: sha256_of_file(model), args.runs)
                print(f"  in process: operator and tensor-type scan {scan:.3f} s; SHA-256 of the whole file "
                      f"{hashing:.3f} s (json only)")
                command = [sys.executable, "-m", "resolver_gen.cli", str(model)]
                for label, extra in (("header", []), ("--reduce-types", ["--reduce-types"]),
                                     ("json", ["--format", "json"]), ("--list", ["--list"])):
                    output = [] if label == "--list" else ["-o", str(Path(temp) / "out")]
                    walls, rss = measure(command + output + extra, env, args.runs)
                    print(f"  gen-resolver {label:15} whole command: median {statistics.median(walls):.3f} s, "
                          f"worst {max(walls):.3f} s, peak RSS {rss / 1024:.1f} MiB")
                if args.tflm_generator:
                    theirs = shlex.split(args.tflm_generator) + [
                        f"--common_tflite_path={temp}", "--input_tflite_files=large.tflite", f"--output_dir={temp}"]
                    ours = command + ["-o", str(Path(temp) / "out"), "--reduce-types"]
                    mine, tflm, ratio = pairwise_ratio(ours, theirs, env, args.runs)
                    print(f"  pair by pair: gen-resolver --reduce-types {mine:.3f} s, TFLM's generator {tflm:.3f} s: "
                          f"ratio {ratio:.2f} (median of {args.runs} pairs)")


if __name__ == "__main__":
    main()
