"""The size report as data: labelled byte runs, the size tree built from them, and the saved-report JSON.

Every command produces or consumes a SizeReport. Its `entries` label every ROM and RAM byte of the ELF exactly once
(so the entries of one memory add up to its total); the tree is derived from them. The totals are physical (bytes
stored in flash, bytes occupying RAM: sizetool/report/placement.py); Berkeley `size`'s text/data/bss ride along. A
report saved with `--save report.json` is the Zephyr size_report JSON shape for ROM and for RAM side by side, so it can
be read back (for diffs and baselines) and read by tools that understand Zephyr's rom.json/ram.json.

Saved-report schema versions: 1 had totals by section flags (text + data, data + bss) and no "berkeley"; 2 has the
physical totals, "berkeley", and each region's "memory" (rom or ram). Both are read.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field

from sizetool import __version__
from sizetool.errors import SizeToolError

MEMORIES = ("rom", "ram")
REPORT_SCHEMA = "sizetool-report"
REPORT_SCHEMA_VERSION = 2
READABLE_SCHEMA_VERSIONS = (1, 2)


@dataclass(frozen=True)
class SizeEntry:
    """One run of bytes with exactly one label: a leaf of the size tree."""

    memory: str  # "rom" or "ram"
    path: tuple[str, ...]  # tree path: directories then file, or a catch-all such as ("(no debug info)",)
    symbol: str  # demangled symbol name, or a catch-all label such as "(no symbol) .text"
    section: str
    address: int
    size: int
    mangled: str = ""
    aliases: tuple[str, ...] = ()  # other symbols at the same address and size, counted once


def entry_order(entry: SizeEntry) -> tuple:
    """The one canonical order of a report's entries, so fresh, cached and reloaded reports print alike."""
    return (entry.memory, entry.path, entry.symbol, entry.address)


@dataclass(frozen=True)
class MemoryRegion:
    """A linker MEMORY region (from the map file, or from --flash-size/--ram-size)."""

    name: str
    origin: int
    length: int
    used: int
    attributes: str = ""
    memory: str = ""  # "rom" or "ram": what the region is (empty in reports saved before schema version 2)

    @property
    def percent_used(self) -> float:
        return 100.0 * self.used / self.length if self.length else 0.0


@dataclass(frozen=True)
class FileBytes:
    """Bytes of one source file; for code an operator shares, also the other operators that need those bytes."""

    path: str
    bytes: int
    operators: tuple[str, ...] = ()


@dataclass(frozen=True)
class OperatorBytes:
    """Bytes an operator shares with one other operator."""

    op: str
    bytes: int


@dataclass(frozen=True)
class OperatorCost:
    """What one TFLM operator's registration pulls into the firmware.

    The flash it reaches splits three ways: exclusive (only it needs those bytes), shared (other operators need them
    too, the runtime does not: they go when all of those operators go) and runtime (code and data that stay whatever
    operators are removed: the interpreter, the application, helpers it calls)."""

    op: str  # e.g. "FULLY_CONNECTED"
    registration: str  # e.g. "tflite::Register_FULLY_CONNECTED()"
    exclusive_bytes: int  # reachable only through this registration: what removing its AddXxx() alone saves
    shared_bytes: int  # reachable from it and from other operators, not from the runtime
    files: tuple[FileBytes, ...] = ()  # its exclusive bytes by source file, largest first
    runtime_bytes: int = 0  # runtime bytes it reaches (they stay when it goes)
    shared_files: tuple[FileBytes, ...] = ()  # its shared bytes by source file, with the operators that share them
    shared_with: tuple[OperatorBytes, ...] = ()  # the other operators it shares code with, most bytes first
    call_sites: int = 0  # its AddXxx() call sites found in code that stays when it goes
    call_site_bytes: int = 0  # their estimated bytes (the caller shrinks by that much when the calls go)


@dataclass(frozen=True)
class TemplateCost:
    """All member functions of one class-template instantiation, e.g. MicroMutableOpResolver<10>."""

    template: str  # e.g. "tflite::MicroMutableOpResolver"
    arguments: str  # e.g. "10"
    bytes: int
    symbols: tuple[str, ...] = ()


