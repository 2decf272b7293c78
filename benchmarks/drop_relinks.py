"""`size-report ELF --drop OP --map MAP` against leave-one-out relinks: the measured table of tests/data/drop_relinks.csv.

A set-up is a directory holding the all-ops build (firmware.elf, firmware.map) and one relink per op without its
AddXxx() call (without_OP.elf), each linked the same way. The real saving is the all-ops flash minus the relink's
(text + data, as `arm-none-eabi-size` counts them); the predicted one is --drop's (operator_sets.set_cost through
what_if, the AddXxx() call included). Rows are printed as CSV (setup,op,real_saving,predicted_saving,error), or
appended to --csv.

    python benchmarks/drop_relinks.py SETUP=DIR [SETUP=DIR ...] [--csv tests/data/drop_relinks.csv]

The builds behind the committed table (TFLM 90b983c, Cortex-M4F, -O2 -g, rdimon.specs, reference and CMSIS-NN
kernels, ten AddXxx() calls) and the scripts that make them are described in docs/operator-cost.md.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sizetool.inputs.elf_reader import read_elf  # noqa: E402
from sizetool.operators.graph_cache import load_operator_graph  # noqa: E402
from sizetool.operators.what_if import what_if  # noqa: E402
from sizetool.report.report_builder import build_report  # noqa: E402

FIELDS = ("setup", "op", "real_saving", "predicted_saving", "error")


def flash(elf: Path) -> int:
    """text + data as binutils' size counts them (SHF_ALLOC sections that are not NOBITS)."""
    image = read_elf(str(elf))
    return sum(s.size for s in image.sections if s.is_alloc and s.type != "SHT_NOBITS")


def setup_rows(name: str, directory: Path) -> list[dict]:
    elf, linker_map = directory / "firmware.elf", directory / "firmware.map"
    report = build_report(str(elf), map_path=str(linker_map), use_cache=False)
    graph = load_operator_graph(str(elf), str(linker_map), use_cache=False)
    full = flash(elf)
    rows = []
    for variant in sorted(directory.glob("without_*.elf")):
        op = variant.stem[len("without_"):]
        real = full - flash(variant)
        predicted = what_if(graph, report, "drop", [op]).cost.saving
        rows.append({"setup": name, "op": op, "real_saving": real, "predicted_saving": predicted,
                     "error": predicted - real})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("setups", nargs="+", metavar="SETUP=DIR")
    parser.add_argument("--csv", help="write the rows to this CSV file (replacing it)")
    args = parser.parse_args()
    rows = []
    for item in args.setups:
        name, _, directory = item.partition("=")
        rows += setup_rows(name, Path(directory))
    out = open(args.csv, "w", newline="") if args.csv else sys.stdout
    writer = csv.DictWriter(out, FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    if args.csv:
        out.close()
    within = sum(abs(r["error"]) <= 32 for r in rows)
    print(f"{within} of {len(rows)} within 32 B; errors {min(r['error'] for r in rows):+} to "
          f"{max(r['error'] for r in rows):+}", file=sys.stderr)


if __name__ == "__main__":
    main()
