"""`size-report history record|show|diff|plot|prune`: keep every build's report in a database and read it back.

    history record BUILD [--map F] [--ops] [--commit SHA] [--branch B] [--time ISO] [--label K=V]...
    history show [--branch B]... [--label K=V]... [--limit N] [--format table|json|csv|markdown]
    history diff A B [--ram] [--format tree|json|csv|markdown]      (A, B: commit, BRANCH, BRANCH~N or #ID)
    history plot -o flash.html|flash.svg|flash.png [--branch B]... [--stack path|operator] [--step 1K]
    history prune --keep N [--older-than DAYS] [--branch B]...

--db is a SQLite file (default sizes.db, or $SIZE_HISTORY_DB) or a postgresql:// URL. The core lives in
sizetool/history/; these commands parse options, call it and write the output.
"""

from __future__ import annotations

import sys
from typing import List, Optional

import typer

from sizetool.errors import SizeToolError

app = typer.Typer(pretty_exceptions_enable=False, add_completion=False, rich_markup_mode=None,
                  no_args_is_help=True, help="Record builds' size reports in a database; show, diff and plot them over time.")

DB_HELP = "History database: a SQLite file or a postgresql:// URL (also $SIZE_HISTORY_DB)."
DB_ENV = "SIZE_HISTORY_DB"
SHOW_FORMATS = ("table", "json", "csv", "markdown")
DIFF_FORMATS = ("tree", "json", "csv", "markdown")


def _db_option():
    return typer.Option("sizes.db", "--db", envvar=DB_ENV, help=DB_HELP, show_envvar=False)


def _write(text: str, output: Optional[str]) -> None:
    from sizetool.report.report_model import write_text_atomically

    if output:
        write_text_atomically(output, text)
    else:
        sys.stdout.write(text)


@app.command()
def record(
    build: str = typer.Argument(..., help="The build: an ELF, or a report saved with 'size-report ELF --save'."),
    db: str = _db_option(),
    commit: Optional[str] = typer.Option(None, "--commit", help="Commit id (default: CI variables, then git HEAD)."),
    branch: Optional[str] = typer.Option(None, "--branch", help="Branch (default: CI variables, then git)."),
    time: Optional[str] = typer.Option(None, "--time", help="ISO 8601 time (default: the commit's time, then now)."),
    labels: Optional[List[str]] = typer.Option(None, "--label", metavar="KEY=VALUE",
                                               help="A label such as board=nrf52 (repeatable); one series per set."),
    map_file: Optional[str] = typer.Option(None, "--map", help="GNU ld map file of the ELF."),
    ops: bool = typer.Option(False, "--ops", help="Also record the per-operator flash table (ELF builds)."),
    flash_size: Optional[str] = typer.Option(None, "--flash-size", help="Flash size when there is no map."),
    ram_size: Optional[str] = typer.Option(None, "--ram-size", help="RAM size when there is no map."),
    group_by: str = typer.Option("file", "--group-by", help="file or cu, as in the report."),
    workspace: Optional[str] = typer.Option(None, "--workspace", help="Record paths relative to this directory."),
    min_symbol: str = typer.Option("64", "--min-symbol",
                                   help="Keep symbols of at least this size; smaller ones are summed per file (0: all)."),
) -> int:
    from sizetool.history.build_info import resolve_build_info
    from sizetool.history.record import record_report
    from sizetool.history.storage import history_database
    from sizetool.sizes import parse_size

    threshold = parse_size(min_symbol, "--min-symbol")
    info = resolve_build_info(commit=commit, branch=branch, time=time, labels=labels)
    report = _load_build(build, map_file, ops, flash_size, ram_size, group_by, workspace)
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


def _load_build(build: str, map_file, ops: bool, flash_size, ram_size, group_by: str, workspace):
    """The report to record: an ELF analysed as `size-report` does, or a saved size-report JSON."""
    from sizetool.inputs.input_files import is_elf_file, read_input
    from sizetool.sizes import parse_size

    if group_by not in ("file", "cu"):
        raise SizeToolError(f"unknown --group-by {group_by!r} (choose file or cu)")
    if is_elf_file(build):
        from sizetool.report.report_builder import build_report

        report = build_report(build, map_path=map_file, group_by=group_by, workspace=workspace,
                              flash_size=parse_size(flash_size, "--flash-size") if flash_size else None,
                              ram_size=parse_size(ram_size, "--ram-size") if ram_size else None, use_cache=True)
        if ops:
            from sizetool.operators.graph_cache import operator_table

            report.operators = operator_table(build, report, map_path=map_file)
        return report
    import json

    from sizetool.history.stored_report import require_saved_report
    from sizetool.report.report_model import report_from_dict

    if map_file or ops or flash_size or ram_size:
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


@app.command()
def show(
    db: str = _db_option(),
    branches: Optional[List[str]] = typer.Option(None, "--branch", help="Only this branch (repeatable)."),
    labels: Optional[List[str]] = typer.Option(None, "--label", metavar="KEY=VALUE", help="Only builds with this label."),
    limit: int = typer.Option(20, "--limit", min=0, help="Newest builds to list (0: all)."),
    output_format: str = typer.Option("table", "--format", "-f", help="table, json, csv or markdown."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Write to this file (atomically)."),
) -> int:
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


@app.command()
def diff(
    old: str = typer.Argument(..., help="The older build: a commit, BRANCH (its newest build), BRANCH~N or #ID."),
    new: str = typer.Argument(..., help="The newer build, named the same way."),
    db: str = _db_option(),
    labels: Optional[List[str]] = typer.Option(None, "--label", metavar="KEY=VALUE",
                                               help="Choose among builds of several label sets."),
    ram: bool = typer.Option(False, "--ram", help="Compare RAM instead of ROM."),
    output_format: str = typer.Option("tree", "--format", "-f", help="tree, json, csv or markdown."),
    limit: int = typer.Option(20, "--limit", min=0, help="Rows per table in tree/markdown output (0: all)."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Write to this file (atomically)."),
) -> int:
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


@app.command()
def plot(
    output: str = typer.Option(..., "-o", "--output", help="flash.html (interactive page), .svg or .png."),
    db: str = _db_option(),
    branches: Optional[List[str]] = typer.Option(None, "--branch", help="Only this branch (repeatable)."),
    labels: Optional[List[str]] = typer.Option(None, "--label", metavar="KEY=VALUE", help="Only builds with this label."),
    stack: str = typer.Option("path", "--stack", help="path (top-level path) or operator."),
    depth: int = typer.Option(1, "--depth", min=1, max=2, help="Path depth of the stacked parts (1 or 2)."),
    step: str = typer.Option("1K", "--step", help="Mark changes of at least this size (bytes, 1K, or 0.5%)."),
    last: int = typer.Option(0, "--last", min=0, help="Only the newest N builds of each series (0: all)."),
    title: Optional[str] = typer.Option(None, "--title", help="Page or figure title."),
) -> int:
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


@app.command()
def prune(
    db: str = _db_option(),
    keep: Optional[int] = typer.Option(None, "--keep", min=1, help="Keep the newest N builds of each series."),
    older_than: Optional[int] = typer.Option(None, "--older-than", min=1, metavar="DAYS",
                                             help="Also drop builds older than this many days."),
    branches: Optional[List[str]] = typer.Option(None, "--branch", help="Only prune this branch (repeatable)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Say what would go; change nothing."),
) -> int:
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
