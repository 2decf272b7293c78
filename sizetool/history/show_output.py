"""`history show`: recorded builds, newest first, with ROM/RAM deltas to the previous build of their series and the
biggest movers, as a rich table (terminal), JSON, CSV (dashboards) or markdown (wiki, PR comment)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass

from sizetool.history.queries import Build, movers
from sizetool.text_escaping import markdown_code, markdown_text

TABLE_WIDTH = 180  # when not writing to a terminal, so piped and saved tables are the same everywhere


@dataclass(frozen=True)
class ShowRow:
    build: Build
    previous: Build | None
    changes: dict | None

    def delta(self, memory: str) -> int | None:
        return None if self.previous is None else self.build.total(memory) - self.previous.total(memory)

    def movers(self, kind: str = "rom") -> list[tuple[str, int]]:
        return movers(self.changes, kind)


def iso(value) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def _signed(value: int | None) -> str:
    return "" if value is None else f"{value:+d}"


def _movers_text(row: ShowRow, kind: str = "rom") -> str:
    return ", ".join(f"{name} {delta:+d}" for name, delta in row.movers(kind))


def render_show_table(rows: list[ShowRow], database: str, color: bool = False, width: int | None = None) -> str:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    with_labels = any(row.build.labels for row in rows)
    table = Table(title=f"Size history: {database}", title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("Commit", no_wrap=True)
    table.add_column("Branch", overflow="fold")
    if with_labels:
        table.add_column("Labels", overflow="fold")
    table.add_column("Date (UTC)", no_wrap=True)
    for heading in ("ROM", "ΔROM", "RAM", "ΔRAM"):
        table.add_column(heading, justify="right", no_wrap=True)
    table.add_column("Top movers (ROM)", overflow="fold")
    for row in rows:
        build = row.build
        cells = [build.short, build.branch or "-"]
        if with_labels:
            cells.append(build.label_text())
        cells.append(build.built_at.strftime("%Y-%m-%d %H:%M"))
        values = [str(build.rom_total), _delta_cell(row.delta("rom")), str(build.ram_total), _delta_cell(row.delta("ram"))]
        table.add_row(*cells, *values, _movers_text(row) if row.previous else "(first build)")
    console = Console(file=io.StringIO(), width=width or TABLE_WIDTH, force_terminal=color,
                      color_system="standard" if color else None, highlight=False, emoji=False)
    console.print(table)
    if not rows:
        console.print(Text("no recorded builds match"))
    return "".join(line.rstrip() + "\n" for line in console.file.getvalue().splitlines())


def _delta_cell(delta: int | None):
    from rich.text import Text

    if delta is None:
        return Text("")
    return Text(f"{delta:+d}", style="red" if delta > 0 else "green" if delta < 0 else "")


def _row_dict(row: ShowRow) -> dict:
    build = row.build
    return {
        "id": build.id,
        "commit": build.commit,
        "branch": build.branch,
        "labels": build.labels,
        "time": iso(build.built_at),
        "recorded_at": iso(build.recorded_at),
        "source": build.source,
        "arch": build.arch,
        "tool": build.tool,
        "build_url": build.build_url,
        "rom": build.rom_total,
        "ram": build.ram_total,
        "previous": row.previous.commit if row.previous else None,
        "rom_delta": row.delta("rom"),
        "ram_delta": row.delta("ram"),
        "movers": {kind: [{"name": name, "delta": delta} for name, delta in row.movers(kind)]
                   for kind in ("rom", "ram", "ops")},
    }


def render_show_json(rows: list[ShowRow], database: str) -> str:
    """{"database": ..., "builds": [...]} with one build per line: greppable, and written by the C JSON encoder (an
    indented dump of 10,000 builds runs the pure-Python one for most of a second)."""
    if not rows:
        return json.dumps({"database": database, "builds": []}) + "\n"
    lines = ",\n".join("  " + json.dumps(_row_dict(row)) for row in rows)
    return f'{{"database": {json.dumps(database)}, "builds": [\n{lines}\n]}}\n'


CSV_COLUMNS = ("id", "commit", "branch", "labels", "time", "rom", "ram", "rom_delta", "ram_delta", "previous",
               "rom_movers", "ram_movers", "build_url")


def render_show_csv(rows: list[ShowRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        build = row.build
        writer.writerow((build.id, build.commit, build.branch, build.label_text(), iso(build.built_at),
                         build.rom_total, build.ram_total, _signed(row.delta("rom")), _signed(row.delta("ram")),
                         row.previous.commit if row.previous else "",
                         "; ".join(f"{n} {d:+d}" for n, d in row.movers("rom")),
                         "; ".join(f"{n} {d:+d}" for n, d in row.movers("ram")), build.build_url))
    return out.getvalue()


def render_show_markdown(rows: list[ShowRow]) -> str:
    lines = [f"**Size history** ({len(rows)} builds)", "",
             "| commit | branch | date (UTC) | ROM | ΔROM | RAM | ΔRAM | top movers (ROM) |",
             "|---|---|---|---:|---:|---:|---:|---|"]
    for row in rows:
        build = row.build
        branch = build.branch + (f" [{build.label_text()}]" if build.labels else "")
        movers_text = ", ".join(f"{markdown_code(n)} {d:+d}" for n, d in row.movers("rom"))
        lines.append(f"| {markdown_code(build.short)} | {markdown_text(branch) or '-'} | {build.built_at.strftime('%Y-%m-%d %H:%M')} | "
                     f"{build.rom_total} | {_signed(row.delta('rom'))} | {build.ram_total} | "
                     f"{_signed(row.delta('ram'))} | {movers_text} |")
    return "\n".join(lines) + "\n"
