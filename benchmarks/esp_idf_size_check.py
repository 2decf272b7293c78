"""size-report's ESP-IDF figures beside esp-idf-size's, on ELF + map pairs you have (e.g. public ESP-IDF builds).

For each pair, prints the image size, every memory type's use and (RAM types) its free bytes from both tools
(esp-idf-size's `remain`, size-report's `free` of used / reserved / free), and whether they are equal.
esp-idf-size's figures come from its `--format json2` output, which you produce yourself (pip install esp-idf-size,
outside this repository; put a project_description.json with {"target": ..., "app_elf": ...} beside the map so that
it reads the ELF too, as an ESP-IDF build directory has):

    python -m esp_idf_size --format json2 build/app.map > app.esp-idf-size.json
    python benchmarks/esp_idf_size_check.py build/app.elf build/app.map app.esp-idf-size.json [more triples...]

Without arguments it checks the committed ESP-IDF-like fixtures (fixtures/layouts/out/esp32*-like).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sizetool.report.esp_idf_layout import IMAGE_SUFFIX  # noqa: E402
from sizetool.report.ram_use import ram_use  # noqa: E402
from sizetool.report.report_builder import build_report  # noqa: E402


def compare(elf: str, linker_map: str, recorded: str) -> bool:
    start = time.perf_counter()
    report = build_report(elf, map_path=linker_map, use_cache=False)
    seconds = time.perf_counter() - start
    theirs = json.loads(Path(recorded).read_text())
    ours = {r.name: r.used for r in report.regions if not r.name.endswith(IMAGE_SUFFIX)}
    free = {use.region: use.free for use in ram_use(report)}
    print(f"\n{elf}  ({report.input_format}; {seconds:.2f} s)")
    for warning in report.warnings:
        print(f"  {warning}")
    print(f"{'memory type':16} {'esp-idf-size':>12} {'size-report':>12}  equal")
    rows = [("image (ROM)", theirs["total_size"], report.rom_total)]
    rows += [(part["name"], part["used"], ours.pop(part["name"], 0)) for part in theirs["layout"]]
    rows += [(name, 0, used) for name, used in ours.items() if used]
    rows += [(f"{part['name']} free", part["free"], free.get(part["name"], 0)) for part in theirs["layout"]
             if "Flash" not in part["name"]]
    ram_theirs = sum(p["used"] for p in theirs["layout"] if "Flash" not in p["name"])
    rows.append(("RAM (all types)", ram_theirs, report.ram_total))
    all_equal = True
    for name, expected, got in rows:
        all_equal &= expected == got
        print(f"{name:16} {expected:>12} {got:>12}  {'yes' if expected == got else 'NO'}")
    return all_equal


def main(argv: list[str]) -> int:
    if argv:
        if len(argv) % 3:
            print("usage: esp_idf_size_check.py ELF MAP ESP_IDF_SIZE_JSON [ELF MAP JSON ...]", file=sys.stderr)
            return 2
        triples = [argv[i : i + 3] for i in range(0, len(argv), 3)]
    else:
        out = REPO / "fixtures" / "layouts" / "out"
        triples = [[str(out / n / f"{n}.elf"), str(out / n / f"{n}.map"), str(out / n / "esp-idf-size.json")]
                   for n in ("esp32-like", "esp32c3-like")]
    ok = all([compare(*triple) for triple in triples])
    print("\nall equal" if ok else "\nNOT all equal")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
