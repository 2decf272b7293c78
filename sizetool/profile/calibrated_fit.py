"""Flash for models on the user's own firmware when it lacks operators they need, calibrated on that firmware.

`size-report fit firmware.elf model.tflite ...` and `gen-resolver model.tflite --fit PROFILE --calibrate firmware.elf`
both answer with this: the firmware with exactly the models' ops, the missing ones added.
- The runtime and the linked operators the models use come exactly from the ELF: its ROM less what every other
  registration keeps (`size-report --keep`'s set question on the ELF's reference graph).
- The missing operators come from a target profile (tflm_facts/target_profile.py): what adding them to the linked
  ones the models use adds there (a set question on the profile: code the missing ops share with the linked ones is
  not counted twice, their AddXxx() calls are), scaled by what the operators both have cost here against there (a
  firmware built with other flags, TFLM revision or C library: its kernels are that much larger or smaller).
- The nearest profile is the shipped one of the same architecture, then the same CPU, then the same kernel set,
  whose scale is closest to 1 (the build most like the user's); `--fit PROFILE` names one.
- The answer states its bound: the profile's figure unscaled against scaled, the inlining bounds of both set
  questions, and the profile's own accuracy on what it adds (PROFILE_ACCURACY): its keep-only answers are measured
  within 0.5% of real links, off by a few dozen bytes on small sets (a weak template copy the linker picks, a string's
  alignment), which no bound of the graph states.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass

from sizetool.errors import SizeToolError
from sizetool.operators.model_crosscheck import read_model_ops
from sizetool.operators.operator_graph import image_total
from sizetool.profile.profile_export import export_profile
from tflm_facts.target_profile import BuildFacts, ProfileError, TargetProfile, load_profile, shipped_profiles
from tflm_model.profile_sets import ProfileSets

PROFILE_ACCURACY = (0.005, 64)  # share of what the profile adds, and the bytes at least, either way


@dataclass(frozen=True)
class CalibratedFlash:
    firmware_rom: int  # the firmware's ROM as it is
    from_firmware: int  # its ROM with exactly the linked registrations the models use
    linked: tuple[str, ...]  # those registrations
    missing: tuple[str, ...]  # registrations the profile adds for the ops the firmware lacks
    unprovided: tuple[str, ...]  # model ops neither the firmware nor the profile provides (no code counted)
    profile: str
    profile_choice: str  # why this profile
    common: tuple[str, ...]  # the registrations both have, that the scale is measured on
    common_here: int  # their kernel code in the firmware (kernel_bytes())
    common_there: int  # and in the profile
    profile_bytes: int  # what the missing registrations add in the profile, unscaled
    may_be_high_by: int  # the set questions' inlining and unexplained bounds, both sides
    may_be_low_by: int
    scaled: bool = True  # False: the firmware looks built as the profile was (same_build()): the scale is not applied
    ram_from_firmware: int = 0  # the firmware's static RAM (arena left out) with exactly those registrations
    ram_added: int = 0  # the .data/.bss the missing registrations keep in the profile
    registrations_after: int = 0  # the resolver's op count for the models (gen-resolver's kNumOps)
    machinery_folded: int = 0  # registration machinery inlined into calls the firmware drops (in may_be_high_by)
    # those of `unprovided` that are custom ops TFLM does not ship (AddCustom): kernels the application links
    application_kernels: tuple[str, ...] = ()

    @property
    def measured_scale(self) -> float:
        return self.common_here / self.common_there if self.common_there > 0 and self.common_here > 0 else 1.0

    @property
    def scale(self) -> float:
        return self.measured_scale if self.scaled else 1.0

    @property
    def added(self) -> int:
        return round(self.profile_bytes * self.scale)

    @property
    def flash(self) -> int:
        return self.from_firmware + self.added

    @property
    def other_answer(self) -> int:
        """The answer with the other choice: scaled when it is not, the profile's own figure when it is."""
        if self.scaled:
            return self.from_firmware + self.profile_bytes
        return self.from_firmware + round(self.profile_bytes * self.measured_scale)

    @property
    def profile_accuracy(self) -> int:
        """What the profile's figure for the missing registrations may be off by, either way (PROFILE_ACCURACY)."""
        share, least = PROFILE_ACCURACY
        return max(least, math.ceil(self.added * share)) if self.missing else 0

    @property
    def low(self) -> int:
        return min(self.flash, self.other_answer) - self.may_be_high_by - self.profile_accuracy

    @property
    def high(self) -> int:
        return max(self.flash, self.other_answer) + self.may_be_low_by + self.profile_accuracy


