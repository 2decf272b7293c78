"""The advice's figures against real rebuilds (tests/data/advice_truth.csv, measured by benchmarks/advice_truth.py):
the kernel-set change predicted on a Cortex-M4F CMSIS-NN build of TFLM 90b983c (ten registrations, -O2 -g) against the
same app rebuilt with the reference kernels, within 1% of the real difference. With the builds at hand
(TFLM_RELINKS_DIR, as for tests/sizetool/operators/test_drop_relinks.py) the row is recomputed."""

import csv
import os
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

ROWS = list(csv.DictReader((REPO_ROOT / "tests" / "data" / "advice_truth.csv").open()))


def test_the_kernel_set_saving_is_within_one_percent_of_the_rebuild():
    rows = [row for row in ROWS if row["kind"] == "kernel-set"]
    assert any(row["setup"].startswith("cmsis_nn->") for row in rows)
    for row in rows:
        predicted, real = int(row["predicted"]), int(row["real"])
        assert int(row["error"]) == predicted - real
        assert abs(predicted - real) <= 0.01 * real, row


def test_the_model_strip_saving_is_what_the_rebuild_saves():
    rows = [row for row in ROWS if row["kind"] == "model-strip"]
    assert len(rows) >= 2
    for row in rows:
        assert int(row["predicted"]) - int(row["real"]) == int(row["error"])
        assert abs(int(row["error"])) <= 16, row  # the array's alignment at most


@pytest.mark.skipif(not os.environ.get("TFLM_RELINKS_DIR"), reason="TFLM_RELINKS_DIR (the relink builds, outside "
                    "this repository) is not set")
def test_the_rebuilds_give_what_the_table_says():
    import sys

    sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
    from advice_truth import kernel_set_row

    root = Path(os.environ["TFLM_RELINKS_DIR"])
    for row in (r for r in ROWS if r["kind"] == "kernel-set"):
        source, target = row["setup"].split("->")
        measured = kernel_set_row(source, root / source, target, root / target)
        assert (measured["predicted"], measured["real"]) == (int(row["predicted"]), int(row["real"]))