@dataclass
class OperatorTable:
    operators: list[OperatorCost] = field(default_factory=list)
    resolvers: list[TemplateCost] = field(default_factory=list)  # MicroMutableOpResolver<N> instantiations
    templates: list[TemplateCost] = field(default_factory=list)  # other templates with several instantiations
    runtime_bytes: int = 0
    total_rom: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Berkeley:
    """Berkeley `size` figures of the ELF, kept beside the physical totals (they differ; docs/size-report.md)."""

    text: int
    data: int
    bss: int


@dataclass(frozen=True)
class MapSource:
    """The linker map a report read: its format and, for armlink and IAR maps, the totals it states itself."""

    format: str  # "gnu", "armlink" or "iar"
    description: str  # e.g. "armlink (Arm Compiler for Embedded 6.22)"
    file: str  # the map's file name
    rom_total: int | None = None  # the map's own ROM figure (armlink "Total ROM Size", IAR readonly code + data)
    ram_total: int | None = None  # the map's own RAM figure (armlink "Total RW Size", IAR readwrite data)


def map_source_to_dict(source: MapSource | None) -> dict | None:
    if source is None:
        return None
    data = {"format": source.format, "description": source.description, "file": source.file}
    if source.rom_total is not None:
        data.update({"rom_total": source.rom_total, "ram_total": source.ram_total})
    return data


def map_source_from_dict(data) -> MapSource | None:
    if not data:
        return None
    return MapSource(str(data["format"]), str(data["description"]), str(data.get("file", "")),
                     data.get("rom_total"), data.get("ram_total"))


@dataclass
class SizeReport:
    source: str  # the ELF (or saved report) the figures came from
    arch: str
    rom_total: int  # bytes stored in non-volatile memory (with a map: the sum of the ROM regions' use)
    ram_total: int  # bytes occupying RAM at run time (with a map: the sum of the RAM regions' use)
    entries: list[SizeEntry]
    regions: list[MemoryRegion] = field(default_factory=list)
    operators: OperatorTable | None = None
    warnings: list[str] = field(default_factory=list)
    berkeley: Berkeley | None = None
    linker_map: MapSource | None = None  # the map it read, when one was given
    input_format: str = ""  # what was read, e.g. "ELF + GNU ld map (ESP-IDF layout, esp32)"; "" for a plain ELF

    def regions_of(self, memory: str) -> list[MemoryRegion]:
        return [r for r in self.regions if r.memory == memory]

    def total(self, memory: str) -> int:
        return self.rom_total if memory == "rom" else self.ram_total

    def entries_for(self, memory: str) -> list[SizeEntry]:
        return [e for e in self.entries if e.memory == memory]


@dataclass
class SizeNode:
    """A node of the size tree: a directory, a file, a catch-all group, or (a leaf) a symbol."""

    name: str
    identifier: str
    size: int = 0
    children: list[SizeNode] = field(default_factory=list)
    entry: SizeEntry | None = None  # set on symbol leaves

    @property
    def is_leaf(self) -> bool:
        return self.entry is not None


def build_tree(entries: list[SizeEntry], memory: str) -> SizeNode:
    """The path tree of one memory's entries. Children are sorted by size (largest first), then by name."""
    root = SizeNode(name="Root", identifier="root")
    index: dict[tuple[str, ...], SizeNode] = {(): root}
    for entry in entries:
        if entry.memory != memory:
            continue
        parent = root
        parent.size += entry.size
        for depth in range(1, len(entry.path) + 1):
            key = entry.path[:depth]
            node = index.get(key)
            if node is None:
                node = SizeNode(name=key[-1], identifier="/".join(key))
                index[key] = node
                parent.children.append(node)
            node.size += entry.size
            parent = node
        parent.children.append(
            SizeNode(
                name=entry.symbol,
                identifier="/".join(entry.path + (entry.symbol,)),
                size=entry.size,
                entry=entry,
            )
        )
    _sort_tree(root)
    return root


