"""The arena estimate as users see it: header comment lines, JSON data and a terminal table (gen-resolver --arena)."""

from __future__ import annotations

from tflm_model.arena_estimate import ArenaEstimate

KERNEL_LABELS = {"reference": "reference kernels", "cmsis_nn": "CMSIS-NN kernels", "esp_nn": "esp-nn kernels"}
ABI_LABELS = {"ilp32": "32-bit pointers", "eabi": "32-bit pointers, short enums", "lp64": "64-bit pointers"}


def describe(estimate: ArenaEstimate) -> str:
    """e.g. "reference kernels, 32-bit pointers, exact", "CMSIS-NN kernels for MVE, ..." or "... upper bound" (a
    figure with the guess for an op no rule models in it: "upper bound but for a guess at X's own allocations")."""
    kind = "exact" if estimate.exact else "upper bound"
    if estimate.guessed_ops:
        kind += f" but for a guess at {', '.join(estimate.guessed_ops)}'s own allocations"
    kernels = KERNEL_LABELS[estimate.kernels]
    if estimate.kernels == "cmsis_nn" and estimate.cpu_features == "mve":
        kernels += " for MVE"
    return f"{kernels}, {ABI_LABELS[estimate.abi]}, {kind}"


def comment_lines(estimate: ArenaEstimate) -> list[str]:
    """The breakdown as lines for a // comment block (no comment markers)."""
    width = max(len(part.name) for part in estimate.parts)
    lines = [f"Tensor arena: {estimate.total_bytes:,} bytes ({describe(estimate)})", f"  for TFLM: {estimate.revision}"]
    lines += [f"  {part.name:<{width}}  {part.bytes:>10,}" for part in estimate.parts]
    lines += [f"  note: {note}" for note in estimate.notes]
    return lines


def arena_as_data(estimate: ArenaEstimate) -> dict:
    return {
        "total_bytes": estimate.total_bytes,
        "exact": estimate.exact,
        "revision": estimate.revision,
        "assumed": list(estimate.assumed),
        "kernels": estimate.kernels,
        "pointer_bytes": estimate.pointer_bytes,
        "short_enums": estimate.abi == "eabi",
        "mve": estimate.cpu_features == "mve",
        "plan_bytes": estimate.plan_bytes,
        "persistent_bytes": estimate.persistent_bytes,
        "parts": [{"name": part.name, "bytes": part.bytes} for part in estimate.parts],
        "notes": list(estimate.notes),
        "sharing": "one MicroAllocator shared by one interpreter per model" if len(estimate.models) > 1 else "one model",
    }


def print_arena(estimate: ArenaEstimate, file=None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=file, highlight=False)
    table = Table(title=f"Tensor arena: {estimate.total_bytes:,} B ({describe(estimate)})", title_justify="left")
    table.add_column("part")
    table.add_column("bytes", justify="right")
    for part in estimate.parts:
        table.add_row(part.name, f"{part.bytes:,}")
    table.add_row("total (kTensorArenaSize)", f"{estimate.total_bytes:,}", style="bold")
    console.print(table)
    console.print(f"for TFLM: {estimate.revision}")
    for note in estimate.notes:
        console.print(f"note: {note}")
