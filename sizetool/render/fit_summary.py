"""The answer first: three lines that say whether a firmware runs its models and the figures behind the verdict, for
`size-report fit` (its first lines) and `size-report ops` with models (under its headline).

    does not fit: firmware.elf (arm) lacks 2 ops the models need (PAD, TRANSPOSE)
    flash: 28,814 B running the models in place of its own (26,851 to 32,131: 1 model array out, 1 in, 2 missing
           added (calibrated)); 32,256 B now
    RAM: tensor arena 4,160 B needed (exact), 12,288 B linked (8,128 spare)

Figures are bytes with thousands separators and a B, as gen-resolver --fit writes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sizetool.fit.model_fit import ArenaFit
    from sizetool.operators.model_crosscheck import ModelCrosscheck
    from sizetool.profile.calibrated_fit import CalibratedFlash
    from sizetool.profile.model_swap import ModelSwap

SHOWN_NAMES = 4


def summary_lines(crosscheck: ModelCrosscheck, fit: ArenaFit | None, calibrated: CalibratedFlash | ModelSwap | None,
                  firmware: str, over: dict[str, int] | None = None) -> list[str]:
    """The verdict line, the flash line and the RAM line; `over`: memory -> bytes over the budget given."""
    return [verdict_line(crosscheck, fit, firmware, over), flash_line(crosscheck, calibrated), ram_line(fit)]


def passed(crosscheck: ModelCrosscheck, fit: ArenaFit | None) -> bool:
    return crosscheck.passed and (fit is None or fit.passed)


def verdict_line(crosscheck: ModelCrosscheck, fit: ArenaFit | None, firmware: str,
                 over: dict[str, int] | None = None) -> str:
    problems = [f"{memory} {bytes_over:,} B over the budget" for memory, bytes_over in sorted((over or {}).items())]
    if crosscheck.missing:
        names = [m.op.name for m in crosscheck.missing]
        problems.append(f"lacks {len(names)} op{'s' if len(names) != 1 else ''} the models need ({_names(names)})")
    if crosscheck.type_problems:
        count = len(crosscheck.type_problems)
        problems.append(f"{count} use{'s' if count != 1 else ''} with tensor types its kernels cannot run")
    if fit is not None and fit.needed is not None and not fit.passed:
        short = -fit.spare if fit.spare is not None else fit.needed
        if fit.heap_too_small:
            problems.append(f"tensor arena larger than the whole heap ({fit.heap[0]}, {fit.heap[1]:,} B)")
        else:
            problems.append(f"tensor arena {short:,} B short" if fit.arena is not None
                            else "no arena linked and too little free RAM for one")
    if problems:
        return f"does not fit: {firmware} {'; '.join(problems)}"
    models = len(crosscheck.models)
    needs = "its model needs" if models == 1 else f"its {models} models need"
    arena = ""
    if fit is not None and fit.needed is not None:
        arena = (" and a large enough tensor arena" if fit.spare is not None and fit.spare >= 0
                 else " (the tensor arena not checked: see RAM)")
    return f"fits: {firmware} has every op {needs}{arena}"


def flash_line(crosscheck: ModelCrosscheck, calibrated: CalibratedFlash | ModelSwap | None) -> str:
    """The flash answer; for an image that loads whole into RAM (no ROM, as the tree says) the same figures are the
    bytes the image stores, and the line is named so."""
    line = _flash_answer(crosscheck, calibrated)
    if crosscheck.sets is not None and crosscheck.sets.ram_image:
        return "image (loads whole into RAM, no ROM): " + line.removeprefix("flash: ")
    return line


def _flash_answer(crosscheck: ModelCrosscheck, calibrated: CalibratedFlash | ModelSwap | None) -> str:
    sets = crosscheck.sets
    if sets is None:
        return "flash: the operator graph was not read (no set answer)"
    now = f"{sets.rom:,} B now"
    if calibrated is not None and hasattr(calibrated, "models_in"):  # size-report fit: the firmware running them
        return _swap_line(calibrated, now)
    if calibrated is not None:
        added = len(calibrated.missing)
        return (f"flash: {calibrated.flash:,} B with exactly the models' ops, the {added} missing added (calibrated, "
                f"{calibrated.low:,} to {calibrated.high:,}); {now}")
    saving = sets.unused.saving
    if crosscheck.missing:
        return (f"flash: at least {sets.predicted_rom:,} B with exactly the models' ops (the missing ones' code not "
                f"counted); {now}")
    if not saving:
        return f"flash: {sets.rom:,} B, every registration used by a model"
    count = len(sets.unused.ops)
    return (f"flash: {sets.predicted_rom:,} B with exactly the models' ops; {now} ({saving:,} B in {count} "
            f"registration{'s' if count != 1 else ''} no model uses)")


def _swap_line(swap, now: str) -> str:
    """The flash of the firmware running the models (sizetool/profile/model_swap.py) and what it is made of."""
    parts = []
    if swap.models_out or swap.models_in:
        parts.append(f"{len(swap.models_out)} model array{'s' if len(swap.models_out) != 1 else ''} out, "
                     f"{len(swap.models_in)} in")
    if swap.dropped:
        parts.append(f"{len(swap.dropped)} registration{'s' if len(swap.dropped) != 1 else ''} no model uses out")
    if swap.ops.missing:
        parts.append(f"{len(swap.ops.missing)} missing added (calibrated)")
    if not swap.models_in and not swap.models_out:  # the firmware's own models (none asked about)
        ops = swap.ops
        if ops.missing:
            return (f"flash: {swap.flash:,} B with exactly the models' ops, the {len(ops.missing)} missing added "
                    f"(calibrated, {swap.low:,} to {swap.high:,}); {now}")
        how = "with exactly the models' ops"
    else:
        how = "running the models " + ("beside its own" if swap.mode == "add" else "in place of its own")
    return (f"flash: {swap.flash:,} B {how} ({swap.low:,} to {swap.high:,}"
            + (f": {', '.join(parts)}" if parts else "") + f"); {now}")


def ram_line(fit: ArenaFit | None) -> str:
    if fit is None:
        return "RAM: not answered (html output, or no model)"
    if fit.needed is None:
        return f"RAM: tensor arena not estimated: {fit.error}"
    needed = f"tensor arena {fit.needed:,} B needed ({'exact' if fit.exact else 'upper bound'})"
    if fit.guessed_ops and fit.without_guessed is not None:  # a guess is in the figure: no bound for that part
        needed = f"tensor arena {fit.needed:,} B needed (upper bound but for a guess: {fit.guess_text})"
    if fit.arena is not None and fit.arena.on_heap and not fit.arena.size_known:
        heap = "" if fit.heap is None else f"; the whole {fit.heap[0]} is {fit.heap[1]:,} B"
        return f"RAM: {needed}; allocated on the heap, of a size the firmware does not state (not checked{heap})"
    if fit.arena is not None and fit.only_the_guess_is_short:
        where = "on the heap" if fit.arena.on_heap else "linked"
        return (f"RAM: tensor arena {fit.without_guessed:,} B needed without the ops no rule models, "
                f"{fit.linked:,} B {where}: not checked: {fit.guess_text}")
    if fit.arena is not None:
        spare = f"{fit.spare:,} spare" if fit.spare >= 0 else f"{-fit.spare:,} short"
        where = "on the heap" if fit.arena.on_heap else "linked"
        return f"RAM: {needed}, {fit.linked:,} B {where} ({spare})"
    if fit.free_ram is not None:
        return f"RAM: {needed}; no arena found, {fit.free_ram:,} B of RAM free"
    return f"RAM: {needed}; no arena found and the free RAM is unknown (give --map or --ram-size)"


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:SHOWN_NAMES])
    return shown + (f" and {len(names) - SHOWN_NAMES} more" if len(names) > SHOWN_NAMES else "")
