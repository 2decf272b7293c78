"""`size-report ELF --ops`: the per-operator flash table as a terminal table, JSON, CSV or markdown.

Sections, in every format: one row per operator registration (exclusive bytes: what removing its AddXxx() saves;
shared bytes: reachable from it and from other operators or the runtime; the files involved), one row per
MicroMutableOpResolver<N> instantiation (flagged when the firmware carries more than one N), other class templates
with several instantiations (bytes beyond the largest one), then the split of the ROM total: runtime + operators'
exclusive bytes + bytes shared only among operators. With `--model`, the cross-check against the models follows:
registered operators no model uses, and ops a model needs that the firmware does not register.

The JSON is report_model.operator_table_to_dict (the issue's shape, also stored by `--save`) with additive keys.
Output is deterministic: rows keep the table's order (exclusive bytes, largest first, then op name).
"""

from __future__ import annotations

import csv
import io
import os

from sizetool import __version__
from sizetool.operators.model_crosscheck import ModelCrosscheck
from sizetool.report.report_model import OperatorTable, dump_json, operator_table_to_dict

FORMATS = ("tree", "json", "csv", "markdown")
EMPTY_TABLE = "no TFLM operator registrations found"
RESOLVER = "tflite::MicroMutableOpResolver"
CSV_COLUMNS = ("kind", "name", "registration", "exclusive_bytes", "shared_bytes", "bytes", "files", "models")


def render_operators(table: OperatorTable, output_format: str, source: str, arch: str = "",
                     crosscheck: ModelCrosscheck | None = None, color: bool = False, width: int | None = None) -> str:
    """The operator table (and the --model cross-check) in one of FORMATS."""
    if output_format == "json":
        return dump_json(operators_to_dict(table, source, arch, crosscheck))
    if output_format == "csv":
        return render_operators_csv(table, crosscheck)
    if output_format == "markdown":
        return render_operators_markdown(table, source, arch, crosscheck)
    return render_operators_tree(table, source, arch, crosscheck, color=color, width=width)


def several_resolver_sizes(table: OperatorTable) -> bool:
    """True when the firmware instantiates MicroMutableOpResolver<N> for more than one N (each carries its own code)."""
    return len({r.arguments for r in table.resolvers}) > 1


def exclusive_total(table: OperatorTable) -> int:
    return sum(o.exclusive_bytes for o in table.operators)


def shared_among_operators(table: OperatorTable) -> int:
    """ROM that operators need but neither the runtime nor any single operator alone: total - runtime - exclusive."""
    return max(0, table.total_rom - table.runtime_bytes - exclusive_total(table))


def _notes(table: OperatorTable) -> list[str]:
    notes = list(table.notes)
    if not table.operators and not any("no TFLM operator registrations" in note for note in notes):
        notes.insert(0, EMPTY_TABLE)
    return notes


def operators_to_dict(table: OperatorTable, source: str, arch: str = "",
                      crosscheck: ModelCrosscheck | None = None) -> dict:
    data = operator_table_to_dict(table)
    data["notes"] = _notes(table)
    data.update({
        "several_resolver_sizes": several_resolver_sizes(table),
        "exclusive_bytes": exclusive_total(table),
        "shared_among_operators_bytes": shared_among_operators(table),
        "source": os.path.basename(source),
        "arch": arch,
        "tool": f"size-report {__version__}",
    })
    if crosscheck is not None:
        data.update(crosscheck_to_dict(crosscheck))
    return data


def crosscheck_to_dict(crosscheck: ModelCrosscheck) -> dict:
    return {
        "models": list(crosscheck.models),
        "unused": [
            {"op": u.op, "registration": u.registration, "exclusive_bytes": u.exclusive_bytes}
            for u in crosscheck.unused
        ],
        "unused_exclusive_bytes": crosscheck.unused_bytes,
        "missing": [
            {"op": m.op.name, "kind": m.op.kind, "method": m.op.method, "registration": m.op.registration,
             "models": list(m.models), "reason": m.op.unsupported_reason or None}
            for m in crosscheck.missing
        ],
        "used": [{"op": u.op, "registration": u.registration, "models": list(u.models)} for u in crosscheck.used],
    }


