"""The changes that would save flash or RAM on a firmware ELF, for the models it runs (`size-report fit --advise`).

Where each figure comes from:
- registrations no model uses: the set question on the firmware's own operator graph (`--drop` of all of them
  together, their AddXxx() calls included): measured on this ELF, within the bound the set question states;
- a generic registration every model allows a type-reduced variant of (CONV_2D -> CONV_2D_INT8): what dropping the
  generic one saves when the firmware links the variant too (measured); else the difference the shipped profile of
  the same CPU and kernel set shows between the two (kernel code reached beyond the runtime, shared code once),
  scaled by how this firmware's kernels compare with that profile's (predicted);
- the other kernel set (CMSIS-NN <-> reference): the kernel code the firmware's registrations reach (the ELF exported
  as a profile, as `size-report profile` does) against what the same registrations reach in the shipped profile of
  the same CPU with the other kernel set, scaled by this firmware against the profile of its own kernel set when it
  was built differently (predicted); with the unused registrations dropped too, the same on the kept ones;
- a linked model's names and metadata: the model written again with and without them (measured on the model's
  bytes; the array's own alignment can move the linked saving by less than its alignment); buffers no tensor uses:
  the model as an aligned array against the writer's output with their data emptied (measured);
- the tensor arena: the linked arena minus what the models need by TFLM's planner (RAM; measured where the arena
  estimate is exact, a bound where it is an upper bound);
- build flags: the kernel code difference between shipped profiles of the same distribution, CPU and kernel set
  built with other optimisation (predicted), where such a pair exists; a firmware whose DWARF shows TFLM built for
  speed (-O2/-O3) without such a pair gets the change named, unsized.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field

from sizetool.advice.changes import Change, ranked
from tflm_facts.target_profile import ProfileError, TargetProfile, load_profile, shipped_profiles
from tflm_model.profile_sets import ProfileSets

KERNEL_SETS = {"cmsis_nn": "CMSIS-NN", "reference": "reference", "esp_nn": "ESP-NN"}
# The commands that make a model change (model: its .tflite or the C/C++ file holding it; array: its array's name)
STRIP_HOW = "size-report strip-model {model} --strip -o {array}.cc --name {array}"
_RESOLVER_LOOKUP = re.compile(r"MicroMutableOpResolver<(\d+)u?>::(FindOp|GetOpDataParser)\(")
SPEED_COST = {"reference": "speed: the reference kernels run int8 convolutions several times slower than CMSIS-NN",
              "cmsis_nn": "none in speed (CMSIS-NN is the faster set); a rebuild with the CMSIS-NN library"}


@dataclass
class FirmwareFacts:
    """What the advice reads of a firmware: its ROM, operator graph and, when models were given, their cross-check
    and arena fit; the ELF exported as a profile (None when it cannot be: no decoded code or registrations)."""

    source: str
    rom: int
    crosscheck: object | None = None  # ModelCrosscheck
    arena: object | None = None  # ArenaFit
    embedded: list = field(default_factory=list)  # EmbeddedModelRecord of the models linked in
    model_paths: list = field(default_factory=list)
    profile: TargetProfile | None = None  # the firmware as a profile
    profiles: tuple[str, ...] | None = None  # the shipped profiles to compare with (None: all)
    operator_graph: object | None = None  # OperatorGraph: registration changes together in one set question


def firmware_advice(facts: FirmwareFacts) -> list[Change]:
    """Every change this firmware could make, ranked (most bytes first, unsized ones last)."""
    changes: list[Change] = []
    unused = _unused_registrations(facts)
    if unused:
        changes.append(unused)
    changes += _type_reduced(facts)
    changes += _kernel_set(facts, unused is not None)
    changes += _model_changes(facts)
    arena = _arena(facts)
    if arena:
        changes.append(arena)
    changes += _build_flags(facts)
    return ranked(changes)


def kept_registrations(facts: FirmwareFacts) -> tuple[str, ...]:
    """The registrations the models use (all of them without models)."""
    if facts.crosscheck is None:
        return tuple(sorted(r.op for r in facts.profile.registrations)) if facts.profile else ()
    return tuple(sorted({u.op for u in facts.crosscheck.used}))


def _unused_registrations(facts: FirmwareFacts) -> Change | None:
    check = facts.crosscheck
    if check is None or not check.unused or check.sets is None:
        return None
    cost = check.sets.unused
    names = [u.op for u in check.unused]
    resized = count = 0
    if facts.operator_graph is not None:  # as --drop counts it: with the alignment fill the relink gives back
        from sizetool.operators.operator_sets import set_cost

        cost = set_cost(facts.operator_graph, set(names), relink_fill=True)
        resized, count = resolver_shrink_bound(facts.operator_graph, set(names))
    methods = ", ".join(sorted(names)[:6]) + (", ..." if len(names) > 6 else "")
    models = " ".join(os.path.basename(m) for m in check.models)
    more, less = cost.may_be_low_by + resized, cost.may_be_high_by
    bound = ""
    if more or less:
        parts = [f"the set question's stated bound ({cost.may_be_low_by} more, {cost.may_be_high_by} less)"] \
            if cost.may_be_low_by or cost.may_be_high_by else []
        if resized:
            parts.append(f"up to {resized} more with gen-resolver's resolver for {len(kept_registrations(facts))} "
                         f"ops instead of {count}: its lookups and the AddXxx() calls shrink with its size where GCC unrolled them "
                         "(-O3)")
        bound = f" (the saving may be {more} bytes more or {less} less: {'; '.join(parts)})"
    return Change("unused-registrations", f"remove the {len(names)} registrations no model uses ({methods})",
                  cost.saving, "flash", "measured",
                  f"gen-resolver {models} -o micro_op_resolver.h (or delete their AddXxx() lines)",
                  "none while these models are the only ones run", note="set question on this ELF's operator "
                  f"graph, their AddXxx() calls included{bound}", may_save_more=more, may_save_less=less)


def resolver_shrink_bound(operator_graph, dropped: set[str]) -> tuple[int, int]:
    """What gen-resolver's resolver for the kept ops (MicroMutableOpResolver<M>, M the registrations that stay, where
    the firmware's is <N>) may save beyond the dropped calls: the lookup methods (FindOp, GetOpDataParser) and the
    kept AddXxx() calls in the functions that lose some. GCC unrolls the lookups over N at -O3 and inlines them into
    each call, so each is a part that stays plus a part proportional to N, and shrinks by at most (N - M)/N of itself
    (at -Os they are loops and shrink by nothing: the bound is then loose, on the safe side). Returns (that bound,
    N); (0, 0) where the firmware has not one resolver size."""
    nodes = operator_graph.graph.nodes
    sizes = {int(m.group(1)) for node in nodes if (m := _RESOLVER_LOOKUP.search(node.name))}
    if len(sizes) != 1:
        return 0, 0
    count = sizes.pop()
    kept = len({operator.op for operator in operator_graph.operators} - dropped)
    if not 0 < kept < count:
        return 0, 0
    lookups = sum(node.rom_bytes for node in nodes if _RESOLVER_LOOKUP.search(node.name))
    callers = {site.caller for site in operator_graph.call_sites if site.op in dropped}
    kept_calls = sum(site.bytes for site in operator_graph.call_sites
                     if site.caller in callers and site.op not in dropped)
    return -(-(lookups + kept_calls) * (count - kept) // count), count


def _type_reduced(facts: FirmwareFacts) -> list[Change]:
    check = facts.crosscheck
    if check is None:
        return []
    changes = []
    kernels = facts.profile.build.kernels if facts.profile else ""
    kept = kept_registrations(facts)
    for suggestion in check.variants:
        how = (f"resolver.{suggestion.method}(tflite::{suggestion.function.split('::')[-1].rstrip('()')}()); "
               f"(#include \"{suggestion.header}\"), or gen-resolver --reduce-types")
        text = f"register {suggestion.variant} instead of {suggestion.op} ({suggestion.reason})"
        costs = "none while every model's use stays of these types; a model with other types fails at start-up"
        if suggestion.saving is not None:
            combined = _with_unused(facts, suggestion.op)
            changes.append(Change("type-reduced", text, suggestion.saving, "flash", "measured", how, costs,
                                  combined_bytes=combined,
                                  shares=("unused-registrations",) if combined is not None else (),
                                  note="the variant is linked already: dropping the generic registration, measured "
                                       "on this ELF"))
            continue
        if suggestion.implemented_by != ("all",) and kernels not in suggestion.implemented_by:
            continue  # with this kernel set the variant is the generic kernel: nothing to save
        predicted = _variant_prediction(facts, kept, suggestion.op, suggestion.variant)
        if predicted is None:
            changes.append(Change("type-reduced", text, None, "flash", "unsized", how, costs,
                                  note="no shipped profile of this CPU and kernel set links both registrations"))
        else:
            saving, profile_name, scaled = predicted
            changes.append(Change("type-reduced", text, saving, "flash", "predicted", how, costs,
                                  note=f"from profile {profile_name}" + (", scaled on this firmware" if scaled
                                                                         else "")))
    return changes


def _with_unused(facts: FirmwareFacts, op: str) -> int | None:
    """What dropping `op` adds once the registrations no model uses are dropped too (one set question for both)."""
    check = facts.crosscheck
    if facts.operator_graph is None or check is None or not check.unused or check.sets is None:
        return None
    from sizetool.operators.operator_sets import set_cost

    unused = {u.op for u in check.unused}
    together = set_cost(facts.operator_graph, unused | {op}, relink_fill=True).saving
    call = set_cost(facts.operator_graph, {op}).call_site_bytes  # its AddXxx() call stays, naming the variant
    return together - set_cost(facts.operator_graph, unused, relink_fill=True).saving - call


def candidate_profiles(facts: FirmwareFacts, kernels: str | None = None) -> list[TargetProfile]:
    """Shipped profiles of the firmware's architecture and CPU (and kernel set, when given), same distribution
    first."""
    if facts.profile is None:
        return []
    build = facts.profile.build
    found = []
    for name in facts.profiles if facts.profiles is not None else shipped_profiles():
        try:
            profile = load_profile(name)
        except ProfileError:
            continue
        there = profile.build
        if (there.arch, there.cpu) != (build.arch, build.cpu) or (kernels and there.kernels != kernels):
            continue
        found.append((there.distribution != build.distribution, there.fpu != build.fpu, name, profile))
    found.sort(key=lambda item: item[:3])
    return [item[3] for item in found]


def kernel_code(profile_or_sets, ops) -> int:
    from sizetool.profile.calibrated_fit import kernel_bytes

    sets = profile_or_sets if isinstance(profile_or_sets, ProfileSets) else ProfileSets(profile_or_sets)
    return kernel_bytes(sets, [op for op in ops if op in sets.registered])


def _scale(facts: FirmwareFacts, here: ProfileSets, same: TargetProfile, ops) -> tuple[float, bool]:
    """How this firmware's kernel code compares with the profile's of its own kernel set, on the registrations both
    link (1 when it looks built the same way)."""
    from sizetool.profile.calibrated_fit import same_build

    if same_build(facts.profile.build, same.build):
        return 1.0, False
    common = [op for op in ops if op in here.registered]
    there = kernel_code(same, common)
    mine = kernel_code(here, common)
    return (mine / there if there and mine else 1.0), True


def _variant_prediction(facts: FirmwareFacts, kept, op: str, variant: str):
    if facts.profile is None:
        return None
    here = ProfileSets(facts.profile)
    for profile in candidate_profiles(facts, facts.profile.build.kernels):
        sets = ProfileSets(profile)
        if op not in sets.registered or variant not in sets.registered:
            continue
        others = [name for name in kept if name != op]
        difference = kernel_code(sets, kept) - kernel_code(sets, others + [variant])
        scale, scaled = _scale(facts, here, profile, kept)
        return round(difference * scale), profile.name, scaled
    return None


def kernel_set_saving(facts: FirmwareFacts, ops) -> tuple[int, str, str, bool] | None:
    """What the other kernel set saves for the registrations `ops`: (bytes, the other set, the profile it is
    predicted from, scaled), or None when no shipped profile pair of this CPU has both kernel sets."""
    if facts.profile is None:
        return None
    mine = facts.profile.build.kernels
    here = ProfileSets(facts.profile)
    twin = built_alike(facts, mine)
    if twin is not None:  # the other kernel set built as this firmware was: its kernel code against this ELF's
        return kernel_code(here, ops) - kernel_code(twin, ops), twin.build.kernels, f"this firmware against " \
            f"{twin.name} (built with the same compiler and flags)", False
    for same in candidate_profiles(facts, mine):
        for other in candidate_profiles(facts):
            if other.build.kernels == mine or other.build.distribution != same.build.distribution:
                continue
            scale, scaled = _scale(facts, here, same, ops)
            there = kernel_code(other, ops)
            if scaled:
                saving = round((kernel_code(same, ops) - there) * scale)
            else:
                saving = kernel_code(here, ops) - there
            return saving, other.build.kernels, f"{same.name} against {other.name}", scaled
    return None


def built_alike(facts: FirmwareFacts, mine: str) -> TargetProfile | None:
    """A shipped profile of another kernel set whose build the firmware's DWARF matches flag for flag (compiler, CPU,
    FPU, every recorded flag): then the firmware's own kernel code against that profile's is the saving, with nothing
    to scale. A profile that records no flags (upstream's, built with -Os and -O2) is not such a match: it matches any
    build with that compiler and CPU, and a distribution's own reference build can be a fifth smaller (Zephyr's -Os
    kernels against upstream's -O2 ones)."""
    from dataclasses import replace

    from sizetool.profile.calibrated_fit import same_build

    build = facts.profile.build
    if not build.flags:
        return None
    for other in candidate_profiles(facts):
        if other.build.kernels != mine and other.build.flags == build.flags and same_build(
                replace(build, kernels=other.build.kernels), other.build):
            return other
    return None


def _kernel_set(facts: FirmwareFacts, unused_dropped: bool) -> list[Change]:
    kept = kept_registrations(facts)
    if facts.profile is None or not kept:
        return []
    every = tuple(sorted(r.op for r in facts.profile.registrations))
    answer = kernel_set_saving(facts, every)
    if answer is None or answer[0] <= 0:
        return []
    saving, other, source, scaled = answer
    on_kept = kernel_set_saving(facts, kept) if unused_dropped else None
    combined = on_kept[0] if on_kept is not None else None
    flag = "OPTIMIZED_KERNEL_DIR=cmsis_nn" if other == "cmsis_nn" else "no OPTIMIZED_KERNEL_DIR"
    return [Change("kernel-set", f"build with the {KERNEL_SETS.get(other, other)} kernels instead of "
                   f"{KERNEL_SETS.get(facts.profile.build.kernels, facts.profile.build.kernels)}", saving, "flash",
                   "predicted", f"rebuild TFLM with {flag} (TFLM's Makefile; a distribution's own switch otherwise)",
                   SPEED_COST.get(other, "speed"), combined_bytes=combined,
                   shares=("unused-registrations",) if combined is not None else (),
                   note=f"kernel code of this firmware's registrations, from profiles {source}"
                        + (", scaled on this firmware" if scaled else ""))]


def _model_changes(facts: FirmwareFacts) -> list[Change]:
    changes = []
    for record in facts.embedded:
        saving = None if record.stripped is None else record.size - record.stripped
        if saving and saving > 0:
            changes.append(Change(
                "model-strip", f"strip names and metadata from the model {record.symbol}", saving, "flash",
                "measured", model_command(STRIP_HOW, "MODEL", record.symbol.rsplit("::", 1)[-1]) + " (MODEL: the "
                ".tflite or C/C++ file it was "
                "made from; the .cc replaces the firmware's array)", "none: TFLM never reads them (tensor "
                "names go from error messages)", note="the model as linked against the toolkit's writer's output "
                "without them; the array's alignment can move the linked saving by less than that alignment"))
    for path in facts.model_paths:
        change = unused_buffer_change(path)
        if change is not None:
            changes.append(change)
    return changes


EMPTY_HOW = "size-report strip-model {model} --empty-unused-buffers -o {array}.cc --name {array}"


def unused_buffer_change(path) -> Change | None:
    """The buffers no tensor uses, emptied by the toolkit's writer: the model as an alignas(16) array against the
    model written again without their data (measured on the model's bytes; a rebuild saves exactly that). With the
    names and metadata stripped too, what emptying them adds to that (`combined_bytes`). None when the model has none,
    or when the writer's own layout would give back what they save."""
    from tflm_model.errors import ModelError
    from tflm_model.model_layout import rewrite, unused_buffers
    from tflm_model.model_source import source_size
    from tflm_model.target_fit import embedded_bytes

    try:
        if not unused_buffers(path):
            return None
        size, emptied = source_size(path), len(rewrite(path, empty_unused=True))
        with_strip = (embedded_bytes(len(rewrite(path, strip=True)))
                      - embedded_bytes(len(rewrite(path, strip=True, empty_unused=True))))
    except (ModelError, OSError):
        return None
    saving = embedded_bytes(size) - embedded_bytes(emptied)
    if saving <= 0:
        return None
    name = os.path.basename(str(path))
    return Change("unused-buffers", f"empty the buffers no tensor uses in {name} ({unused_buffer_bytes(path)} bytes "
                  "of data)", saving, "flash", "measured", model_command(EMPTY_HOW, path)
                  + " (the .cc replaces the firmware's array; add --strip for both), or re-export the model", "none: no tensor reads them",
                  combined_bytes=with_strip, shares=("model-strip",),
                  note=f"the model ({size} bytes) as a 16-byte aligned array against the toolkit's writer's output "
                       f"with them emptied ({emptied} bytes); with names and metadata stripped too, {with_strip} "
                       "bytes more")


def model_command(how: str, model, array: str | None = None) -> str:
    """A model command (STRIP_HOW, EMPTY_HOW) for `model` (a .tflite, a C/C++ file, FILE:ARRAY, or MODEL where the
    user names it) writing the array `array` (else the source's FILE:ARRAY name, else its file's stem), made a C
    identifier, and the model's name quoted for the shell."""
    from tflm_model.model_writer import array_identifier

    reference = str(model)
    if array is None:
        base = os.path.basename(reference)
        array = base.rsplit(":", 1)[1] if ":" in base else os.path.splitext(base)[0]
    source = reference if reference == "MODEL" else shlex.quote(reference)
    return how.format(model=source, array=array_identifier(array))


def unused_buffer_bytes(source) -> int:
    """The data bytes of a model's buffers no tensor uses (0 when the model cannot be read)."""
    from tflm_model.errors import ModelError
    from tflm_model.model_layout import UNUSED_BUFFER, layout

    try:
        parts = layout(source).parts
    except (ModelError, OSError):
        return 0
    return sum(part.size for part in parts if UNUSED_BUFFER in part.path)


def _arena(facts: FirmwareFacts) -> Change | None:
    fit = facts.arena
    if fit is None or fit.arena is None or fit.needed is None or fit.spare is None or fit.spare <= 0:
        return None
    exact = fit.exact
    return Change("arena", f"shrink the tensor arena {fit.arena.symbol} from {fit.linked} to {fit.needed} bytes",
                  fit.spare, "ram", "measured" if exact else "bound",
                  f"constexpr int kTensorArenaSize = {fit.needed}; (the array passed to the MicroInterpreter)",
                  "none for these models; a larger model, or more models sharing the arena, then fails at "
                  "AllocateTensors()", note="TFLM's greedy planner on these models" + (
                      "" if exact else ": the need is an upper bound, so the saving is at least this much"))


def _build_flags(facts: FirmwareFacts) -> list[Change]:
    if facts.profile is None:
        return []
    build = facts.profile.build
    levels = set(re.findall(r"(?<!\S)-O(\w*)", build.flags))
    kept = kept_registrations(facts)
    for same in candidate_profiles(facts, build.kernels):
        for other in candidate_profiles(facts, build.kernels):
            if (other.build.distribution, other.build.fpu) != (same.build.distribution, same.build.fpu):
                continue
            if other.build.opt_level == same.build.opt_level or other is same:
                continue
            saving = kernel_code(same, kept) - kernel_code(other, kept)
            if saving > 0:
                return [Change("build-flags", f"build TFLM as {other.name} is ({other.build.opt_level}) instead of "
                               f"{same.build.opt_level}", saving, "flash", "predicted",
                               "set the optimisation of TFLM's sources (CMake: COMPILE_OPTIONS on the library)",
                               "speed", note=f"kernel code of these registrations in {same.name} and {other.name}")]
    if levels & {"2", "3", "fast"}:
        level = "-O" + sorted(levels & {"2", "3", "fast"})[-1]
        return [Change("build-flags", f"build TFLM with -Os instead of {level}", None, "flash", "unsized",
                       "compile TFLM's sources with -Os (CMake: CMAKE_BUILD_TYPE=MinSizeRel, or -Os in the "
                       "library's COMPILE_OPTIONS; check it is the last -O on the command line)",
                       "speed (kernels slower, by how much depends on the model)",
                       note="no shipped profile of this distribution and CPU was built both ways, so it is not sized")]
    return []


@dataclass(frozen=True)
class Budget:
    flash: int | None = None  # bytes of flash the firmware may use
    ram: int | None = None


def over_budget(budget: Budget, rom: int, ram: int) -> dict[str, int]:
    """memory -> bytes over its limit, for each limit missed."""
    over = {}
    if budget.flash is not None and rom > budget.flash:
        over["flash"] = rom - budget.flash
    if budget.ram is not None and ram > budget.ram:
        over["ram"] = ram - budget.ram
    return over


def firmware_facts(firmware, crosscheck, arena, model_paths) -> FirmwareFacts:
    """The facts from a loaded firmware (sizetool/commands/firmware.py's Firmware) and its models' answers."""
    from sizetool.errors import SizeToolError
    from sizetool.profile.profile_export import export_profile

    report = firmware.report
    try:
        profile = export_profile(firmware.elf_image(), firmware.operator_graph(), report.rom_total,
                                 os.path.basename(report.source), stack=False)
    except SizeToolError:
        profile = None
    return FirmwareFacts(report.source, report.rom_total, crosscheck, arena, list(report.models or []),
                         list(model_paths), profile, operator_graph=firmware.operator_graph())
