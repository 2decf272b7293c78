"""The advice's figures against real rebuilds: tests/data/advice_truth.csv.

kernel-set: the same app built once with each kernel set (the set-ups of benchmarks/drop_relinks.py: a directory per
set-up with firmware.elf and firmware.map). The prediction is the advice's for the firmware as built
(sizetool/advice/firmware_advice.py: kernel code of its registrations in the shipped profiles of the other kernel
set, scaled on this firmware), the real figure the difference of the two builds' flash (text + data).

    python benchmarks/advice_truth.py FROM=DIR TO=DIR [--strip SETUP ORIGINAL.elf STRIPPED.elf ...] [--csv FILE]

model-strip: the same app linked once with a model's array as given and once with the model written again without
names and metadata (tflm_model.model_layout.rewrite(strip=True)); the prediction is the advice's on the first.

e.g. cmsis_nn=/path/relinks/cmsis_nn reference=/path/relinks/reference: what building the CMSIS-NN firmware with
the reference kernels saves.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from drop_relinks import flash  # noqa: E402
from sizetool.advice.firmware_advice import FirmwareFacts, kernel_set_saving  # noqa: E402
from sizetool.inputs.elf_reader import read_elf  # noqa: E402
from sizetool.operators.graph_cache import load_operator_graph  # noqa: E402
from sizetool.profile.profile_export import export_profile  # noqa: E402
from sizetool.report.report_builder import build_report  # noqa: E402

from advice_rebuilds import FIELDS  # noqa: E402

DISTRIBUTION = "tflite-micro 90b983c, Cortex-M4F, -O2 -g"


def kernel_set_row(name_from: str, directory_from: Path, name_to: str, directory_to: Path) -> dict:
    elf, linker_map = directory_from / "firmware.elf", directory_from / "firmware.map"
    report = build_report(str(elf), map_path=str(linker_map), use_cache=False)
    graph = load_operator_graph(str(elf), str(linker_map), use_cache=False)
    profile = export_profile(read_elf(str(elf)), graph, report.rom_total, os.path.basename(str(elf)), stack=False)
    facts = FirmwareFacts(str(elf), report.rom_total, profile=profile)
    ops = tuple(sorted(r.op for r in profile.registrations))
    answer = kernel_set_saving(facts, ops)
    if answer is None:
        raise SystemExit(f"{elf}: no shipped profile pair of this CPU with both kernel sets")
    predicted, other, source, scaled = answer
    real = flash(elf) - flash(directory_to / "firmware.elf")
    return {"kind": "kernel-set", "distribution": DISTRIBUTION, "setup": f"{name_from}->{name_to}",
            "change": f"{other} kernels", "certainty": "predicted",
            "predicted": predicted, "real": real, "error": predicted - real,
            "error_percent": f"{100 * (predicted - real) / real:.2f}",
            "source": source + (" (scaled)" if scaled else "")}


def model_strip_row(setup: str, original: Path, stripped: Path) -> dict:
    """The advice's model-strip figure on the firmware with the model as given (the model found in its read-only
    data, written again without names and metadata) against the firmware rebuilt with that stripped model."""
    from sizetool.advice.firmware_advice import FirmwareFacts, firmware_advice

    report = build_report(str(original), use_cache=False)
    facts = FirmwareFacts(str(original), report.rom_total, embedded=list(report.models or []))
    change = next(c for c in firmware_advice(facts) if c.kind == "model-strip" and "names" in c.change)
    real = flash(original) - flash(stripped)
    return {"kind": "model-strip", "distribution": DISTRIBUTION, "setup": setup, "change": change.change,
            "certainty": change.certainty, "predicted": change.bytes, "real": real,
            "error": change.bytes - real, "error_percent": f"{100 * (change.bytes - real) / real:.2f}",
            "source": "the firmware's model written again without names and metadata"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("builds", nargs=2, metavar="SETUP=DIR")
    parser.add_argument("--strip", nargs=3, action="append", default=[], metavar=("SETUP", "ORIGINAL", "STRIPPED"),
                        help="a firmware with a model and the same rebuilt with the model stripped (repeatable)")
    parser.add_argument("--csv", help="replace this CSV's rows of this distribution (the others are kept)")
    args = parser.parse_args()
    (name_from, _, dir_from), (name_to, _, dir_to) = (b.partition("=") for b in args.builds)
    rows = [kernel_set_row(name_from, Path(dir_from), name_to, Path(dir_to))]
    rows += [model_strip_row(setup, Path(original), Path(stripped)) for setup, original, stripped in args.strip]
    kept = [r for r in csv.DictReader(open(args.csv)) if r["distribution"] != DISTRIBUTION] if args.csv else []
    out = open(args.csv, "w", newline="") if args.csv else sys.stdout
    writer = csv.DictWriter(out, FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows + kept)
    if args.csv:
        out.close()


if __name__ == "__main__":
    main()