def _providers(registered, ops) -> tuple[set[str], list[str]]:
    serving: set[str] = set()
    lacking: list[str] = []
    for op in ops:
        found = [name for name in registered if op.is_registered_by(name)]
        if found:
            serving.update(found)
        else:
            lacking.append(op)
    return serving, lacking


def _application_kernels(ops) -> tuple[str, ...]:
    """The custom ops TFLM does not ship among `ops` (registered with AddCustom: the application links their kernels)."""
    return tuple(op.name for op in ops if op.application_kernel)


def _model_ops(model_paths) -> list:
    ops: dict[str, object] = {}
    for path in model_paths:
        for op in read_model_ops(path):
            if not op.unsupported_reason:
                ops.setdefault(op.name, op)
    return [ops[name] for name in sorted(ops)]


def firmware_rom(sets: ProfileSets, kept) -> tuple[int, object]:
    """ROM of the profiled firmware with only the registrations `kept` (and its set cost, for the bounds)."""
    cost = sets.keep(kept)
    return sets.profile.rom_total - cost.saving, cost


def kernel_bytes(sets: ProfileSets, ops) -> int:
    """The code and data the registrations `ops` reach beyond what the runtime keeps with none registered, shared
    code once: their kernels in that build, without the resolver machinery and calls (which a firmware with one
    AddXxx() inlines)."""
    chosen = set(ops)
    roots = {node for r in sets.profile.registrations if r.op in chosen for node in r.nodes}
    roots.update(s.node for s in sets.profile.graph.shared_roots if chosen & set(s.users))
    everything = frozenset(sets.registered)
    runtime = sets.reachable(sets.runtime_roots, sets.removed_roots(everything), sets.cut_edges(everything))
    return sets.flash(sets.reachable(roots) - runtime)


def same_build(here: BuildFacts, there: BuildFacts) -> bool:
    """Whether the firmware looks built as the profile was: the same compiler, CPU, FPU and kernel set, the same
    flags where both ELFs record them (DWARF), and the firmware's -O level among those the profile states. Its kernels then cost what the profile's do: the scale, measured on
    the few registrations both link, would only add the noise of how each build splits code shared with the
    runtime."""
    flags = not (here.flags and there.flags) or here.flags == there.flags
    levels = set(re.findall(r"(?<!\S)-O\w*", here.flags))  # the firmware's optimisation, when DWARF names it
    stated = set(re.findall(r"(?<!\S)-O\w*", f"{there.flags} {there.opt_level}"))
    optimised = not (levels and stated) or levels <= stated
    return flags and optimised and (here.compiler, here.cpu, here.fpu, here.kernels) == (
        there.compiler, there.cpu, there.fpu, there.kernels)


def calibrate(firmware: TargetProfile, model_paths, profile: TargetProfile | None, choice: str = "") -> CalibratedFlash:
    """The calibrated answer on one profile. `firmware`: the user's firmware as a profile (size-report profile's
    export of it, whose set questions equal `--keep` on the ELF byte for byte). Without a profile, the firmware's own
    part alone: the ops it lacks are named (`unprovided`) and counted nowhere."""
    here = ProfileSets(firmware)
    ops = _model_ops(model_paths)
    linked, lacking = _providers(here.registered, ops)
    from_firmware, cost_here = firmware_rom(here, linked)
    common_facts = dict(firmware_rom=firmware.rom_total, from_firmware=from_firmware, linked=tuple(sorted(linked)),
                        ram_from_firmware=firmware.static_ram - cost_here.ram_bytes, registrations_after=len(ops))
    if profile is None:
        return CalibratedFlash(**common_facts, missing=(), unprovided=tuple(op.name for op in lacking),
                               application_kernels=_application_kernels(lacking), profile="",
                               profile_choice=choice, common=(), common_here=0, common_there=0, profile_bytes=0,
                               may_be_high_by=cost_here.may_be_high_by, may_be_low_by=cost_here.may_be_low_by,
                               scaled=False)
    there = ProfileSets(profile)
    added, unprovided = _providers(there.registered, lacking)
    there_linked = {name for name in linked if name in there.registered}
    with_missing, cost_with = firmware_rom(there, there_linked | added)
    without_missing, cost_without = firmware_rom(there, there_linked)
    common = tuple(sorted(set(here.registered) & set(there.registered)))
    folded = inlined_machinery_bound(firmware, profile, linked) if added else 0
    return CalibratedFlash(
        **common_facts, missing=tuple(sorted(added)), unprovided=tuple(op.name for op in unprovided),
        application_kernels=_application_kernels(unprovided),
        profile=profile.name, profile_choice=choice, common=common, common_here=kernel_bytes(here, common),
        common_there=kernel_bytes(there, common), profile_bytes=with_missing - without_missing,
        may_be_high_by=cost_here.may_be_high_by + cost_with.may_be_high_by + cost_without.may_be_low_by + folded,
        may_be_low_by=cost_here.may_be_low_by + cost_with.may_be_low_by + cost_without.may_be_high_by,
        scaled=not same_build(firmware.build, profile.build),
        ram_added=cost_without.ram_bytes - cost_with.ram_bytes, machinery_folded=folded,
    )


