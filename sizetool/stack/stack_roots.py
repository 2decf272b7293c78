"""Where the stack walk starts when no root is named: from the layout actually linked.

- `main`;
- the ELF entry point (e_entry: `Reset_Handler`, `_start`, pico-sdk's `_entry_point`), a sized function or an assembly
  routine with a size-0 symbol;
- thread entries: functions whose address a caller of a thread-creating function takes, and Zephyr's
  `K_THREAD_DEFINE` entries;
- the handlers of each vector table, wherever the linker put it: an output section of its own (`.isr_vector`,
  `.vectors`, `exc_vector_table`) or a symbol named as a table (`__vectors`, CMSIS's `__Vectors`, ST's
  `g_pfnVectors`, Zephyr's `_vector_table`) inside `.text` as pico-sdk links it. On Arm the table's words are read:
  the first is the initial stack pointer, the second the reset handler, the rest handlers or 0, up to the first word
  that is neither (the code that follows the table). Other architectures' tables hold jumps: their targets are
  taken from the reference graph.

A function that only takes a table's address (start-up code copying the table to RAM, pico-sdk's
`runtime_init_install_ram_vector_table` and its `__pre_init_..._vector_table` entry) is not a handler: only a word of
the table itself makes one.
"""

from __future__ import annotations

import re
import struct

from sizetool.code_graph.reference_graph import ReferenceGraph
from sizetool.inputs.elf_reader import ElfImage
from sizetool.stack.stack_frames import Frame

THREAD_CREATORS = ("k_thread_create", "pthread_create", "xTaskCreate", "xTaskCreateStatic", "osThreadNew",
                   "xTaskCreatePinnedToCore", "xTaskCreateStaticPinnedToCore")
_THREAD_DATA_SECTION = "._static_thread_data"
# The whole name of a vector table (leading underscores and a g_pfn/exc_/irq_/isr_ prefix allowed), not any name
# ending in one: `__pre_init_runtime_init_install_ram_vector_table` is a start-up step, not a table.
_VECTOR_TABLE_SYMBOL = re.compile(r"^_*(g_pfn|exc_|irq_|isr_)?(vectors?|vector_table|isr_vectors?)$", re.IGNORECASE)
_VECTOR_SECTION = re.compile(r"^\.?(isr_vectors?|vectors?|(exc_|irq_)?vector_table|[\w.]*\.vectors)$", re.IGNORECASE)
# Zephyr's software ISR table: {argument, handler} pairs the common interrupt wrapper calls.
_SOFTWARE_ISR_TABLE = re.compile(r"^_*sw_isr_table$")
_MOST_VECTORS = 16 + 496  # Cortex-M: 16 exceptions and at most 496 external interrupts


def routine_names(image: ElfImage, graph: ReferenceGraph, frames: dict[int, Frame]) -> dict[int, str]:
    """Code chunks named by a size-0 symbol (assembly routines): a function symbol first, then a global one, then the
    first name (pico-sdk's 32 weak `isr_irqN` labels on one routine read as `__unhandled_user_irq`)."""
    candidates = []
    for symbol in image.symbols:
        if symbol.size == 0 and symbol.kind in ("func", "notype") and not symbol.name.startswith("$"):
            node = graph.node_at(symbol.address & ~1 if image.arch == "arm" else symbol.address)
            if node is not None and graph.nodes[node].kind == "chunk" and node in frames:
                candidates.append((node, symbol.kind != "func", symbol.binding != "global", symbol.name))
    names: dict[int, str] = {}
    for node, *_, name in sorted(candidates):
        names.setdefault(node, name)
    return names


def default_roots(image: ElfImage, graph: ReferenceGraph, frames: dict[int, Frame],
                  names: dict[int, str]) -> list[tuple[str, str, int]]:
    """(label, kind, node) of main, the entry point, the threads and the vector tables' handlers, each once."""
    chosen: list[tuple[str, str, int]] = []
    seen: set[int] = set()

    def add(kind: str, node: int | None) -> None:
        if node is not None and node not in seen and _is_code(graph, frames, node):
            seen.add(node)
            chosen.append((names.get(node) or graph.nodes[node].name, kind, node))

    add("main", next((i for i, n in enumerate(graph.nodes) if n.kind == "func" and n.mangled == "main"), None))
    add("entry point", graph.node_at(image.entry & ~1 if image.arch == "arm" else image.entry))
    for node in sorted(thread_entries(graph, frames)):
        add("thread", node)
    for node, kind in vector_handlers(image, graph, frames):
        add(kind, node)
    return chosen


