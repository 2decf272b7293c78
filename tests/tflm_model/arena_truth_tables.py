"""The measured-arena tables (tests/data/*_arena_truth.csv) the arena truth tests read: their rows, and the rows whose
model is here. A row names its model by a path: `fixtures/...` in this repository (always there), or a path under the
folder beside the repo (`shared/models/...`, `ext/...`; MODELS_ROOT overrides that folder), used when the file there
has the row's SHA-256."""

import csv
import hashlib
import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
MODELS_ROOT = Path(os.environ.get("MODELS_ROOT", REPO_ROOT.parent))


def truth_rows(table: str) -> list[dict]:
    """The rows of tests/data/`table`."""
    with open(REPO_ROOT / "tests" / "data" / table, newline="") as handle:
        return list(csv.DictReader(handle))


def rows_with_models(table: str) -> list[tuple[dict, Path]]:
    """(row, model path) for each row of `table` whose model file is present with the recorded SHA-256."""
    found = []
    for row in truth_rows(table):
        path = (REPO_ROOT if row["source"].startswith("fixtures/") else MODELS_ROOT) / row["source"]
        if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == row["sha256"]:
            found.append((row, path))
    return found


def dwarf_sizes(facts_name: str):
    """The struct sizes a measured build's DWARF gave (tests/data/<facts_name>), as the estimate takes them."""
    import json

    from tflm_facts.build_sizes import BuildSizes

    data = json.loads((REPO_ROOT / "tests" / "data" / facts_name).read_text())
    return BuildSizes(data["structs"], data["op_data"], data["params"], data["enum_bytes"], data["source"],
                      frozenset(data["rules"]))
