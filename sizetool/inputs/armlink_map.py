"""Read an armlink map file (Arm Compiler 6, also Arm Compiler 5): load and execution regions, the input section of
every range of bytes, the per-object "Image component sizes" and the image totals.

"Memory Map of the image" lists each load region (Base, Size, Max, and COMPRESSED[size] when armlink compressed the RW
data it stores) and, inside it, its execution regions (Exec base, Load base, Size, Max), each followed by one row per
input section: Exec Addr, Load Addr ("-" for zero-initialised data, COMPRESSED for compressed RW data), Size, Type
(Code, Data, Zero, Ven for a veneer, PAD for alignment), Attr (RO/RW), Idx, E (the entry point), Section Name and
Object (an object file, or a library member such as c_w.l(__main.o); anon$$obj.o is what the linker made itself,
such as Region$$Table). Arm Compiler 5's older layout ("Base Addr", execution regions with "Base:" only) reads the
same way, with load addresses laid out in region order.

An execution region runs in RAM when it holds RW or ZI data or runs elsewhere than it is stored (code copied to RAM),
else in ROM, stored in its load region. The totals are the map's own: ROM = "Total ROM Size (Code + RO Data + RW
Data)" (with the RW data as stored: compressed when armlink compressed it), RAM = "Total RW Size (RW Data + ZI
Data)". A map cut short (an execution region whose rows stop before its Size, a size table without its totals) is an
error, as is a map without a memory map (link with --map, or uVision's "Memory Map" listing option).
"""

from __future__ import annotations

import re
from dataclasses import replace

from sizetool.errors import SizeToolError
from sizetool.inputs.map_file import FILL, InputSection, LinkerMap, MapRegion
from sizetool.inputs.map_headings import ARMLINK_COMPONENT
from sizetool.inputs.map_layout import RAM, ROM, MapArea, MapBlock, MapLayout, ObjectSizes

LINKER_GENERATED = "(linker generated)"
COMPRESSED_RW = "(compressed RW data)"

_HEX = r"0x([0-9a-fA-F]+)"
_LOAD_REGION = re.compile(rf"^\s*Load Region (\S+) \(Base: {_HEX}, Size: {_HEX}, Max: {_HEX}(?:, (.*))?\)\s*$")
_EXEC_REGION = re.compile(
    rf"^\s*Execution Region (\S+) \((?:Exec base: {_HEX}, Load base: {_HEX}|Base: {_HEX}), Size: {_HEX}, "
    rf"Max: {_HEX}(?:, (.*))?\)\s*$"
)
_COMPRESSED = re.compile(r"COMPRESSED\[0x([0-9a-fA-F]+)\]")
_ROW = re.compile(
    rf"^\s+{_HEX}\s+(?:(0x[0-9a-fA-F]+|-|COMPRESSED)\s+)?{_HEX}\s+(Code|Data|Zero|Ven|PAD|Other)\b(?:\s+(RO|RW)\s+(\d+)\s+"
    r"(\*?)\s*(\S+)\s+(\S.*?))?\s*$"
)
_TOTAL = re.compile(r"^\s*(Total (?:RO|RW|ROM)\s+Size \([^)]*\))\s+(\d+)")
_SIZE_ROW = re.compile(r"^\s*((?:\d+\s+){4,}\d+)\s+(\S.*?)\s*$")


