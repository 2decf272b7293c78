"""`gen-resolver --fit` against real keep-only TFLM builds (tests/data/fit_truth*.csv, measured by
benchmarks/fit_truth.py; the builds and their commands are in docs/fit.md): the shipped profiles still predict what
the table says, and the table meets the goals (flash within 0.5% of the real ROM, static RAM within 64 B, the stack
equal to `size-report --stack --model` on the real build). Rows whose model is not in ../shared/models are skipped."""

import csv
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, SHARED_MODELS
from tflm_facts.target_profile import load_profile, shipped_profiles
from tflm_model.target_fit import fit

# fit_truth.csv: TFLM's own Makefile builds; fit_truth_<distribution>.csv: a distribution's builds (docs/fit.md)
TRUTHS = sorted((REPO_ROOT / "tests" / "data").glob("fit_truth*.csv"))
ROWS = [{**row, "table": truth.name} for truth in TRUTHS for row in csv.DictReader(truth.open())]
# The flash goal is 0.5%. pico-tflmicro's profiles meet it on every model (docs/fit.md, pico-tflmicro on RP2040 and
# RP2350: -0.37% to +0.08%), held to what was measured, so that it cannot silently get worse. Arduino's (arduino-nano33ble-cortex-m4f-cmsis_nn) and Zephyr's
# module (zephyr-cortex-m4f-reference) meet it on every model, and are held to what was measured too: within 0.07%
# and 0.15% (docs/fit.md).
FLASH_GOAL = {"fit_truth.csv": 0.005, "fit_truth_pico.csv": 0.004, "fit_truth_arduino.csv": 0.0007,
              "fit_truth_zephyr.csv": 0.0015}
# Zephyr's module on a Cortex-M33 (docs/fit.md, Zephyr's tflite-micro module on a Cortex-M33) meets 0.5% on every
# model: held to what was measured, -0.02% to +0.10% with reference kernels and +0.01% to +0.09% with CMSIS-NN.
FLASH_GOAL["fit_truth_zephyr_m33.csv"] = 0.0011
FLASH_GOAL["fit_truth_zephyr_m33_cmsis_nn.csv"] = 0.001
# esp-tflite-micro on ESP32-C3 (esp-tflite-micro-esp32c3-esp_nn) meets it: -0.40% to +0.05% (docs/fit.md,
# esp-tflite-micro on an ESP32-C3).
FLASH_GOAL["fit_truth_esp.csv"] = 0.005
STATIC_RAM_GOAL: dict[str, int] = {}  # every table within 64 bytes


def test_the_table_covers_at_least_six_models_of_every_shipped_profile():
    for name in shipped_profiles():
        assert len({row["model"] for row in ROWS if row["profile"] == name}) >= 6, name


@pytest.mark.parametrize("row", ROWS, ids=lambda row: f"{row['profile']}/{row['model']}")
def test_the_measured_table_meets_the_goals(row):
    real_rom, flash = int(row["real_rom"]), int(row["predicted_flash"])
    assert abs(flash - real_rom) <= real_rom * FLASH_GOAL[row["table"]]
    assert abs(int(row["predicted_static_ram"]) - int(row["real_static_ram"])) <= STATIC_RAM_GOAL.get(row["table"], 64)
    assert row["predicted_stack"] == row["real_stack"]


@pytest.mark.parametrize("row", ROWS, ids=lambda row: f"{row['profile']}/{row['model']}")
def test_the_shipped_profile_predicts_what_the_table_says(row):
    model = Path(SHARED_MODELS) / row["model"]
    if not model.is_file():
        pytest.skip(f"{model} is absent (real public models are optional)")
    if row["profile"] not in shipped_profiles():
        pytest.skip(f"profile {row['profile']} is not shipped")
    answer = fit(load_profile(row["profile"]), [model])
    assert (answer.flash, answer.static_ram, answer.arena.total_bytes) == (
        int(row["predicted_flash"]), int(row["predicted_static_ram"]), int(row["arena_bytes"]))
    assert str(answer.stack if answer.stack is not None else "") == row["predicted_stack"]


def test_the_shipped_profiles_are_compressed_and_stay_under_400_kb_together():
    folder = REPO_ROOT / "tflm_facts" / "profiles"
    files = sorted(folder.iterdir())
    assert files and all(path.name.endswith(".json.xz") for path in files)
    assert sum(path.stat().st_size for path in files) < 400 * 1024


