"""`size-report ELF --ops`: the per-operator flash table as a terminal table, JSON, CSV or markdown; with `--model`
the cross-check against the models (the `--drop`/`--keep` answer is render/what_if.py).

Table, in every format: one row per operator registration with three figures that add up to what it reaches:
- alone saves (exclusive bytes): what removing its AddXxx() alone saves;
- shared: bytes it needs together with other operators (named), not with the runtime: they go when all go;
- runtime it uses: the runtime code and data its code refers to (calls, pointers), which stay whatever operators are
  removed; input sections the linker keeps whole do not count, so the column is the same with and without a map;
and the files of its exclusive bytes (three largest in the terminal and markdown, all in JSON and CSV). Then one
row per MicroMutableOpResolver<N> instantiation (flagged when the firmware carries more than one N), other class
templates with several instantiations (bytes beyond the largest one), and the split of the ROM total: runtime +
operators' exclusive bytes + bytes shared only among operators.

With `--model`, the RAM half follows (render/arena_fit.py): the tensor arena the models need against the linked arena
and the free RAM; JSON key "arena", CSV kinds arena_*, ram_free.

The JSON is operator_records.operator_table_to_dict (also stored by `--save`) with additive keys.
Output is deterministic: rows keep the table's order (exclusive bytes, largest first, then op name).
"""

from __future__ import annotations

import csv
import io
import os
from typing import TYPE_CHECKING

from sizetool import __version__
from sizetool.render.text_blocks import console_for, finish, rich_table
from sizetool.report.operator_records import FileBytes, OperatorTable, operator_table_to_dict
from sizetool.report.report_model import dump_json, records_to_list
from sizetool.text_escaping import markdown_code, markdown_text

if TYPE_CHECKING:  # the table alone loads no model reader or arena estimate (render/arena_fit.py does, for --model)
    from sizetool.operators.model_crosscheck import ModelCrosscheck, ModelSets
    from sizetool.fit.model_fit import ArenaFit

FORMATS = ("tree", "json", "csv", "markdown")
EMPTY_TABLE = "no TFLM operator registrations found"
RESOLVER = "tflite::MicroMutableOpResolver"
CSV_COLUMNS = ("kind", "name", "registration", "exclusive_bytes", "shared_bytes", "runtime_bytes", "call_site_bytes",
               "bytes", "path", "operators", "models")
TOP_FILES = 3  # files per operator in the terminal and markdown tables
TOP_SYMBOLS = 40  # symbols in the terminal and markdown what-if
TOP_GOING_FILES = 30  # files in the terminal and markdown what-if
RUNTIME_COLUMN = "runtime it uses"
LEGEND = ("alone saves: what removing this one AddXxx() saves (its call, a few bytes in the caller, comes on top); "
          "shared: also needed by the operators named (not by the runtime), goes when they all go; runtime it uses: "
          "the part of the runtime its code refers to, which stays whatever is removed (the runtime below is all of "
          "it: the firmware with no operator)")


def render_operators(table: OperatorTable, output_format: str, source: str, arch: str = "",
                     crosscheck: ModelCrosscheck | None = None, color: bool = False, width: int | None = None,
                     fit: ArenaFit | None = None, embedded: list | None = None) -> str:
    """The operator table (and the --model cross-check and arena fit) in one of FORMATS. `embedded`: the report's
    records of the models linked into the firmware (JSON lists them)."""
    if output_format == "json":
        data = operators_to_dict(table, source, arch, crosscheck)
        if fit is not None:
            from sizetool.render.arena_fit import fit_to_dict

            data["arena"] = fit_to_dict(fit)
        if embedded:
            data["embedded_models"] = records_to_list(embedded)
        return dump_json(data)
    if output_format == "csv":
        return render_operators_csv(table, crosscheck, fit)
    if output_format == "markdown":
        return render_operators_markdown(table, source, arch, crosscheck, fit)
    return render_operators_tree(table, source, arch, crosscheck, color=color, width=width, fit=fit)


def largest_line(table: OperatorTable, shown: int = 3) -> str:
    """The largest costs, answer first: what removing each registration alone saves."""
    largest = sorted(table.operators, key=lambda o: (-o.exclusive_bytes, o.op))[:shown]
    return "largest (what removing it alone saves): " + ", ".join(f"{o.op} {o.exclusive_bytes:,} B" for o in largest)


