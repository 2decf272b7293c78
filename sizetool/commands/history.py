"""`size-report history record|show|diff|plot|prune`: keep every build's report in a database and read it back.

    history record BUILD [--map F] [--ops] [--commit SHA] [--branch B] [--time ISO] [--label K=V]...
    history show [--branch B]... [--label K=V]... [--limit N] [--format table|json|csv|markdown]
    history diff A B [--ram] [--format tree|json|csv|markdown]      (A, B: commit, BRANCH, BRANCH~N or #ID)
    history plot -o flash.html|flash.svg|flash.png [--branch B]... [--stack path|operator] [--step 1K]
    history prune --keep N [--older-than DAYS] [--branch B]...

--db is a SQLite file (default sizes.db, or $SIZE_HISTORY_DB) or a postgresql:// URL. The core lives in
sizetool/history/; these commands parse options (argparse, like every size-report command: sizetool/commands/
arguments.py), call it and write the output.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

from sizetool.commands.arguments import OneLineParser, at_least, non_negative
from sizetool.errors import SizeToolError

DB_HELP = "History database: a SQLite file or a postgresql:// URL (default: $SIZE_HISTORY_DB, else sizes.db)."
DB_ENV = "SIZE_HISTORY_DB"
SHOW_FORMATS = ("table", "json", "csv", "markdown")
DIFF_FORMATS = ("tree", "json", "csv", "markdown")
SUBCOMMAND_HELP = {
    "record": "Record a build's report (an ELF or a saved report) under its commit, branch and labels.",
    "show": "List the recorded builds, newest first, with their deltas and largest movers.",
    "diff": "Compare two recorded builds, with the output of 'size-report diff'.",
    "plot": "Plot ROM and RAM over the commits: a self-contained HTML page, or SVG/PNG.",
    "prune": "Drop old builds; the newest build of every series always stays.",
}


def build_parser(prog: str = "size-report history") -> argparse.ArgumentParser:
    parser = OneLineParser(prog=prog, description="Record builds' size reports in a database; show, diff and plot "
                                                  "them over time.",
                           epilog="Exit status: 0 ok, 2 usage or input error.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    commands.required = True
    sub = {name: commands.add_parser(name, help=text, description=text) for name, text in SUBCOMMAND_HELP.items()}
    default_db = os.environ.get(DB_ENV) or "sizes.db"
    for command in sub.values():
        command.add_argument("--db", default=default_db, metavar="DB", help=DB_HELP)

    record_options = sub["record"]
    record_options.add_argument("build", metavar="BUILD",
                                help="The build: an ELF, or a report saved with 'size-report ELF --save'.")
    record_options.add_argument("--commit", help="Commit id (default: CI variables, then git HEAD).")
    record_options.add_argument("--branch", help="Branch (default: CI variables, then git).")
    record_options.add_argument("--time", metavar="ISO", help="ISO 8601 time (default: the commit's time, then now).")
    record_options.add_argument("--label", dest="labels", action="append", metavar="KEY=VALUE",
                                help="A label such as board=nrf52 (repeatable); one series per set.")
    record_options.add_argument("--map", dest="map_file", metavar="FILE.map",
                                help="The ELF's linker map (GNU ld, armlink or IAR ILINK).")
    record_options.add_argument("--ops", action="store_true",
                                help="Also record the per-operator flash table (ELF builds).")
    record_options.add_argument("--flash-size", metavar="SIZE", help="Flash size when there is no map.")
    record_options.add_argument("--ram-size", metavar="SIZE", help="RAM size when there is no map.")
    record_options.add_argument("--group-by", default="file", metavar="file|cu", help="file or cu, as in the report.")
    record_options.add_argument("--workspace", metavar="DIR", help="Record paths relative to this directory.")
    record_options.add_argument("--min-symbol", default="64", metavar="SIZE",
                                help="Keep symbols of at least this size; smaller ones are summed per file (0: all).")

    show_options = sub["show"]
    show_options.add_argument("--branch", dest="branches", action="append", metavar="BRANCH",
                              help="Only this branch (repeatable).")
    show_options.add_argument("--label", dest="labels", action="append", metavar="KEY=VALUE",
                              help="Only builds with this label.")
    show_options.add_argument("--limit", type=non_negative, default=20, metavar="N",
                              help="Newest builds to list (0: all).")
    show_options.add_argument("-f", "--format", dest="output_format", default="table", metavar="FORMAT",
                              help="table, json, csv or markdown.")
    show_options.add_argument("-o", "--output", metavar="FILE", help="Write to this file (atomically).")

    diff_options = sub["diff"]
    diff_options.add_argument("old", metavar="OLD",
                              help="The older build: a commit, BRANCH (its newest build), BRANCH~N or #ID.")
    diff_options.add_argument("new", metavar="NEW", help="The newer build, named the same way.")
    diff_options.add_argument("--label", dest="labels", action="append", metavar="KEY=VALUE",
                              help="Choose among builds of several label sets.")
    diff_options.add_argument("--ram", action="store_true", help="Compare RAM instead of ROM.")
    diff_options.add_argument("-f", "--format", dest="output_format", default="tree", metavar="FORMAT",
                              help="tree, json, csv or markdown.")
    diff_options.add_argument("--limit", type=non_negative, default=20, metavar="N",
                              help="Rows per table in tree/markdown output (0: all).")
    diff_options.add_argument("-o", "--output", metavar="FILE", help="Write to this file (atomically).")

    plot_options = sub["plot"]
    plot_options.add_argument("-o", "--output", required=True, metavar="FILE",
                              help="flash.html (interactive page), .svg or .png.")
    plot_options.add_argument("--branch", dest="branches", action="append", metavar="BRANCH",
                              help="Only this branch (repeatable).")
    plot_options.add_argument("--label", dest="labels", action="append", metavar="KEY=VALUE",
                              help="Only builds with this label.")
    plot_options.add_argument("--stack", default="path", metavar="path|operator",
                              help="path (top-level path) or operator.")
    plot_options.add_argument("--depth", type=at_least(1, most=2), default=1, metavar="N",
                              help="Path depth of the stacked parts (1 or 2).")
    plot_options.add_argument("--step", default="1K", metavar="SIZE",
                              help="Mark changes of at least this size (bytes, 1K, or 0.5%%).")
    plot_options.add_argument("--last", type=non_negative, default=0, metavar="N",
                              help="Only the newest N builds of each series (0: all).")
    plot_options.add_argument("--title", help="Page or figure title.")

    prune_options = sub["prune"]
    prune_options.add_argument("--keep", type=at_least(1), metavar="N", help="Keep the newest N builds of each series.")
    prune_options.add_argument("--older-than", type=at_least(1), metavar="DAYS",
                               help="Also drop builds older than this many days.")
    prune_options.add_argument("--branch", dest="branches", action="append", metavar="BRANCH",
                               help="Only prune this branch (repeatable).")
    prune_options.add_argument("--dry-run", action="store_true", help="Say what would go; change nothing.")
    return parser


def main(args: list[str], prog: str = "size-report history") -> int:
    parser = build_parser(prog)
    if not args:
        parser.print_help()
        return 0
    options = vars(parser.parse_args(args))
    command = options.pop("command")
    if command == "record":
        source = BuildToRecord(**{name: options.pop(name) for name in BuildToRecord.__dataclass_fields__})
        return record(source, **options)
    return COMMANDS[command](**options)


def _write(text: str, output: str | None) -> None:
    from sizetool.report.report_model import write_text_atomically

    if output:
        write_text_atomically(output, text)
    else:
        sys.stdout.write(text)


@dataclass(frozen=True)
class BuildToRecord:
    """The build `record` stores: an ELF analysed as `size-report` does (with these options), or a saved report."""

    build: str
    map_file: str | None = None
    ops: bool = False
    flash_size: str | None = None
    ram_size: str | None = None
    group_by: str = "file"
    workspace: str | None = None


def record(source: BuildToRecord, db: str, commit: str | None = None, branch: str | None = None,
           time: str | None = None, labels: list[str] | None = None, min_symbol: str = "64") -> int:
    """`history record BUILD --db DB`: the build's totals and its files and symbols, in its branch's series."""
    from sizetool.history.build_info import resolve_build_info
    from sizetool.history.record import record_report
    from sizetool.history.storage import history_database
    from sizetool.sizes import parse_size

    threshold = parse_size(min_symbol, "--min-symbol")
    info = resolve_build_info(commit=commit, branch=branch, time=time, labels=labels)
    report = _load_build(source)
    with history_database(db, create=True) as database:
        outcome = record_report(database, report, info, threshold)
    where = info.branch or "(no branch)"
    labels_text = ",".join(f"{k}={v}" for k, v in info.labels.items())
    summary = f"ROM {report.rom_total}, RAM {report.ram_total}"
    if outcome.previous is not None:
        summary += (f" ({report.rom_total - outcome.previous.rom_total:+d} / "
                    f"{report.ram_total - outcome.previous.ram_total:+d} vs {outcome.previous.short})")
    print(f"{'replaced' if outcome.replaced else 'recorded'} {info.commit[:10]} on {where}"
          f"{f' [{labels_text}]' if labels_text else ''}: {summary} in {database.name}")
    return 0


def _load_build(source: BuildToRecord):
    """The report to record: an ELF analysed as `size-report` does, or a saved size-report JSON."""
    from sizetool.inputs.input_files import is_elf_file, read_input
    from sizetool.sizes import parse_size

    build = source.build
    if source.group_by not in ("file", "cu"):
        raise SizeToolError(f"unknown --group-by {source.group_by!r} (choose file or cu)")
    if is_elf_file(build):
        from sizetool.report.report_builder import build_report

        report = build_report(build, map_path=source.map_file, group_by=source.group_by, workspace=source.workspace,
                              flash_size=parse_size(source.flash_size, "--flash-size") if source.flash_size else None,
                              ram_size=parse_size(source.ram_size, "--ram-size") if source.ram_size else None,
                              use_cache=True)
        if source.ops:
            from sizetool.operators.graph_cache import operator_table

            report.operators = operator_table(build, report, map_path=source.map_file)
        return report
    import json

    from sizetool.history.stored_report import require_saved_report
    from sizetool.report.report_model import report_from_dict

    if source.map_file or source.ops or source.flash_size or source.ram_size:
        raise SizeToolError(f"{build}: --map, --ops, --flash-size and --ram-size apply to an ELF; a saved report "
                            "already carries what it was saved with")
    try:
        data = json.loads(read_input(build, "a saved report").decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise SizeToolError(f"{build}: neither an ELF nor a saved size-report JSON") from None
    require_saved_report(data, build)
    return report_from_dict(data, build)


def _select(database, branches, labels):
    """Builds matching the filters (oldest first), everything before them in their series, and the predecessors."""
    from sizetool.history.build_info import parse_labels
    from sizetool.history.queries import list_builds, predecessors

    with database.reading() as connection:
        builds = list_builds(connection, branches, parse_labels(labels))
    return builds, predecessors(builds)


def show(db: str, branches: list[str] | None = None, labels: list[str] | None = None, limit: int = 20,
         output_format: str = "table", output: str | None = None) -> int:
    from sizetool.history.build_info import parse_labels
    from sizetool.history.queries import changes_for, list_builds, newest_builds, predecessors
    from sizetool.history.show_output import (
        ShowRow,
        render_show_csv,
        render_show_json,
        render_show_markdown,
        render_show_table,
    )
    from sizetool.history.storage import history_database

    if output_format not in SHOW_FORMATS:
        raise SizeToolError(f"unknown --format {output_format!r} (choose from {', '.join(SHOW_FORMATS)})")
    wanted = parse_labels(labels)
    with history_database(db) as database, database.reading() as connection:
        if limit:  # only the rows shown (and their predecessors), however long the history
            shown, previous = newest_builds(connection, limit, branches, wanted)
        else:
            builds = list_builds(connection, branches, wanted)
            shown, previous = builds[::-1], predecessors(builds)
        changes = changes_for(connection, shown, previous)
        name = database.name
    rows = [ShowRow(b, previous[b.id], changes[b.id]) for b in shown]
    if output_format == "json":
        text = render_show_json(rows, name)
    elif output_format == "csv":
        text = render_show_csv(rows)
    elif output_format == "markdown":
        text = render_show_markdown(rows)
    else:
        import shutil

        color = output is None and sys.stdout.isatty()
        text = render_show_table(rows, name, color=color,
                                 width=shutil.get_terminal_size((160, 24)).columns if color else None)
    _write(text, output)
    return 0


def diff(old: str, new: str, db: str, labels: list[str] | None = None, ram: bool = False,
         output_format: str = "tree", limit: int = 20, output: str | None = None) -> int:
    """The same output as `size-report diff OLD NEW`, for two recorded builds."""
    from sizetool.ci.diff import diff_reports
    from sizetool.history.queries import build_report, resolve_reference
    from sizetool.history.storage import history_database
    from sizetool.render.diff_output import render_diff

    if output_format not in DIFF_FORMATS:
        raise SizeToolError(f"unknown --format {output_format!r} (choose from {', '.join(DIFF_FORMATS)})")
    with history_database(db) as database:
        builds, _ = _select(database, None, labels)
        old_build = resolve_reference(builds, old, database.name)
        new_build = resolve_reference(builds, new, database.name)
        with database.reading() as connection:
            result = diff_reports(build_report(connection, old_build), build_report(connection, new_build),
                                  "ram" if ram else "rom")
    text = render_diff(result, output_format, limit)
    _write(text, output)
    return 0


def plot(output: str, db: str, branches: list[str] | None = None, labels: list[str] | None = None,
         stack: str = "path", depth: int = 1, step: str = "1K", last: int = 0, title: str | None = None) -> int:
    from sizetool.history.plot import collect_plot_data, parse_step
    from sizetool.render.history_plot import render_plot_html, render_plot_image
    from sizetool.history.storage import history_database

    if stack not in ("path", "operator"):
        raise SizeToolError(f"unknown --stack {stack!r} (choose path or operator)")
    lower = output.lower()
    kind = "html" if lower.endswith((".html", ".htm")) else "svg" if lower.endswith(".svg") else \
        "png" if lower.endswith(".png") else None
    if kind is None:
        raise SizeToolError(f"{output}: the plot is written as .html, .svg or .png (by the file's extension)")
    threshold = parse_step(step)
    with history_database(db) as database:
        builds, previous = _select(database, branches, labels)
        if not builds:
            raise SizeToolError(f"{database.name}: no recorded builds match")
        with database.reading() as connection:
            data = collect_plot_data(connection, builds, previous, depth=depth, last=last, threshold=threshold,
                                     with_changes=kind == "html")
        data.title = title or f"Size history: {database.name}"
    if kind == "html":
        from sizetool.report.report_model import write_text_atomically

        write_text_atomically(output, render_plot_html(data, stack))
    else:
        render_plot_image(data, stack, output, kind)
    return 0


def prune(db: str, keep: int | None = None, older_than: int | None = None, branches: list[str] | None = None,
          dry_run: bool = False) -> int:
    """Drop old builds; the newest build of every series always stays."""
    from sizetool.history.prune import prune_history
    from sizetool.history.storage import history_database

    if keep is None and older_than is None:
        raise SizeToolError("prune: give --keep N and/or --older-than DAYS")
    with history_database(db) as database:
        removed, remaining = prune_history(database, keep, older_than, branches, dry_run)
        name = database.name
    print(f"{'would drop' if dry_run else 'dropped'} {removed} builds; {remaining} remain in {name}")
    return 0


COMMANDS = {"record": record, "show": show, "diff": diff, "plot": plot, "prune": prune}
