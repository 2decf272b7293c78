"""Accuracy and speed of `size-report --ops` and of the set questions, against real builds.

Two ground truths:
- leave-one-out builds: the firmware without one AddXxx() call; its flash saving against the operator's exclusive
  bytes, and against exclusive bytes plus its estimated AddXxx() call;
- keep-only builds: the firmware with only the registrations some models need; its flash against the predicted ROM
  (the ROM total minus the set saving of every other registration), with the call sites of the dropped AddXxx()
  calls counted and their estimated bytes, and the error bound the prediction states ("bound": bytes it keeps only
  through code no reference explains, which the map would settle, and registration machinery left with one call,
  which the compiler may inline and fold; "beyond": the error the bound does not cover).

Without arguments: the committed fixture firmware (Cortex-M4, with --emit-relocs, RV32, host x86-64, Xtensa lx106, and
the three TFLM-shaped Cortex-M4 builds: kernels -O2 with and without a speed define, or -Os, in a static archive,
linked at address 0; and fixtures/merged_strings, kernels sharing merged string literals), whose variants, keep-only builds and sizes are in fixtures/firmware/out. With --elf and --truth: any firmware you built
yourself (e.g. real TFLM, outside this repository), described by a JSON file with either or both of

    {"variants": {"CONV_2D": {"saving": 1448}, ...},                 (saving = full flash - variant flash)
     "models": {"path/to/person_detect.tflite": {"flash": 63476}, ...}}   (flash of the build with its ops only)

(a "models" key may join several model paths with "+": a build with the ops of all of them).

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

from sizetool.operators.graph_cache import load_operator_graph  # noqa: E402
from sizetool.operators.model_crosscheck import serving_registrations  # noqa: E402
from sizetool.operators.operator_cost import operator_table_for_graph  # noqa: E402
from sizetool.operators.operator_sets import keep_only  # noqa: E402
from sizetool.report.report_builder import build_report  # noqa: E402

OUT = REPO / "fixtures" / "firmware" / "out"
MODELS = REPO / "fixtures" / "models"


def fixture_cases() -> list[tuple[str, str | None, dict[str, int], dict[str, int]]]:
    manifest = json.loads((OUT / "manifest.json").read_text())
    cases = []
    for base, arch in (("cortex-m4/firmware.elf", "cortex-m4"), ("cortex-m4-relocs/firmware.elf", "cortex-m4"),
                       ("riscv32/firmware.elf", "riscv32"), ("host-x86_64/firmware.elf", "host-x86_64"),
                       ("lx106/firmware.elf", "lx106")):
        savings = {build["omitted"]: build["flash_saving_bytes"] for name, build in manifest["builds"].items()
                   if name.startswith(f"variants/{arch}/")}
        models = {"+".join(str(MODELS / m) for m in build["models"]): build["flash_bytes"]
                  for name, build in manifest["builds"].items() if name.startswith(f"keep-only/{arch}/")}
        cases.append((str(OUT / base), None, savings, models))
        linker_map = (OUT / base).with_suffix(".map")
        if linker_map.exists():
            cases.append((str(OUT / base), str(linker_map), savings, models))
    # Built the way TFLM builds its library, as users vary it (defines, -O2/-Os kernels; keep-only builds only).
    for shape in ("cortex-m4-tflm-speed", "cortex-m4-tflm-nospeed", "cortex-m4-tflm-os"):
        models = {"+".join(str(MODELS / m) for m in build["models"]): build["flash_bytes"]
                  for name, build in manifest["builds"].items() if name.startswith(f"keep-only/{shape}/")}
        base = OUT / shape / "firmware.elf"
        cases.append((str(base), None, {}, models))
        cases.append((str(base), str(base.with_suffix(".map")), {}, models))
    # Kernels sharing merged string literals (fixtures/merged_strings: identical strings, one string the tail of
    # another), leave-one-out builds only; read with the map, as --drop OP --map is.
    merged = REPO / "fixtures" / "merged_strings" / "out"
    variants = json.loads((merged / "manifest.json").read_text())["variants"]
    cases.append((str(merged / "firmware.elf"), str(merged / "firmware.map"),
                  {op: build["saving"] for op, build in variants.items()}, {}))
    return cases


def report_case(elf: str, linker_map: str | None, savings: dict[str, int], models: dict[str, int]) -> bool:
    start = time.perf_counter()
    report = build_report(elf, map_path=linker_map, use_cache=False)
    report_seconds = time.perf_counter() - start
    start = time.perf_counter()
    graph = load_operator_graph(elf, linker_map, use_cache=False)
    graph_seconds = time.perf_counter() - start
    start = time.perf_counter()
    table = operator_table_for_graph(graph, report, elf)
    table_seconds = time.perf_counter() - start
    print(f"\n{elf}{'  --map ' + linker_map if linker_map else ''}  (flash {table.total_rom} B, "
          f"{len(table.operators)} registrations; report {report_seconds:.2f} s, operator graph {graph_seconds:.2f} s, "
          f"table {table_seconds:.2f} s)")
    all_ok = leave_one_out(table, savings) if savings else True
    if models:
        all_ok &= keep_only_builds(graph, table.total_rom, models)
    return all_ok


def leave_one_out(table, savings: dict[str, int]) -> bool:
    costs = {cost.op: cost for cost in table.operators}
    print(f"{'operator':28} {'true saving':>11} {'exclusive':>10} {'error %':>8} {'+ call':>7} {'error B':>8} "
          f"{'error %':>8}  ok")
    all_ok = True
    worst = 0.0
    for op in sorted(savings, key=lambda o: -savings[o]):
        truth = savings[op]
        cost = costs.get(op)
        if cost is None:
            print(f"{op:28} {truth:11} {'(not found)':>10}")
            all_ok = False
            continue
        estimate = cost.exclusive_bytes + cost.call_site_bytes
        error = estimate - truth
        percent = 100.0 * error / truth if truth else 0.0
        alone = 100.0 * (cost.exclusive_bytes - truth) / truth if truth else 0.0
        ok = abs(error) <= max(64, 0.10 * truth)
        all_ok &= ok
        worst = max(worst, abs(percent))
        print(f"{op:28} {truth:11} {cost.exclusive_bytes:10} {alone:7.1f}% {cost.call_site_bytes:7} {error:8} "
              f"{percent:7.1f}%  {'yes' if ok else 'NO'}")
    print(f"worst error with the call site {worst:.1f}%; {'all' if all_ok else 'NOT all'} within 10% or 64 B")
    return all_ok


def keep_only_builds(graph, rom: int, models: dict[str, int]) -> bool:
    registered = sorted(o.op for o in graph.operators)
    print(f"{'keep only the ops of':44} {'kept':>4} {'real':>8} {'predicted':>9} {'error':>7} {'error %':>8} "
          f"{'calls':>5} {'call B':>6} {'without calls':>13} {'bound':>6} {'beyond':>6}  ok")
    all_ok = True
    for key, real in models.items():
        kept: set[str] = set()
        for path in key.split("+"):
            kept.update(serving_registrations(path, registered)[0])
        cost = keep_only(graph, kept)
        predicted = rom - cost.saving
        error = predicted - real
        beyond = min(error + cost.may_be_low_by, 0) + max(error - cost.may_be_high_by, 0)  # what the stated range misses
        ok = abs(beyond) <= max(256, 0.01 * real)
        all_ok &= ok
        name = "+".join(Path(p).stem for p in key.split("+"))
        print(f"{name[:44]:44} {len(kept):4} {real:8} {predicted:9} {error:+7} {100 * error / real:+7.2f}% "
              f"{cost.call_sites:5} {cost.call_site_bytes:6} {rom - cost.code_bytes - real:+13} "
              f"{cost.may_be_high_by:6} {beyond:+6}  "
              f"{'yes' if ok else 'NO'}")
    print(f"{'all' if all_ok else 'NOT all'} within 1% or 256 B of the prediction, less the bound it states")
    return all_ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elf", help="a firmware ELF built with every operator")
    parser.add_argument("--truth", help='JSON {"variants": {...}, "models": {...}} for that ELF (see above)')
    parser.add_argument("--map", help="the ELF's GNU ld map file (input sections)")
    args = parser.parse_args()
    if bool(args.elf) != bool(args.truth):
        parser.error("--elf and --truth go together")
    if args.elf:
        truth = json.loads(Path(args.truth).read_text())
        cases = [(args.elf, args.map, {op: int(v["saving"]) for op, v in truth.get("variants", {}).items()},
                  {path: int(v["flash"]) for path, v in truth.get("models", {}).items()})]
    else:
        cases = fixture_cases()
    results = [report_case(*case) for case in cases]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