def several_resolver_sizes(table: OperatorTable) -> bool:
    """True when the firmware instantiates MicroMutableOpResolver<N> for more than one N (each carries its own code)."""
    return len({r.arguments for r in table.resolvers}) > 1


def exclusive_total(table: OperatorTable) -> int:
    return sum(o.exclusive_bytes for o in table.operators)


def call_site_total(table: OperatorTable) -> int:
    return sum(o.call_site_bytes for o in table.operators)


def shared_among_operators(table: OperatorTable) -> int:
    """ROM that operators need but neither the runtime nor any single operator alone:
    total - runtime - exclusive - their AddXxx() calls."""
    return max(0, table.total_rom - table.runtime_bytes - exclusive_total(table) - call_site_total(table))


def _notes(table: OperatorTable) -> list[str]:
    notes = list(table.notes)
    if not table.operators and not any("no TFLM operator registrations" in note for note in notes):
        notes.insert(0, EMPTY_TABLE)
    return notes


def by_path(files: tuple[FileBytes, ...]) -> tuple[FileBytes, ...]:
    """Shared bytes of one file reached by different groups of operators, as one row (all the operators), largest
    first: what the terminal and markdown tables show (JSON and CSV keep the groups)."""
    size: dict[str, int] = {}
    operators: dict[str, set[str]] = {}
    for f in files:
        size[f.path] = size.get(f.path, 0) + f.bytes
        operators.setdefault(f.path, set()).update(f.operators)
    return tuple(FileBytes(path, size[path], tuple(sorted(operators[path])))
                 for path in sorted(size, key=lambda p: (-size[p], p)))


def _files_text(files: tuple[FileBytes, ...], limit: int | None, with_operators: bool = False) -> list[str]:
    """"path bytes" per file (largest first), at most `limit` and a "... N more" line; shared files also name the
    other operators (or count them, past two)."""
    shown = files if limit is None else files[:limit]
    lines = []
    for f in shown:
        text = f"{f.path} {f.bytes}"
        if with_operators and f.operators:
            text += " with " + (", ".join(f.operators) if len(f.operators) <= 2 else f"{len(f.operators)} others")
        lines.append(text)
    if limit is not None and len(files) > limit:
        lines.append(f"... {len(files) - limit} more")
    return lines


# --- JSON ---------------------------------------------------------------------------------------------------------

def operators_to_dict(table: OperatorTable, source: str, arch: str = "",
                      crosscheck: ModelCrosscheck | None = None) -> dict:
    data = operator_table_to_dict(table)
    data["notes"] = _notes(table)
    data.update({
        "several_resolver_sizes": several_resolver_sizes(table),
        "exclusive_bytes": exclusive_total(table),
        "call_site_bytes": call_site_total(table),
        "shared_among_operators_bytes": shared_among_operators(table),
        "source": os.path.basename(source),
        "arch": arch,
        "tool": f"size-report {__version__}",
    })
    if crosscheck is not None:
        data.update(crosscheck_to_dict(crosscheck))
    return data


def crosscheck_to_dict(crosscheck: ModelCrosscheck) -> dict:
    data = {
        "models": list(crosscheck.models),
        "unused": [
            {"op": u.op, "registration": u.registration, "exclusive_bytes": u.exclusive_bytes}
            for u in crosscheck.unused
        ],
        "unused_exclusive_bytes": crosscheck.unused_bytes,
        "missing": [
            {"op": m.op.name, "kind": m.op.kind, "method": m.op.method, "registration": m.op.registration,
             "models": list(m.models), "reason": m.op.unsupported_reason or None, **_judgement_dict(m.judgement)}
            for m in crosscheck.missing
        ],
        "used": [{"op": u.op, "registration": u.registration, "models": list(u.models)} for u in crosscheck.used],
        "type_problems": [
            {"model": t.model, "op": t.op, "subgraph": t.subgraph, "operators": list(t.operators), "types": t.types,
             "reason": t.reason}
            for t in crosscheck.type_problems
        ],
        "variants": [
            {"op": v.op, "variant": v.variant, "function": v.function, "header": v.header, "reason": v.reason,
             "implemented_by": list(v.implemented_by), "saving": v.saving, **_judgement_dict(v.judgement)}
            for v in crosscheck.variants
        ],
        "variants_not_offered": [
            {"op": v.op, "variant": v.variant, "function": v.function, **_judgement_dict(v.judgement)}
            for v in crosscheck.not_offered
        ],
    }
    if crosscheck.sets is not None:
        data.update(sets_to_dict(crosscheck.sets))
    return data


