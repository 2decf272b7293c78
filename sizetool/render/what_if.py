"""`size-report ops ELF --drop|--keep OPS`: the what-if answer (what those registrations cost together, the predicted
ROM, the files and symbols that go) as a terminal table, JSON, CSV or markdown."""

from __future__ import annotations

import csv
import io
import os
from typing import TYPE_CHECKING

from sizetool import __version__
from sizetool.render.operators import (
    TOP_GOING_FILES, TOP_SYMBOLS, bound_sentence, calls_text,
)
from sizetool.render.text_blocks import console_for, finish, rich_table
from sizetool.report.report_model import dump_json
from sizetool.text_escaping import markdown_code, markdown_text

if TYPE_CHECKING:
    from sizetool.operators.what_if import WhatIf


def what_if_to_dict(result: WhatIf, source: str, arch: str = "") -> dict:
    return {
        "mode": result.mode,
        "asked": list(result.asked),
        "dropped": list(result.dropped),
        "kept": list(result.kept),
        "saving": result.cost.saving,
        "code_bytes": result.cost.code_bytes,
        "call_sites": result.cost.call_sites,
        "call_site_bytes": result.cost.call_site_bytes,
        "fill_bytes": result.cost.fill_bytes,
        "rom": result.rom,
        "predicted_rom": result.predicted_rom,
        "may_be_high_by": result.cost.may_be_high_by,
        "may_be_low_by": result.cost.may_be_low_by,
        "may_be_high_by_inlining": result.cost.inline_bytes,
        "files": [{"path": f.path, "bytes": f.bytes, "file_bytes": f.file_bytes} for f in result.files],
        "symbols": [{"name": s.name, "path": s.path, "section": s.section, "address": s.address, "bytes": s.bytes}
                    for s in result.symbols],
        "notes": list(result.notes),
        "source": os.path.basename(source),
        "arch": arch,
        "tool": f"size-report {__version__}",
    }


