"""Benchmark: `gen-resolver MODEL --fit PROFILE` for a 1 MB model with a shipped profile (issue 24's target: under
0.5 s).

Writes the 1 MB model of bench_arena.py (int8 CONV_2D / DEPTHWISE_CONV_2D / ADD layers whose weights take their real
size in the file) into a temporary directory, then prints the time of fit_report() in process (median of --runs:
the profile read, the set walks, the arena estimate, both answers beside it) and of the whole command as a child
process (wall and CPU, start-up included).

    python benchmarks/bench_fit.py [--profile cortex-m4f-reference] [--runs 7]

Last run (2-core machine shared with TFLM builds, load ~3): a 1.17 MB model with 84 operators on
cortex-m4f-reference (93 KB profile): see docs/fit.md#speed.
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

from benchmarks.bench_arena import one_megabyte_model  # noqa: E402
from tflm_facts.target_profile import shipped_profiles  # noqa: E402
from tflm_model.target_fit import fit_report  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", default=None, help="a shipped profile (default: the first one)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--layers", type=int, default=84)
    args = parser.parse_args(argv)
    profile = args.profile or (shipped_profiles() or [None])[0]
    if profile is None:
        print("no shipped profile", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "model_1mb.tflite"
        path.write_bytes(one_megabyte_model(args.layers))
        size = (REPO / "tflm_facts" / "profiles" / f"{profile}.json").stat().st_size
        print(f"model: {path.stat().st_size / 1e6:.2f} MB, {args.layers} operators; profile {profile} "
              f"({size / 1e3:.0f} KB)")
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            report = fit_report(profile, [str(path)])
            times.append(time.perf_counter() - started)
        print(f"fit_report(): median {statistics.median(times) * 1000:.1f} ms, worst {max(times) * 1000:.1f} ms -> "
              f"flash {report.main.flash:,} B, RAM {report.main.ram:,} B, stack {report.main.stack} B")
        walls, cpu = [], []
        for _ in range(args.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "resolver_gen.cli", str(path), "--fit", profile, "-o",
                            str(Path(directory) / "fit.txt")], cwd=REPO, check=True)
            walls.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        verdict = "under" if statistics.median(walls) < 0.5 else "OVER"
        print(f"gen-resolver MODEL --fit {profile}: wall median {statistics.median(walls):.2f} s (worst "
              f"{max(walls):.2f} s), CPU median {statistics.median(cpu):.2f} s: {verdict} the 0.5 s target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