def _judgement_dict(judgement) -> dict:
    """Whether the linked TFLM offers a suggestion (tflm_offer.py): "yes", "no", "unknown", or null when not
    judged, and why."""
    if judgement is None:
        return {"available": None, "available_note": None}
    return {"available": judgement.availability, "available_note": judgement.note or None}


def suggested_call(text: str, judgement) -> str:
    """A suggested registration as every format prints it: the call, followed by what is not verified about it."""
    if judgement is not None and judgement.availability == "unknown":
        return f"{text} ({judgement.reason})"
    return text


def not_offered_lines(crosscheck) -> list[str]:
    """The type-reduced registrations every model allows that the linked TFLM cannot take (so not suggested): one
    sentence per source they were judged from."""
    by_source: dict[str, list[str]] = {}
    for v in crosscheck.not_offered:
        by_source.setdefault(v.judgement.source, []).append(f"{v.variant} ({v.judgement.reason})")
    return [f"Type-reduced registrations the models allow but this TFLM cannot take, so not suggested "
            f"({source or 'your TFLM'}): {'; '.join(items)}." for source, items in by_source.items()]


def bound_sentence(high: int, inline_bytes: int = 0, inlined: tuple[str, ...] = (), low: int = 0) -> str:
    """The error bound a prediction carries, in words (every format says it the same way): it may be `high` bytes too
    high and `low` too low. `inline_bytes` is registration machinery left with one call (operator_sets.SetCost:
    the functions `inlined`), of which the saving counts `low` (half) as inlined away."""
    unexplained = high - (inline_bytes - low)
    because = []
    if unexplained:
        because.append(f"{unexplained} stays only because code no reference explains keeps it (functions sharing a "
                       "library input section with code in use; --map, or DWARF in the libraries, shows which)")
    if inline_bytes:
        because.append(f"the resolver's registration code ({_short_names(inlined)}) is left with a single AddXxx() "
                       f"call: the compiler inlines a function called once into its caller and folds it to that one "
                       f"op (GCC at -Os and -O2 does), which removes up to {inline_bytes} bytes (it and what only it "
                       f"keeps); the figure counts {low} of them as removed (half: GCC removed 37-60% on the builds "
                       "measured)")
    bound = f"may be up to {high} bytes too high" + (f" or {low} too low" if low else "")
    return f"{bound}: " + "; ".join(because)


def _short_names(functions: tuple[str, ...]) -> str:
    """tflite::MicroMutableOpResolver<3u>::AddBuiltin(tflite::BuiltinOperator, ...) -> MicroMutableOpResolver<3u>::
    AddBuiltin(), comma-separated."""
    short = []
    for name in functions:
        plain = name.split("(", 1)[0]
        parts = plain.split("::")
        short.append("::".join(parts[-2:]) + "()")
    return ", ".join(short) or "AddBuiltin()"


def sets_to_dict(sets: ModelSets) -> dict:
    unused = sets.unused
    return {
        "unused_saving": {"ops": list(unused.ops), "bytes": unused.saving, "code_bytes": unused.code_bytes,
                          "call_sites": unused.call_sites, "call_site_bytes": unused.call_site_bytes},
        "predicted_rom": sets.predicted_rom,
        "predicted_rom_may_be_high_by": unused.may_be_high_by,
        "predicted_rom_may_be_low_by": unused.may_be_low_by,
        "predicted_rom_may_be_high_by_inlining": unused.inline_bytes,
        "no_operators_rom": sets.no_operators_rom,
        "model_costs": [
            {"model": m.model, "registrations": list(m.registrations), "firmware_bytes": m.firmware_bytes,
             "on_top_of_runtime": m.on_top_of_runtime, "only_ops": list(m.only_ops),
             "adds_to_others": m.adds_to_others, "missing": list(m.missing), "may_be_high_by": m.may_be_high_by,
             "may_be_low_by": m.may_be_low_by, "may_be_high_by_inlining": m.inline_bytes}
            for m in sets.models
        ],
    }


