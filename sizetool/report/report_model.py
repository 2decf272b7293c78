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
from dataclasses import dataclass, field

from sizetool import __version__
from sizetool.errors import SizeToolError
from sizetool.report.saved_schema import (
    MISSING, SchemaError, fail, member, need_count, need_dict, need_list, need_str, need_strings,
)

TYPE_CHECKING = False  # typing's constant, which type checkers read alike, without importing typing (~1.6 ms)
if TYPE_CHECKING:  # the operator table's records load with the table (--ops, a saved report that has one): ~1.6 ms
    from sizetool.report.operator_records import OperatorTable

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
    # (address, size) of each run when the entry sums runs that lie apart (merged strings placed by the code that
    # refers to them); empty when the entry is the one run [address, address + size)
    pieces: tuple[tuple[int, int], ...] = ()


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
    # Bytes the linker script sets aside in the region outside ld's Used Size: a stack or heap section without the
    # alloc flag (pico-sdk's .stack_dummy in SCRATCH_Y, from crt0's flagless `.section .stack`). Not in `used`.
    reserved: int = 0

    @property
    def percent_used(self) -> float:
        return 100.0 * self.used / self.length if self.length else 0.0


@dataclass(frozen=True)
class Berkeley:
    """Berkeley `size` figures of the ELF, kept beside the physical totals (they differ; docs/size-report.md)."""

    text: int
    data: int
    bss: int


@dataclass(frozen=True)
class MapSource:
    """The linker map a report read: its format and, for armlink and IAR maps, the totals it states itself."""

    format: str  # "gnu", "lld", "armlink" or "iar"
    description: str  # e.g. "armlink (Arm Compiler for Embedded 6.22)"
    file: str  # the map's file name
    rom_total: int | None = None  # the map's own ROM figure (armlink "Total ROM Size", IAR readonly code + data)
    ram_total: int | None = None  # the map's own RAM figure (armlink "Total RW Size", IAR readwrite data)
    # GNU ld maps with merged string sections: (bytes placed by the code that refers to them, bytes no code refers to,
    # left under the object the map lists them under)
    merged_strings: tuple[int, int] | None = None


def map_source_to_dict(source: MapSource | None) -> dict | None:
    if source is None:
        return None
    data = {"format": source.format, "description": source.description, "file": source.file}
    if source.rom_total is not None:
        data.update({"rom_total": source.rom_total, "ram_total": source.ram_total})
    if source.merged_strings is not None:
        data["merged_strings"] = {"by_references": source.merged_strings[0], "unreferenced": source.merged_strings[1]}
    return data


def _map_source_checked(data) -> MapSource | None:
    """A saved report's "map" field, type-checked like the rest of the report."""
    if not data:
        return None
    need_dict(data, "map")
    totals = [member(data, key, "map", None) for key in ("rom_total", "ram_total")]
    strings = member(data, "merged_strings", "map", None)
    if strings is not None:
        need_dict(strings, "map.merged_strings")
        strings = tuple(need_count(member(strings, key, "map.merged_strings"), f"map.merged_strings.{key}")
                        for key in ("by_references", "unreferenced"))
    return MapSource(need_str(member(data, "format", "map"), "map.format"),
                     need_str(member(data, "description", "map"), "map.description"),
                     need_str(member(data, "file", "map", ""), "map.file"),
                     *(None if t is None else need_count(t, f"map.{k}") for t, k in zip(totals, ("rom_total", "ram_total"))),
                     merged_strings=strings)


@dataclass(frozen=True)
class EmbeddedModelRecord:
    symbol: str
    section: str
    address: int
    size: int
    sha256: str
    operators: tuple[str, ...]  # the ops the model uses, as gen-resolver names them
    sized_by: str  # "symbol" or "extent"
    rewritten: int | None = None  # the model written again whole with the flatbuffers Builder
    stripped: int | None = None  # ... and without names, description, signatures and metadata
    in_ram: bool = False  # in writable data (.data, an array without `const`): stored and copied to RAM at start-up

    @property
    def const_saving(self) -> int:
        """RAM that declaring the array `const` gives back (the model moves to read-only data, its flash copy stays)."""
        return self.size if self.in_ram else 0

    @property
    def strip_saving(self) -> int | None:
        """What the array shrinks by written again without names and metadata: its bytes as linked less the stripped
        model's (what a rebuild saves, tests/data/advice_truth.csv; the advice gives the same figure)."""
        return None if self.rewritten is None or self.stripped is None else self.size - self.stripped



def records_to_list(records: list[EmbeddedModelRecord]) -> list[dict]:
    out = []
    for r in records:
        item = {"symbol": r.symbol, "section": r.section, "address": r.address, "size": r.size, "sha256": r.sha256,
                "operators": list(r.operators), "sized_by": r.sized_by}
        if r.in_ram:
            item["in_ram"] = True
            item["const_saving"] = r.const_saving
        if r.strip_saving is not None:
            item["rewritten"] = r.rewritten
            item["stripped"] = r.stripped
            item["strip_saving"] = r.strip_saving
        out.append(item)
    return out


