"""Read an IAR ILINK map file: the placement summary (each placement's parts and the sections in them), the module
summary per object and library, and the totals.

PLACEMENT SUMMARY starts with the linker configuration's placement directives (`"P1": place in [from 0x800'0000 to
0x807'ffff] { ro };`), then lists every placement ("A0":, "P1":, or "P4", part 1 of 3:) with its size, one row per
section (Section, Kind, Address, Size, Object) and a closing `- end size` line. Kinds: ro code, const (read-only
data), inited/zero/uninit (RAM data: copied, zeroed, left alone), rw code. Blocks (`<Block>`, `<Init block>`) are
containers whose children are indented under them; `Initializer bytes ... <for P4 s0>` are the stored initial values
of an init block; `- Linker created -` is the linker's own (init tables); `<Block tail>` is a block's reserved space
(CSTACK, HEAP). Objects are `main.o [1]`, the number keyed at the end of the ENTRY LIST to a directory or a library
(`[2] = dl7M_tln.a`), so library members read as `dl7M_tln.a(printf.o)` like GNU archive members.

IAR writes one ELF section per placement part (named "A0", "P1 ro", "P4 s0", "P4 zi"...); data copied to RAM is a
NOBITS section in RAM and its initializer bytes are in a ROM section. The totals are the map's own: ROM = "bytes of
readonly code memory" + "bytes of readonly data memory", RAM = "bytes of readwrite data memory" (+ readwrite code). IAR
counts a part from its start (the closing line's end less its size: ILINK 9 starts a part where the previous one
ends, so an over-aligned first section leaves a gap the part holds) up to the end of its last section, not an init
block's tail alignment nor the unused ranges between parts. Inside a part, ILINK (6.30 to 9.70 alike) counts the
gap before a section (the MODULE SUMMARY's "Gaps" row) but not the alignment before a block (CSTACK) nor a block's
bytes past its last section (an init block rounded up). ILINK 9.50 on adds an Alignment column between a row's
address and size. Digit groups may be separated by ' (ILINK 8, 9: `0x800'0000`, `5'082`) or a space (ILINK 7:
`16 155`).
"""

from __future__ import annotations

import re

from sizetool.errors import SizeToolError
from sizetool.inputs.map_file import FILL, InputSection, LinkerMap, MapRegion
from sizetool.inputs.map_headings import IAR_LINKER
from sizetool.inputs.map_layout import RAM, ROM, MapArea, MapBlock, MapLayout, ObjectSizes

LINKER_GENERATED = "(linker generated)"
COMPRESSED_INITIALIZERS = "(compressed initializers)"
RAM_KINDS = frozenset({"inited", "zero", "uninit", "rw code", "rw data", "noinit"})
ROM_KINDS = frozenset({"ro code", "const", "ro data", "ro"})
CONTAINERS = ("<Init block>", "<Block>")

_NUMBER = r"0x[0-9a-fA-F']+"
_GROUP = re.compile(rf'^"([^"]+)"(?:, part (\d+) of (\d+))?:\s*({_NUMBER})?\s*$')
# Section, Kind, Address, [Alignment (ILINK 9.50 on): decimal], Size, Object
_ROW = re.compile(rf"^(\s+)(\S.*?)\s+({_NUMBER})(?:\s+\d+)?\s+({_NUMBER})\s+(\S.*?)\s*$")
_END = re.compile(rf"^\s+-\s+({_NUMBER})\s+({_NUMBER})\s*$")
_NAME_ONLY = re.compile(r"^(\s+)(\S+)\s*$")
_KEY = re.compile(r"^\[(\d+)\] = (.*?)\s*$", re.MULTILINE)
_TOTAL = re.compile(r"^\s*(\d[\d' ,]*?)\s+bytes of (readonly|readwrite)\s+(code|data) memory", re.MULTILINE)
_DECIMAL = re.compile(r"\d{1,3}(?:['’, ]\d{3})*(?!\d)|\d+")  # 1'248, 9 744 (older ILINK), 1,248
_DIRECTIVE = re.compile(r'^"([^"]+)":\s+place\b(.*?);', re.MULTILINE | re.DOTALL)
_RANGE = re.compile(rf"\[from ({_NUMBER}) (to|size) ({_NUMBER})(?: repeat (\d+))?[^\]]*\]")
_AT = re.compile(rf"at (?:address )?({_NUMBER})")


