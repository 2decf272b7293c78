"""The operator table of a size report as data: what each TFLM operator's registration, each resolver and each
class template costs (size-report --ops), and its form in a saved report's (or a cache entry's) "operators" field.

Kept apart from report_model.py, whose report holds the table when there is one, so that a report without operators
(every plain `size-report firmware.elf`) does not build these records at start-up."""

from __future__ import annotations

from dataclasses import dataclass, field

from sizetool.report.saved_schema import member, need_count, need_dict, need_list, need_str, need_strings


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

    @property
    def is_tflm(self) -> bool:
        """A template of TFLM or of the model format it reads (tflite::, tflm_signal, flatbuffers::), not of the
        application, its RTOS or its board support (mbed::, BLE classes, std::)."""
        return self.template.startswith(TFLM_NAMESPACES)


TFLM_NAMESPACES = ("tflite::", "tflm", "flatbuffers::")


@dataclass
class OperatorTable:
    """What each operator, resolver and template costs in one firmware (size-report ops)."""

    operators: list[OperatorCost] = field(default_factory=list)
    resolvers: list[TemplateCost] = field(default_factory=list)  # MicroMutableOpResolver<N> instantiations
    templates: list[TemplateCost] = field(default_factory=list)  # other templates with several instantiations
    runtime_bytes: int = 0
    total_rom: int = 0
    notes: list[str] = field(default_factory=list)
    ram_image: bool = False  # the image loads whole into RAM: total_rom is the bytes it stores, and it has no ROM

    @property
    def total_label(self) -> str:
        """What the total is called: "ROM", or "image" for an image loaded whole into RAM (whose ROM is 0)."""
        return "loaded image" if self.ram_image else "ROM"


def _files_to_list(files: tuple[FileBytes, ...]) -> list[dict]:
    return [{"path": f.path, "bytes": f.bytes, **({"operators": list(f.operators)} if f.operators else {})}
            for f in files]


def _files_from_list(items, where: str) -> tuple[FileBytes, ...]:
    # Reports saved before files carried bytes list plain paths.
    out = []
    for index, item in enumerate(need_list(items, where)):
        place = f"{where}[{index}]"
        if isinstance(item, str):
            out.append(FileBytes(item, 0))
            continue
        need_dict(item, place)
        out.append(FileBytes(need_str(member(item, "path", place), place + ".path"),
                             need_count(member(item, "bytes", place, 0), place + ".bytes"),
                             need_strings(member(item, "operators", place, []), place + ".operators")))
    return tuple(out)


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
        **({"ram_image": True} if table.ram_image else {}),
    }


LEGACY_SHARED_NOTE = ("saved by an earlier size-report: an operator's shared bytes there include the runtime code it "
                      "uses, and its files have no byte counts")


def operator_table_from_dict(data: dict, where: str = "operators") -> OperatorTable:
    """The operator table of a saved report (or a cache entry), type-checked (SchemaError names the bad field)."""
    need_dict(data, where)
    rows = need_list(member(data, "operators", where, []), where + ".operators")
    operators = []
    legacy = False
    for index, o in enumerate(rows):
        at = f"{where}.operators[{index}]"
        need_dict(o, at)
        legacy = legacy or "runtime_bytes" not in o
        shared_with = []
        for position, s in enumerate(need_list(member(o, "shared_with", at, []), at + ".shared_with")):
            pair = f"{at}.shared_with[{position}]"
            need_dict(s, pair)
            shared_with.append(OperatorBytes(need_str(member(s, "op", pair), pair + ".op"),
                                             need_count(member(s, "bytes", pair), pair + ".bytes")))
        operators.append(OperatorCost(
            op=need_str(member(o, "op", at), at + ".op"),
            registration=need_str(member(o, "registration", at, ""), at + ".registration"),
            exclusive_bytes=need_count(member(o, "exclusive_bytes", at), at + ".exclusive_bytes"),
            shared_bytes=need_count(member(o, "shared_bytes", at, 0), at + ".shared_bytes"),
            files=_files_from_list(member(o, "files", at, []), at + ".files"),
            runtime_bytes=need_count(member(o, "runtime_bytes", at, 0), at + ".runtime_bytes"),
            shared_files=_files_from_list(member(o, "shared_files", at, []), at + ".shared_files"),
            shared_with=tuple(shared_with),
            call_sites=need_count(member(o, "call_sites", at, 0), at + ".call_sites"),
            call_site_bytes=need_count(member(o, "call_site_bytes", at, 0), at + ".call_site_bytes"),
        ))
    notes = list(need_strings(member(data, "notes", where, []), where + ".notes"))
    if legacy and LEGACY_SHARED_NOTE not in notes:
        notes.append(LEGACY_SHARED_NOTE)
    resolvers = []
    for index, r in enumerate(need_list(member(data, "resolvers", where, []), where + ".resolvers")):
        at = f"{where}.resolvers[{index}]"
        need_dict(r, at)
        n = member(r, "n", at)
        if type(n) is not str:
            need_count(n, at + ".n")
        resolvers.append(TemplateCost(template="tflite::MicroMutableOpResolver", arguments=str(n),
                                      bytes=need_count(member(r, "bytes", at), at + ".bytes"),
                                      symbols=need_strings(member(r, "symbols", at, []), at + ".symbols")))
    templates = []
    for index, t in enumerate(need_list(member(data, "templates", where, []), where + ".templates")):
        at = f"{where}.templates[{index}]"
        need_dict(t, at)
        templates.append(TemplateCost(template=need_str(member(t, "template", at), at + ".template"),
                                      arguments=need_str(member(t, "arguments", at), at + ".arguments"),
                                      bytes=need_count(member(t, "bytes", at), at + ".bytes"),
                                      symbols=need_strings(member(t, "symbols", at, []), at + ".symbols")))
    return OperatorTable(
        operators=operators,
        resolvers=resolvers,
        templates=templates,
        runtime_bytes=need_count(member(data, "runtime_bytes", where, 0), where + ".runtime_bytes"),
        total_rom=need_count(member(data, "total_rom", where, 0), where + ".total_rom"),
        notes=notes,
        ram_image=member(data, "ram_image", where, False) is True,
    )
