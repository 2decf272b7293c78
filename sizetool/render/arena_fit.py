"""The RAM half of `size-report ELF --model m.tflite`: the tensor arena the models need against the linked arena and
the free RAM (sizetool/fit/model_fit.py), for each output format of the operator answer (render/operators.py).
"""

from __future__ import annotations

from sizetool.fit.model_fit import ArenaFit, facts_lines, heap_arena_text, heap_size_text, verdict
from sizetool.text_escaping import markdown_code, markdown_text

CSV_KINDS = ("arena_needed", "arena_part", "arena_linked", "ram_free", "arena_verdict", "arena_note")


def fit_to_dict(result: ArenaFit) -> dict:
    arena = result.arena
    return {
        "models": list(result.models),
        "kernels": result.kernels.kernels,
        "kernels_from": result.kernels.how,
        "pointer_bytes": result.pointer_bytes,
        "short_enums": result.short_enums,
        "needed_bytes": result.needed,
        "exact": result.exact,
        "revision": result.revision or None,
        "parts": [{"name": name, "bytes": size} for name, size in result.parts],
        "linked": None if arena is None else {
            "symbol": arena.symbol, "address": arena.address, "section": arena.section, "bytes": arena.size,
            "passed_bytes": arena.passed_size, "usable_bytes": arena.usable_bytes, "found_by": arena.found_by,
            "constructed_in": arena.caller or None,
            "heap": None if not arena.on_heap else {
                "pointer": arena.symbol or None, "allocation": arena.allocation or None,
                "size_known": arena.size_known, "size_from": arena.size_from or None},
        },
        "heap_section": None if result.heap is None else {"name": result.heap[0], "bytes": result.heap[1]},
        "spare_bytes": result.spare,
        "free_ram_bytes": result.free_ram,
        "free_ram_region": result.free_region or None,
        "grows_into_free_ram": result.grows_into_free_ram,
        "fits": result.passed,
        "verdict": verdict(result),
        "error": result.error or None,
        "notes": list(result.notes),
        "facts": _facts_dict(result),
    }


def _facts_dict(result: ArenaFit) -> dict:
    """Where the struct sizes of the estimate came from: the ELF's DWARF, or tflm_facts' defaults."""
    facts = result.facts
    if facts is None:
        return {"source": "tflm_facts", "from_elf": [], "defaults": "all", "differ": []}
    sizes = facts.sizes
    return {"source": sizes.source, "from_elf": list(facts.from_elf), "defaults": list(facts.defaults),
            "differ": list(result.facts_differ),
            "sizes": {"structs": dict(sorted(sizes.structs.items())),
                      "op_data": dict(sorted(sizes.op_data.items())), "params": dict(sorted(sizes.params.items())),
                      "enum_bytes": sizes.enum_bytes}}


def fit_csv_rows(result: ArenaFit, row) -> list[tuple]:
    """Rows in the operator CSV's columns (`row` builds one: kind, name, registration, ..., bytes, path, ...)."""
    models = ";".join(result.models)
    if result.needed is None:
        rows = [row("arena_needed", result.kernels.kernels, result.error, models=models)]
    else:
        rows = [row("arena_needed", result.kernels.kernels, "exact" if result.exact else "upper bound",
                    size=result.needed, models=models)]
    rows += [row("arena_part", name, size=size) for name, size in result.parts]
    if result.arena is not None:
        rows.append(row("arena_linked", result.arena.symbol, result.arena.found_by,
                        size=result.arena.usable_bytes if result.arena.size_known else "",
                        path=result.arena.section))
    if result.free_ram is not None:
        rows.append(row("ram_free", result.free_region, size=result.free_ram))
    rows.append(row("arena_verdict", "fits" if result.passed else "does not fit", verdict(result),
                    size="" if result.spare is None else result.spare))
    rows += [row("arena_note", note) for note in result.notes]
    return rows