CALIBRATION = list(csv.DictReader((REPO_ROOT / "tests" / "data" / "calibration_truth.csv").open()))


@pytest.mark.parametrize("row", CALIBRATION, ids=lambda row: f"{row['firmware_model']}+{row['asked_model']}")
def test_calibrated_answers_are_within_1_percent_of_the_relink_and_inside_their_bound(row):
    # size-report fit keep_A.elf B.tflite (B needs ops A's firmware lacks) against A's app relinked with B's ops
    # (docs/fit.md#calibrated-on-your-own-firmware): measured on real builds outside the repository
    relink, answer = int(row["relink_rom"]), int(row["calibrated_flash"])
    assert abs(answer - relink) <= relink * 0.01
    assert int(row["low"]) <= relink <= int(row["high"])
    assert row["missing"] and int(row["firmware_rom"]) < relink


EXAMPLES = list(csv.DictReader((REPO_ROOT / "tests" / "data" / "pico_examples_truth.csv").open()))


@pytest.mark.parametrize("row", EXAMPLES, ids=lambda row: row["example"])
def test_pico_tflmicros_own_examples_are_within_1_percent_of_their_tflm_model_and_c_library(row):
    # pico-tflmicro's examples built with its CMake, Release (docs/fit.md, pico-tflmicro's own examples): the TFLM,
    # model and C-library bytes size-report splits out of the example's ELF, against --fit (the examples keep their
    # resolver and interpreter as function-local statics: --app-statics) less the platform part of its runtime
    # (pico-sdk, the app's main, fill: the same split of the keep-only build)
    model = Path(SHARED_MODELS) / row["model"]
    if not model.is_file():
        pytest.skip(f"{model} is absent (real public models are optional)")
    answer = fit(load_profile(row["profile"]), [model], app_statics=row["app_statics"] == "1")
    predicted, real = answer.flash - int(row["platform_bytes"]), int(row["tflm_model_c_library"])
    assert abs(predicted - real) <= real * 0.01
    without = fit(load_profile(row["profile"]), [model]).flash - int(row["platform_bytes"])
    assert real - without > real * 0.02  # the guard and exception runtime the examples' statics link


SWAPS = [{**row, "table": truth.name} for truth in sorted((REPO_ROOT / "tests" / "data").glob("swap_truth*.csv"))
         for row in csv.DictReader(truth.open())]


@pytest.mark.parametrize("row", SWAPS, ids=lambda row: f"{row['target']}/{row['firmware_model']}->{row['asked_model']}")
def test_another_model_on_this_firmware_is_within_half_a_percent_of_its_own_app_and_inside_its_bound(row):
    # size-report fit keep_A.elf B.tflite (B in place of A's model, gen-resolver's resolver for B) against keep_B, the
    # same app built with B's header and array (docs/fit.md#another-model-on-this-firmware): measured on real builds
    # outside the repository by benchmarks/swap_truth.py
    real, answer = int(row["real_rom"]), int(row["predicted_flash"])
    assert abs(answer - real) <= real * 0.005
    assert int(row["low"]) <= real <= int(row["high"])
    # static RAM: equal on pico-tflmicro; within 12 B on Arduino's library and Zephyr's module (the kernels' .bss the
    # set questions move)
    ram_goal = {"swap_truth_pico.csv": 0, "swap_truth_arduino.csv": 12, "swap_truth_zephyr.csv": 12}[row["table"]]
    assert abs(int(row["predicted_static_ram"]) - int(row["real_static_ram"])) <= ram_goal
    # the arrays went out and in: the firmware's own model, rounded up to 16, and the new one
    assert int(row["models_out_bytes"]) % 16 == 0 and int(row["models_in_bytes"]) % 16 == 0


def test_the_swap_tables_cover_both_ways_larger_and_smaller_more_and_fewer_ops():
    for target in {row["target"] for row in SWAPS}:
        rows = [row for row in SWAPS if row["target"] == target]
        pairs = {(row["firmware_model"], row["asked_model"]) for row in rows}
        assert all((b, a) in pairs for a, b in pairs)  # both ways
        assert any(int(r["models_in_bytes"]) > int(r["models_out_bytes"]) for r in rows)
        assert any(int(r["models_in_bytes"]) < int(r["models_out_bytes"]) for r in rows)
        assert any(r["missing"] for r in rows) and any(r["dropped"] for r in rows)
        assert any(not r["missing"] for r in rows)  # every op already linked: no profile