def _is_code(graph: ReferenceGraph, frames: dict[int, Frame], node: int) -> bool:
    return graph.nodes[node].kind == "func" or node in frames


def thread_entries(graph: ReferenceGraph, frames: dict[int, Frame]) -> set[int]:
    """Functions whose address a caller of a thread-creating function takes, and Zephyr's static thread entries."""
    creators = {i for i, n in enumerate(graph.nodes) if n.kind == "func" and n.mangled in THREAD_CREATORS}
    found: set[int] = set()
    for node, frame in frames.items():
        targets = {graph.node_at(c.target) for c in frame.calls if c.target is not None}
        if not targets & creators:
            continue
        for target in graph.edges[node]:
            if graph.nodes[target].kind == "func" and target not in targets:
                found.add(target)
    for index, node in enumerate(graph.nodes):
        if node.section.startswith(_THREAD_DATA_SECTION) or node.mangled.startswith("_k_thread_data_"):
            found.update(t for t in graph.edges[index] if graph.nodes[t].kind == "func")
    return found


def vector_handlers(image: ElfImage, graph: ReferenceGraph, frames: dict[int, Frame]) -> list[tuple[int, str]]:
    """(node, "reset" or "interrupt") of every handler a vector table holds, tables in address order, each handler
    once, in table order."""
    found: list[tuple[int, str]] = []
    seen: set[int] = set()
    for start, end, hardware in _vector_tables(image, graph):
        if image.arch == "arm":
            handlers = _arm_table_handlers(image, graph, frames, start, end, hardware)
        else:
            handlers = [(target, "interrupt") for index, node in enumerate(graph.nodes)
                        if start <= node.address < end
                        for target in graph.edges[index] if _is_code(graph, frames, target)]
        for node, kind in handlers:
            if node not in seen:
                seen.add(node)
                found.append((node, kind))
    return found


def _vector_tables(image: ElfImage, graph: ReferenceGraph) -> list[tuple[int, int, bool]]:
    """(start, end, hardware) of each table with contents in the image: output sections named as tables, and
    symbols named as tables wherever they sit. `hardware`: a table the core reads (first word the stack pointer)
    rather than a software table of handlers."""
    tables: dict[int, tuple[int, bool]] = {}
    for section in image.sections:
        if section.is_alloc and not section.is_nobits and section.size and _VECTOR_SECTION.match(section.name):
            tables[section.address] = (section.end, True)
    starts = sorted({s.address & ~1 if image.arch == "arm" and s.kind == "func" else s.address
                     for s in image.symbols})
    for symbol in image.symbols:
        hardware = bool(_VECTOR_TABLE_SYMBOL.match(symbol.name))
        if not hardware and not _SOFTWARE_ISR_TABLE.match(symbol.name):
            continue
        section = next((s for s in image.sections if s.is_alloc and not s.is_nobits and s.contains(symbol.address)),
                       None)
        if section is None:
            continue
        if symbol.size:
            end = symbol.address + symbol.size
        else:  # an assembler label: up to the next symbol at another address, within its section
            later = [a for a in starts if a > symbol.address]
            end = min([section.end] + later[:1])
        if symbol.address not in tables or tables[symbol.address][0] < end:
            tables[symbol.address] = (end, hardware)
    return [(start, end, hardware) for start, (end, hardware) in sorted(tables.items())]


def _arm_table_handlers(image: ElfImage, graph: ReferenceGraph, frames: dict[int, Frame], start: int, end: int,
                        hardware: bool) -> list[tuple[int, str]]:
    section = next(s for s in image.sections if s.contains(start))
    data = image.section_data(section)
    word = struct.Struct("<I" if image.little_endian else ">I")
    handlers = []
    offset = start - section.address
    limit = min(end, section.end, start + 4 * _MOST_VECTORS) - section.address
    for slot, position in enumerate(range(offset, limit - 3, 4)):
        value = word.unpack_from(data, position)[0]
        if hardware and slot == 0:
            continue  # the initial stack pointer
        node = _code_at(graph, frames, value)
        if node is not None:
            handlers.append((node, "reset" if hardware and slot == 1 else "interrupt"))
        elif hardware and value != 0:
            break  # past the table: the code or data that follows it
    return handlers


def _code_at(graph: ReferenceGraph, frames: dict[int, Frame], value: int) -> int | None:
    """The function or assembly routine a Thumb code address (low bit set) starts."""
    if not value & 1:
        return None
    node = graph.node_at(value & ~1)
    if node is None or graph.nodes[node].address != value & ~1 or not _is_code(graph, frames, node):
        return None
    return node