def render_operators_csv(table: OperatorTable, crosscheck: ModelCrosscheck | None = None) -> str:
    """Rows kind,name,registration,exclusive_bytes,shared_bytes,bytes,files,models; `;` joins lists in a cell.

    Kinds: operator, resolver, template, runtime, shared_among_operators, total_rom, note; with models also unused
    and missing."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for o in table.operators:
        writer.writerow(("operator", o.op, o.registration, o.exclusive_bytes, o.shared_bytes, "", ";".join(o.files),
                         ""))
    for r in table.resolvers:
        writer.writerow(("resolver", f"{r.template}<{r.arguments}>", "", "", "", r.bytes, "", ""))
    for t in table.templates:
        writer.writerow(("template", f"{t.template} {t.arguments}", "", "", "", t.bytes, "", ""))
    writer.writerow(("runtime", "", "", "", "", table.runtime_bytes, "", ""))
    writer.writerow(("shared_among_operators", "", "", "", "", shared_among_operators(table), "", ""))
    writer.writerow(("total_rom", "", "", "", "", table.total_rom, "", ""))
    for note in _notes(table):
        writer.writerow(("note", note, "", "", "", "", "", ""))
    if crosscheck is not None:
        for u in crosscheck.unused:
            writer.writerow(("unused", u.op, u.registration, u.exclusive_bytes, "", "", "", ""))
        for m in crosscheck.missing:
            writer.writerow(("missing", m.op.name, m.op.registration, "", "", "", "", ";".join(m.models)))
    return out.getvalue()


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def render_operators_markdown(table: OperatorTable, source: str, arch: str = "",
                              crosscheck: ModelCrosscheck | None = None) -> str:
    """Summary first (and the cross-check verdict), then the tables: made for a pull-request comment."""
    name = os.path.basename(source)
    lines = [f"# Operator cost: {name}" + (f" ({arch})" if arch else ""), "", _summary(table), ""]
    if crosscheck is not None:
        lines += _crosscheck_markdown(crosscheck)
    if table.operators:
        lines += ["| op | registration | exclusive | shared | files |", "|---|---|---:|---:|---|"]
        for o in table.operators:
            files = ", ".join(f"`{_md(f)}`" for f in o.files)
            lines.append(f"| {_md(o.op)} | `{_md(o.registration)}` | {o.exclusive_bytes} | {o.shared_bytes} "
                         f"| {files} |")
        lines.append("")
    if table.resolvers:
        lines += [_resolver_heading(table), "", "| N | bytes | functions |", "|---:|---:|---:|"]
        lines += [f"| {r.arguments} | {r.bytes} | {len(r.symbols)} |" for r in table.resolvers]
        lines.append("")
    if table.templates:
        lines += ["Other class templates with several instantiations (bytes beyond the largest one):", "",
                  "| template | instantiations | bytes |", "|---|---|---:|"]
        lines += [f"| `{_md(t.template)}` | `{_md(t.arguments)}` | {t.bytes} |" for t in table.templates]
        lines.append("")
    lines += [f"> note: {_md(note)}" for note in _notes(table)]
    return "\n".join(lines).rstrip() + "\n"


def _crosscheck_markdown(crosscheck: ModelCrosscheck) -> list[str]:
    models = ", ".join(f"`{_md(os.path.basename(m))}`" for m in crosscheck.models)
    lines = []
    if crosscheck.missing:
        lines += [f"**{len(crosscheck.missing)} op(s) needed by {models} are not registered** (the interpreter would "
                  "fail to find them):", "", "| op | kind | register with | models |", "|---|---|---|---|"]
        for m in crosscheck.missing:
            lines.append(f"| {_md(m.op.name)} | {m.op.kind} | {_md(_register_with(m))} | "
                         f"{', '.join(_md(os.path.basename(x)) for x in m.models)} |")
        lines.append("")
    else:
        lines += [f"Every op used by {models} is registered.", ""]
    if crosscheck.unused:
        lines += [f"**{len(crosscheck.unused)} registered operator(s) no model uses** (removing them saves at least "
                  f"{crosscheck.unused_bytes} bytes):", "", "| op | registration | exclusive |", "|---|---|---:|"]
        lines += [f"| {_md(u.op)} | `{_md(u.registration)}` | {u.exclusive_bytes} |" for u in crosscheck.unused]
        lines.append("")
    return lines


def _summary(table: OperatorTable) -> str:
    return (f"**ROM {table.total_rom} bytes** = runtime {table.runtime_bytes} + operators' exclusive "
            f"{exclusive_total(table)} + shared only among operators {shared_among_operators(table)} "
            f"({len(table.operators)} operator registrations)")


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
    if op.method == "AddCustom":
        return f'AddCustom("{op.name}", {op.registration}())'
    return f"{op.method}()"


def render_operators_tree(table: OperatorTable, source: str, arch: str = "",
                          crosscheck: ModelCrosscheck | None = None, color: bool = False,
                          width: int | None = None) -> str:
    """Terminal tables (rich); colour only when asked (the output is a terminal). Fixed width unless given."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    out = io.StringIO()
    console = Console(file=out, width=width or 160, force_terminal=color, color_system="standard" if color else None,
                      highlight=False, emoji=False, markup=False, soft_wrap=True)
    name = os.path.basename(source)
    count = len(table.operators)
    console.print(f"Operators of {name}" + (f" ({arch})" if arch else "") +
                  f": {count} registration{'s' if count != 1 else ''}, ROM {table.total_rom} bytes",
                  style="bold")
    if table.operators:
        ops = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
        ops.add_column("op", style="cyan", no_wrap=True)
        ops.add_column("registration", overflow="fold")
        ops.add_column("exclusive", justify="right", style="bold")
        ops.add_column("shared", justify="right")
        ops.add_column("files", overflow="fold", style="green")
        for o in table.operators:
            ops.add_row(o.op, o.registration, str(o.exclusive_bytes), str(o.shared_bytes), "\n".join(o.files))
        console.print(ops)
        console.print("exclusive: what removing the operator's AddXxx() saves; shared: also reachable from other "
                      "operators or the runtime", style="dim")
    if table.resolvers:
        console.print()
        console.print(_resolver_heading(table), style="yellow" if several_resolver_sizes(table) else None)
        resolvers = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
        resolvers.add_column("N", justify="right")
        resolvers.add_column("bytes", justify="right", style="bold")
        resolvers.add_column("functions", justify="right")
        for r in table.resolvers:
            resolvers.add_row(r.arguments, str(r.bytes), str(len(r.symbols)))
        console.print(resolvers)
    if table.templates:
        console.print()
        console.print("Other class templates with several instantiations (bytes beyond the largest one):")
        templates = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
        templates.add_column("template", overflow="fold")
        templates.add_column("instantiations", overflow="fold")
        templates.add_column("bytes", justify="right", style="bold")
        for t in table.templates:
            templates.add_row(t.template, t.arguments, str(t.bytes))
        console.print(templates)
    console.print()
    console.print(f"ROM {table.total_rom} bytes = runtime {table.runtime_bytes} + operators' exclusive "
                  f"{exclusive_total(table)} + shared only among operators {shared_among_operators(table)}")
    for note in _notes(table):
        console.print(f"note: {note}", style="yellow")
    if crosscheck is not None:
        _crosscheck_tree(console, crosscheck)
    return "".join(line.rstrip() + "\n" for line in out.getvalue().splitlines())


