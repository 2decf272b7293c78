"""This firmware running other models: `size-report fit FIRMWARE MODEL...`'s flash and static RAM answer.

By default the models asked about take the place of the models the firmware embeds (every one found in its read-only
data, or those named with `--replace`), with the resolver gen-resolver writes for the models it then runs; with
`add`, the embedded models stay and the new ones come beside them. The answer is the firmware's ROM with
- the registrations no model uses any more out and the ones it lacks in (calibrated_fit.py: the set question on the
  firmware's own graph, the missing ones from the nearest profile), exactly the `calibrated` answer's figure;
- the embedded models' arrays out and the new models' in, each as an `alignas(16)` array (its size rounded up to 16,
  as gen-resolver --fit counts it). The arrays' bytes are exact; where the linker places what follows them is not:
  up to 15 bytes of padding either way per array, which the bound carries.
The resolver's lookup methods (FindOp, GetOpDataParser) loop over its N registrations: GCC unrolls them for a small N
at -O3 and keeps a loop at -Os, so for the new N they lie between their size now and that size scaled by N: the answer
takes half way, and the bound both ends.
Static RAM: the firmware's `.data` + `.bss` (arena left out) less what the registrations that go keep, plus what the
missing ones keep in the profile, with the resolver object resized to the new op count (12 + 36·N bytes on 32-bit
targets, the per-op size read from the firmware's own resolver when it has one).
What it leaves out: code the application runs only for the old model (pre-processing, labels) stays in the figure,
and a model the firmware holds in a form not found (compressed, in a file system) is not taken out unless named.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from sizetool.errors import SizeToolError
from sizetool.profile.calibrated_fit import CalibratedFlash, calibrated_fit, firmware_profile
from tflm_facts.target_profile import TargetProfile, resolver_object_bytes

MODEL_ALIGNMENT = 16  # gen-resolver's convention and TFLM's examples: the model as an alignas(16) array
PADDING_SLACK = MODEL_ALIGNMENT - 1  # what the linker's placement after one array may differ by, either way
MODES = ("replace", "add")
# The resolver's lookups: loops over its N registrations, which GCC unrolls at -O3 for a small N (on RP2040 the three
# take 94 B with N = 1, 292 B with 4, 424 B with 6) and keeps as loops at -Os (the same size whatever N).
_RESOLVER_LOOKUP = re.compile(r"MicroMutableOpResolver<(\d+)u?>::(FindOp|GetOpDataParser)\(")


@dataclass(frozen=True)
class SwappedModel:
    name: str  # the symbol that holds it (out) or the argument as given (in)
    size: int  # its bytes
    found: bool = True  # out: found in the firmware's read-only data (else its size is taken out as given)

    @property
    def flash(self) -> int:
        """Its flash as an alignas(16) array: its bytes rounded up to the alignment."""
        return -(-self.size // MODEL_ALIGNMENT) * MODEL_ALIGNMENT


@dataclass(frozen=True)
class SwapPlan:
    """Which models go and which the firmware runs after: plan_swap()."""

    mode: str
    models_out: tuple[SwappedModel, ...]
    models_kept: tuple  # embedded models that stay, as model sources (FIRMWARE:SYMBOL)
    models_in: tuple  # the new models, as given
    notes: tuple[str, ...] = ()

    @property
    def models_after(self) -> list:
        """The models the firmware runs after the swap: the resolver, the arena and the cross-check are theirs."""
        return [*self.models_kept, *self.models_in]


@dataclass(frozen=True)
class ModelSwap:
    mode: str  # "replace" or "add"
    ops: CalibratedFlash  # the firmware with exactly the models' ops (the missing ones added from a profile)
    models_out: tuple[SwappedModel, ...]
    models_in: tuple[SwappedModel, ...]
    models_kept: tuple[str, ...]  # embedded models that stay (add, or not named by --replace)
    dropped: tuple[str, ...]  # the firmware's registrations no model uses any more
    static_ram_now: int  # the firmware's .data + .bss, arena left out
    resolver_now: int  # its resolver objects' RAM (0: none found, the resolver is then not resized)
    resolver_after: int  # the resolver for the models' op count
    notes: tuple[str, ...] = ()
    lookups_now: int = 0  # the resolver's lookup methods (FindOp, GetOpDataParser) for its N now, as linked
    lookups_count: int = 0  # that N (0: not found, or several resolver sizes: not resized)

    @property
    def lookups_proportional(self) -> int:
        """The lookups if their size were all per registration (fully unrolled): one end of what they become."""
        if not self.lookups_count:
            return self.lookups_now
        return round(self.lookups_now * self.ops.registrations_after / self.lookups_count)

    @property
    def lookups_change(self) -> int:
        """Half way between unchanged (a loop) and proportional (unrolled), the other half in the bound."""
        return (self.lookups_proportional - self.lookups_now) // 2

    @property
    def lookups_bound(self) -> int:
        return abs(self.lookups_proportional - self.lookups_now) - abs(self.lookups_change)

    @property
    def bytes_out(self) -> int:
        return sum(model.flash for model in self.models_out)

    @property
    def bytes_in(self) -> int:
        return sum(model.flash for model in self.models_in)

    @property
    def dropped_bytes(self) -> int:
        """What the registrations no model uses any more take with them (the firmware's own set question)."""
        return self.ops.firmware_rom - self.ops.from_firmware

    @property
    def flash(self) -> int:
        return self.ops.flash - self.bytes_out + self.bytes_in + self.lookups_change

    @property
    def padding_bound(self) -> int:
        return PADDING_SLACK * (len(self.models_out) + len(self.models_in))

    @property
    def low(self) -> int:
        return self.ops.low - self.bytes_out + self.bytes_in + self.lookups_change - self.padding_bound - \
            self.lookups_bound

    @property
    def high(self) -> int:
        return self.ops.high - self.bytes_out + self.bytes_in + self.lookups_change + self.padding_bound + \
            self.lookups_bound

    @property
    def static_ram(self) -> int:
        return self.ops.ram_from_firmware + self.ops.ram_added - self.resolver_now + self.resolver_after


def _embedded_label(firmware_elf: str, symbol: str) -> str:
    return f"{firmware_elf}:{symbol}"


def plan_swap(embedded: list, elf: str, new_models: list, mode: str = "replace",
              replace: tuple[str, ...] = ()) -> SwapPlan:
    """Which embedded models (EmbeddedModel records, sizetool/inputs/firmware_models.py) the new models (model
    sources) take the place of: all of them by default, those `replace` names (their symbols, or the model files the
    firmware was built with, matched by their bytes), or none with `mode` "add"."""
    if mode not in MODES:
        raise SizeToolError(f"unknown swap mode {mode!r}")
    if replace and mode == "add":
        raise SizeToolError("--replace and --add are two answers: replace some embedded models, or keep them all")
    if mode == "add":
        return SwapPlan(mode, (), tuple(m.source(elf) for m in embedded), tuple(new_models))
    if not replace:
        notes = () if embedded else ("no TFLite model found in the firmware's read-only data: none taken out (name "
                                     "the one it holds with --replace FILE)",)
        return SwapPlan(mode, tuple(SwappedModel(m.symbol, m.size) for m in embedded), (), tuple(new_models), notes)
    out, notes, chosen = [], [], set()
    for name in replace:
        match = next((m for m in embedded if name in (m.symbol, _embedded_label(elf, m.symbol),
                                                     _embedded_label(os.path.basename(elf), m.symbol))), None)
        if match is None:
            found = _model_file(name, embedded)
            if isinstance(found, SwappedModel):
                out.append(found)
                notes.append(f"{name}: not found in the firmware's read-only data: its {found.size:,} bytes are "
                             "taken out as given")
                continue
            match = found
        if match.address not in chosen:
            chosen.add(match.address)
            out.append(SwappedModel(match.symbol, match.size))
    kept = tuple(m.source(elf) for m in embedded if m.address not in chosen)
    return SwapPlan(mode, tuple(out), kept, tuple(new_models), tuple(notes))


def _model_file(name: str, embedded: list):
    """The embedded model whose bytes a model file (or FILE:ARRAY) holds, or the file as a SwappedModel not found in
    the firmware; SizeToolError when `name` is neither an embedded model's symbol nor a model file."""
    import hashlib

    from tflm_model.errors import ModelError
    from tflm_model.model_sources import is_model_argument

    if not is_model_argument(name):
        names = ", ".join(m.symbol for m in embedded) or "none found"
        raise SizeToolError(f"--replace {name}: no such model in the firmware (its models: {names}); name one by its "
                            "symbol, or give the model file the firmware was built with")
    from tflm_model.model_source import source_bytes

    try:
        data = source_bytes(name)
    except ModelError as error:
        raise SizeToolError(f"--replace {name}: {error}") from None
    digest = hashlib.sha256(data).hexdigest()
    match = next((m for m in embedded if m.sha256 == digest), None)
    return match if match is not None else SwappedModel(name, len(data), found=False)


def swap_models(image, operator_graph, rom_total: int, plan: SwapPlan, profile_name: str | None = None,
                strict: bool = False) -> ModelSwap | None:
    """The firmware running the plan's models. None when the firmware cannot be profiled and not `strict` (the rest
    of size-report fit still answers)."""
    firmware = firmware_profile(image, operator_graph, rom_total, strict)
    if firmware is None:
        return None
    models_after = plan.models_after
    if not models_after:
        raise SizeToolError("no models left for the firmware to run")
    ops = calibrated_fit(firmware, models_after, profile_name, always=True)
    registered = sorted(r.op for r in firmware.registrations)
    return ModelSwap(
        mode=plan.mode, ops=ops, models_out=plan.models_out,
        models_in=tuple(SwappedModel(str(model), _model_size(model)) for model in plan.models_in),
        models_kept=tuple(str(source) for source in plan.models_kept),
        dropped=tuple(op for op in registered if op not in ops.linked),
        static_ram_now=firmware.static_ram, resolver_now=firmware.resolver_ram,
        resolver_after=_resolver_after(firmware, ops.registrations_after), notes=plan.notes,
        **_resolver_lookups(image))


def _resolver_lookups(image) -> dict:
    """The lookup methods of the firmware's MicroMutableOpResolver<N> (one N only; several: none resized)."""
    sizes: dict[int, dict[int, int]] = {}
    for symbol in image.symbols:
        match = _RESOLVER_LOOKUP.search(symbol.name) if "MicroMutableOpResolver" in symbol.mangled else None
        if match and symbol.kind == "func" and symbol.size:
            sizes.setdefault(int(match.group(1)), {})[symbol.address] = symbol.size
    if len(sizes) != 1:
        return {}
    (count, found), = sizes.items()
    return {"lookups_now": sum(found.values()), "lookups_count": count}


def _model_size(model) -> int:
    from tflm_model.errors import ModelError
    from tflm_model.model_source import source_size

    try:
        return source_size(model)
    except ModelError as error:
        raise SizeToolError(str(error)) from None


def _resolver_after(firmware: TargetProfile, op_count: int) -> int:
    """The resolver object for `op_count` ops, as the firmware's own is laid out; 0 when it has none in static RAM
    (a resolver on the stack or the heap is not resized)."""
    if not firmware.resolver_ram:
        return 0
    return resolver_object_bytes(op_count, firmware.build.pointer_bytes, firmware.resolver_op_bytes)
