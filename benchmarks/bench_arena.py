"""Benchmark: gen-resolver's arena estimate for a 1 MB model (issue 15's target: under 0.3 s).

Writes a model of about 1 MB (int8 CONV_2D / DEPTHWISE_CONV_2D / ADD layers whose weights take their real size in
the file, like a small vision model) with the flatbuffers Builder of fixtures/models/make_models.py into a temporary directory, then prints the time
of estimate_arena() in process (median of --runs, both kernel sets) and of the whole command
`python -m resolver_gen.cli MODEL --arena -o ops.h` as a child process.

    python benchmarks/bench_arena.py [--runs 7] [--layers 84]

Last run (2-core machine shared with other work, load ~12): a 1.17 MB model with 84 operators: estimate_arena()
15 ms (reference) / 21 ms (CMSIS-NN) median; the whole `gen-resolver MODEL --arena -o ops.h` 0.26 s wall median
(0.30 s worst), 0.13 s of CPU.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.bench_gen_resolver import load_make_models as _make_models  # noqa: E402
from tflm_model.arena_estimate import estimate_arena  # noqa: E402


def one_megabyte_model(layers: int) -> bytes:
    m = _make_models()
    width = 64
    tensors = [m.Tensor("int8", (1, 48, 48, width), channels=1)]
    nodes = []
    conv = (1, ((1, 0), (4, 1), (4, 1), (1, 0), (4, 1), (4, 1)))
    depthwise = (2, ((1, 0), (4, 1), (4, 1), (4, 1), (1, 0), (4, 1), (4, 1)))
    current = 0
    for layer in range(layers):
        if layer % 3 == 2:
            tensors.append(m.Tensor("int8", (1, 48, 48, width), channels=1))
            nodes.append(m.Node(2, (current, current), (len(tensors) - 1,)))
        else:
            shape = (width, 3, 3, width) if layer % 3 == 0 else (1, 3, 3, width)
            elements = shape[0] * shape[1] * shape[2] * shape[3]
            tensors += [m.Tensor("int8", shape, const=True, channels=width, data_bytes=elements),
                        m.Tensor("int32", (width,), const=True, channels=width, data_bytes=4 * width),
                        m.Tensor("int8", (1, 48, 48, width), channels=1)]
            nodes.append(m.Node(0 if layer % 3 == 0 else 1, (current, len(tensors) - 3, len(tensors) - 2),
                                (len(tensors) - 1,), conv if layer % 3 == 0 else depthwise))
        current = len(tensors) - 1
    graph = m.Graph(tuple(tensors), (0,), (current,), tuple(nodes))
    return m.build_graph_model([{"builtin": 3}, {"builtin": 4}, {"builtin": 0}], [graph])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--layers", type=int, default=84)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "model_1mb.tflite"
        path.write_bytes(one_megabyte_model(args.layers))
        print(f"model: {path.stat().st_size / 1e6:.2f} MB, {args.layers} operators")
        for kernels in ("reference", "cmsis_nn"):
            times = []
            for _ in range(args.runs):
                started = time.perf_counter()
                estimate = estimate_arena([path], kernels)
                times.append(time.perf_counter() - started)
            print(f"estimate_arena ({kernels}): median {statistics.median(times) * 1000:.1f} ms, worst "
                  f"{max(times) * 1000:.1f} ms -> {estimate.total_bytes:,} B")
        times, cpu = [], []
        for _ in range(args.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "resolver_gen.cli", str(path), "--arena", "-o",
                            str(Path(directory) / "ops.h")], cwd=REPO, check=True)
            times.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        print(f"gen-resolver MODEL --arena -o ops.h (whole command): wall median {statistics.median(times):.3f} s, "
              f"worst {max(times):.3f} s; CPU median {statistics.median(cpu):.3f} s (target < 0.3 s; wall time on a "
              "busy machine includes waiting for a core)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
