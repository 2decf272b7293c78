"""The advice's figures against real rebuilds (tests/data/advice_truth.csv): one row per change, the firmware as built
against the same firmware rebuilt with that change made, on two distributions:

- TFLM 90b983c for a Cortex-M4F, -O2 -g (benchmarks/advice_truth.py; the builds of benchmarks/tflm_relinks/; and
  keep-only apps with its LSTM kernels: manifest_tflm90b983c.json);
- Zephyr's tflite-micro module (8d404de) for a Cortex-M4F at -Os, reference and CMSIS-NN kernels, and pico-tflmicro
  for the RP2040 (CMSIS-NN, -O3) (benchmarks/advice_rebuilds.py with the manifests of benchmarks/advice_rebuilds/).

Every sized figure is within 1% of what the rebuild saved (a model's array and the arena: within their 16-byte
alignment), or inside the bound the advice states with it; a change the advice names without a figure has none in the table, and the
row records what the rebuild saved. With the builds at hand (ADVICE_REBUILDS_DIR for the manifests' rows,
TFLM_RELINKS_DIR for 90b983c's kernel-set row) the rows are recomputed."""

import csv
import json
import os
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

ROWS = list(csv.DictReader((REPO_ROOT / "tests" / "data" / "advice_truth.csv").open()))
MANIFESTS = sorted((REPO_ROOT / "benchmarks" / "advice_rebuilds").glob("manifest*.json"))
ALIGNED = {"model-strip", "unused-buffers", "arena"}  # figures the advice states within the array's alignment


def sized(rows):
    return [row for row in rows if row["predicted"] != ""]


def stated_bound(row) -> tuple[int, int]:
    """What the advice said the real saving may exceed its figure by, and fall short of it by (0, 0: none stated)."""
    return int(row.get("may_save_more") or 0), int(row.get("may_save_less") or 0)


def test_every_sized_figure_is_within_one_percent_of_the_rebuild_or_inside_its_stated_bound():
    assert len(sized(ROWS)) >= 20
    for row in sized(ROWS):
        predicted, real, error = int(row["predicted"]), int(row["real"]), int(row["error"])
        assert error == predicted - real, row
        allowed = 15 if row["kind"] in ALIGNED else 0.01 * abs(real)
        more, less = stated_bound(row)
        assert -more - allowed <= error <= less + allowed, row


def test_the_registrations_no_model_uses_are_within_one_percent_where_the_resolver_keeps_its_size():
    """The set question's own figure, without its bound: the rebuilds that delete the AddXxx() lines (the resolver
    keeps its N) and the -Os ones, whose resolver lookups are loops whatever N."""
    rows = [row for row in sized(ROWS) if row["kind"] == "unused-registrations"
            and ("N stays" in row["setup"] or "-Os" in row["distribution"])]
    assert len({row["distribution"] for row in rows}) == 2
    for row in rows:
        assert abs(int(row["error"])) <= 0.01 * int(row["real"]), row


def test_gen_resolvers_smaller_resolver_is_inside_the_stated_bound_on_the_safe_side():
    """At -O3 (pico-tflmicro) gen-resolver's MicroMutableOpResolver<N - k> saves more than the calls dropped: the
    lookups and the AddXxx() calls unrolled with N shrink too. The figure stays the set question's (less than the
    real saving: the safe side) and the bound it states covers the rest."""
    rows = [row for row in sized(ROWS) if row["kind"] == "unused-registrations" and "-O3" in row["distribution"]
            and "gen-resolver's" in row["setup"]]
    assert rows
    for row in rows:
        error, (more, _) = int(row["error"]), stated_bound(row)
        assert error < 0 and -error <= more, row


def test_a_change_named_without_a_figure_has_none_and_says_so():
    unsized = [row for row in ROWS if row["predicted"] == ""]
    assert unsized, "the table records the type-reduced changes the advice cannot size, with what the rebuild saved"
    for row in unsized:
        assert row["certainty"] == "unsized" and row["error"] == "" and int(row["real"]) != 0, row


def test_each_kind_with_a_figure_is_held_on_two_distributions():
    distributions: dict[str, set[str]] = {}
    for row in sized(ROWS):
        distributions.setdefault(row["kind"], set()).add(row["distribution"].split(",")[0])
    assert {"unused-registrations", "type-reduced", "kernel-set", "model-strip", "unused-buffers",
            "arena"} <= set(distributions)
    for kind, found in distributions.items():
        assert len(found) >= 2, (kind, found)


def test_the_kernel_set_saving_holds_on_the_cmsis_nn_builds_of_both_distributions():
    rows = [row for row in sized(ROWS) if row["kind"] == "kernel-set" and "cmsis_nn->" in row["setup"]]
    assert len({row["distribution"] for row in rows}) == 2
    for row in rows:
        assert abs(int(row["error"])) <= 0.01 * int(row["real"]), row


def test_the_model_strip_saving_is_what_the_rebuild_saves():
    rows = [row for row in ROWS if row["kind"] == "model-strip"]
    assert len(rows) >= 4
    for row in rows:
        assert abs(int(row["error"])) <= 15, row  # the array's alignment at most


@pytest.mark.skipif(not os.environ.get("TFLM_RELINKS_DIR"), reason="TFLM_RELINKS_DIR (the relink builds, outside "
                    "this repository) is not set")
def test_the_rebuilds_give_what_the_table_says():
    import sys

    sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
    from advice_truth import DISTRIBUTION, kernel_set_row

    root = Path(os.environ["TFLM_RELINKS_DIR"])
    for row in (r for r in ROWS if r["kind"] == "kernel-set" and r["distribution"] == DISTRIBUTION):
        source, target = row["setup"].split("->")
        measured = kernel_set_row(source, root / source, target, root / target)
        assert (measured["predicted"], measured["real"]) == (int(row["predicted"]), int(row["real"]))


@pytest.mark.skipif(not os.environ.get("ADVICE_REBUILDS_DIR"), reason="ADVICE_REBUILDS_DIR (the Zephyr and "
                    "pico-tflmicro rebuilds, outside this repository) is not set")
@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda p: p.stem)
def test_the_manifests_rebuilds_give_what_the_table_says(manifest):
    import sys

    sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
    from advice_rebuilds import row

    data = json.loads(manifest.read_text())
    table = {(r["distribution"], r["setup"]): r for r in ROWS}
    root = Path(os.environ["ADVICE_REBUILDS_DIR"])
    for entry in data["rows"]:
        if not (root / entry["firmware"]).is_file():
            pytest.skip(f"{root / entry['firmware']} is absent")
        measured = row(entry, root, data["distribution"])
        expected = table[(data["distribution"], entry["setup"])]
        assert (str(measured["predicted"]), str(measured["real"])) == (expected["predicted"], expected["real"])