def _sort_tree(node: SizeNode) -> None:
    node.children.sort(key=lambda child: (-child.size, child.name, child.entry.address if child.entry else 0))
    for child in node.children:
        _sort_tree(child)


def tree_to_dict(node: SizeNode, identifiers: bool = True) -> dict:
    """Zephyr size_report's node shape (name, identifier, size, children; symbols add address and section).
    Without identifiers (the HTML page rebuilds paths from the names) a large tree is half the size."""
    out: dict = {"name": node.name, "identifier": node.identifier, "size": node.size}
    if not identifiers:
        del out["identifier"]
    if node.entry is not None:
        out["address"] = node.entry.address
        out["section"] = node.entry.section
        if node.entry.mangled:
            out["mangled"] = node.entry.mangled
        if node.entry.aliases:
            out["aliases"] = list(node.entry.aliases)
    else:
        out["children"] = [tree_to_dict(child, identifiers) for child in node.children]
    return out


def memory_to_dict(report: SizeReport, memory: str) -> dict:
    """One memory as Zephyr's rom.json / ram.json: {"symbols": root, "total_size": n}."""
    return {"symbols": tree_to_dict(build_tree(report.entries, memory)), "total_size": report.total(memory)}


def regions_to_list(report: SizeReport) -> list[dict]:
    return [
        {"name": r.name, "memory": r.memory, "origin": r.origin, "length": r.length, "used": r.used,
         "attributes": r.attributes}
        for r in report.regions
    ]


def berkeley_to_dict(report: SizeReport) -> dict | None:
    b = report.berkeley
    return None if b is None else {"text": b.text, "data": b.data, "bss": b.bss}


def report_to_dict(report: SizeReport) -> dict:
    """The saved-report form: both memories in Zephyr's shape, plus Berkeley figures, regions, operators, warnings."""
    out: dict = {
        "schema": REPORT_SCHEMA,
        "schema_version": REPORT_SCHEMA_VERSION,
        "tool": f"size-report {__version__}",
        "source": os.path.basename(report.source),
        "arch": report.arch,
        "rom": memory_to_dict(report, "rom"),
        "ram": memory_to_dict(report, "ram"),
        "berkeley": berkeley_to_dict(report),
        "regions": regions_to_list(report),
        "warnings": list(report.warnings),
    }
    if report.linker_map is not None:
        out["map"] = map_source_to_dict(report.linker_map)
    if report.input_format:
        out["input_format"] = report.input_format
    if report.operators is not None:
        out["operators"] = operator_table_to_dict(report.operators)
    return out


def _files_to_list(files: tuple[FileBytes, ...]) -> list[dict]:
    return [{"path": f.path, "bytes": f.bytes, **({"operators": list(f.operators)} if f.operators else {})}
            for f in files]


def _files_from_list(items) -> tuple[FileBytes, ...]:
    # Reports saved before files carried bytes list plain paths.
    return tuple(FileBytes(item, 0) if isinstance(item, str) else
                 FileBytes(str(item["path"]), int(item.get("bytes", 0)), tuple(item.get("operators", ())))
                 for item in items)


def operator_table_to_dict(table: OperatorTable) -> dict:
    return {
        "operators": [
            {
                "op": o.op,
                "registration": o.registration,
                "exclusive_bytes": o.exclusive_bytes,
                "shared_bytes": o.shared_bytes,
                "runtime_bytes": o.runtime_bytes,
                "files": _files_to_list(o.files),
                "shared_files": _files_to_list(o.shared_files),
                "shared_with": [{"op": s.op, "bytes": s.bytes} for s in o.shared_with],
                "call_sites": o.call_sites,
                "call_site_bytes": o.call_site_bytes,
            }
            for o in table.operators
        ],
        "resolvers": [
            {"n": int(t.arguments) if t.arguments.isdigit() else t.arguments, "bytes": t.bytes, "symbols": list(t.symbols)}
            for t in table.resolvers
        ],
        "templates": [
            {"template": t.template, "arguments": t.arguments, "bytes": t.bytes, "symbols": list(t.symbols)}
            for t in table.templates
        ],
        "runtime_bytes": table.runtime_bytes,
        "total_rom": table.total_rom,
        "notes": list(table.notes),
    }