# --- CSV ----------------------------------------------------------------------------------------------------------

def _row(kind, name="", registration="", exclusive="", shared="", runtime="", call_sites="", size="", path="",
         operators="", models="") -> tuple:
    return (kind, name, registration, exclusive, shared, runtime, call_sites, size, path, operators, models)


def render_operators_csv(table: OperatorTable, crosscheck: ModelCrosscheck | None = None,
                         fit: ArenaFit | None = None) -> str:
    """Columns kind,name,registration,exclusive_bytes,shared_bytes,runtime_bytes,call_site_bytes,bytes,path,
    operators,models; `;` joins lists in a cell.

    Kinds: operator (one per registration), operator_file (its exclusive bytes in one file), operator_shared_file
    (its shared bytes in one file, with the other operators), resolver, template, runtime, shared_among_operators,
    total_rom, note (runtime, call_sites, shared_among_operators and the operators' exclusive bytes add up to
    total_rom); with models also unused, missing, unused_saving, predicted_rom, no_operators_rom, model,
    model_on_top_of_runtime and model_adds_to_others; with the arena fit arena_needed (name: the kernel set),
    arena_part, arena_linked (name: the symbol), ram_free (name: the region), arena_verdict (bytes: to spare, negative
    when short) and arena_note."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for o in table.operators:
        writer.writerow(_row("operator", o.op, o.registration, o.exclusive_bytes, o.shared_bytes, o.runtime_bytes,
                             o.call_site_bytes))
        for f in o.files:
            writer.writerow(_row("operator_file", o.op, size=f.bytes, path=f.path))
        for f in o.shared_files:
            writer.writerow(_row("operator_shared_file", o.op, size=f.bytes, path=f.path,
                                 operators=";".join(f.operators)))
    for r in table.resolvers:
        writer.writerow(_row("resolver", f"{r.template}<{r.arguments}>", size=r.bytes))
    for t in table.templates:
        writer.writerow(_row("template", f"{t.template} {t.arguments}", size=t.bytes))
    writer.writerow(_row("runtime", size=table.runtime_bytes))
    writer.writerow(_row("call_sites", size=call_site_total(table)))
    writer.writerow(_row("shared_among_operators", size=shared_among_operators(table)))
    writer.writerow(_row("total_rom", size=table.total_rom))
    for note in _notes(table):
        writer.writerow(_row("note", note))
    if crosscheck is not None:
        for u in crosscheck.unused:
            writer.writerow(_row("unused", u.op, u.registration, u.exclusive_bytes))
        for m in crosscheck.missing:
            writer.writerow(_row("missing", m.op.name, m.op.registration, models=";".join(m.models)))
        for t in crosscheck.type_problems:
            writer.writerow(_row("type_problem", t.op, t.types, path=f"subgraph {t.subgraph}",
                                 operators=";".join(str(i) for i in t.operators), models=t.model))
        for v in crosscheck.variants:
            writer.writerow(_row("variant", v.op, suggested_call(v.function, v.judgement),
                                 size="" if v.saving is None else v.saving, path=v.header))
        for v in crosscheck.not_offered:
            writer.writerow(_row("variant_not_offered", v.op, v.function, path=v.judgement.note))
        sets = crosscheck.sets
        if sets is not None:
            writer.writerow(_row("unused_saving", str(len(sets.unused.ops)), exclusive=sets.unused.code_bytes,
                                 call_sites=sets.unused.call_site_bytes, size=sets.unused.saving,
                                 operators=";".join(sets.unused.ops)))
            writer.writerow(_row("predicted_rom", size=sets.predicted_rom, models=";".join(crosscheck.models)))
            writer.writerow(_row("predicted_rom_may_be_high_by", size=sets.unused.may_be_high_by))
            writer.writerow(_row("predicted_rom_may_be_low_by", size=sets.unused.may_be_low_by))
            writer.writerow(_row("predicted_rom_may_be_high_by_inlining", size=sets.unused.inline_bytes))
            writer.writerow(_row("no_operators_rom", size=sets.no_operators_rom))
            for m in sets.models:
                writer.writerow(_row("model", m.model, size=m.firmware_bytes, operators=";".join(m.registrations)))
                writer.writerow(_row("model_may_be_high_by", m.model, size=m.may_be_high_by))
                writer.writerow(_row("model_may_be_low_by", m.model, size=m.may_be_low_by))
                writer.writerow(_row("model_may_be_high_by_inlining", m.model, size=m.inline_bytes))
                writer.writerow(_row("model_on_top_of_runtime", m.model, size=m.on_top_of_runtime))
                writer.writerow(_row("model_adds_to_others", m.model, size=m.adds_to_others,
                                     operators=";".join(m.only_ops)))
    if fit is not None:
        from sizetool.render.arena_fit import fit_csv_rows

        writer.writerows(fit_csv_rows(fit, _row))
    return out.getvalue()


# --- markdown -----------------------------------------------------------------------------------------------------


def render_operators_markdown(table: OperatorTable, source: str, arch: str = "",
                              crosscheck: ModelCrosscheck | None = None, fit: ArenaFit | None = None) -> str:
    """Summary first (and the cross-check verdict, and the arena fit), then the tables: made for a pull-request
    comment."""
    name = os.path.basename(source)
    lines = [f"# Operator cost: {markdown_text(name)}" + (f" ({markdown_text(arch)})" if arch else ""), "",
             _summary(table), ""]
    if crosscheck is not None:
        lines += crosscheck_markdown(crosscheck)
    if fit is not None:
        from sizetool.render.arena_fit import fit_markdown_lines

        lines += fit_markdown_lines(fit)
    if table.operators:
        lines += [f"| op | registration | alone saves | shared | {RUNTIME_COLUMN} | files | shared with |",
                  "|---|---|---:|---:|---:|---|---|"]
        for o in table.operators:
            files = "<br>".join(f"{markdown_code(t)}" for t in _files_text(o.files, TOP_FILES))
            shared = "<br>".join(markdown_text(t) for t in _files_text(by_path(o.shared_files), TOP_FILES, with_operators=True))
            lines.append(f"| {markdown_text(o.op)} | {markdown_code(o.registration)} | {o.exclusive_bytes} | {o.shared_bytes} "
                         f"| {o.runtime_bytes} | {files} | {shared} |")
        lines += ["", f"_{LEGEND}_", ""]
    if table.resolvers:
        lines += [_resolver_heading(table), "", "| N | bytes | functions |", "|---:|---:|---:|"]
        lines += [f"| {r.arguments} | {r.bytes} | {len(r.symbols)} |" for r in table.resolvers]
        lines.append("")
    shown = [t for t in table.templates if t.is_tflm]
    if shown:
        lines += ["Other class templates of TFLM with several instantiations (bytes beyond the largest one):", "",
                  "| template | instantiations | bytes |", "|---|---|---:|"]
        lines += [f"| {markdown_code(t.template)} | {markdown_code(t.arguments)} | {t.bytes} |" for t in shown]
        lines.append("")
    if len(shown) < len(table.templates):
        lines += [markdown_text(_other_templates(table, shown)), ""]
    lines += [f"> note: {markdown_text(note)}" for note in _notes(table)]
    return "\n".join(lines).rstrip() + "\n"


def crosscheck_markdown(crosscheck: ModelCrosscheck) -> list[str]:
    models = ", ".join(markdown_code(os.path.basename(m), in_table=False) for m in crosscheck.models)
    lines = []
    if crosscheck.missing:
        lines += [f"**{len(crosscheck.missing)} op(s) needed by {models} are not registered** (the interpreter would "
                  "fail to find them):", "", "| op | kind | register with | models |", "|---|---|---|---|"]
        for m in crosscheck.missing:
            lines.append(f"| {markdown_text(m.op.name)} | {m.op.kind} | {markdown_text(_register_with(m))} | "
                         f"{', '.join(markdown_text(os.path.basename(x)) for x in m.models)} |")
        lines.append("")
    else:
        lines += [f"Every op used by {models} is registered.", ""]
    if crosscheck.type_problems:
        lines += [f"**{len(crosscheck.type_problems)} operator group(s) have tensor types this firmware's kernels "
                  "cannot run** (the model would fail on the device):", ""]
        lines += [f"- {markdown_text(t.message)}" for t in crosscheck.type_problems] + [""]
    if crosscheck.variants:
        from sizetool.operators.model_crosscheck import variant_note

        lines += ["Type-reduced registrations every model allows:", "", "| op | register with | why | effect |",
                  "|---|---|---|---|"]
        lines += [f"| {markdown_text(v.op)} | {_markdown_call(v.call, v.judgement)} | {markdown_text(v.reason)} | {markdown_text(variant_note(v))} |"
                  for v in crosscheck.variants] + [""]
    if crosscheck.not_offered:
        lines += [markdown_text(line) for line in not_offered_lines(crosscheck)] + [""]
    if crosscheck.sets is not None:
        lines += [f"**{sentence}**" if index < 2 else sentence
                  for index, sentence in enumerate(_sets_sentences(crosscheck))] + [""]
    if crosscheck.unused:
        lines += [f"{len(crosscheck.unused)} registered operator(s) no model uses (each row: what removing that op "
                  "alone saves):", "", "| op | registration | alone saves |", "|---|---|---:|"]
        lines += [f"| {markdown_text(u.op)} | {markdown_code(u.registration)} | {u.exclusive_bytes} |" for u in crosscheck.unused]
        lines.append("")
    if crosscheck.sets is not None and len(crosscheck.models) > 1:
        lines += _model_costs_markdown(crosscheck.sets)
    return lines


def _model_costs_markdown(sets: ModelSets) -> list[str]:
    lines = [f"Per model (runtime, i.e. firmware with no operator: {sets.no_operators_rom} bytes):", "",
             "| model | ops | firmware with its ops | on top of the runtime | only it needs | adds to the others |",
             "|---|---:|---:|---:|---|---:|"]
    for m in sets.models:
        lines.append(f"| {markdown_code(os.path.basename(m.model))} | {len(m.registrations)} | {m.firmware_bytes} "
                     f"| {m.on_top_of_runtime} | {markdown_text(', '.join(m.only_ops)) or '-'} | {m.adds_to_others} |")
    return lines + [""]


def _split(table: OperatorTable) -> str:
    return (f"runtime {table.runtime_bytes} (the firmware with no operator) + operators' exclusive "
            f"{exclusive_total(table)} + their AddXxx() calls "
            f"{call_site_total(table)} + shared only among operators {shared_among_operators(table)}")


def _summary(table: OperatorTable) -> str:
    return (f"**{table.total_label} {table.total_rom} bytes** = {_split(table)} ({len(table.operators)} operator "
            "registrations)")


def _other_templates(table: OperatorTable, shown: list) -> str:
    """The line that stands for the application's own templates (mbed, BLE, std): counted, listed only in JSON/CSV."""
    others = [t for t in table.templates if t not in shown]
    return (f"{len(others)} class template{'s' if len(others) != 1 else ''} not of TFLM with several instantiations "
            f"({sum(t.bytes for t in others)} bytes beyond the largest ones) left out: --format json or csv lists them")


