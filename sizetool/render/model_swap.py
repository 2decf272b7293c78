"""`size-report fit`'s answer for this firmware running the models asked about (sizetool/profile/model_swap.py), as
text lines and the JSON `calibrated` object: the firmware's ROM, the registrations that go, the ops added from a
profile, the models out and in, the answer and its bound, each part said to be exact or a bound; static RAM with the
new resolver (and in JSON the arena the models need against the linked one)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from sizetool.render.calibrated import calibrated_to_dict

if TYPE_CHECKING:
    from sizetool.fit.model_fit import ArenaFit
    from sizetool.profile.model_swap import ModelSwap


def _names(items, limit: int = 8) -> str:
    items = list(items)
    if not items:
        return "none"
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _model_names(models) -> str:
    return _names(os.path.basename(model.name) if os.sep in model.name else model.name for model in models)


def swap_lines(swap: ModelSwap, arena: ArenaFit | None = None) -> list[str]:
    """The answer and its parts (the arena the models need is the RAM line of the summary above it)."""
    ops = swap.ops
    if not swap.models_in and not swap.models_out:
        head = "This firmware with exactly its models' ops (gen-resolver's resolver for them)"
    else:
        what = ("with the models asked about beside its own" if swap.mode == "add" else
                "with the models asked about in place of its own")
        head = f"This firmware running these models ({what}, gen-resolver's resolver for them)"
    lines = [f"{head}: {swap.flash:,} bytes (bound {swap.low:,} to {swap.high:,})",
             f"  {ops.firmware_rom:>10,}  the firmware's ROM now (exact)"]
    inlining = (f"; the compiler's inlining: up to {ops.may_be_high_by:,} B too high or {ops.may_be_low_by:,} B too "
                "low" if ops.may_be_high_by or ops.may_be_low_by else "")
    lines.append(f"  {-swap.dropped_bytes:>10,}  registrations no model uses any more: {_names(swap.dropped)} "
                 f"(this firmware's own graph{inlining})")
    if ops.missing:
        lines.append(f"  {ops.added:>+10,}  ops it lacks: {_names(ops.missing)}, from profile {ops.profile} "
                     f"({ops.profile_choice}): {ops.profile_bytes:,} B there, "
                     + (f"x {ops.scale:.3f}" if ops.scaled else "not scaled (built as the profile)")
                     + f"; a bound: {ops.profile_accuracy:,} B either way, the other choice {ops.other_answer:,}"
                     + (f"; the machinery inlined into the calls that go stays in their callers: up to "
                        f"{ops.machinery_folded:,} B too high" if ops.machinery_folded else ""))
    if swap.models_out:
        lines.append(f"  {-swap.bytes_out:>10,}  models out: {_model_names(swap.models_out)} "
                     f"({', '.join(f'{m.size:,}' for m in swap.models_out)} B, each rounded up to 16)")
    if swap.models_in:
        lines.append(f"  {swap.bytes_in:>+10,}  models in: {_model_names(swap.models_in)} "
                     f"({', '.join(f'{m.size:,}' for m in swap.models_in)} B, each as an alignas(16) array)")
    if swap.lookups_change:
        lines.append(f"  {swap.lookups_change:>+10,}  the resolver's lookups for {ops.registrations_after} op(s), not "
                     f"{swap.lookups_count} ({swap.lookups_now:,} B now): half way to {swap.lookups_proportional:,} "
                     f"B, as if unrolled; a bound: {swap.lookups_bound:,} B either way")
    if swap.models_kept:
        lines.append(f"              models kept: {_names(os.path.basename(m) for m in swap.models_kept)}")
    holds = ["the arrays' bytes are exact; where the linker places what follows each: up to 15 B either way"
             ] if swap.models_in or swap.models_out else []
    if ops.missing:
        holds.append("the missing ops are the profile's figure")
    lines.append("  holds: " + "; ".join(holds) + "; the application's own code for the old model (its "
                 "pre-processing, labels) stays in the figure")
    theirs = [name for name in ops.unprovided if name not in ops.application_kernels]
    if theirs:
        lines.append(f"  not counted: {_names(theirs)} (neither this firmware nor a profile has a kernel for it)")
    if ops.application_kernels:
        lines.append(f"  not counted: {_names(ops.application_kernels)} (a custom op TFLM does not ship: your "
                     "application links its kernel and registers it with AddCustom())")
    lines.append(f"Static RAM with the new resolver: {swap.static_ram:,} bytes (now {swap.static_ram_now:,}; "
                 ".data + .bss, the arena left out" + (f"; resolver {swap.resolver_now:,} -> {swap.resolver_after:,}"
                                                       if swap.resolver_now else
                                                       "; no resolver object in static RAM: not resized") + ")")
    lines += [f"  note: {note}" for note in swap.notes]
    return lines


def swap_summary_lines(swap: ModelSwap) -> list[str]:
    """Two lines under the verdict: the flash answer as a sum of its parts, and static RAM with the new resolver."""
    ops = swap.ops
    terms = [f"{ops.firmware_rom:,} now"]
    if swap.dropped_bytes:
        plural = "s" if len(swap.dropped) != 1 else ""
        terms.append(f"- {swap.dropped_bytes:,} ({len(swap.dropped)} registration{plural} no model uses)")
    if ops.added:
        terms.append(f"+ {ops.added:,} ({len(ops.missing)} missing, profile {ops.profile})")
    if swap.models_out:
        terms.append(f"- {swap.bytes_out:,} ({_model_names(swap.models_out)} out)")
    if swap.models_in:
        terms.append(f"+ {swap.bytes_in:,} ({_model_names(swap.models_in)} in)")
    if swap.lookups_change:
        terms.append(f"{'+' if swap.lookups_change > 0 else '-'} {abs(swap.lookups_change):,} (resolver lookups)")
    total = [f"  = {' '.join(terms)} = {swap.flash:,} B"] if len(terms) > 1 else []  # nothing changes: no sum
    return total + [
            f"static RAM: {swap.static_ram:,} B with the new resolver ({swap.static_ram_now:,} B now; .data + .bss, "
            "the arena left out)"]


def swap_to_dict(swap: ModelSwap, arena: ArenaFit | None = None) -> dict:
    ops = swap.ops
    data = calibrated_to_dict(ops)
    data.update({
        "flash": swap.flash, "low": swap.low, "high": swap.high, "mode": swap.mode,
        "with_missing_ops": {"flash": ops.flash, "low": ops.low, "high": ops.high},
        "dropped": list(swap.dropped), "dropped_bytes": swap.dropped_bytes,
        "models_out": [{"name": m.name, "bytes": m.size, "flash": m.flash, "found": m.found}
                       for m in swap.models_out],
        "models_in": [{"name": m.name, "bytes": m.size, "flash": m.flash} for m in swap.models_in],
        "models_kept": list(swap.models_kept), "models_out_bytes": swap.bytes_out, "models_in_bytes": swap.bytes_in,
        "padding_bound": swap.padding_bound, "notes": list(swap.notes),
        "resolver_lookups": {"bytes_now": swap.lookups_now, "registrations_now": swap.lookups_count,
                             "proportional": swap.lookups_proportional, "change": swap.lookups_change,
                             "bound": swap.lookups_bound},
        "ram": {"static_ram": swap.static_ram, "static_ram_now": swap.static_ram_now,
                "resolver_now": swap.resolver_now, "resolver_after": swap.resolver_after,
                "registrations_after": ops.registrations_after, "ram_from_firmware": ops.ram_from_firmware,
                "ram_added": ops.ram_added,
                "arena_needed": None if arena is None else arena.needed,
                "arena_exact": None if arena is None or arena.needed is None else arena.exact,
                "arena_linked": None if arena is None else arena.linked},
    })
    return data
