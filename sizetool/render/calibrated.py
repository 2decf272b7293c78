"""The calibrated flash answer (sizetool/profile/calibrated_fit.py) as a JSON dict: the firmware with exactly the
models' ops, the ops it lacks added from a profile scaled on it, and the answer's bound. render/model_swap.py prints it
inside the answer for the firmware running the models (`size-report fit`, `gen-resolver --fit PROFILE --calibrate`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sizetool.profile.calibrated_fit import CalibratedFlash


def calibrated_to_dict(answer: CalibratedFlash) -> dict:
    return {
        "flash": answer.flash, "low": answer.low, "high": answer.high, "from_firmware": answer.from_firmware,
        "linked": list(answer.linked), "missing": list(answer.missing), "not_counted": list(answer.unprovided),
        "application_kernels": list(answer.application_kernels),
        "profile": answer.profile, "profile_choice": answer.profile_choice, "profile_bytes": answer.profile_bytes,
        "added": answer.added, "scaled": answer.scaled, "scale": round(answer.scale, 6),
        "measured_scale": round(answer.measured_scale, 6), "scale_registrations": list(answer.common),
        "scale_bytes_here": answer.common_here, "scale_bytes_there": answer.common_there,
        "other_answer": answer.other_answer, "may_be_high_by": answer.may_be_high_by,
        "profile_accuracy": answer.profile_accuracy,
        "may_be_low_by": answer.may_be_low_by, "firmware_rom": answer.firmware_rom,
        "machinery_folded": answer.machinery_folded,
    }