def _resolver_heading(table: OperatorTable) -> str:
    count = len(table.resolvers)
    heading = f"{RESOLVER}<N>: {count} instantiation{'s' if count != 1 else ''}"
    if several_resolver_sizes(table):
        heading += " - more than one N: each N carries its own copy of the resolver's member functions"
    return heading


def _register_with(missing) -> str:
    op = missing.op
    if op.unsupported_reason:
        return f"cannot: {op.unsupported_reason}"
    if missing.judgement is not None and missing.judgement.availability == "no":
        return f"cannot: {missing.judgement.note}"
    if op.method == "AddCustom":
        return f'AddCustom("{op.name}", {op.registration}())'
    return suggested_call(f"{op.method}()", missing.judgement)


def _markdown_call(call: str, judgement) -> str:
    text = markdown_code(call)
    if judgement is not None and judgement.availability == "unknown":
        text += f" ({markdown_text(judgement.reason)})"
    return text


def calls_text(cost) -> str:
    """The parts of a saving besides the code and data only the ops need: their AddXxx() calls, and the registration
    code inlining most likely removes."""
    calls = ""
    if cost.call_sites:
        calls = f" + {cost.call_site_bytes} in {cost.call_sites} AddXxx() call{'s' if cost.call_sites != 1 else ''}"
    if cost.inline_estimate:
        calls += f" + {cost.inline_estimate} of registration code inlined into its one caller"
    fill = getattr(cost, "fill_bytes", 0)
    if fill:
        calls += f" {'+' if fill > 0 else '-'} {abs(fill)} of alignment fill the relink {'gives back' if fill > 0 else 'adds'}"
    return calls