LEGACY_SHARED_NOTE = ("saved by an earlier size-report: an operator's shared bytes there include the runtime code it "
                      "uses, and its files have no byte counts")


def operator_table_from_dict(data: dict) -> OperatorTable:
    rows = data.get("operators", [])
    legacy = any("runtime_bytes" not in o for o in rows)
    notes = list(data.get("notes", []))
    if legacy and LEGACY_SHARED_NOTE not in notes:
        notes.append(LEGACY_SHARED_NOTE)
    return OperatorTable(
        operators=[
            OperatorCost(
                op=str(o["op"]),
                registration=str(o.get("registration", "")),
                exclusive_bytes=int(o["exclusive_bytes"]),
                shared_bytes=int(o.get("shared_bytes", 0)),
                files=_files_from_list(o.get("files", ())),
                runtime_bytes=int(o.get("runtime_bytes", 0)),
                shared_files=_files_from_list(o.get("shared_files", ())),
                shared_with=tuple(OperatorBytes(str(s["op"]), int(s["bytes"])) for s in o.get("shared_with", ())),
                call_sites=int(o.get("call_sites", 0)),
                call_site_bytes=int(o.get("call_site_bytes", 0)),
            )
            for o in rows
        ],
        resolvers=[
            TemplateCost(
                template="tflite::MicroMutableOpResolver",
                arguments=str(r["n"]),
                bytes=int(r["bytes"]),
                symbols=tuple(r.get("symbols", ())),
            )
            for r in data.get("resolvers", [])
        ],
        templates=[
            TemplateCost(
                template=str(t["template"]),
                arguments=str(t["arguments"]),
                bytes=int(t["bytes"]),
                symbols=tuple(t.get("symbols", ())),
            )
            for t in data.get("templates", [])
        ],
        runtime_bytes=int(data.get("runtime_bytes", 0)),
        total_rom=int(data.get("total_rom", 0)),
        notes=notes,
    )


def entries_from_tree(tree: dict, memory: str) -> list[SizeEntry]:
    """Recover the labelled entries from a Zephyr-shaped tree (leaves are the nodes without children)."""
    entries: list[SizeEntry] = []
    stack: list[tuple[dict, tuple[str, ...]]] = [(child, ()) for child in tree.get("children", [])]
    while stack:
        node, path = stack.pop()
        children = node.get("children")
        if children:
            stack.extend((child, path + (str(node["name"]),)) for child in children)
            continue
        entries.append(
            SizeEntry(
                memory=memory,
                path=path,
                symbol=str(node["name"]),
                section=str(node.get("section", "")),
                address=int(node.get("address", 0)),
                size=int(node["size"]),
                mangled=str(node.get("mangled", "")),
                aliases=tuple(node.get("aliases", ())),
            )
        )
    entries.sort(key=entry_order)
    return entries


