"""The table of docs/fit.md: well-known models × shipped target profiles, `gen-resolver MODEL --fit PROFILE`'s flash,
RAM and stack for each.

Models: hello_world, micro_speech, person_detect (TFLM's examples) and MLPerf Tiny's kws, vww, ic and ad, looked up by
file name in the folders given (default ../shared/models); a model not found is left out with a note.

    python benchmarks/fit_table.py [--models-dir DIR ...] [--write]   # --write replaces the table in docs/fit.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tflm_facts.target_profile import load_profile, shipped_profiles  # noqa: E402
from tflm_model.target_fit import fit, profile_arena  # noqa: E402
from tflm_model.profile_sets import ProfileSets  # noqa: E402

MODELS = [
    ("hello_world", "hello_world_int8.tflite"),
    ("micro_speech", "micro_speech_quantized.tflite"),
    ("person_detect", "person_detect.tflite"),
    ("MLPerf Tiny kws", "mlperf_kws_ds_cnn_int8.tflite"),
    ("MLPerf Tiny vww", "mlperf_vww_mobilenet_int8.tflite"),
    ("MLPerf Tiny ic", "mlperf_ic_resnet_int8.tflite"),
    ("MLPerf Tiny ad", "mlperf_ad_autoencoder_int8.tflite"),
]
DOC = REPO / "docs" / "fit.md"
BEGIN, END = "<!-- fit_table.py: begin -->", "<!-- fit_table.py: end -->"


def kib(value: int) -> str:
    return f"{value / 1024:,.1f}"


def table(model_dirs: list[Path]) -> str:
    found = []
    for label, name in MODELS:
        path = next((d / name for d in model_dirs if (d / name).is_file()), None)
        if path is not None:
            found.append((label, path))
    profiles = [load_profile(name) for name in shipped_profiles()]
    lines = ["| model | " + " | ".join(p.name for p in profiles) + " |",
             "|---|" + "---:|" * len(profiles)]
    sets = {p.name: ProfileSets(p) for p in profiles}
    for label, path in found:
        cells = []
        for profile in profiles:
            answer = fit(profile, [str(path)], sets=sets[profile.name], arena=profile_arena(profile, [str(path)]))
            stack = "-" if answer.stack is None else f"{answer.stack:,}"
            missing = " (missing: " + ", ".join(m.op for m in answer.missing) + ")" if answer.missing else ""
            cells.append(f"{kib(answer.flash)} / {kib(answer.ram)} / {stack}{missing}")
        lines.append(f"| {label} (`{path.name}`) | " + " | ".join(cells) + " |")
    absent = [name for label, name in MODELS if name not in {p.name for _, p in found}]
    text = "\n".join(lines) + "\n"
    if absent:
        text += "\nNot found, left out: " + ", ".join(f"`{name}`" for name in absent) + ".\n"
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models-dir", action="append", type=Path, default=[])
    parser.add_argument("--write", action="store_true", help="replace the table in docs/fit.md")
    args = parser.parse_args()
    dirs = args.models_dir or [REPO.parent / "shared" / "models"]
    text = table(dirs)
    if args.write:
        doc = DOC.read_text()
        start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
        DOC.write_text(doc[:start] + "\n" + text + doc[end:])
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