def _sets_sentences(crosscheck: ModelCrosscheck) -> list[str]:
    """The two set answers (and what they leave out), as sentences."""
    sets = crosscheck.sets
    unused = sets.unused
    count = len(unused.ops)
    sentences = [
        f"Dropping the {count} op{'s' if count != 1 else ''} no model uses saves {unused.saving} bytes"
        + (f" ({unused.code_bytes} of code and data only they need{calls_text(unused)})" if count else ""),
        f"Firmware with exactly these models' ops: {sets.predicted_rom} bytes (now {sets.rom} - {unused.saving})",
    ]
    if unused.may_be_high_by:
        bound = bound_sentence(unused.may_be_high_by, unused.inline_bytes, unused.inlined, unused.may_be_low_by)
        sentences[1] += f"; it {bound}"
    worst = max(sets.models, key=lambda m: m.may_be_high_by, default=None) if len(crosscheck.models) > 1 else None
    if worst is not None and worst.may_be_high_by:
        bound = bound_sentence(worst.may_be_high_by, worst.inline_bytes, worst.inlined, worst.may_be_low_by)
        sentences.append(f"Each model's firmware below {bound}")
    if crosscheck.missing:
        sentences.append(f"That leaves out the {len(crosscheck.missing)} missing op(s): their code is not in this "
                         "firmware, so the real firmware would be larger")
    return sentences