def read_iar_map(path: str, text: str) -> LinkerMap:
    """An IAR ILINK map as a LinkerMap with its layout. Problems are SizeToolErrors naming the file."""
    linker = IAR_LINKER.search(text[:4096])
    toolchain = f"IAR ELF Linker {linker.group(1)}" if linker else "IAR ELF Linker"
    if "*** PLACEMENT SUMMARY" not in text:
        raise SizeToolError(f"{path}: IAR map without a placement summary ('*** PLACEMENT SUMMARY')")
    totals = {f"{access} {kind}": _number(count) for count, access, kind in _TOTAL.findall(text)}
    if "readonly code" not in totals and "readwrite data" not in totals:
        raise SizeToolError(f"{path}: truncated map file (no 'bytes of readonly code memory' totals at its end)")
    keys = {number: target for number, target in _KEY.findall(text)}
    summary_text = text.split("*** PLACEMENT SUMMARY", 1)[1]
    placement_text = re.split(r"\n\*{20,}\n", summary_text, maxsplit=1)[0]
    module_text = text.split("*** MODULE SUMMARY", 1)[1] if "*** MODULE SUMMARY" in text else ""

    parts, initializers, blocks_by_name = _parts(path, placement_text.splitlines(), keys)
    sections: list[InputSection] = []
    copies: list[tuple[int, int, int]] = []
    for part in parts:
        sections.extend(part["rows"])
    for row in initializers:  # stored initial values: per object when copied as is, else one compressed piece
        target = blocks_by_name.get(row.object_file[len("<for ") : -1])
        if target is not None and target["size"] == row.size:
            copies.append((target["address"], row.address, row.size))
            cursor = row.address
            for child in target["children"]:
                address = row.address + child.address - target["address"]
                if address > cursor:
                    sections.append(InputSection(FILL, cursor, address - cursor, ""))
                sections.append(InputSection(child.name, address, child.size, child.object_file))
                cursor = max(cursor, address + child.size)
            if cursor < row.address + row.size:  # the block's tail alignment: IAR counts it as linker-created
                sections.append(InputSection(f"initializer padding {row.object_file}", cursor,
                                             row.address + row.size - cursor, LINKER_GENERATED))
        else:
            sections.append(InputSection(f"initializers {row.object_file}", row.address, row.size,
                                         COMPRESSED_INITIALIZERS))
    sections.sort(key=lambda s: (s.address, s.size))

    ranges = _directives(placement_text)
    areas: list[MapArea] = []
    blocks: list[MapBlock] = []
    module_totals = _module_totals(module_text)
    for part in parts:
        uncounted = _uncounted_gaps(part)
        blocks.append(MapBlock(part["label"], part["group"], part["memory"], part["address"], part["size"],
                               part["counted"], uncounted=uncounted))
    for group in dict.fromkeys(part["group"] for part in parts):
        members = [p for p in parts if p["group"] == group]
        memory = ROM if any(p["memory"] == ROM for p in members) else RAM
        origin, length = ranges.get(group, (min(p["address"] for p in members), 0))
        areas.append(MapArea(group, memory, origin, length, sum(p["counted"] for p in members)))
    rom_total = totals.get("readonly code", 0) + totals.get("readonly data", 0)
    ram_total = totals.get("readwrite data", 0) + totals.get("readwrite code", 0)
    summary = {f"bytes of {name} memory": value for name, value in totals.items()}
    summary.update(module_totals)
    layout = MapLayout("iar", toolchain, areas, blocks, rom_total, ram_total, summary, _modules(module_text, keys),
                       counts_gaps=False, copies=copies)
    regions = [MapRegion(a.name, a.origin, a.length, "", memory=a.memory) for a in areas]
    return LinkerMap(regions=regions, input_sections=sections, output_sections=[], path=path, format="iar",
                     toolchain=toolchain, layout=layout)


def _number(text: str) -> int:
    cleaned = re.sub(r"['’ ,]", "", text)
    return int(cleaned, 16) if cleaned.lower().startswith("0x") else int(cleaned)


def _object(text: str, keys: dict[str, str]) -> str:
    """`main.o [1]` -> the object's path or `library.a(member.o)`; `- Linker created -`, `<Block tail>` -> linker."""
    text = text.strip()
    if text in ("- Linker created -", "<Block tail>"):
        return LINKER_GENERATED
    match = re.match(r"^(.*?)\s*\[(\d+)\]$", text)
    if not match:
        return text
    member, target = match.group(1), keys.get(match.group(2), "")
    if not target:
        return member
    if target.lower().endswith((".a", ".lib")):
        return f"{target}({member})"
    separator = "\\" if "\\" in target else "/"
    return target.rstrip("\\/") + separator + member


