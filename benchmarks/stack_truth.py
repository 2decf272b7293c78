"""`size-report stack` and a profile's stack figure against the peak stack measured under qemu, per compiler and
model: the measured table of tests/data/stack_truth.csv.

A set-up is a directory holding one firmware per model, MODEL.elf, whose application paints the unused stack with a
pattern before `main` and again just before `Invoke()`, and after `Invoke()` prints, over semihosting,

    stack: main_sp=0x... invoke_sp=0x... setup_low=0x... invoke_low=0x... main_depth=N invoke_depth=N

(the lowest overwritten word below `main`'s entry and below the `Invoke()` call). Each firmware is run under
`qemu-system-arm -M mps2-an386 -semihosting`; the static figures are `size-report stack ELF
'tflite::MicroInterpreter::Invoke()' main --model MODEL.tflite`, with and without the error paths (`--ignore` of
those of MicroPrintf, VMicroPrintf, AbortImpl, __assert_func, DebugLog the ELF has), and the stack a profile exported
from the same firmware gives the model (`profile_invoke`). Rows are printed as CSV, or written to --csv.

    python benchmarks/stack_truth.py COMPILER=DIR [COMPILER=DIR ...] --models DIR [--csv tests/data/stack_truth.csv]

The builds behind the committed table (TFLM 90b983c, reference kernels, Cortex-M4F, -Os -g, clang 14 and
arm-none-eabi-gcc 12.2) are described in docs/stack.md ("On clang-built firmware").
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sizetool.inputs.elf_reader import read_elf  # noqa: E402
from sizetool.stack.stack_depth import analyse_stack  # noqa: E402

FIELDS = ("compiler", "model", "measured_invoke", "static_invoke", "static_invoke_no_errors", "measured_main",
          "static_main", "static_main_no_errors", "profile_invoke")
INVOKE = "tflite::MicroInterpreter::Invoke()"
ERROR_PATHS = ("AbortImpl", "MicroPrintf", "VMicroPrintf", "__assert_func", "DebugLog")
_RUN = "import sys; from {} import main; sys.exit(main(sys.argv[1:]))"
QEMU = ["qemu-system-arm", "-M", "mps2-an386", "-display", "none", "-monitor", "none", "-serial", "null",
        "-semihosting", "-kernel"]


def measured(elf: Path) -> tuple[int, int]:
    """(main's peak, Invoke()'s peak) the firmware prints."""
    run = subprocess.run(QEMU + [str(elf)], capture_output=True, text=True, timeout=900)
    output = run.stdout + run.stderr  # semihosting's console
    match = re.search(r"main_depth=(\d+) invoke_depth=(\d+)", output)
    if not match:
        sys.exit(f"stack_truth.py: {elf} printed no stack line")
    return int(match.group(1)), int(match.group(2))


def static(elf: Path, model: Path) -> dict[str, int]:
    image = read_elf(str(elf))
    demangled = subprocess.run(["arm-none-eabi-nm", "-C", str(elf)], capture_output=True, text=True).stdout
    ignore = [name for name in ERROR_PATHS if re.search(rf" [TtWw] (tflite::)?{name}(\(|$)", demangled, re.M)]
    full = analyse_stack(image, [INVOKE, "main"], model_paths=[str(model)])
    narrow = analyse_stack(image, [INVOKE, "main"], model_paths=[str(model)], ignore=ignore)
    depth = {root.root: root.depth for root in full.roots}
    depth_narrow = {root.root: root.depth for root in narrow.roots}
    return {"static_invoke": depth[INVOKE], "static_invoke_no_errors": depth_narrow[INVOKE],
            "static_main": depth["main"], "static_main_no_errors": depth_narrow["main"]}


def profile_invoke(elf: Path, model: Path, scratch: Path) -> int:
    profile = scratch / f"{elf.stem}.profile.json"
    subprocess.run([sys.executable, "-c", _RUN.format("sizetool.cli"), "profile", str(elf), "-o", str(profile)],
                   check=True, capture_output=True)
    output = subprocess.run([sys.executable, "-c", _RUN.format("resolver_gen.cli"), str(model), "--fit", str(profile),
                             "--format", "json"], capture_output=True, text=True).stdout
    return int(json.loads(output)["stack"]["bytes"])


def rows(compiler: str, directory: Path, models: Path, scratch: Path) -> list[dict]:
    found = []
    for elf in sorted(directory.glob("*.elf")):
        model = models / f"{elf.stem}.tflite"
        main, invoke = measured(elf)
        row = {"compiler": compiler, "model": elf.stem, "measured_invoke": invoke, "measured_main": main}
        row.update(static(elf, model))
        row["profile_invoke"] = profile_invoke(elf, model, scratch)
        found.append(row)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("setups", nargs="+", metavar="COMPILER=DIR")
    parser.add_argument("--models", required=True, type=Path)
    parser.add_argument("--csv", type=Path)
    args = parser.parse_args()

    table = []
    with tempfile.TemporaryDirectory() as scratch:
        for setup in args.setups:
            compiler, _, directory = setup.partition("=")
            table += rows(compiler, Path(directory), args.models, Path(scratch))
    stream = args.csv.open("w", newline="") if args.csv else sys.stdout
    writer = csv.DictWriter(stream, FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