def inlined_machinery_bound(firmware: TargetProfile, profile: TargetProfile, kept) -> int:
    """What the answer may be too high by where the firmware's resolver had one AddXxx() call and GCC inlined the
    registration machinery (AddBuiltin()) into it: the call site has no bytes and calls no machinery. Dropping that
    call leaves the inlined copy in its caller, which the firmware's graph cannot tell from the caller's own code,
    while the profile adds the machinery out of line again. Up to the profile's largest machinery function per such
    caller (measured on the fixture: 64 and 92 B copies against 140 B out of line)."""
    callers = {site.caller for site in firmware.graph.call_sites
               if site.op not in kept and not site.targets and not site.bytes and not site.inlined}
    if not callers:
        return 0
    flash = profile.graph.flash
    machinery = max((flash[target] for site in profile.graph.call_sites for target in site.targets), default=0)
    return len(callers) * machinery


def nearest_profile(firmware: BuildFacts, names=None) -> list[tuple[TargetProfile, str, int]]:
    """The profiles of the firmware's architecture, nearest first: each with why, and how far (0 the same CPU and
    kernel set, 1 one of them differs, 2 both)."""
    found = []
    for name in names if names is not None else shipped_profiles():
        try:
            profile = load_profile(name)
        except ProfileError:
            continue
        build = profile.build
        same = [build.arch == firmware.arch, build.cpu == firmware.cpu, build.kernels == firmware.kernels]
        if not same[0]:
            continue
        words = [f"same CPU ({build.cpu})" if same[1] else f"CPU {build.cpu}, not {firmware.cpu}",
                 f"{build.kernels} kernels" + ("" if same[2] else f", not {firmware.kernels}")]
        found.append((tuple(not s for s in same), name, profile, ", ".join(words)))
    found.sort(key=lambda item: (item[0], item[1]))
    return [(profile, why, sum(rank)) for rank, _, profile, why in found]


def calibrated_fit(firmware: TargetProfile, model_paths, profile_name: str | None = None,
                   always: bool = False) -> CalibratedFlash | None:
    """The answer on the profile named (also when the firmware lacks no op), or on the nearest shipped profile that
    provides the missing ops (among the equally near, the one whose scale is closest to 1). When no profile is named
    and the firmware lacks no op (or no shipped profile is of its architecture): None, or with `always` the
    firmware's own part alone (calibrate() without a profile)."""
    if profile_name:
        try:
            return calibrate(firmware, model_paths, load_profile(profile_name), "as asked")
        except ProfileError as error:
            raise SizeToolError(str(error)) from None
    _, lacking = _providers(sorted(r.op for r in firmware.registrations), _model_ops(model_paths))
    candidates = nearest_profile(firmware.build) if lacking else []
    if not candidates:
        return calibrate(firmware, model_paths, None) if always else None
    best = None
    for profile, why, distance in candidates:
        answer = calibrate(firmware, model_paths, profile, f"nearest shipped profile: {why}")
        # the build most like the firmware's first: built the same way, then kernels costing most alike
        key = (len(answer.unprovided), distance, answer.scaled, abs(math.log(answer.measured_scale)), profile.name)
        if best is None or key < best[0]:
            best = (key, answer)
    return best[1]


def firmware_profile(image, operator_graph, rom_total: int, strict: bool = True) -> TargetProfile | None:
    """The ELF's operator graph exported as a profile (the set questions on it equal `--keep` on the ELF), without
    stack figures. A firmware that cannot be profiled (code not disassembled, no registrations found) is a
    SizeToolError when `strict`, else None. An image that runs from RAM (no ROM) is profiled on what it stores."""
    stored = image_total(rom_total, operator_graph)
    try:
        return export_profile(image, operator_graph, stored, os.path.basename(image.path), stack=False)
    except SizeToolError:
        if strict:
            raise
        return None


def calibrate_firmware(image, operator_graph, rom_total: int, model_paths, profile_name: str | None = None,
                       strict: bool = True) -> CalibratedFlash | None:
    """calibrated_fit() on an ELF (firmware_profile()); None when it cannot be profiled and not `strict`."""
    firmware = firmware_profile(image, operator_graph, rom_total, strict)
    return None if firmware is None else calibrated_fit(firmware, model_paths, profile_name)