def report_from_dict(data: dict, source: str) -> SizeReport:
    """Read a saved report, or a single Zephyr rom.json/ram.json (memory taken from its "memory" field or the name)."""
    if not isinstance(data, dict):
        raise SizeToolError(f"{source}: not a size report (expected a JSON object)")
    version = data.get("schema_version", 1)
    if data.get("schema") == REPORT_SCHEMA and version not in READABLE_SCHEMA_VERSIONS:
        raise SizeToolError(
            f"{source}: saved-report schema version {version!r} is not one this size-report reads "
            f"({', '.join(map(str, READABLE_SCHEMA_VERSIONS))}); it was written by another version"
        )
    try:
        if "rom" in data and "ram" in data:
            memories = {m: data[m] for m in MEMORIES}
        elif "symbols" in data and "total_size" in data:
            memory = data.get("memory") or ("ram" if "ram" in os.path.basename(source).lower() else "rom")
            memories = {memory: data}
        else:
            raise SizeToolError(
                f"{source}: not a size report (expects a saved size-report JSON or Zephyr's rom.json/ram.json)"
            )
        entries: list[SizeEntry] = []
        totals = {"rom": 0, "ram": 0}
        for memory, tree in memories.items():
            entries.extend(entries_from_tree(tree["symbols"], memory))
            totals[memory] = int(tree["total_size"])
        regions = [
            MemoryRegion(
                name=str(r["name"]),
                origin=int(r["origin"]),
                length=int(r["length"]),
                used=int(r["used"]),
                attributes=str(r.get("attributes", "")),
                memory=str(r.get("memory", "")),
            )
            for r in data.get("regions", [])
        ]
        berkeley_data = data.get("berkeley")
        berkeley = (
            Berkeley(int(berkeley_data["text"]), int(berkeley_data["data"]), int(berkeley_data["bss"]))
            if berkeley_data else None
        )
        operators = operator_table_from_dict(data["operators"]) if data.get("operators") else None
        linker_map = map_source_from_dict(data.get("map"))
        entries.sort(key=entry_order)
    except SizeToolError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise SizeToolError(f"{source}: malformed size report ({type(error).__name__}: {error})") from None
    return SizeReport(
        source=source,
        arch=str(data.get("arch", "")),
        rom_total=totals["rom"],
        ram_total=totals["ram"],
        entries=entries,
        regions=regions,
        operators=operators,
        warnings=list(data.get("warnings", [])),
        berkeley=berkeley,
        linker_map=linker_map,
        input_format=str(data.get("input_format", "")),
    )


def load_report(path: str | os.PathLike) -> SizeReport:
    path = os.fspath(path)
    from sizetool.inputs.input_files import read_input

    raw = read_input(path, "a saved report")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SizeToolError(f"{path}: not a JSON size report (not UTF-8 text)") from None
    except json.JSONDecodeError as error:
        raise SizeToolError(f"{path}: not valid JSON (line {error.lineno}: {error.msg})") from None
    return report_from_dict(data, path)


def dump_json(data: dict) -> str:
    return json.dumps(data, indent=2, sort_keys=False) + "\n"


def dump_report_json(data) -> str:
    """Indented JSON in which every object or list holding only scalars (a symbol leaf, a region) is one line.

    Same data as dump_json, but the C JSON encoder writes the leaves: json.dumps with indent runs the pure-Python
    encoder, which takes seconds for the ~100k nodes of a large C++ ELF's report.
    """
    parts: list[str] = []
    _dump_value(data, "", parts)
    return "".join(parts) + "\n"


def _is_flat(value) -> bool:
    items = value.values() if isinstance(value, dict) else value
    return all(not isinstance(item, (dict, list)) or (isinstance(item, list) and _is_flat(item)) for item in items)


def _dump_value(value, indent: str, parts: list[str]) -> None:
    if not isinstance(value, (dict, list)) or not value or _is_flat(value):
        parts.append(json.dumps(value))
        return
    inner = indent + "  "
    if isinstance(value, dict):
        parts.append("{")
        for position, (key, item) in enumerate(value.items()):
            parts.append(("," if position else "") + "\n" + inner + json.dumps(key) + ": ")
            _dump_value(item, inner, parts)
        parts.append("\n" + indent + "}")
    else:
        parts.append("[")
        for position, item in enumerate(value):
            parts.append(("," if position else "") + "\n" + inner)
            _dump_value(item, inner, parts)
        parts.append("\n" + indent + "]")


def write_text_atomically(path: str | os.PathLike, text: str) -> None:
    """Write a whole file or nothing: a temp file in the same directory, then rename over the target."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    try:
        handle, temp_path = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    except OSError as error:
        raise SizeToolError(f"{path}: cannot write ({error.strerror or error})") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(temp_path, _new_file_mode(path))  # mkstemp makes 0600; a report or page is for sharing
        os.replace(temp_path, path)
    except OSError as error:
        try:
            os.unlink(temp_path)
        except OSError:
            pass
        raise SizeToolError(f"{path}: cannot write ({error.strerror or error})") from None


def _new_file_mode(path: str) -> int:
    """The mode the file would get from a plain open(): the old file's mode, else 0666 less the umask."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def save_report(report: SizeReport, path: str | os.PathLike) -> None:
    write_text_atomically(path, dump_report_json(report_to_dict(report)))
