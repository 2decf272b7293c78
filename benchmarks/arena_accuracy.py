"""Accuracy of gen-resolver --arena against the smallest arenas measured on real TFLM (tests/data/arena_truth.csv).

Each row of the table is one model and kernel set, with the smallest arena for which AllocateTensors() and Invoke()
succeeded on real TFLM (32-bit Arm: qemu-arm Linux and Cortex-M4 under qemu-system-arm, see docs/arena.md for the
commands). This script finds each model by file name in a models folder (checking its SHA-256), estimates its arena for
the row's kernel set with 32-bit pointers (and short enums for the Cortex-M rows, as arm-none-eabi GCC builds them;
int-sized enums for Arm Linux; CMSIS-NN's MVE rules for the Cortex-M55 rows of tests/data/mve_arena_truth.csv), and
prints per kernel set and target how many estimates are
  exact   : equal to the measured minimum or at most 16 B above it,
  close   : more than 16 B but at most 2% above,
  over    : more than 2% above (a safe but loose bound),
  BELOW   : under the measured minimum (an arena TFLM would refuse: must never happen),
then every row that is not exact.

    python benchmarks/arena_accuracy.py [--models DIR ...] [--truth CSV ...] [--all]
    (default: the three tables, tests/data/arena_truth.csv, mve_arena_truth.csv and esp_arena_truth.csv: esp-tflite-micro
    on an ESP32-C3, kernel set esp_nn)

Exit status 1 when some estimate is below its measured minimum.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tflm_model.arena_estimate import estimate_arena  # noqa: E402
from tflm_model.errors import ModelError  # noqa: E402
from tflm_facts.allocator_generations import CURRENT, named  # noqa: E402

TRUTHS = [REPO / "tests" / "data" / "arena_truth.csv", REPO / "tests" / "data" / "mve_arena_truth.csv",
          REPO / "tests" / "data" / "esp_arena_truth.csv", REPO / "tests" / "data" / "ei2021_arena_truth.csv",
          REPO / "tests" / "data" / "tflm2022_arena_truth.csv"]
# (tflm2023_ and ei2023_arena_truth.csv are the current generation measured at other revisions: exact there with the
# build's DWARF sizes only, which this benchmark does not read; their tests hold them)
# a table's TFLM (its `tflm` column) -> the allocator generation it runs (tflm_facts.allocator_generations)
GENERATION_OF_TFLM = {"Edge Impulse inferencing-sdk-cpp be7b099": "2020", "tflite-micro 1bdc373d4": "2022-04"}
DEFAULT_MODELS = [REPO.parent / "shared" / "models"]


def short_enums(row: dict) -> bool:
    """Cortex-M4 images are built with arm-none-eabi GCC, whose default is short enums; Arm Linux uses int enums."""
    return row["target"].startswith("cortex-m")


def cpu_features(row: dict) -> str:
    """Cortex-M55 rows were measured with TFLM's cortex-m55 build: CMSIS-NN compiled for MVE."""
    return "mve" if row["target"].startswith("cortex-m55") else "dsp"


def generation(row: dict):
    """The allocator generation of the row's TFLM (the current one unless its table names an older TFLM)."""
    key = GENERATION_OF_TFLM.get(row.get("tflm", ""))
    return named(key) if key else CURRENT


def pointer_bytes(row: dict) -> int:
    """x86-64 host rows were measured with 64-bit pointers; every other target is 32-bit."""
    return 8 if row["target"].startswith("x86_64") else 4


def read_truth(path: Path) -> list[dict]:
    """The rows; "ok_per_run" (a minimum bisected with one run per size, TFLM faulting below it) counts as "ok"."""
    with open(path, newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if not row["model"].startswith("#")]
    return [{**row, "status": "ok" if row["status"] == "ok_per_run" else row["status"]} for row in rows]


def classify(estimate: int, measured: int) -> str:
    if estimate < measured:
        return "BELOW"
    if estimate - measured <= 16:
        return "exact"
    if estimate <= measured * 1.02:
        return "close"
    return "over"


def find_models(folders: list[Path]) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*.tflite")):
            found.setdefault(path.name, []).append(path)
    return found


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def evaluate(rows: list[dict], folders: list[Path]) -> list[dict]:
    """One result per truth row whose model is found: the row, the estimate and its class."""
    models = find_models(folders)
    results = []
    for row in rows:
        candidates = [p for p in models.get(row["model"], []) if sha256(p) == row["sha256"]]
        if not candidates:
            continue
        try:
            estimate = estimate_arena([candidates[0]], row["kernels"], pointer_bytes(row), short_enums=short_enums(row),
                                      cpu_features=cpu_features(row), generation=generation(row))
        except ModelError as error:
            results.append({**row, "estimate": None, "class": "refused", "error": str(error)})
            continue
        if row["status"] != "ok":
            results.append({**row, "estimate": estimate.total_bytes, "exact": estimate.exact, "class": "failed"})
            continue
        measured = int(row["min_arena_bytes"])
        results.append({**row, "estimate": estimate.total_bytes, "exact": estimate.exact,
                        "class": classify(estimate.total_bytes, measured)})
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=Path, nargs="+", default=DEFAULT_MODELS)
    parser.add_argument("--truth", type=Path, nargs="+", default=TRUTHS)
    parser.add_argument("--all", action="store_true", help="list every row, not only those that are not exact")
    args = parser.parse_args(argv)
    rows = [row for truth in args.truth for row in read_truth(truth)]
    started = time.perf_counter()
    results = evaluate(rows, [m for m in args.models if m.is_dir()])
    elapsed = time.perf_counter() - started
    print(f"{len(results)} of {len(rows)} measured rows have their model in {', '.join(map(str, args.models))} "
          f"({elapsed:.2f} s)\n")
    print("| kernels | target | models TFLM runs | exact (<= 16 B above) | close (<= 2% above) | over | BELOW | "
          "exact share | TFLM fails: refused too | TFLM fails: sized |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kernels, target in sorted({(r["kernels"], r["target"]) for r in results}):
        group = [r for r in results if r["kernels"] == kernels and r["target"] == target]
        runs = [r for r in group if r["status"] == "ok"]
        counts = {c: sum(r["class"] == c for r in runs) for c in ("exact", "close", "over", "BELOW", "refused")}
        failing = [r for r in group if r["status"] != "ok"]
        share = 100 * counts["exact"] / len(runs) if runs else 0
        print(f"| {kernels} | {target} | {len(runs)} | {counts['exact']} | {counts['close']} | {counts['over']} | "
              f"{counts['BELOW']} | {share:.1f}% | {sum(r['class'] == 'refused' for r in failing)} | "
              f"{sum(r['class'] == 'failed' for r in failing)} |")
    print()
    for r in results:
        if args.all or r["class"] not in ("exact",):
            if r["class"] == "failed":
                print(f"  {r['kernels']:<9} {r['model']}: TFLM failed ({r['status']}), estimated {r['estimate']:,}")
            elif r["estimate"] is None:
                print(f"  {r['kernels']:<9} {r['model']}: refused ({r['error'][:120]}) [TFLM: {r['status']}]")
            else:
                measured = int(r["min_arena_bytes"])
                print(f"  {r['kernels']:<9} {r['model']}: estimate {r['estimate']:,} measured {measured:,} "
                      f"({r['estimate'] - measured:+,} B, {100 * (r['estimate'] - measured) / measured:+.2f}%) "
                      f"{r['class']}{'' if r['exact'] else ' (bounded)'}")
    return 1 if any(r["class"] == "BELOW" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
