"""Speed of `size-report ELF --stack` on a large all-ops firmware: frames of every function, the walk from every
default root, in each format.

Without --elf it builds our own TFLM-shaped all-ops firmware (make_allops_elf.py, about 500 KB of flash; needs
arm-none-eabi-g++). Prints wall and CPU time per run (no cache: the stack is computed from the ELF each time).

    python benchmarks/bench_stack.py [--elf ELF] [--keep DIR]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_allops_elf import build  # noqa: E402


def measure(argv: list[str]) -> tuple[float, float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), after.ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elf", help="benchmark this ELF instead of building one")
    parser.add_argument("--keep", help="build in this directory and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        elf = Path(args.elf) if args.elf else build(Path(args.keep or scratch) / "allops")
        print(f"ELF: {elf} ({elf.stat().st_size / 1024:.0f} KB file)")
        for label, extra in (("default roots, tree", []), ("default roots, json", ["--format", "json"])):
            argv = [sys.executable, "-m", "sizetool.cli", str(elf), "--stack"] + extra
            wall, cpu, rss = measure(argv)
            print(f"{label:22} {wall:6.2f} s wall {cpu:6.2f} s CPU  (peak RSS of children so far {rss / 1024:.0f} MB)")


if __name__ == "__main__":
    main()
