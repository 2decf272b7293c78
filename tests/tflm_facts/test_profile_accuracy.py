"""Every shipped profile states how closely it was measured, and what it states is what the measured tables say."""

import csv
from collections import defaultdict

import pytest

from tests.conftest import REPO_ROOT
from tflm_facts.profile_accuracy import MEASURED, accuracy_of, describe_accuracy
from tflm_facts.target_profile import shipped_profiles


def measured_rows() -> dict[str, list[tuple[str, dict]]]:
    rows = defaultdict(list)
    for table in sorted((REPO_ROOT / "tests" / "data").glob("fit_truth*.csv")):
        for row in csv.DictReader(table.open()):
            rows[row["profile"]].append((table.name, row))
    return rows


def test_every_shipped_profile_has_its_measured_accuracy():
    assert sorted(MEASURED) == sorted(shipped_profiles())


@pytest.mark.parametrize("profile", sorted(MEASURED))
def test_the_stated_accuracy_is_the_measured_tables(profile):
    rows = measured_rows()[profile]
    stated = MEASURED[profile]
    errors = [(int(r["predicted_flash"]) - int(r["real_rom"])) / int(r["real_rom"]) * 100 for _, r in rows]
    assert stated.builds == len(rows)
    assert stated.table == rows[0][0]
    assert stated.flash_low_percent == round(min(errors), 2)
    assert stated.flash_high_percent == round(max(errors), 2)
    assert stated.static_ram_within == max(abs(int(r["predicted_static_ram"]) - int(r["real_static_ram"]))
                                           for _, r in rows)
    assert stated.stack_within == max(abs(int(r["predicted_stack"]) - int(r["real_stack"])) for _, r in rows)


def test_an_unmeasured_profile_says_so():
    assert accuracy_of("my-own-board") is None
    assert "not measured" in describe_accuracy(None)
    assert "flash -0.37% to +0.06%" in describe_accuracy(accuracy_of("pico-rp2040"))
