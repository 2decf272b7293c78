"""Benchmark: 20,000 mutated inputs through the real command paths, counted per kind and outcome.

The same engine as tests/sizetool/test_input_fuzz.py (tests/input_fuzz.py: mutated GNU ld, armlink (Arm Compiler
6.22, 6.21, compressed), IAR ILINK (8, 9 and 7 shapes) and ESP-IDF maps given to `size-report ELF --map`, budgets to `check`, saved reports to `diff`, `check` and `history record`, SQLite history
databases to `history show|diff|plot|record` and `check --baseline db:`), at full size. Every case runs in this
process; an outcome is ok (0), gate (1), input error (2, one line on stderr) or a failure (internal error,
traceback, not one line, bad status). Exits 1 when there is any failure and prints the first of each.

    python benchmarks/fuzz_inputs.py [--seed 18] [--map 2000] [--budget 6000] [--report 6000] [--history 6000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.input_fuzz import FAILURES, KINDS, run_fuzz  # noqa: E402

OUTCOMES = ("ok", "gate", "input error") + FAILURES


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=18)
    defaults = {"map": 2000, "budget": 6000, "report": 6000, "history": 6000}
    for kind in KINDS:
        parser.add_argument(f"--{kind}", type=int, default=defaults[kind], help=f"mutated {kind} inputs")
    args = parser.parse_args()
    per_kind = {kind: getattr(args, kind) for kind in KINDS}
    started = time.perf_counter()

    def progress(kind: str, index: int) -> None:
        if (index + 1) % 1000 == 0:
            print(f"  {kind}: {index + 1} done", file=sys.stderr, flush=True)

    run = run_fuzz(args.seed, per_kind, progress=progress)
    elapsed = time.perf_counter() - started
    counts = run.counts()
    print(f"seed {args.seed}: {sum(per_kind.values())} mutated inputs, {len(run.outcomes)} command runs, "
          f"{elapsed:.0f} s")
    print(f"{'kind':8} {'inputs':>7} " + " ".join(f"{name:>14}" for name in OUTCOMES))
    for kind in KINDS:
        row = counts[kind]
        print(f"{kind:8} {per_kind[kind]:7d} " + " ".join(f"{row[name]:14d}" for name in OUTCOMES))
    total = {name: sum(counts[kind][name] for kind in KINDS) for name in OUTCOMES}
    print(f"{'all':8} {sum(per_kind.values()):7d} " + " ".join(f"{total[name]:14d}" for name in OUTCOMES))
    failures = run.failures()
    shown = set()
    for outcome in failures:
        key = (outcome.kind, outcome.command, outcome.label)
        if key not in shown:
            shown.add(key)
            print(f"FAILURE {outcome.kind} / {outcome.command}: {outcome.label}\n{outcome.stderr[-1500:]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