# --- terminal -----------------------------------------------------------------------------------------------------


def render_operators_tree(table: OperatorTable, source: str, arch: str = "",
                          crosscheck: ModelCrosscheck | None = None, color: bool = False,
                          width: int | None = None, fit: ArenaFit | None = None) -> str:
    """Terminal tables (rich); colour only when asked (the output is a terminal). Fixed width unless given."""
    console, out = console_for(color, width)
    name = os.path.basename(source)
    count = len(table.operators)
    console.print(f"Operators of {name}" + (f" ({arch})" if arch else "") +
                  f": {count} registration{'s' if count != 1 else ''}, {table.total_label} {table.total_rom} bytes",
                  style="bold")
    if table.operators:
        console.print(largest_line(table), markup=False, highlight=False)
    if crosscheck is not None:
        from sizetool.render.fit_summary import passed, summary_lines

        lines = summary_lines(crosscheck, fit, None, name + (f" ({arch})" if arch else ""))
        console.print(lines[0], style="bold green" if passed(crosscheck, fit) else "bold red", markup=False,
                      highlight=False)
        for line in lines[1:]:
            console.print(line, markup=False, highlight=False)
    if table.operators:
        console.print()
        ops = rich_table(("op", {"style": "cyan", "no_wrap": True}),
                     ("alone saves", {"justify": "right", "style": "bold"}), ("shared", {"justify": "right"}),
                     (RUNTIME_COLUMN, {"justify": "right"}),
                     ("files of what only it needs", {"overflow": "fold", "style": "green", "ratio": 2}),
                     ("shared with other operators", {"overflow": "fold", "ratio": 3}))
        for o in table.operators:
            ops.add_row(o.op, str(o.exclusive_bytes), str(o.shared_bytes), str(o.runtime_bytes),
                        "\n".join(_files_text(o.files, TOP_FILES)),
                        "\n".join(_files_text(by_path(o.shared_files), TOP_FILES, with_operators=True)))
        console.print(ops)
        console.print(LEGEND, style="dim")
    if table.resolvers:
        console.print()
        console.print(_resolver_heading(table), style="yellow" if several_resolver_sizes(table) else None)
        resolvers = rich_table(("N", {"justify": "right"}), ("bytes", {"justify": "right", "style": "bold"}),
                           ("functions", {"justify": "right"}))
        for r in table.resolvers:
            resolvers.add_row(r.arguments, str(r.bytes), str(len(r.symbols)))
        console.print(resolvers)
    shown = [t for t in table.templates if t.is_tflm]
    if shown:
        console.print()
        console.print("Other class templates of TFLM with several instantiations (bytes beyond the largest one):")
        templates = rich_table(("template", {"overflow": "fold"}), ("instantiations", {"overflow": "fold"}),
                           ("bytes", {"justify": "right", "style": "bold"}))
        for t in shown:
            templates.add_row(t.template, t.arguments, str(t.bytes))
        console.print(templates)
    if len(shown) < len(table.templates):
        console.print(_other_templates(table, shown), style="dim")
    console.print()
    console.print(f"{table.total_label} {table.total_rom} bytes = {_split(table)}")
    for note in _notes(table):
        console.print(f"note: {note}", style="yellow")
    if crosscheck is not None:
        crosscheck_tree(console, crosscheck)
    if fit is not None:
        from sizetool.render.arena_fit import fit_tree

        fit_tree(console, fit)
    return finish(out)


