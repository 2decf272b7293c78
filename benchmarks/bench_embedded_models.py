"""Benchmark: what finding the TFLite models linked into a firmware adds to a cold size-report.

Every cold report searches the ELF's read-only sections for the TFL3 identifier (sizetool/inputs/firmware_models.py);
only a firmware that holds a model pays for its breakdown (the model's parts as report entries) and its record (the
operators, and what stripping names and metadata saves, measured by writing the model twice with the flatbuffers
Builder). The target: finding the models in a 13 MB -g ELF adds under 20 ms to a cold report.

Prints, for each ELF, its size, the models found, and the fastest of --repeat runs (in-process, after the ELF's
headers are read, as the report reads them) of: the search; the search, breakdown and records together; and a whole
cold `size-report ELF --no-cache --format json` for scale.

    python benchmarks/bench_embedded_models.py [--elf FIRMWARE.elf ...] [--large DIR [--units 250]] [--repeat 5]
                                               [--models ../shared/models]

--large builds make_large_elf.py's C++ ELF with DWARF into DIR (host g++ -O1 -g; 250 units give about 13 MB), the
shape of a -g build without a model; --elf adds real firmware (e.g. pico-tflmicro's person_detection, which holds a
300 KB model).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_large_elf import build  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sizetool.inputs.elf_reader import read_elf  # noqa: E402
from sizetool.inputs.firmware_models import embedded_models  # noqa: E402
from sizetool.report.model_records import model_record  # noqa: E402


def fastest(function, repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def added_cost(elf: str, repeat: int) -> None:
    image = read_elf(elf)
    search, models = fastest(lambda: embedded_models(image), repeat)

    def everything():
        from sizetool.report.model_records import expand_model_entries
        from sizetool.report.report_model import SizeEntry

        found = embedded_models(image)
        entries = [SizeEntry("rom", ("app",), m.symbol, ".rodata", m.address, m.size) for m in found]
        expand_model_entries(entries, found, elf)
        return [model_record(m, elf) for m in found]

    total, records = fastest(everything, repeat)
    start = time.perf_counter()
    env = dict(os.environ, SIZETOOL_NO_CACHE="1")
    subprocess.run([sys.executable, "-c", "import sys; from sizetool.cli import main; sys.exit(main())", elf,
                    "--format", "json"], cwd=REPO, env=env, stdout=subprocess.DEVNULL, check=True)
    report = time.perf_counter() - start
    print(f"{elf}: {os.path.getsize(elf) / 1e6:.1f} MB, {len(models)} model(s)"
          + "".join(f"\n  {m.symbol}: {m.size} bytes, sized by {m.sized_by}" for m in models))
    print(f"  search for models:                  {search * 1000:7.1f} ms (target: under 20 ms on a 13 MB -g ELF)")
    print(f"  search + breakdown + records:       {total * 1000:7.1f} ms"
          + "".join(f"\n    {r.symbol}: stripping names and metadata saves {r.strip_saving} bytes" for r in records
                    if r.strip_saving is not None))
    print(f"  whole cold report (one run, scale): {report * 1000:7.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--elf", action="append", default=[], help="a firmware ELF (repeatable)")
    parser.add_argument("--large", metavar="DIR", help="build make_large_elf.py's -g ELF into DIR")
    parser.add_argument("--units", type=int, default=250)
    parser.add_argument("--functions", type=int, default=160)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--models", metavar="DIR", help="also print what stripping saves on each .tflite in DIR")
    args = parser.parse_args()
    if args.models:
        from tflm_model.model_layout import strip_saving

        for path in sorted(Path(args.models).glob("*.tflite")):
            saving = strip_saving(path)
            print(f"{path.name}: {path.stat().st_size} bytes; written again {saving.rewritten}, without names and "
                  f"metadata {saving.stripped}: stripping saves {saving.saving}")
    elves = list(args.elf)
    if args.large:
        elves.insert(0, str(build(Path(args.large), args.units, args.functions)))
    if not elves:
        elves = [str(REPO / "fixtures/embedded_models/out/tflm-two-models/firmware.elf"),
                 str(REPO / "fixtures/firmware/out/cortex-m4/firmware.elf")]
    for elf in elves:
        added_cost(elf, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
