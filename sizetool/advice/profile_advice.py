"""The changes that would save flash or RAM before any firmware exists: `gen-resolver MODEL --fit PROFILE --flash
LIMIT` (tflm_model/target_fit.py's answer on a shipped profile).

The resolver gen-resolver writes registers exactly the models' ops, so there are no unused registrations to drop.
What is left, each predicted from the profile:
- type-reduced registrations (--reduce-types): the answer with them against the answer without;
- the other kernel set: the profile of the same CPU with the other set (reference <-> CMSIS-NN), same models;
- the models' names and metadata: each model written again with and without them (measured on the model; as
  embedded, each array is 16-byte aligned, which the figure includes); buffers no tensor uses: the model against
  the writer's output with their data emptied (measured the same way);
- build flags: a shipped profile of the same distribution and CPU built with other optimisation, same models.
The tensor arena is the planner's for these models: nothing here sizes another plan (named, unsized).
"""

from __future__ import annotations

import os

from sizetool.advice.changes import Change, ranked
from sizetool.advice.firmware_advice import KERNEL_SETS, SPEED_COST, STRIP_HOW, model_command, unused_buffer_change
from tflm_facts.target_profile import ProfileError, load_profile, shipped_profiles
from tflm_model.target_fit import FitReport, embedded_bytes


def profile_advice(report: FitReport) -> list[Change]:
    main = report.main
    changes: list[Change] = []
    if report.reduced is not None and not main.reduce_types:
        saving = main.flash - report.reduced.flash
        if saving > 0:
            changes.append(Change("type-reduced", "register the type-reduced kernels the models allow", saving,
                                  "flash", "predicted", "gen-resolver MODEL... --reduce-types",
                                  "none while the models' types stay; a model with other types fails at start-up",
                                  note=f"--fit {main.profile.name} with and without --reduce-types"))
        else:
            absent = [n.split(":")[0] for n in report.reduced.notes if "not in the profile" in n]
            if absent:  # the variants would save flash with this kernel set, but the profile links none of them
                changes.append(Change("type-reduced", f"register the type-reduced kernels the models allow "
                                      f"({', '.join(absent)})", None, "flash", "unsized",
                                      "gen-resolver MODEL... --reduce-types", "none while the models' types stay; a "
                                      "model with other types fails at start-up",
                                      note=f"{main.profile.name} registers only the generic kernels, so what the "
                                           "variants save is not sized here"))
    other = report.other_kernels
    if other is not None and not other.missing:
        for memory, saving in (("flash", main.flash - other.flash), ("ram", main.ram - other.ram)):
            if saving > 0:
                changes.append(Change(
                    "kernel-set", f"build with the {KERNEL_SETS.get(other.profile.build.kernels)} kernels "
                    f"({other.profile.name})", saving, memory, "predicted",
                    f"gen-resolver MODEL... --fit {other.profile.name}; rebuild TFLM with "
                    + ("OPTIMIZED_KERNEL_DIR=cmsis_nn" if other.profile.build.kernels == "cmsis_nn"
                       else "no OPTIMIZED_KERNEL_DIR"),
                    SPEED_COST.get(other.profile.build.kernels, "speed"),
                    combined_bytes=_reduced_other(report, memory), shares=("type-reduced",),
                    note=f"--fit {main.profile.name} against --fit {other.profile.name}"))
    changes += _model_changes(main.models)
    flags = _build_flags(report)
    if flags:
        changes.append(flags)
    changes.append(Change("arena", "plan the tensor arena offline (an OfflineMemoryAllocation in the model)", None,
                          "ram", "unsized", "write the plan into the model's metadata (TFLM's offline planner "
                          "format)", "work: a plan per model, redone at every re-export",
                          note="the planner's greedy layout is the figure counted; another plan is not sized here"))
    return ranked(changes)


def _reduced_other(report: FitReport, memory: str) -> int | None:
    """The other kernel set's saving once --reduce-types is made too (what the two share counted once)."""
    from tflm_model.target_fit import fit

    other, main = report.other_kernels, report.main
    if other is None or report.reduced is None or main.reduce_types:
        return None
    try:
        other_reduced = fit(other.profile, list(other.models), True)
    except ProfileError:
        return None
    reduced = report.reduced
    return (reduced.flash - other_reduced.flash) if memory == "flash" else (reduced.ram - other_reduced.ram)


def _model_changes(models) -> list[Change]:
    from tflm_model.errors import ModelError
    from tflm_model.model_layout import strip_saving
    from tflm_model.model_source import source_size

    changes = []
    for path in models:
        name = os.path.basename(str(path))
        try:
            saving = strip_saving(path)
            size = source_size(path)
        except (ModelError, OSError):
            continue
        linked = embedded_bytes(size) - embedded_bytes(saving.stripped)
        if linked > 0:
            changes.append(Change("model-strip", f"strip names and metadata from {name}", linked, "flash",
                                  "measured", model_command(STRIP_HOW, path), "none: TFLM never reads them",
                                  note=f"the model ({size} bytes) against the toolkit's writer's output without "
                                       f"them ({saving.stripped} bytes), as 16-byte aligned arrays"))
        unused = unused_buffer_change(path)
        if unused is not None:
            changes.append(unused)
    return changes


def _build_flags(report: FitReport) -> Change | None:
    main = report.main
    build = main.profile.build
    for name in shipped_profiles():
        if name == main.profile.name:
            continue
        try:
            profile = load_profile(name)
        except ProfileError:
            continue
        there = profile.build
        if (there.distribution, there.cpu, there.fpu, there.kernels) != (build.distribution, build.cpu, build.fpu,
                                                                          build.kernels):
            continue
        if there.opt_level == build.opt_level:
            continue
        from tflm_model.target_fit import fit

        other = fit(profile, list(main.models), main.reduce_types)
        if main.flash - other.flash > 0:
            return Change("build-flags", f"build TFLM as {name} is ({there.opt_level})", main.flash - other.flash,
                          "flash", "predicted", f"gen-resolver MODEL... --fit {name}", "speed",
                          note=f"--fit {main.profile.name} against --fit {name}")
    return None