def read_armlink_map(path: str, text: str) -> LinkerMap:
    """An armlink map as a LinkerMap with its layout. Problems are SizeToolErrors naming the file."""
    lines = text.splitlines()
    component = ARMLINK_COMPONENT.search(text[:4096])
    toolchain = component.group(1).strip() if component else "Arm Compiler"
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Memory Map of the image")
    except StopIteration:
        raise SizeToolError(f"{path}: armlink map without a memory map ('Memory Map of the image': link with "
                            "--map, or tick Memory Map in uVision's Listing options)") from None

    load_regions: list[dict] = []
    exec_regions: list[dict] = []
    sections: list[InputSection] = []
    current: dict | None = None
    position = start + 1
    while position < len(lines):
        line = lines[position]
        if line.startswith("=====") or line.strip() == "Image component sizes":
            break
        position += 1
        match = _LOAD_REGION.match(line)
        if match:
            compressed = _COMPRESSED.search(match.group(5) or "")
            load_regions.append(dict(name=match.group(1), base=int(match.group(2), 16), size=int(match.group(3), 16),
                                     max=int(match.group(4), 16),
                                     stored=int(compressed.group(1), 16) if compressed else int(match.group(3), 16)))
            current = None
            continue
        match = _EXEC_REGION.match(line)
        if match:
            if not load_regions:
                raise SizeToolError(f"{path}: execution region {match.group(1)} outside any load region")
            compressed = _COMPRESSED.search(match.group(7) or "")
            current = dict(
                name=match.group(1), exec=int(match.group(2) or match.group(4), 16),
                load=int(match.group(3), 16) if match.group(3) else None, size=int(match.group(5), 16),
                max=int(match.group(6), 16), compressed=int(compressed.group(1), 16) if compressed else None,
                load_region=load_regions[-1]["name"], rows=[], empty="EMPTY" in (match.group(7) or ""),
            )
            exec_regions.append(current)
            continue
        match = _ROW.match(line)
        if match and current is not None:
            address, size, kind = int(match.group(1), 16), int(match.group(3), 16), match.group(4)
            # Stored bytes: a load address or COMPRESSED ("-" is zero-initialised; the older layout has no column)
            stored = match.group(2) != "-" if match.group(2) else kind != "Zero"
            current["rows"].append((address, size, kind, match.group(5) or "", stored))
            if size == 0:
                continue
            if kind == "PAD":
                sections.append(InputSection(FILL, address, size, "", current["name"]))
            elif match.group(8) is None:
                raise SizeToolError(f"{path}: inconsistent map file (the {kind} row at 0x{address:08x} of execution "
                                    f"region {current['name']} names no section and object)")
            else:
                sections.append(InputSection(match.group(8), address, size, _object_name(match.group(9)),
                                             current["name"]))
    if not load_regions:
        raise SizeToolError(f"{path}: truncated map file (no load region after 'Memory Map of the image')")
    for region in exec_regions:
        rows = region["rows"]
        end = max((address + size for address, size, *_ in rows), default=region["exec"])
        if end - region["exec"] < region["size"] and not (region["empty"] and not rows):
            raise SizeToolError(
                f"{path}: truncated map file (execution region {region['name']} lists {end - region['exec']} of "
                f"its {region['size']} bytes)"
            )
        if end - region["exec"] > region["size"]:
            raise SizeToolError(f"{path}: inconsistent map file (the rows of execution region {region['name']} "
                                f"span {end - region['exec']} bytes, its Size is {region['size']})")

    summary, objects = _sizes(path, lines[position:])
    blocks, areas, compressed_pieces = _layout(load_regions, exec_regions)
    blocks = _stored_as_counted(blocks, exec_regions, summary)
    sections.extend(compressed_pieces)
    sections.sort(key=lambda s: (s.address, s.size))
    rom_total = summary.get("Total ROM Size (Code + RO Data + RW Data)")
    ram_total = summary.get("Total RW Size (RW Data + ZI Data)")
    if rom_total is None:
        rom_total = sum(area.used for area in areas if area.memory == ROM)
    if ram_total is None:
        ram_total = sum(area.used for area in areas if area.memory == RAM)
    layout = MapLayout("armlink", toolchain, areas, blocks, rom_total, ram_total, summary, objects, counts_gaps=True)
    regions = [MapRegion(a.name, a.origin, a.length, "", memory=a.memory) for a in areas]
    return LinkerMap(regions=regions, input_sections=sections, output_sections=[], path=path, format="armlink",
                     toolchain=toolchain, layout=layout)


def _stored_as_counted(blocks: list[MapBlock], exec_regions: list[dict], summary: dict[str, int]) -> list[MapBlock]:
    """The RW bytes the map counts as stored. The padding after a region's last RW row is in the ELF's RW section and
    has a load address, but armlink versions count it differently: Arm Compiler 5.06 with the RW data, 6.19 with the
    ZI data, 6.21 the part up to a word boundary with the RW data and the rest with the ZI data (its "(incl.
    Padding)" row then shows 1 to 3 RW bytes). The "ROM Totals" row says how many: the padding it counts is taken
    from the start of each region's padding, in region order."""
    counted = summary.get("ROM Totals RW Data")
    plain = [b for b in blocks if b.memory == RAM and b.load_area is not None and not b.compressed]
    if counted is None or not plain:
        return blocks
    compressed = sum(b.stored for b in blocks if b.compressed)
    without_padding = {}
    for block in plain:
        rows = next(r["rows"] for r in exec_regions if r["name"] == block.name)
        end = max((a + s for a, s, kind, _, stored in rows if stored and kind != "PAD"), default=block.address)
        without_padding[block.name] = end - block.address
    padding_counted = counted - compressed - sum(without_padding.values())
    padding_stored = sum(b.stored - without_padding[b.name] for b in plain)
    if padding_counted == padding_stored or not 0 <= padding_counted < padding_stored:
        return blocks  # all of it (or a figure this reader cannot split: the placement warns)
    stored = {}
    for block in plain:
        padding = min(block.stored - without_padding[block.name], padding_counted)
        stored[block.name] = without_padding[block.name] + padding
        padding_counted -= padding
    return [replace(b, stored=stored[b.name]) if b.name in stored else b for b in blocks]


