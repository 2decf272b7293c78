"""The image layout a non-GNU linker map states outright: armlink's load and execution regions, IAR ILINK's placement
parts, and the map's own size summary.

GNU ld maps give MEMORY regions and leave where each section runs or is stored to the program headers. armlink and
IAR maps say it themselves (and their ELFs' program headers are of little help: armlink writes one PT_LOAD for the
whole load region, holding RW data compressed), so their readers describe the layout as blocks, each a stretch of
the image that runs in one area and may be stored in another. sizetool/report/map_placement.py places the ELF's
sections by these blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ROM, RAM = "rom", "ram"


@dataclass(frozen=True)
class MapArea:
    """A memory the map names: an armlink load region (ROM) or RAM execution region, an IAR placement (ROM or RAM)."""

    name: str
    memory: str  # ROM or RAM
    origin: int
    length: int  # the region's Max (armlink) or the placement's address ranges (IAR); 0 when unknown
    used: int  # what the map says is used in it (armlink: the region's Size, or its compressed size)


@dataclass(frozen=True)
class MapBlock:
    """A stretch of the image the map places as one: an armlink execution region, an IAR placement part."""

    name: str
    area: str  # the area it runs in (a ROM block: the area that stores it)
    memory: str  # where it runs: ROM or RAM
    address: int
    size: int  # bytes it spans at run time
    counted: int  # bytes of it the map's totals count from its start (IAR leaves a block's tail alignment out)
    load_area: str | None = None  # a RAM block whose contents are stored in ROM and copied: where
    load_address: int | None = None
    stored: int = 0  # bytes of it the map counts as stored in load_area: its RW data, or their compressed size
    initialised: int = 0  # bytes from its start the ELF gives initial contents (RW data and the padding after them)
    compressed: bool = False
    reserved: bool = False  # an armlink EMPTY region the map lists no rows for (a stack or heap): the ELF may omit it
    # (address, size) of gaps inside it the map's totals leave out (IAR 7: the alignment between RAM sections)
    uncounted: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class ObjectSizes:
    """One row of the map's per-object table (armlink's "Image component sizes", IAR's "MODULE SUMMARY")."""

    name: str  # object or library member (armlink: as printed; IAR: resolved like the placement rows)
    library: str  # "" for a plain object
    sizes: dict[str, int]  # column -> bytes, e.g. {"Code": 344, "RO Data": 0, ...} or {"ro code": ..., ...}


@dataclass
class MapLayout:
    """The layout an armlink or IAR map states: its areas and blocks, and its own ROM and RAM totals."""

    format: str  # "armlink" or "iar"
    toolchain: str  # e.g. "Arm Compiler for Embedded 6.22", "IAR ELF Linker V8.40.1.212"
    areas: list[MapArea]
    blocks: list[MapBlock]
    rom_total: int  # the map's own ROM figure ("Total ROM Size", IAR's readonly code + readonly data)
    ram_total: int  # the map's own RAM figure ("Total RW Size", IAR's readwrite data (+ readwrite code))
    summary: dict[str, int] = field(default_factory=dict)  # the map's summary lines, by their own wording
    objects: list[ObjectSizes] = field(default_factory=list)
    counts_gaps: bool = True  # whether gaps between sections inside an area count as used (armlink: yes; IAR: no)
    # (run address, stored address, size): RAM the start-up code fills by copying stored bytes as they are, where the
    # ELF holds no contents for it (IAR's init blocks are NOBITS; their values are the initializer bytes in ROM)
    copies: list[tuple[int, int, int]] = field(default_factory=list)