def records_from_list(data, where: str = "embedded_models") -> list[EmbeddedModelRecord]:
    """A saved report's embedded_models (TFLite models linked in, report/model_records.py), type-checked
    (SchemaError names the field)."""
    records = []
    for index, item in enumerate(need_list(data, where)):
        at = f"{where}[{index}]"
        need_dict(item, at)
        optional = [member(item, key, at, None) for key in ("rewritten", "stripped")]
        records.append(EmbeddedModelRecord(
            need_str(member(item, "symbol", at), at + ".symbol"), need_str(member(item, "section", at, ""),
                                                                           at + ".section"),
            need_count(member(item, "address", at), at + ".address"), need_count(member(item, "size", at),
                                                                                 at + ".size"),
            need_str(member(item, "sha256", at), at + ".sha256"),
            need_strings(member(item, "operators", at, []), at + ".operators"),
            need_str(member(item, "sized_by", at, "symbol"), at + ".sized_by"),
            *(None if value is None else need_count(value, f"{at}.{key}")
              for value, key in zip(optional, ("rewritten", "stripped"))),
            member(item, "in_ram", at, False) is True))
    return records


@dataclass
class SizeReport:
    """One firmware's flash and RAM by file and symbol: what every output format renders and a saved report holds."""

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
    models: list[EmbeddedModelRecord] = field(default_factory=list)  # TFLite models linked in (report/model_records)

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
    index: dict[tuple[str, ...], SizeNode] = {(): root}  # path -> its node; most entries find theirs at once
    for entry in entries:
        if entry.memory != memory:
            continue
        path = entry.path
        parent = index.get(path)
        if parent is None:
            parent = root
            for depth in range(1, len(path) + 1):
                key = path[:depth]
                node = index.get(key)
                if node is None:
                    node = index[key] = SizeNode(key[-1], "/".join(key), 0, [])
                    parent.children.append(node)
                parent = node
        identifier = f"{parent.identifier}/{entry.symbol}" if path else entry.symbol
        parent.children.append(SizeNode(entry.symbol, identifier, entry.size, [], entry))
    _sort_tree(root)
    return root


def _sort_tree(node: SizeNode) -> None:
    """Sums each inner node's size from its children (once, here, rather than along the path for every entry) and
    sorts the children."""
    children = node.children
    total = 0
    for child in children:
        if child.entry is None:
            _sort_tree(child)
        total += child.size
    node.size = total
    if len(children) > 1:  # most nodes (a function's file, a catch-all) have one child
        children.sort(key=lambda child: (-child.size, child.name, child.entry.address if child.entry else 0))


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
         "attributes": r.attributes, **({"reserved": r.reserved} if r.reserved else {})}
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
    if report.models:
        out["embedded_models"] = records_to_list(report.models)
    if report.operators is not None:
        from sizetool.report.operator_records import operator_table_to_dict  # with a table only (see the top)

        out["operators"] = operator_table_to_dict(report.operators)
    return out


def entries_from_tree(tree: dict, memory: str, where: str = "symbols") -> list[SizeEntry]:
    """Recover the labelled entries from a Zephyr-shaped tree (leaves are the nodes without children), checking the
    type of every field (SchemaError names the node: `rom.symbols.children[2].children[0].size`)."""
    need_dict(tree, where)
    entries: list[SizeEntry] = []
    top = member(tree, "children", where, [])
    need_list(top, where + ".children")
    # (node, path of names above it, its location as child indexes: made into text only for an error message)
    stack: list[tuple[object, tuple[str, ...], tuple[int, ...]]] = [(child, (), (i,)) for i, child in enumerate(top)]
    while stack:
        node, path, location = stack.pop()

        def place(field: str = "", location=location) -> str:
            return where + "".join(f".children[{i}]" for i in location) + (f".{field}" if field else "")

        if type(node) is not dict:
            fail(place, "an object", node)
        name = node.get("name", MISSING)
        if type(name) is not str:
            fail(lambda: place("name"), "a string", name)
        children = node.get("children")
        if children:
            if type(children) is not list:
                fail(lambda: place("children"), "a list", children)
            stack.extend((child, path + (name,), location + (i,)) for i, child in enumerate(children))
            continue
        size = node.get("size", MISSING)
        if type(size) is not int or size < 0:
            fail(lambda: place("size"), "a non-negative integer", size)
        address = node.get("address", 0)
        if type(address) is not int or address < 0:
            fail(lambda: place("address"), "a non-negative integer", address)
        section = node.get("section", "")
        if type(section) is not str:
            fail(lambda: place("section"), "a string", section)
        mangled = node.get("mangled", "")
        if type(mangled) is not str:
            fail(lambda: place("mangled"), "a string", mangled)
        aliases = node.get("aliases")
        entries.append(SizeEntry(memory=memory, path=path, symbol=name, section=section, address=address, size=size,
                                 mangled=mangled,
                                 aliases=need_strings(aliases, lambda: place("aliases")) if aliases else ()))
    entries.sort(key=entry_order)
    return entries