def fit_markdown_lines(result: ArenaFit) -> list[str]:
    sentence = markdown_text(verdict(result))
    lines = ["## RAM: tensor arena", "", f"**{sentence[0].upper() + sentence[1:]}**" if result.passed
             else f"**{sentence}** :x:", ""]
    lines += ["| | bytes |", "|---|---:|"]
    if result.needed is not None:
        lines.append(f"| needed ({result.kernels.kernels} kernels, {_target(result)}"
                     f"{'' if result.exact else ', upper bound'}) | {result.needed} |")
    lines += [f"| &nbsp;&nbsp;{markdown_text(name)} | {size} |" for name, size in result.parts]
    if result.arena is not None and result.arena.on_heap:
        size = result.linked if result.arena.size_known else "not stated"
        lines.append(f"| on the heap: {markdown_text(heap_arena_text(result.arena))} | {size} |")
    elif result.arena is not None:
        lines.append(f"| linked: {markdown_code(result.arena.symbol)} ({_arena_origin(result)}) | {result.linked} |")
    if result.free_ram is not None:
        lines.append(f"| free RAM ({markdown_text(result.free_region)}) | {result.free_ram} |")
    lines += ["", f"Kernel set {result.kernels.how}."]
    lines += [f"> note: {markdown_text(note)}" for note in result.notes]
    lines += [f"> {markdown_text(line)}" for line in facts_lines(result)] if result.needed is not None else []
    return lines + [""]


def _target(result: ArenaFit) -> str:
    return f"{result.pointer_bytes * 8}-bit pointers" + (", short enums" if result.short_enums else "")


def _arena_origin(result: ArenaFit) -> str:
    arena = result.arena
    if arena.found_by == "interpreter":
        return f"passed to the interpreter in {arena.caller}"
    if arena.found_by == "name":
        return "by its name"
    if arena.on_heap:
        return "allocated on the heap"
    return "--arena-symbol"


def fit_tree(console, result: ArenaFit) -> None:
    """The terminal lines (rich console)."""
    console.print()
    console.print("RAM: tensor arena", style="bold")
    if result.needed is not None:
        console.print(f"needed: {result.needed} bytes ({'exact' if result.exact else 'upper bound'}; "
                      f"{result.kernels.kernels} kernels, {result.kernels.how}; {_target(result)})")
    for name, size in result.parts:
        console.print(f"  {size:>10}  {name}")
    if result.arena is not None and result.arena.on_heap:
        console.print(f"on the heap: {heap_arena_text(result.arena)}; size: {heap_size_text(result.arena)}",
                      highlight=False)
    elif result.arena is not None:
        passed = ""
        if result.arena.passed_size is not None and result.arena.passed_size != result.arena.size:
            passed = f", of its {result.arena.size}"
        console.print(f"linked: {result.linked} bytes{passed}: {result.arena.symbol} in {result.arena.section} "
                      f"({_arena_origin(result)})")
    if result.free_ram is not None:
        console.print(f"free RAM: {result.free_ram} bytes ({result.free_region})")
    console.print(verdict(result), style="yellow" if result.needed is None else "green" if result.passed
                  else "bold red")
    for note in result.notes:
        console.print(f"note: {note}", style="yellow")
    if result.needed is not None:
        for line in facts_lines(result):
            console.print(line, highlight=False)


def arena_lines(console, result: ArenaFit) -> None:
    """Where the arena is and the notes on it, in a line or two (the breakdown is fit_tree's, under --verbose)."""
    how = f"{result.kernels.kernels} kernels, {result.kernels.how}; {_target(result)}"
    if result.arena is not None and result.arena.on_heap:
        console.print(f"arena: on the heap: {heap_arena_text(result.arena)}; size: {heap_size_text(result.arena)}; "
                      f"{how}", markup=False, highlight=False)
    elif result.arena is not None:
        console.print(f"arena: {result.arena.symbol} in {result.arena.section} ({_arena_origin(result)}); {how}",
                      markup=False, highlight=False)
    else:
        console.print(f"arena: none found in the firmware; {how}", markup=False, highlight=False)
    for note in result.notes:
        console.print(f"note: {note}", style="yellow", markup=False, highlight=False)
    if result.needed is not None and result.facts_differ:
        console.print(f"note: the linked TFLM's structs differ from tflm_facts' ({len(result.facts_differ)}: "
                      "--verbose names them)", style="yellow", markup=False, highlight=False)