def _parts(path: str, lines: list[str], keys: dict[str, str]):
    """The placement parts, in map order, with their rows; the initializer rows; init blocks by name."""
    parts: list[dict] = []
    initializers: list[InputSection] = []
    blocks_by_name: dict[str, dict] = {}
    part: dict | None = None
    container: dict | None = None
    pending = ""
    started = False
    for line in lines:
        if line.startswith("Unused ranges"):
            break
        if not started:
            started = line.strip().startswith("-------") and "----" in line
            continue
        match = _GROUP.match(line)
        if match:
            part = _close(path, part)
            group = match.group(1)
            label = f"{group} part {match.group(2)}" if match.group(2) else group
            part = dict(group=group, label=label, header=_number(match.group(4)) if match.group(4) and
                        match.group(4) != "0x" else None, rows=[], kinds=set(), address=None, end_line=None,
                        leaf_end=None, memory=None, containers=[])
            parts.append(part)
            container = None
            continue
        if part is None:
            continue
        match = _END.match(line)
        if match:
            part["end_line"] = (_number(match.group(1)), _number(match.group(2)))
            continue
        match = _ROW.match(line)
        if match is None:
            only = _NAME_ONLY.match(line)
            pending = only.group(2) if only else ""  # a long name: the rest of its row is on the next line
            continue
        indent, left, address, size, owner = (len(match.group(1)), match.group(2), _number(match.group(3)),
                                              _number(match.group(4)), match.group(5))
        if pending and left.strip() in RAM_KINDS | ROM_KINDS:
            name, kind = pending, left.strip()
        else:
            name, kind = _split(left)
        pending = ""
        if part["address"] is None:
            part["address"] = address
        if owner in CONTAINERS:
            container = dict(name=name, address=address, size=size, indent=indent, children=[])
            part["containers"].append(container)
            if owner == "<Init block>":
                blocks_by_name[name] = container
            part["kinds"].add("inited" if owner == "<Init block>" else "")
            continue
        if container is not None and indent <= container["indent"]:
            container = None
        if kind:
            part["kinds"].add(kind)
        part["leaf_end"] = max(part["leaf_end"] or 0, address + size)
        if owner.startswith("<for ") and owner.endswith(">"):
            initializers.append(InputSection(name, address, size, owner))
            continue
        if size == 0:
            continue
        row = InputSection(name, address, size, _object(owner, keys))
        part["rows"].append(row)
        if container is not None:
            container["children"].append(row)
    _close(path, part)
    if not parts:
        raise SizeToolError(f"{path}: truncated map file (its placement summary lists no placements)")
    for part in parts:
        edges = {edge for c in part["containers"] for edge in (c["address"], c["address"] + c["size"])}
        part["rows"] = _with_gaps(part["rows"], part["address"], edges)
    return parts, initializers, blocks_by_name


def _uncounted_gaps(part: dict) -> tuple[tuple[int, int], ...]:
    """(address, size) of the gaps in a part that ILINK's totals leave out: the alignment before a block (CSTACK's
    8) and a block's tail past its last section (an init block rounded up). Gaps before a section count, in every
    ILINK version (the MODULE SUMMARY's "Gaps" row)."""
    containers = [(c["address"], c["address"] + c["size"], max((r.address + r.size for r in c["children"]),
                                                                default=c["address"])) for c in part["containers"]]
    uncounted = []
    for row in part["rows"]:
        if row.name != FILL or row.address >= part["address"] + part["counted"]:
            continue
        end = row.address + row.size
        before_block = any(start == end for start, _, _ in containers)
        in_a_tail = any(last <= row.address and end <= stop for _, stop, last in containers)
        if before_block or in_a_tail:
            uncounted.append((row.address, row.size))
    return tuple(uncounted)


def _split(left: str) -> tuple[str, str]:
    """`.text              ro code` -> (".text", "ro code"); `P4 s0` -> ("P4 s0", "")."""
    pieces = re.split(r"\s{2,}", left.strip(), maxsplit=1)
    return pieces[0], pieces[1] if len(pieces) > 1 else ""