def _crosscheck_tree(console, crosscheck: ModelCrosscheck) -> None:
    from rich import box
    from rich.table import Table

    console.print()
    console.print("Models: " + ", ".join(crosscheck.models), style="bold")
    if crosscheck.unused:
        console.print(f"Registered, but used by no model: {len(crosscheck.unused)} (removing them saves at least "
                      f"{crosscheck.unused_bytes} bytes)")
        unused = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
        unused.add_column("op", style="cyan", no_wrap=True)
        unused.add_column("registration", overflow="fold")
        unused.add_column("exclusive", justify="right", style="bold")
        for u in crosscheck.unused:
            unused.add_row(u.op, u.registration, str(u.exclusive_bytes))
        console.print(unused)
    else:
        console.print("Every registered operator is used by a model.")
    console.print()
    if crosscheck.missing:
        console.print(f"Needed by a model, but not registered: {len(crosscheck.missing)} (the interpreter would stop "
                      "with \"Didn't find op for builtin opcode ...\" or its custom-op equivalent)", style="bold red")
        missing = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
        missing.add_column("op", style="red", overflow="fold")
        missing.add_column("kind")
        missing.add_column("register with", overflow="fold")
        missing.add_column("models", overflow="fold")
        for m in crosscheck.missing:
            missing.add_row(m.op.name, m.op.kind, _register_with(m), ", ".join(m.models))
        console.print(missing)
    else:
        console.print("Every op the models use is registered.", style="green")
