"""ld.lld's map file (`-Map`, `-Wl,-Map=...` with `-fuse-ld=lld`): output and input sections by object.

It is one table under the heading `VMA LMA Size Align Out In Symbol`. Each row starts with the four numbers
(addresses and size in hexadecimal, the alignment in decimal); what follows starts under `Out` for an output section
or a linker-script assignment, under `In` for an input section (`path/main.o:(.text.main)`,
`path/libtflm.a(conv.o):(.text.x)`, `<internal>:(.rodata)`), under `Symbol` for a symbol. ld.lld writes no MEMORY
regions: the report places sections by the ELF's program headers, as without a map.

`<internal>` rows are sections ld.lld made itself. In `.rodata` and the like they are the merged string and constant
sections of all objects, one run per output section: they are listed under LINKER_MERGED, which the report places by
the code that refers to each piece (as GNU ld's merged `.rodata.str1.1`). `.ARM.exidx` and other tables it writes go
under "(linker generated)".
"""

from __future__ import annotations

import re

from sizetool.errors import SizeToolError
from sizetool.inputs.map_file import InputSection, LinkerMap, OutputSection
from sizetool.inputs.map_names import FILL, LINKER_MERGED, is_allocated_name

HEADING = ("VMA", "LMA", "Size", "Align", "Out", "In", "Symbol")
_ROW = re.compile(r"\s*([0-9a-fA-F]+)\s+([0-9a-fA-F]+)\s+([0-9a-fA-F]+)\s+(\d+) (\s*)(\S.*)$")
_ASSIGNMENT = re.compile(r"^[\w.$]+\s*[-+*/|&]?=|^PROVIDE|^HIDDEN|^ASSERT")
LINKER_GENERATED = "(linker generated)"


def looks_like_lld(text: str) -> bool:
    """ld.lld's map opens with its column heading."""
    return tuple(text.lstrip().split("\n", 1)[0].split()) == HEADING


def read_lld_map(path: str, text: str) -> LinkerMap:
    lines = text.splitlines()
    heading = next((line for line in lines if line.strip()), "")
    if tuple(heading.split()) != HEADING:
        raise SizeToolError(f"{path}: not an ld.lld map (no `VMA LMA Size Align Out In Symbol` heading)")
    out_column, in_column = heading.index(" Out ") + 1, heading.index(" In ") + 1
    outputs: list[OutputSection] = []
    inputs: list[InputSection] = []
    current: str | None = None  # the allocated output section the rows below belong to
    for line in lines[lines.index(heading) + 1 :]:
        match = _ROW.match(line)
        if match is None:
            if line.strip():
                raise SizeToolError(f"{path}: not an ld.lld map row: {line.strip()[:80]!r}")
            continue
        column, rest = match.start(6), match.group(6)
        address, load, size = int(match.group(1), 16), int(match.group(2), 16), int(match.group(3), 16)
        if column == out_column:
            current = None
            if not _ASSIGNMENT.match(rest) and is_allocated_name(rest):
                current = rest
                outputs.append(OutputSection(rest, address, size, load if load != address else None))
        elif column == in_column and current is not None and size:
            owner, separator, name = rest.rpartition(":(")
            if not separator or not name.endswith(")"):
                continue  # an assignment inside an output section (`_sdata = .`, `. = ALIGN(4)`)
            name = name[:-1]
            if owner == "<internal>":
                owner = LINKER_GENERATED if name.startswith(".ARM.ex") or current.startswith(".ARM.ex") else LINKER_MERGED
            # ld.lld lists no padding: the bytes between two input sections of one output section are alignment,
            # as GNU ld's `*fill*` rows say
            previous_end = inputs[-1].address + inputs[-1].size if inputs and inputs[-1].output_section == current \
                else outputs[-1].address
            if previous_end < address:
                inputs.append(InputSection(FILL, previous_end, address - previous_end, "", current))
            inputs.append(InputSection(name, address, size, owner, current))
    if not outputs:
        raise SizeToolError(f"{path}: an ld.lld map with no allocated output section")
    return LinkerMap(regions=[], input_sections=inputs, output_sections=outputs, path=path, format="lld",
                     toolchain="")