def _object_name(name: str) -> str:
    return LINKER_GENERATED if name.strip() == "anon$$obj.o" else name.strip()


def _layout(load_regions: list[dict], exec_regions: list[dict]):
    """Blocks (one per execution region) and areas (load regions as ROM; RAM execution regions)."""
    blocks: list[MapBlock] = []
    areas: list[MapArea] = []
    pieces: list[InputSection] = []
    cursor = {region["name"]: region["base"] for region in load_regions}  # Arm Compiler 5: regions in load order
    ram_areas = []
    for region in exec_regions:
        rows = region["rows"]
        writable = any(attr == "RW" for _, _, kind, attr, _ in rows if kind != "PAD")
        load = region["load"] if region["load"] is not None else cursor[region["load_region"]]
        runs_in = RAM if writable or load != region["exec"] or region["empty"] else ROM  # EMPTY: a stack, a heap
        data_end = max((a + s for a, s, kind, _, stored in rows if stored and kind != "PAD"), default=region["exec"])
        # Padding right after the last RW row is part of the ELF's RW section, but armlink counts it with the ZI data:
        # "RW Data" (and so Total ROM Size) ends at the last RW row.
        initialised = max([data_end] + [a + s for a, s, kind, _, stored in rows
                                        if kind == "PAD" and stored and a == data_end])
        initialised = max(initialised - region["exec"], 0)
        stored = region["compressed"] if region["compressed"] is not None else initialised
        if runs_in == ROM:
            stored = region["size"]
            blocks.append(MapBlock(region["name"], region["load_region"], ROM, region["exec"], region["size"],
                                   region["size"], stored=stored, initialised=region["size"]))
        else:
            blocks.append(MapBlock(
                region["name"], region["name"], RAM, region["exec"], region["size"], region["size"],
                reserved=region["empty"] and not rows,
                load_area=region["load_region"] if stored else None, load_address=load if stored else None,
                stored=stored, initialised=initialised, compressed=region["compressed"] is not None,
            ))
            if region["compressed"] is not None and stored:
                pieces.append(InputSection(f"compressed initial values of {region['name']}", load, stored,
                                           COMPRESSED_RW, region["name"]))
            if region["size"] or rows:
                ram_areas.append(MapArea(region["name"], RAM, region["exec"], region["max"], region["size"]))
        cursor[region["load_region"]] = load + (stored if region["compressed"] is not None else initialised)
    for region in load_regions:
        areas.append(MapArea(region["name"], ROM, region["base"], region["max"], region["stored"]))
    return blocks, areas + ram_areas, pieces


def _sizes(path: str, lines: list[str]) -> tuple[dict[str, int], list[ObjectSizes]]:
    """The totals ("Total ROM Size ..." and the Grand/ROM Totals rows) and the per-object rows of "Image component
    sizes" (objects, library members, libraries)."""
    summary: dict[str, int] = {}
    objects: list[ObjectSizes] = []
    columns: list[str] = []
    table = ""
    seen_sizes = False
    for line in lines:
        match = _TOTAL.match(line)
        if match:
            summary[re.sub(r"\s+", " ", match.group(1))] = int(match.group(2))
            continue
        stripped = line.strip()
        if stripped == "Image component sizes":
            seen_sizes = True
            continue
        if stripped.startswith("Code") and ("RO Data" in stripped):
            columns = _columns(stripped)
            table = stripped.rsplit("Debug", 1)[-1].strip()  # Object Name / Library Member Name / Library Name / ""
            continue
        match = _SIZE_ROW.match(line)
        if not match or not columns:
            continue
        values = [int(v) for v in match.group(1).split()]
        name = match.group(2)
        figures = dict(zip(columns, values))
        if name.endswith("Totals") or name.startswith("(incl."):
            summary.update({f"{name} {column}": value for column, value in figures.items()})
        elif table == "Object Name":
            objects.append(ObjectSizes(name, "", figures))
        elif table == "Library Member Name":
            objects.append(ObjectSizes(name, "(library member)", figures))
        elif table == "Library Name":
            objects.append(ObjectSizes(name, "(library)", figures))
    if seen_sizes and not any(key.startswith("Total ") for key in summary):
        raise SizeToolError(f"{path}: truncated map file (its 'Image component sizes' has no totals: no "
                            "'Total ROM Size' line)")
    return summary, objects


def _columns(header: str) -> list[str]:
    """Column names of a size table header: Code, (inc. data), RO Data, RW Data, ZI Data, Debug."""
    names = []
    for name in ("Code", "(inc. data)", "RO Data", "RW Data", "ZI Data", "Debug"):
        if name in header:
            names.append(name)
    return names
