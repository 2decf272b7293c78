"""`size-report ELF --stack`: worst-case stack depth per root, as terminal tables, JSON, CSV or markdown.

Every format carries, per root: its worst-case depth, whether that figure is an upper bound (no warnings) or not,
the call path that reaches it (each function with its frame, the depth at which it is entered, how it was entered:
call, tail call, `invoke of CONV_2D` through a registration, and where from), and the warnings of everything the
root reaches, each with its function and address. With `--su-dir`, how GCC's `.su` figures matched the frames read
from the disassembly, and every function where the two differ.
"""

from __future__ import annotations

import csv
import io
import os

from sizetool.render.path_summary import LeftOut, grouped_warnings, summarised
from sizetool.render.text_blocks import console_for, finish, rich_table
from sizetool.report.report_model import dump_json
from sizetool.stack.stack_depth import RootDepth, StackReport
from sizetool.text_escaping import markdown_code, markdown_text

FORMATS = ("tree", "json", "csv", "markdown")
CSV_COLUMNS = ("root", "record", "step", "function", "address", "frame", "depth", "via", "call_site", "detail")
TOP_KERNELS = 10  # deepest kernels per root in the terminal and markdown (all in JSON and CSV)


def render_stack(report: StackReport, output_format: str, color: bool = False, width: int | None = None,
                 verbose: bool = False) -> str:
    """JSON and CSV carry every step and warning; the terminal and markdown show each path's first frames, its
    largest, the deepest function and the total, and repeated warnings as one line with a count, unless `verbose`."""
    if output_format == "json":
        return dump_json(stack_to_dict(report))
    if output_format == "csv":
        return render_stack_csv(report)
    if output_format == "markdown":
        return render_stack_markdown(report, verbose)
    return render_stack_tree(report, color=color, width=width, verbose=verbose)


def stack_to_dict(report: StackReport) -> dict:
    data = {
        "source": report.source,
        "arch": report.arch,
        "functions_with_frames": report.frames,
        "models": report.models,
        "ignored": report.ignored,
        "roots": [_root_to_dict(root) for root in report.roots],
    }
    if report.su_entries:
        data["stack_usage"] = _su_summary(report)
    return data


def _root_to_dict(root: RootDepth) -> dict:
    return {
        "root": root.root,
        "kind": root.kind,
        "function": root.function,
        "address": f"0x{root.address:08x}",
        "depth": root.depth,
        "bounded": root.bounded,
        "measured": root.measured,
        "path": [{"function": step.function, "address": f"0x{step.address:08x}", "frame": step.frame,
                  "depth": step.depth, "via": step.via,
                  "call_site": None if step.call_site is None else f"0x{step.call_site:08x}",
                  "frame_source": step.frame_source} for step in root.path],
        "warnings": [{"kind": w.kind, "function": w.function, "address": f"0x{w.address:08x}", "detail": w.detail}
                     for w in root.warnings],
        "kernels": [{"op": k.op, "role": k.role, "function": k.function, "depth": k.depth, "bounded": k.bounded}
                    for k in root.kernels],
    }


def _su_summary(report: StackReport) -> dict:
    return {"entries": report.su_entries, "matched": report.su_matched,
            "mismatches": [{"function": name, "disassembly": disassembly, "su": su, "qualifiers": qualifiers}
                           for name, disassembly, su, qualifiers in report.su_mismatches]}


