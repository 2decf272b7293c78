"""Accuracy and speed of `size-report --ops`: each operator's exclusive bytes against real leave-one-out builds.

Without arguments: the committed fixture firmware (Cortex-M4, Cortex-M4 with --emit-relocs, RV32, host x86-64), whose
leave-one-out variants and sizes are in fixtures/firmware/out. With --elf and --truth: any firmware you built
yourself with and without each AddXxx() (e.g. real TFLM, outside this repository), described by a JSON file

    {"variants": {"CONV_2D": {"saving": 1448}, ...}}      (saving = flash of the full build minus the variant's)

Prints one row per operator (true saving, estimate, error in bytes and %, within 10% or 64 B) and the time the
operator table took.

    python benchmarks/operator_cost_accuracy.py [--elf firmware.elf --truth truth.json [--map firmware.map]]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sizetool.operators.operator_cost import operator_table  # noqa: E402
from sizetool.report.report_builder import build_report  # noqa: E402

OUT = REPO / "fixtures" / "firmware" / "out"


def fixture_cases() -> list[tuple[str, str | None, dict[str, int]]]:
    manifest = json.loads((OUT / "manifest.json").read_text())
    cases = []
    for base, variants in (("cortex-m4/firmware.elf", "variants/cortex-m4"),
                           ("cortex-m4-relocs/firmware.elf", "variants/cortex-m4"),
                           ("riscv32/firmware.elf", "variants/riscv32"),
                           ("host-x86_64/firmware.elf", "variants/host-x86_64")):
        savings = {
            build["omitted"]: build["flash_saving_bytes"]
            for name, build in manifest["builds"].items()
            if name.startswith(variants + "/")
        }
        cases.append((str(OUT / base), None, savings))
        linker_map = (OUT / base).with_suffix(".map")
        if linker_map.exists():
            cases.append((str(OUT / base), str(linker_map), savings))
    return cases


def report_case(elf: str, linker_map: str | None, savings: dict[str, int]) -> bool:
    start = time.perf_counter()
    report = build_report(elf, map_path=linker_map, use_cache=False)
    report_seconds = time.perf_counter() - start
    start = time.perf_counter()
    table = operator_table(elf, report, map_path=linker_map)
    table_seconds = time.perf_counter() - start
    estimates = {cost.op: cost.exclusive_bytes for cost in table.operators}
    print(f"\n{elf}{'  --map ' + linker_map if linker_map else ''}  (flash {table.total_rom} B; report {report_seconds:.2f} s, operator table {table_seconds:.2f} s)")
    print(f"{'operator':28} {'true saving':>11} {'exclusive':>10} {'error B':>8} {'error %':>8}  ok")
    all_ok = True
    worst = 0.0
    for op in sorted(savings, key=lambda o: -savings[o]):
        truth = savings[op]
        estimate = estimates.get(op)
        if estimate is None:
            print(f"{op:28} {truth:11} {'(not found)':>10}")
            all_ok = False
            continue
        error = estimate - truth
        percent = 100.0 * error / truth if truth else 0.0
        ok = abs(error) <= max(64, 0.10 * truth)
        all_ok &= ok
        worst = max(worst, abs(percent))
        print(f"{op:28} {truth:11} {estimate:10} {error:8} {percent:7.1f}%  {'yes' if ok else 'NO'}")
    print(f"worst error {worst:.1f}%; {'all' if all_ok else 'NOT all'} within 10% or 64 B")
    return all_ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elf", help="a firmware ELF built with every operator")
    parser.add_argument("--truth", help='JSON {"variants": {"OP": {"saving": bytes}}} for that ELF')
    parser.add_argument("--map", help="the ELF's GNU ld map file (input sections)")
    args = parser.parse_args()
    if bool(args.elf) != bool(args.truth):
        parser.error("--elf and --truth go together")
    if args.elf:
        truth = json.loads(Path(args.truth).read_text())
        cases = [(args.elf, args.map, {op: int(v["saving"]) for op, v in truth["variants"].items()})]
    else:
        cases = fixture_cases()
    results = [report_case(elf, linker_map, savings) for elf, linker_map, savings in cases]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