def _close(path: str, part: dict | None) -> None:
    """Finish a part: its address, size, counted bytes and memory; a part without its closing line is cut short."""
    if part is None:
        return None
    if part["address"] is None:
        if part["end_line"] is None:
            raise SizeToolError(f"{path}: truncated map file (placement {part['label']} lists no sections)")
        part["address"] = part["end_line"][0] - part["end_line"][1]
    if part["end_line"] is None:
        raise SizeToolError(f"{path}: truncated map file (placement {part['label']} has no closing '- end' line)")
    end, size = part["end_line"]
    if end - size <= part["address"]:  # a part starts where its closing line says (ILINK 9: before its first row)
        part["address"] = end - size
    part["size"] = part["header"] if part["header"] is not None else end - part["address"]
    part["counted"] = (part["leaf_end"] or part["address"]) - part["address"]
    kinds = part["kinds"] - {""}
    part["memory"] = RAM if kinds & RAM_KINDS or (not kinds and part["kinds"]) else ROM
    return None


def _with_gaps(rows: list[InputSection], start: int | None, edges: set[int]) -> list[InputSection]:
    """The rows plus `*fill*` pieces for the alignment gaps between them (IAR counts most as "Gaps"), a gap split where
    a block starts or ends (a block's tail and the alignment after it are counted apart)."""
    ordered = sorted(rows, key=lambda r: (r.address, r.size))
    result = []
    cursor = start if start is not None else (ordered[0].address if ordered else 0)
    for row in ordered:
        for stop in sorted(e for e in edges if cursor < e < row.address) + [row.address]:
            if stop > cursor:
                result.append(InputSection(FILL, cursor, stop - cursor, ""))
                cursor = stop
        result.append(row)
        cursor = max(cursor, row.address + row.size)
    return result


def _directives(text: str) -> dict[str, tuple[int, int]]:
    """Placement name -> (origin, length) from its `place in [from A to B] | [from C to D]` directive."""
    found = {}
    for name, body in _DIRECTIVE.findall(text):
        ranges = []
        for low, form, high, repeat in _RANGE.findall(body):
            start, end = _number(low), _number(high) if form == "to" else _number(low) + _number(high) - 1
            ranges.extend((start + copy * (end - start + 1), start + copy * (end - start + 1) + end - start)
                          for copy in range(min(int(repeat or 1), 64)))
        if ranges:
            found[name] = (min(low for low, _ in ranges), sum(high - low + 1 for low, high in ranges))
        else:
            at = _AT.search(body)
            if at:
                found[name] = (_number(at.group(1)), 0)
    return found


def _module_columns(header: str) -> list[tuple[str, int]]:
    """(column name, end position) of the MODULE SUMMARY header: ro code, ro data, rw data (rw code...)."""
    return [(m.group(0), m.end()) for m in re.finditer(r"(?:ro|rw) (?:code|data)", header)]


def _module_rows(text: str):
    columns: list[tuple[str, int]] = []
    group = ""
    for line in text.splitlines():
        if line.startswith("****"):
            break
        if line.strip().startswith("Module") and not columns:
            columns = _module_columns(line)
            continue
        if not columns or not line.strip() or set(line.strip()) <= {"-", " "}:
            continue
        if not line.startswith(" "):
            group = re.sub(r"\s*\[\d+\]\s*$", "", line.strip()).rstrip(":").strip()
            continue
        name_match = re.match(r"^\s+(\S(?:.*?\S)?)(?=\s{2,}|\s*$)", line)
        if not name_match:
            continue
        figures = {}
        for number in _DECIMAL.finditer(line[name_match.end():]):
            end = name_match.end() + number.end()
            column = min(columns, key=lambda c: abs(c[1] - end))
            figures[column[0]] = _number(number.group(0))
        yield group, name_match.group(1), figures


def _modules(text: str, keys: dict[str, str]) -> list[ObjectSizes]:
    objects = []
    for group, name, figures in _module_rows(text):
        if name in ("Total:", "Gaps", "Linker created", "Grand Total:") or group == "command line/config":
            continue
        library = group if group.lower().endswith((".a", ".lib")) else ""
        objects.append(ObjectSizes(name, library, figures))
    return objects


def _module_totals(text: str) -> dict[str, int]:
    totals = {}
    for _, name, figures in _module_rows(text):
        if name in ("Gaps", "Linker created", "Grand Total:"):
            for column, value in figures.items():
                totals[f"{name.rstrip(':')} {column}"] = value
    return totals