def report_from_dict(data: dict, source: str) -> SizeReport:
    """Read a saved report, or a single Zephyr rom.json/ram.json (memory taken from its "memory" field or the name).

    Every field is type-checked (sizetool/report/saved_schema.py): a damaged or hand-edited file is one SizeToolError
    naming the file and the field, never a crash later."""
    if not isinstance(data, dict):
        raise SizeToolError(f"{source}: not a size report (expected a JSON object)")
    version = data.get("schema_version", 1)
    if data.get("schema") == REPORT_SCHEMA and version not in READABLE_SCHEMA_VERSIONS:
        raise SizeToolError(
            f"{source}: saved-report schema version {version!r} is not one this size-report reads "
            f"({', '.join(map(str, READABLE_SCHEMA_VERSIONS))}); it was written by another version"
        )
    if "rom" in data and "ram" in data:
        memories = {m: (data[m], m) for m in MEMORIES}
    elif "symbols" in data and "total_size" in data:
        memory = data.get("memory") or ("ram" if "ram" in os.path.basename(source).lower() else "rom")
        if memory not in MEMORIES:
            raise SizeToolError(f"{source}: malformed size report: memory: expected \"rom\" or \"ram\", "
                                f"got {memory!r}"[:300])
        memories = {memory: (data, "")}
    else:
        raise SizeToolError(
            f"{source}: not a size report (expects a saved size-report JSON or Zephyr's rom.json/ram.json)"
        )
    try:
        entries: list[SizeEntry] = []
        totals = {"rom": 0, "ram": 0}
        for memory, (tree, where) in memories.items():
            need_dict(tree, where or "(top)")
            prefix = where + "." if where else ""
            entries.extend(entries_from_tree(member(tree, "symbols", where), memory, prefix + "symbols"))
            totals[memory] = need_count(member(tree, "total_size", where), prefix + "total_size")
        regions = []
        for index, r in enumerate(need_list(member(data, "regions", "", []), "regions")):
            at = f"regions[{index}]"
            need_dict(r, at)
            region_memory = need_str(member(r, "memory", at, ""), at + ".memory")
            if region_memory not in ("", *MEMORIES):
                fail(at + ".memory", '"rom" or "ram"', region_memory)
            regions.append(MemoryRegion(
                name=need_str(member(r, "name", at), at + ".name"),
                origin=need_count(member(r, "origin", at), at + ".origin"),
                length=need_count(member(r, "length", at), at + ".length"),
                used=need_count(member(r, "used", at), at + ".used"),
                attributes=need_str(member(r, "attributes", at, ""), at + ".attributes"),
                memory=region_memory,
                reserved=need_count(member(r, "reserved", at, 0), at + ".reserved"),
            ))
        berkeley_data = data.get("berkeley")
        berkeley = None
        if berkeley_data is not None:
            need_dict(berkeley_data, "berkeley")
            berkeley = Berkeley(*(need_count(member(berkeley_data, key, "berkeley"), f"berkeley.{key}")
                                  for key in ("text", "data", "bss")))
        operators = None
        if data.get("operators") is not None:
            from sizetool.report.operator_records import operator_table_from_dict  # with a table only

            operators = operator_table_from_dict(data["operators"])
        warnings = list(need_strings(member(data, "warnings", "", []), "warnings"))
        arch = need_str(member(data, "arch", "", ""), "arch")
        linker_map = _map_source_checked(member(data, "map", "", None))
        input_format = need_str(member(data, "input_format", "", ""), "input_format")
        models = records_from_list(member(data, "embedded_models", "", []))
    except SchemaError as error:
        raise SizeToolError(f"{source}: malformed size report: {error}"[:500]) from None
    entries.sort(key=entry_order)
    return SizeReport(
        source=source,
        arch=arch,
        rom_total=totals["rom"],
        ram_total=totals["ram"],
        entries=entries,
        regions=regions,
        operators=operators,
        warnings=warnings,
        berkeley=berkeley,
        linker_map=linker_map,
        input_format=input_format,
        models=models,
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
    except RecursionError:
        raise SizeToolError(f"{path}: not a size report (JSON nested too deeply)") from None
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
    write_bytes_atomically(path, text.encode("utf-8"))


def write_bytes_atomically(path: str | os.PathLike, data: bytes) -> None:
    """write_text_atomically() for bytes (a compressed profile); tflm_model.file_output says how."""
    from tflm_model.file_output import replace_file

    try:
        replace_file(path, data)
    except OSError as error:
        raise SizeToolError(f"{os.fspath(path)}: cannot write ({error.strerror or error})") from None


def save_report(report: SizeReport, path: str | os.PathLike) -> None:
    write_text_atomically(path, dump_report_json(report_to_dict(report)))
