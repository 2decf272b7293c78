"""The calibrated flash answer (sizetool/profile/calibrated_fit.py) as text lines and a JSON dict: the firmware with
exactly the models' ops, the ops it lacks added from a profile scaled on it, and the answer's bound. `size-report fit`
and `gen-resolver --fit PROFILE --calibrate ELF` print the same lines."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sizetool.profile.calibrated_fit import CalibratedFlash


def calibrated_lines(answer: CalibratedFlash) -> list[str]:
    linked = ", ".join(answer.linked) or "none"
    scale = (f"x {answer.scale:.3f}" if answer.scaled else
             f"not scaled (built as the profile: same compiler, CPU and kernels; measured {answer.measured_scale:.3f})")
    lines = [
        f"With the missing ops added (calibrated on this firmware): {answer.flash:,} bytes",
        f"  {answer.from_firmware:>10,}  from this firmware: its ROM with exactly the {len(answer.linked)} linked "
        f"registration(s) the models use ({linked})",
        f"  {answer.added:>10,}  {', '.join(answer.missing) or 'nothing'} from profile {answer.profile} "
        f"({answer.profile_choice}): {answer.profile_bytes:,} B there, {scale}",
        f"  scale: kernel code of the {len(answer.common)} registration(s) both link, here / there: "
        f"{answer.common_here:,} / {answer.common_there:,} B",
        f"  bound: {answer.low:,} to {answer.high:,} (the answer {'unscaled' if answer.scaled else 'scaled'}: "
        f"{answer.other_answer:,}; the compiler's inlining: up to {answer.may_be_high_by:,} B too high or "
        f"{answer.may_be_low_by:,} B too low; the profile's accuracy: {answer.profile_accuracy:,} B either way)",
    ]
    if answer.unprovided:
        lines.append(f"  not counted: {', '.join(answer.unprovided)} (neither this firmware nor the profile has a "
                     "kernel for it)")
    return lines


def calibrated_to_dict(answer: CalibratedFlash) -> dict:
    return {
        "flash": answer.flash, "low": answer.low, "high": answer.high, "from_firmware": answer.from_firmware,
        "linked": list(answer.linked), "missing": list(answer.missing), "not_counted": list(answer.unprovided),
        "profile": answer.profile, "profile_choice": answer.profile_choice, "profile_bytes": answer.profile_bytes,
        "added": answer.added, "scaled": answer.scaled, "scale": round(answer.scale, 6),
        "measured_scale": round(answer.measured_scale, 6), "scale_registrations": list(answer.common),
        "scale_bytes_here": answer.common_here, "scale_bytes_there": answer.common_there,
        "other_answer": answer.other_answer, "may_be_high_by": answer.may_be_high_by,
        "profile_accuracy": answer.profile_accuracy,
        "may_be_low_by": answer.may_be_low_by, "firmware_rom": answer.firmware_rom,
        "machinery_folded": answer.machinery_folded,
    }
