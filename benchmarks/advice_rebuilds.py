"""The advice's figures against real rebuilds, one row per change: tests/data/advice_truth.csv (the rows whose
`distribution` is not upstream TFLM; benchmarks/advice_truth.py writes those).

A manifest (JSON) lists the rows. Each names a firmware (ELF, its map, the models it runs), the kind of change (and
a text the change must contain, where one firmware gets several of a kind), and the same firmware rebuilt with that
change made. The prediction is the advice exactly as `size-report fit FIRMWARE MODEL... --map MAP --advise --format
json` gives it (`bytes`, or with `"combined": true` its `combined_bytes`, held against `real_from`: the firmware
with the changes it is combined with made too); the real figure is the firmware's flash
(text + data, as binutils' size counts it) less the rebuild's, or for a RAM change its static RAM (.data + .bss) less
the rebuild's. The advice's stated bound (`may_save_more`, `may_save_less`: 0 where it states none) is recorded
beside the figure. A change the advice names without a figure is written with an empty `predicted`: the row then records
what the rebuild saved, and the test holds that the advice gave no number.

    python benchmarks/advice_rebuilds.py MANIFEST.json ROOT [--csv tests/data/advice_truth.csv]

ROOT is the directory the manifest's paths are relative to (the builds stay outside this repository; the manifest
and the scripts that make them are in benchmarks/advice_rebuilds/). With --csv, the rows of the manifest's
distributions are replaced in that file and the others kept.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sizetool.inputs.elf_reader import read_elf  # noqa: E402

FIELDS = ("kind", "distribution", "setup", "change", "certainty", "predicted", "real", "error", "error_percent",
          "may_save_more", "may_save_less", "source")
MODELS = REPO.parent / "shared" / "models"


def flash(elf: Path) -> int:
    """text + data as binutils' size counts them (SHF_ALLOC sections that are not NOBITS)."""
    image = read_elf(str(elf))
    return sum(s.size for s in image.sections if s.is_alloc and s.type != "SHT_NOBITS")


def static_ram(elf: Path) -> int:
    """.data + .bss: the SHF_ALLOC sections that are writable (NOBITS or not)."""
    image = read_elf(str(elf))
    return sum(s.size for s in image.sections if s.is_alloc and s.is_writable)


def advice(elf: Path, linker_map: Path | None, models: list[Path]) -> list[dict]:
    command = [sys.executable, "-m", "sizetool.cli", "fit", str(elf), *map(str, models), "--advise", "--format",
               "json", "--no-cache"]
    if linker_map is not None:
        command += ["--map", str(linker_map)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{elf}: size-report fit exited {done.returncode}: {done.stderr.strip()}")
    return json.loads(done.stdout)["advice"]


def row(entry: dict, root: Path, distribution: str) -> dict:
    firmware = root / entry["firmware"]
    linker_map = root / entry["map"] if entry.get("map") else Path(str(firmware) + ".map")
    models = [MODELS / name for name in entry.get("models", [])]
    changes = [c for c in advice(firmware, linker_map if linker_map.is_file() else None, models)
               if c["kind"] == entry["kind"] and entry.get("match", "") in c["change"]]
    if len(changes) != 1:
        raise SystemExit(f"{firmware}: {len(changes)} {entry['kind']} changes match {entry.get('match', '')!r}: "
                         f"{[c['change'] for c in changes]}")
    change = changes[0]
    predicted = change["combined_bytes"] if entry.get("combined") else change["bytes"]
    measure = static_ram if change["memory"] == "ram" else flash
    # a figure of the change made together with others (`combined`) is held against the firmware with those made too
    real = measure(root / entry.get("real_from", entry["firmware"])) - measure(root / entry["rebuilt"])
    error = None if predicted is None else predicted - real
    return {"kind": entry["kind"], "distribution": distribution, "setup": entry["setup"],
            "change": change["change"] + (" (with the others of its kind made)" if entry.get("combined") else ""),
            "certainty": change["certainty"], "predicted": "" if predicted is None else predicted, "real": real,
            "error": "" if error is None else error,
            "error_percent": "" if error is None else f"{100 * error / real:.2f}",
            "may_save_more": change.get("may_save_more", 0), "may_save_less": change.get("may_save_less", 0),
            "source": f"{entry.get('real_from', entry['firmware'])} against {entry['rebuilt']}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("manifest")
    parser.add_argument("root")
    parser.add_argument("--csv", help="replace this CSV's rows of the manifest's distribution")
    args = parser.parse_args()
    manifest = json.loads(Path(args.manifest).read_text())
    rows = [row(entry, Path(args.root), manifest["distribution"]) for entry in manifest["rows"]]
    if args.csv:
        kept = [r for r in csv.DictReader(open(args.csv)) if r["distribution"] != manifest["distribution"]]
        with open(args.csv, "w", newline="") as out:
            writer = csv.DictWriter(out, FIELDS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(kept + rows)
    else:
        writer = csv.DictWriter(sys.stdout, FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