def crosscheck_tree(console, crosscheck: ModelCrosscheck) -> None:
    console.print()
    console.print("Models: " + ", ".join(crosscheck.models), style="bold")
    if crosscheck.unused:
        console.print(f"Registered, but used by no model: {len(crosscheck.unused)}")
        unused = rich_table(("op", {"style": "cyan", "no_wrap": True}), ("registration", {"overflow": "fold"}),
                        ("alone saves", {"justify": "right", "style": "bold"}))
        for u in crosscheck.unused:
            unused.add_row(u.op, u.registration, str(u.exclusive_bytes))
        console.print(unused)
    else:
        console.print("Every registered operator is used by a model.")
    if crosscheck.sets is not None:
        console.print()
        for index, sentence in enumerate(_sets_sentences(crosscheck)):
            console.print(sentence, style="bold" if index < 2 else "yellow")
        if len(crosscheck.models) > 1:
            sets = crosscheck.sets
            console.print()
            console.print(f"Per model (runtime, i.e. firmware with no operator: {sets.no_operators_rom} bytes):")
            per_model = rich_table(("model", {"overflow": "fold"}), ("ops", {"justify": "right"}),
                               ("firmware with its ops", {"justify": "right", "style": "bold"}),
                               ("on top of the runtime", {"justify": "right"}),
                               ("only it needs", {"overflow": "fold"}),
                               ("adds to the others", {"justify": "right", "style": "bold"}))
            for m in sets.models:
                per_model.add_row(m.model, str(len(m.registrations)), str(m.firmware_bytes), str(m.on_top_of_runtime),
                                  ", ".join(m.only_ops) or "-", str(m.adds_to_others))
            console.print(per_model)
    console.print()
    if crosscheck.missing:
        missing_tree(console, crosscheck)
    else:
        console.print("Every op the models use is registered.", style="green")
    if crosscheck.type_problems:
        type_problems_tree(console, crosscheck)
    if crosscheck.variants:
        from sizetool.operators.model_crosscheck import variant_note

        console.print()
        console.print("Type-reduced registrations every model allows:")
        variants = rich_table(("op", {"style": "cyan", "no_wrap": True}), ("register with", {"overflow": "fold"}),
                          ("why", {"overflow": "fold"}), ("effect", {"overflow": "fold"}))
        for v in crosscheck.variants:
            variants.add_row(v.op, suggested_call(v.call, v.judgement), v.reason, variant_note(v))
        console.print(variants)
    if crosscheck.not_offered:
        console.print()
        for line in not_offered_lines(crosscheck):
            console.print(line, style="yellow", highlight=False)




def missing_tree(console, crosscheck: ModelCrosscheck) -> None:
    """The ops the models need that the firmware does not register, with the call that registers each."""
    console.print(f"Needed by a model, but not registered: {len(crosscheck.missing)} (the interpreter would stop "
                  "with \"Didn't find op for builtin opcode ...\" or its custom-op equivalent)", style="bold red")
    missing = rich_table(("op", {"style": "red", "overflow": "fold"}), ("kind", {}),
                         ("register with", {"overflow": "fold"}), ("models", {"overflow": "fold"}))
    for m in crosscheck.missing:
        missing.add_row(m.op.name, m.op.kind, _register_with(m), ", ".join(m.models))
    console.print(missing)


def type_problems_tree(console, crosscheck: ModelCrosscheck) -> None:
    console.print(f"Tensor types this firmware's kernels cannot run: {len(crosscheck.type_problems)} (the model "
                  "would fail on the device)", style="bold red")
    for t in crosscheck.type_problems:
        console.print(f"  {t.message}", style="red", highlight=False)
