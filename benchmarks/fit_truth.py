"""Measure `gen-resolver --fit` against real keep-only TFLM builds, and export the shipped profiles.

The builds are made outside the repository (docs/fit.md gives the commands): one all-ops firmware per target (every
`AddXxx()` of `MicroMutableOpResolver`) and one keep-only firmware per model (exactly `gen-resolver MODEL`'s
resolver, the model embedded as an `alignas(16)` array, a `tensor_arena` passed to the interpreter), listed in the
builder's manifest.json. For each target with an all-ops build this script

1. exports its profile (`size-report profile allops.elf --map allops.map`) into tflm_facts/profiles/ (--export);
2. for each keep-only build, records the real figures beside the profile's prediction:
   - ROM: size-report's ROM total of the keep-only ELF with its map (the linker's used flash), and the prediction;
   - static RAM: `.data` + `.bss` (+ `.tbss` where the C library has thread-local data) less the arena array, and
     the prediction;
   - stack: `size-report keep.elf --stack 'tflite::MicroInterpreter::Invoke()' --model MODEL`, and the prediction;
3. writes the table as tests/data/fit_truth.csv (--write), which tests/tflm_model/test_fit_truth.py checks the
   shipped profiles against.

    python benchmarks/fit_truth.py --manifest /work/ext/tflm-builds/manifest.json [--export] [--write]
    python benchmarks/fit_truth.py --manifest pico.json --export --write --truth tests/data/fit_truth_pico.csv

A record may name the build's distribution (`distribution`, `distribution_revision`, `build_system`, `opt_level`,
`c_library`: the profile's build facts) and leave out `ram_bytes` (static RAM then by the exporter's own rule).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sizetool.inputs.elf_reader import read_elf  # noqa: E402
from sizetool.operators.graph_cache import load_operator_graph  # noqa: E402
from sizetool.profile.profile_export import export_profile  # noqa: E402
from sizetool.report.report_builder import build_report, build_report_keeping_image  # noqa: E402
from sizetool.report.report_model import write_text_atomically  # noqa: E402
from sizetool.stack.stack_depth import analyse_stack  # noqa: E402
from dataclasses import replace  # noqa: E402

from sizetool.report.report_model import write_bytes_atomically  # noqa: E402
from tflm_facts.target_profile import load_profile, profile_bytes, shipped_profiles  # noqa: E402
from tflm_model.target_fit import fit  # noqa: E402

PROFILES = REPO / "tflm_facts" / "profiles"
TRUTH = REPO / "tests" / "data" / "fit_truth.csv"
COLUMNS = ["profile", "model", "ops", "real_rom", "predicted_flash", "real_static_ram", "predicted_static_ram",
           "real_stack", "predicted_stack", "arena_bytes"]
STACK_ROOT = "tflite::MicroInterpreter::Invoke()"
DISTRIBUTION_KEYS = ("distribution", "distribution_revision", "build_system", "opt_level", "c_library")


def export(record: dict) -> None:
    elf, map_path = record["elf"], record["map"]
    report, image = build_report_keeping_image(elf, map_path=map_path)
    image = image or read_elf(elf)
    graph = load_operator_graph(elf, map_path, image=image)
    profile = export_profile(image, graph, report.rom_total, record["profile"], record["tflm_commit"])
    # Which distribution of TFLM the build is, as the builder states it (the ELF cannot tell).
    facts = {key: record[key] for key in DISTRIBUTION_KEYS if key in record}
    profile = replace(profile, build=replace(profile.build, **facts))
    path = PROFILES / f"{record['profile']}.json.xz"
    write_bytes_atomically(path, profile_bytes(profile, path))


def measure(record: dict) -> dict:
    profile = load_profile(record["profile"])
    model = record["model"]
    answer = fit(profile, [model])
    real_rom = build_report(record["elf"], map_path=record["map"]).rom_total
    # The builder's RAM figure: .data + .bss, and a TLS block's reserved space where there is one (picolibc's
    # .tbss_space on RISC-V: errno and friends live there), less the arena array.
    # Without the builder's figure: the exporter's own rule on the keep-only ELF (.data + .bss, heap and stack
    # sections left out, less the arena array passed to the interpreter).
    if "ram_bytes" in record:
        real_static = record["ram_bytes"] - record["arena_bytes"]
    else:
        image = read_elf(record["elf"])
        real_static = export_profile(image, load_operator_graph(record["elf"], record["map"], image=image),
                                     0, "keep", stack=False).static_ram
    real_stack = ""
    if profile.stack_root:
        stack = analyse_stack(read_elf(record["elf"]), [STACK_ROOT], model_paths=[model])
        real_stack = stack.roots[0].depth
    return {"profile": record["profile"], "model": os.path.basename(model), "ops": len(answer.registrations),
            "real_rom": real_rom, "predicted_flash": answer.flash, "real_static_ram": real_static,
            "predicted_static_ram": answer.static_ram, "real_stack": real_stack,
            "predicted_stack": "" if answer.stack is None else answer.stack, "arena_bytes": answer.arena.total_bytes}


DOCS = REPO / "docs" / "fit.md"
DOCS_HEADER = "| profile | model | ops | real ROM | predicted flash | error | static RAM real / predicted | stack real / predicted |"


def _number(text) -> str:
    return f"{int(text):,}" if str(text).strip() else "-"


def write_docs_table(rows: list[dict], name: str = "fit_truth") -> None:
    """Replace docs/fit.md's accuracy table (from its header line to the next blank line) with the measured rows: the
    first one for fit_truth.csv, the one after `<!-- NAME -->` for a distribution's CSV (fit_truth_pico.csv)."""
    lines = [DOCS_HEADER, "|---|---|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        real, predicted = int(row["real_rom"]), int(row["predicted_flash"])
        lines.append(f"| {row['profile']} | {row['model'].removesuffix('.tflite')} | {row['ops']} | {real:,} | "
                     f"{predicted:,} | {(predicted - real) / real * 100:+.2f}% | {int(row['real_static_ram']):,} / "
                     f"{int(row['predicted_static_ram']):,} | {_number(row['real_stack'])} / {_number(row['predicted_stack'])} |")
    text = DOCS.read_text()
    start = text.index(DOCS_HEADER, text.index(f"<!-- {name} -->") if name != "fit_truth" else 0)
    end = text.index("\n\n", start)
    write_text_atomically(DOCS, text[:start] + "\n".join(lines) + text[end:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", default="/work/ext/tflm-builds/manifest.json")
    parser.add_argument("--export", action="store_true", help="export every all-ops build's profile first")
    parser.add_argument("--write", action="store_true",
                        help=f"write {TRUTH.relative_to(REPO)} and the accuracy table of docs/fit.md")
    parser.add_argument("--only", default="", help="comma-separated profile names")
    parser.add_argument("--truth", default=str(TRUTH), help="the CSV to write (one per distribution)")
    args = parser.parse_args()
    records = json.loads(Path(args.manifest).read_text())
    wanted = set(filter(None, args.only.split(",")))
    records = [r for r in records if not wanted or r["profile"] in wanted]
    if args.export:
        for record in records:
            if record["kind"] == "allops":
                export(record)
                print(f"exported {record['profile']}", file=sys.stderr)
    shipped = set(shipped_profiles())
    truth = Path(args.truth)
    rows = [measure(r) for r in sorted(records, key=lambda r: (r["profile"], r["model"]))
            if r["kind"] == "keep-only" and r["profile"] in shipped]
    if args.write:
        old = list(csv.DictReader(truth.open())) if truth.exists() else []
        done = {row["profile"] for row in rows}
        keep = [row for row in old if row["profile"] not in done]
        out = io.StringIO()
        writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(sorted(keep + rows, key=lambda r: (r["profile"], r["model"])))
        write_text_atomically(truth, out.getvalue())
        write_docs_table(list(csv.DictReader(io.StringIO(out.getvalue()))), truth.stem)
    print(f"{'profile':<24}{'model':<36}{'ops':>4}{'real ROM':>10}{'flash':>10}{'error':>9}{'RAM real':>10}"
          f"{'pred':>7}{'stack':>7}{'pred':>7}")
    for row in rows:
        error = (row["predicted_flash"] - row["real_rom"]) / row["real_rom"] * 100
        print(f"{row['profile']:<24}{row['model']:<36}{row['ops']:>4}{row['real_rom']:>10}{row['predicted_flash']:>10}"
              f"{error:>+8.2f}%{row['real_static_ram']:>10}{row['predicted_static_ram']:>7}{row['real_stack']!s:>7}"
              f"{row['predicted_stack']!s:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
