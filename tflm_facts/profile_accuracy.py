"""How closely each shipped target profile was measured: `gen-resolver --fit` against real keep-only builds made the
way the profile's distribution builds (each app: TFLM, one model's `gen-resolver` header and the model as an
`alignas(16)` array, with a `main` that runs it once and prints nothing more than the distribution's example does).

The figures are the measured tables' summary (tests/data/fit_truth*.csv; tests/tflm_facts/test_profile_accuracy.py
recomputes them from those tables, so they cannot drift), shown by `gen-resolver --fit show NAME`. docs/fit.md says
how each table was measured.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProfileAccuracy:
    builds: int  # keep-only builds measured (one model each)
    flash_low_percent: float  # the answer's flash against the real ROM: the lowest and highest error, in percent
    flash_high_percent: float
    static_ram_within: int  # bytes either way
    stack_within: int  # bytes either way
    table: str  # the measured table, under tests/data


MEASURED = {
    "arduino-nano33ble-cortex-m4f-cmsis_nn": ProfileAccuracy(9, -0.01, 0.06, 12, 0, "fit_truth_arduino.csv"),
    "cortex-m0plus-cmsis_nn": ProfileAccuracy(10, 0.05, 0.30, 8, 0, "fit_truth.csv"),
    "cortex-m0plus-reference": ProfileAccuracy(10, 0.02, 0.16, 8, 0, "fit_truth.csv"),
    "cortex-m33-cmsis_nn": ProfileAccuracy(10, -0.05, -0.00, 8, 0, "fit_truth.csv"),
    "cortex-m33-reference": ProfileAccuracy(10, -0.05, 0.01, 8, 0, "fit_truth.csv"),
    "cortex-m4f-cmsis_nn": ProfileAccuracy(10, -0.07, -0.01, 8, 0, "fit_truth.csv"),
    "cortex-m4f-reference": ProfileAccuracy(10, -0.09, -0.00, 8, 0, "fit_truth.csv"),
    "cortex-m55-cmsis_nn": ProfileAccuracy(10, -0.08, -0.00, 9, 0, "fit_truth.csv"),
    "cortex-m55-reference": ProfileAccuracy(10, -0.08, 0.00, 9, 0, "fit_truth.csv"),
    "cortex-m7f-cmsis_nn": ProfileAccuracy(10, -0.03, 0.01, 9, 0, "fit_truth.csv"),
    "cortex-m7f-reference": ProfileAccuracy(10, -0.03, 0.01, 9, 0, "fit_truth.csv"),
    "esp-tflite-micro-esp32c3-esp_nn": ProfileAccuracy(10, -0.40, 0.05, 36, 0, "fit_truth_esp.csv"),
    "pico-rp2040": ProfileAccuracy(10, -0.37, 0.06, 0, 0, "fit_truth_pico.csv"),
    "pico-rp2350": ProfileAccuracy(10, -0.37, 0.08, 0, 0, "fit_truth_pico.csv"),
    "riscv32-reference": ProfileAccuracy(10, -0.13, 0.08, 16, 0, "fit_truth.csv"),
    "zephyr-cortex-m33-cmsis_nn": ProfileAccuracy(9, 0.01, 0.09, 16, 0, "fit_truth_zephyr_m33_cmsis_nn.csv"),
    "zephyr-cortex-m33-reference": ProfileAccuracy(9, -0.02, 0.10, 16, 0, "fit_truth_zephyr_m33.csv"),
    "zephyr-cortex-m4f-reference": ProfileAccuracy(9, 0.01, 0.14, 16, 0, "fit_truth_zephyr.csv"),
}


def accuracy_of(profile: str) -> ProfileAccuracy | None:
    """The profile's measured accuracy; None for a profile nobody measured (a user's own export)."""
    return MEASURED.get(profile)


def describe_accuracy(accuracy: ProfileAccuracy | None) -> str:
    if accuracy is None:
        return "not measured against real builds (a profile of your own: measure it as docs/fit.md describes)"
    stack = "equal" if accuracy.stack_within == 0 else f"within {accuracy.stack_within} B"
    return (f"measured against {accuracy.builds} keep-only builds made the way this distribution builds: flash "
            f"{accuracy.flash_low_percent:+.2f}% to {accuracy.flash_high_percent:+.2f}%, static RAM within "
            f"{accuracy.static_ram_within} B, stack {stack} (tests/data/{accuracy.table}, docs/fit.md)")
