"""Measure `size-report fit keep_A.elf B.tflite` (the firmware running B in place of A) against keep_B, built alike.

The keep-only apps are built outside the repository (docs/fit.md, "Another model on this firmware"): one app per model,
each exactly `gen-resolver MODEL`'s header and the model as an `alignas(16)` array, all built alike, so keep_B is
keep_A relinked with B's header and array. For every ordered pair of apps this script records the answer (flash, its
bound, static RAM) beside keep_B's real ROM (size-report's ROM total with its map) and static RAM (the exporter's
rule: .data + .bss, heap and stack left out, less the arena array), and writes the table (--write):

    python benchmarks/swap_truth.py --apps /work/ext/swap/build2040 --models ../shared/models \
        --label pico-tflmicro --target rp2040 --truth tests/data/swap_truth_pico.csv --write

An app is `keep_<model>.elf` with its map `keep_<model>.elf.map` beside it; <model>.tflite is in --models.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sizetool.commands.firmware import FirmwareOptions, load_firmware  # noqa: E402
from sizetool.profile.calibrated_fit import firmware_profile  # noqa: E402
from sizetool.profile.model_swap import plan_swap, swap_models  # noqa: E402
from sizetool.report.report_model import write_text_atomically  # noqa: E402

COLUMNS = ["distribution", "target", "firmware_model", "asked_model", "firmware_rom", "dropped", "missing", "profile",
           "models_out_bytes", "models_in_bytes", "real_rom", "predicted_flash", "low", "high", "real_static_ram",
           "predicted_static_ram"]


def apps(folder: Path) -> dict[str, Path]:
    return {elf.name[len("keep_"):-len(".elf")]: elf for elf in sorted(folder.glob("keep_*.elf"))}


def measure(folder: Path, models: Path, label: str, target: str, profile: str | None = None) -> list[dict]:
    found = apps(folder)
    loaded = {name: load_firmware(FirmwareOptions(str(elf), f"{elf}.map", use_cache=False))
              for name, elf in found.items()}
    real = {}
    for name, firmware in loaded.items():
        image = firmware.elf_image()
        real[name] = (firmware.report.rom_total,
                      firmware_profile(image, firmware.operator_graph(), firmware.report.rom_total).static_ram)
    rows = []
    for a, firmware in loaded.items():
        embedded = firmware.embedded_models()
        for b in found:
            if a == b:
                continue
            plan = plan_swap(embedded, str(found[a]), [str(models / f"{b}.tflite")])
            answer = swap_models(firmware.elf_image(), firmware.operator_graph(), firmware.report.rom_total, plan,
                                 profile, strict=True)
            rows.append({
                "distribution": label, "target": target, "firmware_model": a, "asked_model": b,
                "firmware_rom": firmware.report.rom_total, "dropped": ";".join(answer.dropped),
                "missing": ";".join(answer.ops.missing), "profile": answer.ops.profile,
                "models_out_bytes": answer.bytes_out, "models_in_bytes": answer.bytes_in,
                "real_rom": real[b][0], "predicted_flash": answer.flash, "low": answer.low, "high": answer.high,
                "real_static_ram": real[b][1], "predicted_static_ram": answer.static_ram})
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| target | firmware (its model) | asked about | missing ops | firmware ROM | answer | keep_B real | "
             "error | bound | static RAM real / answer |", "|---|---|---|---|---:|---:|---:|---:|---|---:|"]
    for row in rows:
        real, answer = int(row["real_rom"]), int(row["predicted_flash"])
        lines.append(f"| {row['target']} | {row['firmware_model']} | {row['asked_model']} | "
                     f"{row['missing'].replace(';', ', ') or '-'} | {int(row['firmware_rom']):,} | {answer:,} | "
                     f"{real:,} | {(answer - real) / real:+.2%} | {int(row['low']):,} to {int(row['high']):,} | "
                     f"{int(row['real_static_ram']):,} / {int(row['predicted_static_ram']):,} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", required=True, type=Path, help="the folder of keep_<model>.elf and their maps")
    parser.add_argument("--models", required=True, type=Path, help="the folder of <model>.tflite")
    parser.add_argument("--label", required=True, help="the distribution (pico-tflmicro, ...)")
    parser.add_argument("--target", required=True, help="the target (rp2040, rp2350, ...)")
    parser.add_argument("--profile", help="the profile for missing ops (default: the nearest shipped one)")
    parser.add_argument("--truth", type=Path, default=REPO / "tests" / "data" / "swap_truth_pico.csv")
    parser.add_argument("--write", action="store_true", help="add (or replace) this target's rows in --truth")
    args = parser.parse_args()
    rows = measure(args.apps, args.models, args.label, args.target, args.profile)
    print(table(rows))
    if args.write:
        kept = []
        if args.truth.is_file():
            kept = [row for row in csv.DictReader(args.truth.open())
                    if (row["distribution"], row["target"]) != (args.label, args.target)]
        out = io.StringIO()
        writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in sorted(kept + rows, key=lambda r: (r["distribution"], r["target"], r["firmware_model"],
                                                      r["asked_model"])):
            writer.writerow(row)
        write_text_atomically(str(args.truth), out.getvalue())
    worst = max(abs(int(r["predicted_flash"]) - int(r["real_rom"])) / int(r["real_rom"]) for r in rows)
    outside = [r for r in rows if not int(r["low"]) <= int(r["real_rom"]) <= int(r["high"])]
    print(f"\n{len(rows)} pairs; worst error {worst:.2%}; outside the bound: {len(outside)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