def render_what_if_csv(result: WhatIf) -> str:
    """Columns kind,name,path,section,address,bytes,file_bytes; kinds dropped, kept, saving, code_bytes,
    call_site_bytes, rom, predicted_rom, may_be_high_by, may_be_low_by, may_be_high_by_inlining, file, symbol, note."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("kind", "name", "path", "section", "address", "bytes", "file_bytes"))
    for op in result.dropped:
        writer.writerow(("dropped", op, "", "", "", "", ""))
    for op in result.kept:
        writer.writerow(("kept", op, "", "", "", "", ""))
    writer.writerow(("saving", "", "", "", "", result.cost.saving, ""))
    writer.writerow(("code_bytes", "", "", "", "", result.cost.code_bytes, ""))
    writer.writerow(("call_site_bytes", str(result.cost.call_sites), "", "", "", result.cost.call_site_bytes, ""))
    writer.writerow(("rom", "", "", "", "", result.rom, ""))
    writer.writerow(("predicted_rom", "", "", "", "", result.predicted_rom, ""))
    writer.writerow(("may_be_high_by", "", "", "", "", result.cost.may_be_high_by, ""))
    writer.writerow(("may_be_low_by", "", "", "", "", result.cost.may_be_low_by, ""))
    writer.writerow(("may_be_high_by_inlining", "", "", "", "", result.cost.inline_bytes, ""))
    for f in result.files:
        writer.writerow(("file", "", f.path, "", "", f.bytes, f.file_bytes))
    for s in result.symbols:
        writer.writerow(("symbol", s.name, s.path, s.section, f"0x{s.address:08x}", s.bytes, ""))
    for note in result.notes:
        writer.writerow(("note", note, "", "", "", "", ""))
    return out.getvalue()


def render_what_if_markdown(result: WhatIf, source: str, arch: str = "") -> str:
    name = os.path.basename(source)
    lines = [f"# What if: {markdown_text(name)}" + (f" ({markdown_text(arch)})" if arch else ""), "",
             f"**{markdown_text(_what_if_headline(result))}**", "",
             f"**Predicted ROM {result.predicted_rom} bytes** (now {result.rom}; saves {result.cost.saving}: "
             f"{result.cost.code_bytes} of code and data{calls_text(result.cost)})", ""]
    if result.cost.may_be_high_by:
        bound = bound_sentence(result.cost.may_be_high_by, result.cost.inline_bytes, result.cost.inlined,
                               result.cost.may_be_low_by)
        lines += [f"The predicted ROM {markdown_text(bound)}.", ""]
    if result.files:
        lines += [_files_heading(result), "", "| file | goes | of its |", "|---|---:|---:|"]
        lines += [f"| {markdown_code(f.path)} | {f.bytes} | {f.file_bytes} |" for f in result.files[:TOP_GOING_FILES]]
        lines.append("")
    if result.symbols:
        lines += [_symbols_heading(result), "", "| symbol | file | bytes |", "|---|---|---:|"]
        lines += [f"| {markdown_code(s.name)} | {markdown_code(s.path)} | {s.bytes} |" for s in result.symbols[:TOP_SYMBOLS]]
        lines.append("")
    lines += [f"> note: {markdown_text(note)}" for note in result.notes]
    return "\n".join(lines).rstrip() + "\n"


def _what_if_headline(result: WhatIf) -> str:
    dropped = ", ".join(result.dropped) or "nothing"
    if result.mode == "keep":
        return (f"Keep {len(result.kept)} operator registration(s) ({', '.join(result.kept) or 'none'}), "
                f"drop the other {len(result.dropped)}: {dropped}")
    return f"Drop {len(result.dropped)} operator registration(s): {dropped}"


def _files_heading(result: WhatIf) -> str:
    total = len(result.files)
    if total > TOP_GOING_FILES:
        return f"Files that lose flash: the {TOP_GOING_FILES} that lose most of {total} (all with --format json or csv)"
    return f"Files that lose flash: {total}"


def _symbols_heading(result: WhatIf) -> str:
    total = len(result.symbols)
    if total > TOP_SYMBOLS:
        return f"Symbols that go: the {TOP_SYMBOLS} largest of {total} (all with --format json or csv)"
    return f"Symbols that go: {total}"


def render_what_if(result: WhatIf, output_format: str, source: str, arch: str = "", color: bool = False,
                   width: int | None = None) -> str:
    """The --drop/--keep answer in one of FORMATS."""
    if output_format == "json":
        return dump_json(what_if_to_dict(result, source, arch))
    if output_format == "csv":
        return render_what_if_csv(result)
    if output_format == "markdown":
        return render_what_if_markdown(result, source, arch)
    console, out = console_for(color, width)
    console.print(f"What if {os.path.basename(source)}" + (f" ({arch})" if arch else "") + ": "
                  + _what_if_headline(result), style="bold")
    console.print(f"saves {result.cost.saving} bytes: {result.cost.code_bytes} of code and data only they need"
                  + calls_text(result.cost) + (" (estimated)" if result.cost.call_sites or result.cost.inline_estimate
                                           else ""))
    console.print(f"predicted ROM {result.predicted_rom} bytes (now {result.rom})", style="bold")
    if result.cost.may_be_high_by:
        bound = bound_sentence(result.cost.may_be_high_by, result.cost.inline_bytes, result.cost.inlined,
                               result.cost.may_be_low_by)
        console.print(f"the predicted ROM {bound}", style="yellow")
    if result.files:
        console.print()
        console.print(_files_heading(result))
        files = rich_table(("file", {"overflow": "fold", "style": "green"}),
                       ("goes", {"justify": "right", "style": "bold"}), ("of its", {"justify": "right"}))
        for f in result.files[:TOP_GOING_FILES]:
            files.add_row(f.path, str(f.bytes), str(f.file_bytes))
        console.print(files)
    if result.symbols:
        console.print()
        console.print(_symbols_heading(result))
        symbols = rich_table(("symbol", {"overflow": "fold"}), ("file", {"overflow": "fold", "style": "green"}),
                         ("bytes", {"justify": "right", "style": "bold"}))
        for s in result.symbols[:TOP_SYMBOLS]:
            symbols.add_row(s.name, s.path, str(s.bytes))
        console.print(symbols)
    for note in result.notes:
        console.print(f"note: {note}", style="yellow")
    return finish(out)
