"""Will these models fit this target, before any firmware exists: `gen-resolver model.tflite --fit PROFILE`.

From the .tflite files and a target profile (tflm_facts/target_profile.py, exported from one all-ops firmware):
- Flash = the runtime every TFLM app keeps + the code and data the models' registrations keep (shared code once:
  the set question of `size-report --keep`, tflm_model/profile_sets.py) + the resolver's AddXxx() calls + the models'
  bytes as embedded (each .tflite array 16-byte aligned, as `alignas(16)` arrays are). The all-ops app's own model
  bytes are taken out of the runtime.
- RAM = the tensor arena (tflm_model.arena_estimate, for the profile's kernel set and ABI) + TFLM's static RAM
  (.data/.bss of the all-ops build less its arena, less what the dropped registrations keep, with the all-ops
  resolver object replaced by a MicroMutableOpResolver<N> of the models' N ops).
- Stack = the worst `Invoke()` path over the models' kernels (the largest of the profile's per-registration paths).
A model op the profile registers no kernel for is named (the answer leaves its code out); the command exits 1. A custom
op TFLM does not ship (AddCustom(name, Register_X()): the application links its kernel) is named too, as the
application's, and left out with the rest of the application's code: it fails nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tflm_facts.registrations import ModelOp, model_op
from tflm_facts.target_profile import (
    APP_STATICS,
    ProfileError,
    TargetProfile,
    load_profile,
    resolver_object_bytes,
    shipped_profiles,
)
from tflm_facts.allocator_generations import Generation, named
from tflm_model.arena_estimate import ArenaEstimate, estimate_arena
from tflm_model.errors import ModelError
from tflm_model.model_source import source_exists, source_size
from tflm_model.operator_uses import ModelUses, read_model_uses
from tflm_model.profile_sets import ProfileSets
from tflm_model.type_support import variant_for_models

MODEL_ALIGNMENT = 16
APPLICATION_KERNEL = ("a custom op TFLM does not ship: your application links its kernel and registers it with "
                      "AddCustom(); that code (--app-flash counts it), the kernel's own arena allocations and its "
                      "stack are not counted")
KERNEL_SET_SUFFIXES = ("-reference", "-cmsis_nn")


@dataclass(frozen=True)
class Part:
    label: str
    bytes: int


@dataclass(frozen=True)
class MissingOp:
    op: str  # as the model names it
    models: tuple[str, ...]
    reason: str  # why it is missing
    application_kernel: bool = False  # a custom op TFLM does not ship: the application links its kernel


@dataclass(frozen=True)
class StackStep:
    function: str
    frame: int


@dataclass(frozen=True)
class Application:
    """What the user's application adds around TFLM and its models (drivers, DSP, USB, printf, its own data), as the
    user gives it; None where not given: the answer then leaves it out and says so."""

    flash: int | None = None
    ram: int | None = None

    @property
    def given(self) -> bool:
        return self.flash is not None or self.ram is not None


@dataclass
class FitAnswer:
    profile: TargetProfile
    models: tuple[str, ...]
    reduce_types: bool
    registrations: tuple[str, ...]  # the profile's registrations kept
    missing: tuple[MissingOp, ...]
    flash: int
    flash_parts: tuple[Part, ...]
    flash_may_be_high_by: int
    flash_may_be_low_by: int
    ram: int
    ram_parts: tuple[Part, ...]
    static_ram: int  # TFLM's static RAM without the arena
    arena: ArenaEstimate
    stack: int | None  # None when the profile has no stack figures
    stack_path: tuple[StackStep, ...] = ()
    stack_kernel: str = ""  # the registration whose kernels the worst path runs
    stack_bounded: bool = False
    notes: list[str] = field(default_factory=list)
    flash_limit: int | None = None
    ram_limit: int | None = None
    app_statics: bool = False  # counted the C++ runtime the app's function-local statics link
    application: Application = Application()  # the user's application, counted where given
    # custom ops TFLM does not ship, whose kernels the application links (AddCustom): named, in no figure, no failure
    application_kernels: tuple[MissingOp, ...] = ()

    @property
    def over_flash(self) -> bool:
        return self.flash_limit is not None and self.flash > self.flash_limit

    @property
    def over_ram(self) -> bool:
        return self.ram_limit is not None and self.ram > self.ram_limit

    @property
    def passed(self) -> bool:
        return not (self.missing or self.over_flash or self.over_ram)


def embedded_bytes(size: int) -> int:
    """A model's flash as an `alignas(16)` array: its bytes, rounded up to the alignment."""
    return -(-size // MODEL_ALIGNMENT) * MODEL_ALIGNMENT


def read_models(model_paths) -> list[ModelUses]:
    return [read_model_uses(path, hash_in_background=False) for path in model_paths]


def model_ops(models: list[ModelUses]) -> dict[str, tuple[ModelOp, list[str]]]:
    """Every op of the models once (by name), with the models using it."""
    found: dict[str, tuple[ModelOp, list[str]]] = {}
    for model in models:
        for use in model.ops:
            op = model_op(use.key.kind, use.key.name)
            found.setdefault(op.name, (op, []))[1].append(model.name)
    return found


def serving_registrations(registered, ops: dict[str, tuple[ModelOp, list[str]]], models: list[ModelUses],
                          reduce_types: bool = False, kernels: str = "reference"):
    """(registrations kept, missing ops, notes). Without reduce_types every registration providing a model op is kept
    (size-report --keep MODEL's rule); with it, the type-reduced one gen-resolver --reduce-types writes, when the
    profile has it."""
    kept: set[str] = set()
    missing: list[MissingOp] = []
    notes: list[str] = []
    for name in sorted(ops):
        op, users = ops[name]
        if op.unsupported_reason:
            missing.append(MissingOp(name, tuple(users), op.unsupported_reason))
            continue
        providers = [r for r in registered if op.is_registered_by(r)]
        if not providers and op.application_kernel:
            missing.append(MissingOp(name, tuple(users), APPLICATION_KERNEL, application_kernel=True))
            continue
        if not providers:
            missing.append(MissingOp(name, tuple(users), "the profile registers no kernel for it"))
            continue
        if reduce_types and op.kind == "builtin":
            choice = variant_for_models(models, _op_key(models, name))
            variant = choice.variant
            if variant is not None:
                if variant.name in registered:
                    kept.add(variant.name)
                    continue
                if kernels in variant.implemented_by:
                    notes.append(f"{variant.name}: not in the profile (its all-ops build registers the generic "
                                 f"kernels): counted as {', '.join(providers)}, an upper bound")
        kept.update(providers)
    return tuple(sorted(kept)), tuple(missing), notes


def _op_key(models: list[ModelUses], name: str):
    return next(use.key for model in models for use in model.ops if use.key.name == name)


def fit(profile: TargetProfile, model_paths, reduce_types: bool = False, flash_limit: int | None = None,
        ram_limit: int | None = None, sets: ProfileSets | None = None, models: list[ModelUses] | None = None,
        arena: ArenaEstimate | None = None, app_statics: bool = False) -> FitAnswer:
    """The flash, RAM and stack the models need on the profiled target (`arena`: the estimate for its kernel set and
    ABI, when the caller has it already). `app_statics`: the app has C++ function-local statics, as TFLM's examples
    do, so it links the build's guard and exception runtime whatever the kernels need (ProfileGraph.app_uses)."""
    models = models if models is not None else read_models(model_paths)
    sets = sets or ProfileSets(profile)
    ops = model_ops(models)
    kept, missing, notes = serving_registrations(sets.registered, ops, models, reduce_types, profile.build.kernels)
    cost = sets.keep(kept)
    statics_nodes = sets.app_use_nodes(APP_STATICS)
    with_statics = sets.keep(kept, statics_nodes) if statics_nodes else cost
    statics_bytes = cost.code_bytes - with_statics.code_bytes
    every_call = sets.drop(sets.registered).call_site_bytes
    graph_bytes = sum(profile.graph.flash)
    model_bytes = sum(embedded_bytes(source_size(path)) for path in model_paths)
    runtime = profile.rom_total - graph_bytes - every_call - profile.model_bytes
    flash_parts = (
        Part("runtime (interpreter, allocator, flatbuffers, libc/libgcc, start-up)", runtime),
        Part(f"kernels and registrations ({len(kept)})", graph_bytes - cost.code_bytes - cost.inline_estimate),
        Part("resolver's AddXxx() calls", every_call - cost.call_site_bytes),
        *([Part("C++ guard and exception runtime (--app-statics)", statics_bytes)] if app_statics else []),
        Part(f"model data ({len(model_paths)} .tflite, {MODEL_ALIGNMENT}-byte aligned)", model_bytes),
    )
    flash = sum(part.bytes for part in flash_parts)
    if cost.inline_bytes:
        notes.append(f"one AddXxx() call left: the compiler may inline {', '.join(cost.inlined)} (up to "
                     f"{cost.inline_bytes} bytes; half counted as removed)")
    if statics_bytes and not app_statics:
        notes.append(f"not counted: {statics_bytes} bytes of C++ guard and exception runtime, which function-local "
                     "statics in your app link on this build (TFLM's examples keep their resolver and interpreter so): "
                     "--app-statics counts them")
    elif app_statics and not statics_nodes:
        notes.append("--app-statics adds nothing on this profile: its build links no C++ guard runtime through a "
                     "kernel (-fno-threadsafe-statics, or no kernel has a function-local static), so what your app's "
                     "statics need is not known from it")
    if app_statics:
        cost = replace(cost, ram_bytes=with_statics.ram_bytes)
    if not profile.model_bytes:
        notes.append("the profile's firmware embeds no .tflite model that was found: its own model data, if any, is "
                     "counted in the runtime")
    arena = arena or profile_arena(profile, model_paths)
    resolver_ops = sum(1 for name, (op, _) in ops.items() if not op.unsupported_reason)
    static_ram = (profile.static_ram - cost.ram_bytes - profile.resolver_ram
                  + (resolver_object_bytes(resolver_ops, profile.build.pointer_bytes, profile.resolver_op_bytes)
                     if profile.resolver_ram else 0))
    application_kernels = tuple(m for m in missing if m.application_kernel)
    arena_part = _arena_part(arena, profile.build.kernels, {m.op for m in application_kernels})
    ram_parts = (arena_part, Part("TFLM static RAM (.data + .bss, arena left out)", static_ram))
    answer = FitAnswer(profile, tuple(str(p) for p in model_paths), reduce_types, kept,
                       tuple(m for m in missing if not m.application_kernel), flash, flash_parts,
                       cost.may_be_high_by, cost.may_be_low_by, arena_part.bytes + static_ram, ram_parts, static_ram,
                       arena, None, notes=notes, flash_limit=flash_limit, ram_limit=ram_limit,
                       app_statics=app_statics, application_kernels=application_kernels)
    _stack(answer, profile, kept)
    return answer


def _arena_part(arena: ArenaEstimate, kernels: str, application_kernels: set[str]) -> Part:
    """The tensor arena as the RAM figure counts it. The allocations of ops no rule models are a guess (the
    estimate's note): where every such op is a custom op your application brings the kernel of, they are that
    kernel's, left out with the rest of your application and named in the label, not guessed into the figure."""
    if arena.guessed_ops and arena.without_guessed is not None and set(arena.guessed_ops) <= application_kernels:
        return Part(f"tensor arena ({kernels} kernels, upper bound; without {', '.join(arena.guessed_ops)}'s own "
                    "allocations: your kernel's, not counted)", arena.without_guessed)
    return Part(f"tensor arena ({kernels} kernels{'' if arena.exact else ', upper bound'})", arena.total_bytes)


def cpu_features(profile: TargetProfile) -> str:
    """"mve" when the profiled build has MVE (its Tag_MVE_arch, in build.fpu as "MVE-I"/"MVE-F": CMSIS-NN is then
    compiled with ARM_MATH_MVEI), else "dsp"."""
    return "mve" if "MVE" in profile.build.fpu else "dsp"


def profile_arena(profile: TargetProfile, model_paths) -> ArenaEstimate:
    """The tensor arena the models need with the profile's kernel set, pointer size, enum size and MVE, for the
    profile's TFLM revision: exact for the revision the arena tables hold, else their bound for that generation."""
    revision = profile_revision(profile)
    return estimate_arena(model_paths, kernels=profile.build.kernels, pointer_bytes=profile.build.pointer_bytes,
                          short_enums=profile.build.short_enums and profile.build.pointer_bytes == 4,
                          cpu_features=cpu_features(profile), revision=revision,
                          generation=profile_generation(profile),
                          why=f"the profile's TFLM revision ({revision or 'not given'}) is not one tflm_facts knows")


def profile_generation(profile: TargetProfile) -> Generation | None:
    """The allocator generation of the TFLM a profile was exported from, where tflm_facts knows its revision (the
    distribution's own, else TFLM's commit); None when it does not."""
    for known in (profile.build.distribution_revision, profile.build.tflm_commit):
        if known:
            try:
                return named(known[:7])
            except ValueError:
                continue
    return None


def profile_revision(profile: TargetProfile) -> str:
    """The TFLM a profile was exported from, as the arena estimate matches it against its tables' revision:
    "tflite-micro 90b983c", the distribution and its revision ("pico-tflmicro dfea53b (upstream sync of ...)"), or
    "" when the profile names none."""
    build = profile.build
    if build.distribution_revision:
        return f"{build.distribution or 'a distribution'} {build.distribution_revision[:7]} ({build.tflm_commit})"
    return f"tflite-micro {build.tflm_commit[:7]}" if build.tflm_commit else ""


def _stack(answer: FitAnswer, profile: TargetProfile, kept) -> None:
    if profile.stack_base is None:
        answer.notes.append("the profile has no stack figures")
        return
    worst, kernel = profile.stack_base, ""
    for op in kept:
        path = profile.registration(op).stack
        if path is not None and path.depth > worst.depth:
            worst, kernel = path, op
    answer.stack = worst.depth
    answer.stack_kernel = kernel
    answer.stack_path = tuple(StackStep(profile.stack_names[name], frame) for name, frame in worst.steps)


def other_kernel_set(name: str) -> str | None:
    """The shipped profile of the same CPU with the other kernel set, when there is one."""
    for suffix, other in zip(KERNEL_SET_SUFFIXES, reversed(KERNEL_SET_SUFFIXES)):
        if name.endswith(suffix):
            candidate = name[: -len(suffix)] + other
            return candidate if candidate in shipped_profiles() else None
    return None


@dataclass
class FitReport:
    """The answer for the profile asked, and beside it the other kernel set of that CPU and --reduce-types."""

    main: FitAnswer
    other_kernels: FitAnswer | None = None
    reduced: FitAnswer | None = None


def fit_report(profile_name: str, model_paths, reduce_types: bool = False, flash_limit: int | None = None,
               ram_limit: int | None = None, app_statics: bool = False) -> FitReport:
    for path in model_paths:
        if not source_exists(path):
            raise ModelError(f"{path}: no such model file")
    profile = load_profile(profile_name)
    models = read_models(model_paths)
    sets = ProfileSets(profile)
    arena = profile_arena(profile, model_paths)
    main = fit(profile, model_paths, reduce_types, flash_limit, ram_limit, sets, models, arena, app_statics)
    report = FitReport(main)
    report.reduced = fit(profile, model_paths, not reduce_types, flash_limit, ram_limit, sets, models, arena,
                         app_statics)
    other = other_kernel_set(profile.name) if profile_name == profile.name else None
    if other:
        try:
            report.other_kernels = fit(load_profile(other), model_paths, reduce_types, flash_limit, ram_limit,
                                       models=models, app_statics=app_statics)
        except ProfileError:
            report.other_kernels = None
    return report


def with_application(answer: FitAnswer, application: Application) -> FitAnswer:
    """The answer with the application's bytes counted in flash and RAM, each as a part of its own."""
    flash_parts, ram_parts = answer.flash_parts, answer.ram_parts
    flash, ram = answer.flash, answer.ram
    if application.flash is not None:
        flash_parts += (Part("your application (--app-flash, as given)", application.flash),)
        flash += application.flash
    if application.ram is not None:
        ram_parts += (Part("your application (--app-ram, as given)", application.ram),)
        ram += application.ram
    return replace(answer, flash=flash, flash_parts=flash_parts, ram=ram, ram_parts=ram_parts,
                   notes=list(answer.notes), application=application)


def report_with_application(report: FitReport, application: Application) -> FitReport:
    if not application.given:
        return report
    counted = {name: (with_application(answer, application) if answer is not None else None)
               for name, answer in (("main", report.main), ("other_kernels", report.other_kernels),
                                    ("reduced", report.reduced))}
    return FitReport(**counted)