def render_stack_csv(report: StackReport) -> str:
    """One row per path step and per warning of each root."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for root in report.roots:
        for index, step in enumerate(root.path):
            writer.writerow((root.root, "path", index, step.function, f"0x{step.address:08x}", step.frame, step.depth,
                             step.via, "" if step.call_site is None else f"0x{step.call_site:08x}",
                             step.frame_source))
        writer.writerow((root.root, "total", "", root.function, f"0x{root.address:08x}", "", root.depth, "",
                         "", "bounded" if root.bounded else "lower bound: see the warnings"))
        for kernel in root.kernels:
            writer.writerow((root.root, "kernel", "", kernel.function, "", "", kernel.depth,
                             f"{kernel.role} of {kernel.op}", "", "bounded" if kernel.bounded else "lower bound"))
        for warning in root.warnings:
            writer.writerow((root.root, "warning", "", warning.function, f"0x{warning.address:08x}", "", "",
                             warning.kind, "", warning.detail))
    return out.getvalue()


def _headline(report: StackReport) -> str:
    text = f"Stack of {os.path.basename(report.source)} ({report.arch}): "
    deepest = max(report.roots, key=lambda root: root.depth, default=None)
    if deepest is not None:  # the answer first: the worst case, then what it was read from
        text += f"deepest {deepest.root} {deepest.depth:,} B ({_bound(deepest)}); "
    text += f"{report.frames} function frames"
    if report.su_entries:
        text += (f"; .su: {report.su_matched} functions matched of {report.su_entries} entries, "
                 f"{len(report.su_mismatches)} differ")
    if report.models:
        text += f"; kernels narrowed to {', '.join(os.path.basename(m) for m in report.models)}"
    if report.ignored:
        text += f"; calls into {', '.join(report.ignored)} not followed (--ignore)"
    return text


def _bound(root: RootDepth) -> str:
    if root.measured:
        return "measured"  # a leaf: its own frame, read from its code
    if root.bounded:
        return "upper bound"
    return f"{len(root.warnings)} warning{'s' if len(root.warnings) != 1 else ''}"


def _via(step) -> str:
    if step.call_site is None:
        return step.via
    return f"{step.via} at {step.call_site:#x}"


def _warning_lines(report: StackReport, verbose: bool) -> dict[str, list[str]]:
    """Each root's warning lines: every warning with `verbose`; otherwise one line per kind with its sites counted
    and the functions holding most of them, and the warnings an earlier root already showed said in one line."""
    lines: dict[str, list[str]] = {}
    shown_under: dict = {}  # warning -> the first root that showed it
    for root in report.roots:
        if verbose:
            lines[root.root] = [warning.text() for warning in root.warnings]
            continue
        earlier: dict[str, int] = {}
        fresh = []
        for warning in root.warnings:
            if warning in shown_under:
                earlier[shown_under[warning]] = earlier.get(shown_under[warning], 0) + 1
            else:
                shown_under[warning] = root.root
                fresh.append(warning)
        text = [group.text() for group in grouped_warnings(fresh)]
        text += [f"{count} warning{'s' if count != 1 else ''} as under {name} (reached from both)"
                 for name, count in earlier.items()]
        lines[root.root] = text
    return lines


def render_stack_tree(report: StackReport, color: bool = False, width: int | None = None,
                      verbose: bool = False) -> str:
    console, out = console_for(color, width)
    console.print(_headline(report), style="bold")
    summary = rich_table(("root", {"style": "cyan", "overflow": "fold"}), ("kind", {}),
                     ("worst case", {"justify": "right", "style": "bold"}), ("", {}),
                     ("deepest function", {"overflow": "fold"}))
    for root in report.roots:
        summary.add_row(root.root, root.kind, f"{root.depth} B", _bound(root),
                        root.path[-1].function if root.path else "")
    console.print(summary)
    warning_lines = _warning_lines(report, verbose)
    for root in report.roots:
        if not verbose and len(root.path) <= 1 and not warning_lines[root.root]:
            continue  # a handler with no call and no warning: its summary row says everything
        console.print()
        console.print(f"{root.root} ({root.kind}): {root.depth} bytes worst case"
                      + ("" if root.bounded else f", a lower bound: {_bound(root)} below"), style="bold")
        path = rich_table(("depth", {"justify": "right"}), ("frame", {"justify": "right", "style": "bold"}),
                      ("function", {"overflow": "fold", "style": "cyan", "ratio": 3}),
                      ("entered by", {"overflow": "fold", "ratio": 2}), ("frame from", {}))
        for item in summarised([step.frame for step in root.path], verbose):
            if isinstance(item, LeftOut):
                path.add_row("", "", item.text(), "", "")
                continue
            step = root.path[item]
            path.add_row(str(step.depth), str(step.frame), step.function, _via(step), step.frame_source)
        if len(root.path) > 1:
            path.add_row(str(root.depth), "", f"total: {len(root.path)} frames", "", "")
        console.print(path)
        if root.kernels:
            kernels = rich_table(("kernel", {"style": "cyan"}), ("", {}), ("own depth", {"justify": "right"}),
                             ("function", {"overflow": "fold"}))
            for kernel in root.kernels[:TOP_KERNELS]:
                kernels.add_row(kernel.op, kernel.role, f"{kernel.depth} B" + ("" if kernel.bounded else " +"),
                                kernel.function)
            console.print(f"Deepest kernels it calls through registrations ({len(root.kernels)} functions; "
                          "+: a lower bound):")
            console.print(kernels)
        for line in warning_lines[root.root]:
            console.print(f"warning: {line}", style="yellow")
    _mismatches_tree(console, report)
    return finish(out)


def _mismatches_tree(console, report: StackReport) -> None:
    if not report.su_mismatches:
        return
    console.print()
    console.print(".su figures that differ from the disassembly (the walk uses the larger):", style="yellow")
    table = rich_table(("function", {"overflow": "fold"}), ("disassembly", {"justify": "right"}),
                   (".su", {"justify": "right"}), ("qualifiers", {}))
    for name, disassembly, su, qualifiers in report.su_mismatches:
        table.add_row(name, str(disassembly), str(su), qualifiers)
    console.print(table)


def render_stack_markdown(report: StackReport, verbose: bool = False) -> str:
    lines = [f"### {markdown_text(_headline(report))}", "", "| root | kind | worst case | | deepest function |",
             "|---|---|---:|---|---|"]
    for root in report.roots:
        lines.append(f"| {markdown_code(root.root)} | {root.kind} | {root.depth} B | {_bound(root)} | "
                     f"{markdown_code(root.path[-1].function) if root.path else '``'} |")
    warning_lines = _warning_lines(report, verbose)
    for root in report.roots:
        lines += ["", f"#### {markdown_code(root.root, in_table=False)}: {root.depth} bytes", "",
                  "| depth | frame | function | entered by | frame from |", "|---:|---:|---|---|---|"]
        for item in summarised([step.frame for step in root.path], verbose):
            if isinstance(item, LeftOut):
                lines.append(f"| | | {markdown_text(item.text())} | | |")
                continue
            step = root.path[item]
            lines.append(f"| {step.depth} | {step.frame} | {markdown_code(step.function)} | {markdown_text(_via(step))} | "
                         f"{step.frame_source} |")
        if len(root.path) > 1:
            lines.append(f"| {root.depth} | | total: {len(root.path)} frames | | |")
        if root.kernels:
            lines += ["", "| kernel | role | own depth | function |", "|---|---|---:|---|"]
            for kernel in root.kernels[:TOP_KERNELS]:
                lines.append(f"| {kernel.op} | {kernel.role} | {kernel.depth} B{'' if kernel.bounded else ' +'} | "
                             f"{markdown_code(kernel.function)} |")
        if warning_lines[root.root]:
            lines.append("")
            lines += [f"- {markdown_text(line)}" for line in warning_lines[root.root]]
    if report.su_mismatches:
        lines += ["", "| function | disassembly | .su | qualifiers |", "|---|---:|---:|---|"]
        for name, disassembly, su, qualifiers in report.su_mismatches:
            lines.append(f"| {markdown_code(name)} | {disassembly} | {su} | {qualifiers} |")
    return "\n".join(lines) + "\n"
