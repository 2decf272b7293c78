"""The reference graph of a firmware: which functions and data objects each function or object refers to.

Nodes are the ELF's sized symbols (aliases merged, overlaps clipped, as in labelling.py) plus the bytes no symbol
covers, cut into chunks at every address something refers to (so each string literal in `.rodata.str1.1` becomes its
own node). Each node carries the flash bytes it occupies. Edges come from:

- code, decoded with capstone (disassembly.py): calls, branches, literal-pool loads, address-building pairs;
- data: every aligned pointer-sized word of an initialised section that holds the address of a node (function
  pointers in registration structs and vtables, pointers to strings and tables). A data word may point into the
  middle of a data object, but it must point at the first byte of a function (Thumb bit allowed);
- relocations, when the ELF was linked with `--emit-relocs`: then only the relocated words of data count as
  pointers (no guessing), and each relocation's target adds an exact edge;
- ARM unwind tables: an `.ARM.exidx` entry belongs to the function it describes (edge function -> entry).

`reachable` walks the graph from a set of roots, optionally treating some nodes as removed; operator_cost.py uses
it to compute what each operator's registration keeps alive.
"""

from __future__ import annotations

import bisect
import struct
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sizetool.inputs.elf_headers import section_readers
from sizetool.inputs.elf_reader import ElfImage, Section, Symbol
from sizetool.inputs.map_file import LINKER_STUBS
from sizetool.inputs.symbol_runs import NO_SYMBOL, code_piece_ranges, symbol_runs
from sizetool.code_graph.arm_unwind import exidx_entries, exidx_handlers
from sizetool.code_graph.code_sections import unaligned_thumb_pointers, DATA_INPUT_SECTIONS, data_in_code, without_data
from tflm_model.reachability import reachable

if TYPE_CHECKING:  # capstone loads only when code is decoded, not when a cached graph is read
    from sizetool.code_graph.disassembly import CodeRun

# Sections whose words are not pointers to keep things alive (unwind and debug-like tables that describe code).
SHF_ALLOC = 0x2  # (pyelftools is loaded only where it is needed: ~40 ms of a cold `ops`)
_POINTER_SECTION_TYPES = {"SHT_PROGBITS", "SHT_INIT_ARRAY", "SHT_FINI_ARRAY", "SHT_PREINIT_ARRAY", "SHT_ARM_EXIDX"}
_NOT_POINTER_SECTIONS = (".eh_frame", ".eh_frame_hdr", ".gcc_except_table", ".ARM.extab")
_ARM_DATA_RELOCATIONS = {2, 38}  # R_ARM_ABS32, R_ARM_TARGET1: the linked word holds the final address
_RELATIVE_TYPES = {"x86_64": {8}, "aarch64": {1027}, "riscv": {3}, "arm": {23}}  # R_*_RELATIVE
_SMALL_NUMBER = 0x1000  # data words below this are taken for numbers when judging a data object (see _plausible_pointers)
_X86_PC_RELATIVE = {2, 4, 9, 41, 42}  # PC32, PLT32, GOTPCREL, GOTPCRELX, REX_GOTPCRELX: S + A + 4 is the target


@dataclass(frozen=True)
class GraphNode:
    """A function, a data object, or a run of symbol-less bytes."""

    address: int
    end: int
    rom_bytes: int  # flash bytes it occupies (0 for .bss/noinit)
    section: str
    name: str  # demangled symbol name, or "(no symbol) .rodata+0x1c"
    mangled: str
    kind: str  # "func", "object", "notype", or "chunk" for symbol-less bytes
    aliases: tuple[str, ...] = ()


@dataclass
class ReferenceGraph:
    nodes: list[GraphNode]  # sorted by address
    edges: list[list[int]]  # node index -> indices of the nodes it refers to (sorted, no self edges)
    exact: bool = False  # edges came from relocations (--emit-relocs) rather than guessed data words
    decoded: bool = True  # code was disassembled; False for architectures the decoder does not know
    tied: list[tuple[int, int]] = field(default_factory=list)  # edges only an input section shared makes (no reference)
    _starts: list[int] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self._starts = [node.address for node in self.nodes]

    def node_at(self, address: int) -> int | None:
        """Index of the node whose bytes contain address, if any."""
        position = bisect.bisect_right(self._starts, address) - 1
        if position >= 0 and address < self.nodes[position].end:
            return position
        return None

    def reachable(self, roots: Iterable[int], removed: frozenset[int] | set[int] = frozenset(),
                  cut: dict[int, set[int]] | None = None) -> set[int]:
        """Nodes reachable from roots without passing through (or starting at) a removed node; `cut` names edges
        (node -> targets) to leave out, such as the calls a dropped AddXxx() call site made."""
        return reachable(self.edges, roots, removed, cut)

    def rom_bytes(self, nodes: Iterable[int]) -> int:
        return sum(self.nodes[index].rom_bytes for index in nodes)


def build_reference_graph(image: ElfImage, with_edges: bool = True, input_sections=None, copies=()) -> ReferenceGraph:
    """The graph of an ELF's functions and data; an unsupported architecture gets nodes but no code edges.
    Without edges only the nodes are built (cheap: nothing is disassembled). With the linker map's input sections,
    the functions of one code input section keep each other (the linker keeps or drops the section whole). `copies`
    ((run address, stored address, size), from an IAR map) give NOBITS RAM its initial values from the stored bytes,
    so the pointers in them count from the data that holds them, and the stored copy refers to nothing."""
    from sizetool.code_graph.disassembly import code_decoder, code_runs, global_pointer, run_references

    sections = [s for s in image.sections if s.is_alloc and s.size > 0]
    # A zero-filled section lying over stored bytes holds nothing of its own: ESP-IDF's NOLOAD placeholders (the S3's
    # .ext_ram.dummy spans the flash data window) and a TLS .tbss. Left in, it would hide what lies under it.
    stored = [(s.address, s.address + s.size) for s in sections if not s.is_nobits]
    sections = [s for s in sections
                if not (s.is_nobits and any(low < s.address + s.size and s.address < high for low, high in stored))]
    contents = {s.index: image.section_data(s) for s in sections} if with_edges else {}
    copied = _copied_contents(sections, contents, copies) if with_edges and copies else {}
    contents.update(copied)
    by_section: dict[int, list[Symbol]] = defaultdict(list)
    for symbol in image.symbols:
        if symbol.size > 0:
            by_section[symbol.section_index].append(symbol)
    # a symbol ends where its input section ends: newlib-nano's strcmp, sized 8 bytes past it, took strlen's entry
    pieces = code_piece_ranges(input_sections)
    runs = {s.index: symbol_runs(s, by_section.get(s.index, []), pieces) for s in sections}
    function_starts = {symbol.address for symbol in image.symbols if symbol.kind == "func"}

    dynamic_words: list[tuple[int, int]] = []
    owned: list[tuple[int, int, int]] = []  # (owner address, start, end): unwind entries a function owns, ...
    relocations = _relocations(image, sections, contents, dynamic_words, owned) if with_edges else None
    references: list[tuple[int, int]] = []  # (from address, to address), decoded from code or exact
    data_words: list[tuple[int, int]] = []  # (word address, value): a pointer only if it hits a node sensibly
    decoder = code_decoder(image.arch, image.elf_class, image.little_endian, global_pointer(image))
    data_ranges = data_in_code(image, sections, runs, input_sections) if with_edges else {}
    for section in sections if with_edges else ():
        if section.is_code and decoder is not None:
            for run in without_data(code_runs(image, section, contents[section.index], runs[section.index]),
                                data_ranges.get(section.index, [])):
                references.extend(run_references(image, decoder, run))
    pointer = struct.Struct(("<" if image.little_endian else ">") + ("I" if image.elf_class == 32 else "Q"))
    stored_copies = [(stored, stored + size) for _, stored, size in copies]
    for run, stored, size in copies if with_edges else ():  # each copied object owns its stored initial values
        for symbol in image.symbols:
            if symbol.size > 0 and run <= symbol.address and symbol.address + symbol.size <= run + size:
                start = stored + symbol.address - run
                owned.append((symbol.address, start, start + symbol.size))
    for section in sections if with_edges else ():
        if section.index in copied:
            for address in range((section.address + pointer.size - 1) // pointer.size * pointer.size,
                                 section.address + len(copied[section.index]) - pointer.size + 1, pointer.size):
                data_words.append((address, pointer.unpack_from(copied[section.index], address - section.address)[0]))
            continue
        if section.type not in _POINTER_SECTION_TYPES or section.name.startswith(_NOT_POINTER_SECTIONS):
            continue
        if section.type == "SHT_ARM_EXIDX":
            owned.extend(exidx_entries(section, contents[section.index], image.little_endian))
            references.extend(exidx_handlers(section, sections, contents, image.little_endian))
            continue
        if relocations is not None:
            continue  # exact: the relocations below say which words are pointers
        for address in _data_word_addresses(image, section, pointer.size, data_ranges.get(section.index, [])):
            if stored_copies and _inside(address, stored_copies):
                continue  # initial values of copied RAM: the RAM copy refers, not the stored bytes
            offset = address - section.address
            data_words.append((address, pointer.unpack_from(contents[section.index], offset)[0]))
    if relocations is not None:
        references.extend(relocations)
    data_words.extend(dynamic_words)
    if with_edges:
        owned.extend(_eh_frame_entries(image, sections, contents))

    code_ranges = [(s.address, s.address + s.size) for s in sections if s.is_code]
    thumb_starts = {symbol.address for symbol in image.symbols if symbol.kind == "func" and symbol.thumb}
    for section in sections if with_edges and relocations is None else ():
        data_words.extend(unaligned_thumb_pointers(image, section, contents[section.index], thumb_starts))
    data_words = _plausible_pointers(data_words, sections, runs, function_starts, thumb_starts, code_ranges,
                                     image.mapping_symbols)
    decoded_count = len(references)
    references.extend(data_words)
    entry = [(image.entry, image.entry & ~1 if image.arch == "arm" else image.entry)]  # where the image starts
    # Symbol-less bytes are cut where an input section starts: the linker keeps or drops each whole, so a chunk that
    # ran on from one into the next (pico-sdk's float shims, assembler routines with size-0 symbols) would keep both.
    starts = [(piece.address, piece.address) for piece in input_sections or ()
              if piece.size and piece.name.startswith((".text", ".iram1"))]
    nodes = _nodes(sections, runs, references + entry + starts, owned, thumb_starts)
    graph = ReferenceGraph(nodes=nodes, edges=[], exact=relocations is not None, decoded=decoder is not None)
    edge_sets: list[set[int]] = [set() for _ in nodes]
    resolved = _resolve(graph, references)
    section_walks = _section_walks(resolved, sections)
    # A reference (decoded, or a data word) may point anywhere into data, including data a linker script puts inside
    # the executable .text, but into a function only at an entry point: a node start or any function symbol
    # (libgcc's __aeabi_fsub starts inside __aeabi_frsub). Anything else is a constant that looks like an address
    # (newlib's stdio flags 0x10009 fall inside a kernel's Eval).
    entry_points = function_starts | {node.address for node in nodes if node.kind in ("func", "chunk")}
    code_of = {s.index: contents[s.index] for s in sections if s.is_code and s.index in contents} if thumb_starts else {}
    for position, (source_node, target, target_node) in enumerate(resolved):
        if source_node is None or target_node is None or source_node == target_node:
            continue
        if nodes[target_node].kind == "func" and (target & ~1) not in entry_points:
            continue
        if (target in thumb_starts and position < decoded_count and relocations is None
                and not _thumb_branch_at(references[position][0], sections, code_of)):
            continue  # a Thumb function's address as a value has its low bit set: this is a number (see below)
        if (source_node, target) in section_walks:
            continue
        if relocations is None and nodes[target_node].kind == "object" and target != nodes[target_node].address \
                and _is_a_limit(target):
            continue  # INT16_MAX from a Thumb-1 literal pool, inside a table linked across 0x7fff: a number
        edge_sets[source_node].add(target_node)
    for function, entry, _end in owned:
        function_node, entry_node = graph.node_at(function), graph.node_at(entry)
        if function_node is not None and entry_node is not None and function_node != entry_node:
            edge_sets[function_node].add(entry_node)
    if with_edges:
        _give_padding_to_functions(graph, edge_sets, {target for _, target in references})
        _tie_split_strings(graph, edge_sets, sections, contents)
        if input_sections:
            graph.tied = _tie_input_sections(graph, edge_sets, input_sections, code_ranges)
    graph.edges = [sorted(targets) for targets in edge_sets]
    return graph


def _resolve(graph: ReferenceGraph, references: list[tuple[int, int]]) -> list[tuple[int | None, int, int | None]]:
    """(node of the source, target, node of the target) of each reference: graph.node_at twice, inlined (tens of
    thousands of references on a 500 KB firmware)."""
    starts = graph._starts
    ends = [node.end for node in graph.nodes]
    find = bisect.bisect_right
    resolved = []
    for source, target in references:
        position = find(starts, source) - 1
        source_node = position if position >= 0 and source < ends[position] else None
        position = find(starts, target) - 1
        resolved.append((source_node, target, position if position >= 0 and target < ends[position] else None))
    return resolved


def _plausible_pointers(data_words: list[tuple[int, int]], sections: list[Section], runs, function_starts: set[int],
                       thumb_starts: set[int], code_ranges, mapping_symbols) -> list[tuple[int, int]]:
    """The data words that may be pointers. Without relocations a word is only a number that happens to fall inside
    the image, which on a firmware linked at address 0 (CMSIS's ARMCM4_gcc.ld, most vendor scripts) is true of many
    small integers: a table of int32 values would keep functions and tables of operators nobody registers alive.
    Left out:
    - 0 (a null pointer; at address 0 there is the vector table, which is a root anyway);
    - a word equal to the even address of a Thumb function: a pointer to it has its low bit set;
    - a word pointing into instructions ($a/$t runs of ARM code) other than a function's entry: the bytes "cc\\0\\0"
      ending a "kernels/x.cc" string read 0x6363, which may fall inside libgcc's symbol-less glue;
    - every word of a data object (a sized symbol outside code) most of whose words point nowhere sensible: a
      numeric table, a model's bytes. A word points somewhere sensible when it hits a function's entry (with the
      right Thumb bit), the start of a data object, or symbol-less bytes (string literals). Vtables, registration
      structs and arrays of pointers pass; numbers seldom do. Words outside the image (floats, large constants) and
      small values (counts, indices, enums below 4 KiB that hit no entry point or object start) count neither way."""
    if not data_words:
        return data_words
    starts: list[int] = []
    ends: list[int] = []
    kinds: list[str] = []
    for section in sections:
        for symbol, _aliases, size in runs.get(section.index, ()):
            starts.append(symbol.address)
            ends.append(symbol.address + size)
            kinds.append("code" if section.is_code and symbol.kind == "func" else "data")
    order = sorted(range(len(starts)), key=starts.__getitem__)
    starts = [starts[i] for i in order]
    ends = [ends[i] for i in order]
    kinds = [kinds[i] for i in order]
    spans = sorted((s.address, s.address + s.size) for s in sections)
    span_starts = [start for start, _ in spans]

    def symbol_at(address: int) -> int | None:
        position = bisect.bisect_right(starts, address) - 1
        return position if position >= 0 and address < ends[position] else None

    def in_image(address: int) -> bool:
        position = bisect.bisect_right(span_starts, address) - 1
        return position >= 0 and address < spans[position][1]

    markers = sorted(mapping_symbols)
    marker_starts = [address for address, _ in markers]

    def inside_instructions(value: int) -> bool:
        position = bisect.bisect_right(marker_starts, value & ~1) - 1
        return position >= 0 and markers[position][1] in ("$t", "$a") and _inside(value, code_ranges)

    def entry(value: int) -> bool:
        if value & 1:
            return (value & ~1) in thumb_starts
        return value in function_starts and value not in thumb_starts

    def sensible(value: int) -> bool:
        if entry(value):
            return True
        holder = symbol_at(value)
        if holder is None:
            return in_image(value) and not inside_instructions(value)  # symbol-less bytes: strings, fill
        return kinds[holder] == "data" and starts[holder] == value

    def into_instructions(value: int) -> bool:  # into code, but not at a function's entry
        if entry(value) or not inside_instructions(value):
            return False
        holder = symbol_at(value)
        return holder is None or kinds[holder] == "code"

    def exact_hit(value: int) -> bool:  # an entry point or an object's first byte
        return sensible(value) and symbol_at(value) is not None

    kept: list[tuple[int, int]] = []
    by_object: dict[int, list[tuple[int, int]]] = defaultdict(list)
    nonzero_words: dict[int, int] = defaultdict(int)  # per data object, every word that is not 0
    for address, value in data_words:
        if value == 0:
            continue
        holder = symbol_at(address)
        if holder is not None:
            nonzero_words[holder] += 1
        if value in thumb_starts or not in_image(value):
            continue
        if value < _SMALL_NUMBER and not exact_hit(value):
            continue  # a count, an index, an enum
        if holder is None or kinds[holder] == "code":
            if not into_instructions(value):
                kept.append((address, value))  # literal pools, symbol-less data: word by word
        else:
            by_object[holder].append((address, value))
    for holder, words in by_object.items():
        hits = sum(1 for _, value in words if sensible(value))
        if 20 * hits < nonzero_words[holder]:
            continue  # a table of numbers: newlib's two_over_pi holds one value equal to a CMSIS-NN table's address
        if len(words) < 4 or 2 * hits >= len(words):
            kept.extend((address, value) for address, value in words if not into_instructions(value))
    kept.sort()
    return kept


def _thumb_branch_at(address: int, sections: list[Section], code_of: dict[int, bytes]) -> bool:
    """Whether the Thumb instruction at `address` is a branch (B, B<c>, CBZ/CBNZ, BL, B.W): the only references
    that name a Thumb function by its even address."""
    for section in sections:
        data = code_of.get(section.index)
        if data is None or not section.address <= address < section.address + section.size:
            continue
        offset = address - section.address
        if offset + 2 > len(data):
            return False
        first = data[offset] | data[offset + 1] << 8
        if first < 0xE800:
            top = first >> 11
            return top == 0b11100 or (top in (0b11010, 0b11011) and (first >> 8) & 0xF < 0xE) or (
                first & 0xF500 == 0xB100)
        if 0xF000 <= first < 0xF800 and offset + 4 <= len(data):
            second = data[offset + 2] | data[offset + 3] << 8
            return bool(second & 0x8000)
        return False
    return False


def _is_a_limit(value: int) -> bool:
    """Whether a value is a power of two or one less (0x7fff, 0x8000, 0xffff, 0x10000, ...; from 0x100 up): the
    limits and masks code loads as constants. In an image linked at address 0 they fall inside data; a pointer into
    the middle of an object is seldom exactly one of them."""
    return value >= 0x100 and (value & (value + 1) == 0 or value & (value - 1) == 0)


def _section_walks(resolved, sections: list[Section]) -> set[tuple[int, int]]:
    """(node, address) pairs where a node refers to both the start and the end of a section: it walks the section as
    a whole (start-up code copying .data or zeroing .bss), which keeps no single object alive. The addresses are the
    section's start and any bound it uses up to 3 bytes short of the end: GCC folds a word loop's rounding
    ((end - start + 3) / 4) into the literal, so Thumb-1 start-up code loads `_edata - 3`, which points into the
    section's last object."""
    targets_of: dict[int, set[int]] = defaultdict(set)
    for source_node, target, _ in resolved:
        if source_node is not None:
            targets_of[source_node].add(target)
    walks = set()
    for node, targets in targets_of.items():
        for section in sections:
            end = section.address + section.size
            if section.address in targets and end in targets:
                walks.add((node, section.address))
                walks.update((node, target) for target in range(end - 3, end) if target in targets)
    return walks


def _copied_contents(sections: list[Section], contents: dict[int, bytes], copies) -> dict[int, bytes]:
    """NOBITS sections' run-time initial values, copied from the stored bytes a copy table names."""
    filled: dict[int, bytearray] = {}
    for run, stored, size in copies:
        target = next((s for s in sections if s.is_nobits and s.address <= run < s.address + s.size), None)
        source = next((s for s in sections if not s.is_nobits and s.address <= stored and
                       stored + size <= s.address + s.size), None)
        if target is None or source is None:
            continue
        buffer = filled.setdefault(target.index, bytearray(target.size))
        length = min(size, target.address + target.size - run)
        offset = stored - source.address
        buffer[run - target.address : run - target.address + length] = contents[source.index][offset : offset + length]
    return {index: bytes(buffer) for index, buffer in filled.items()}


def _inside(address: int, ranges: list[tuple[int, int]]) -> bool:
    return any(start <= address < end for start, end in ranges)


def function_code_runs(image: ElfImage, node: GraphNode) -> list[CodeRun]:
    """The instruction runs of one function node (decoded again to find where in it each reference sits)."""
    from sizetool.code_graph.disassembly import CodeRun

    section = next((s for s in image.sections if s.name == node.section and s.contains(node.address)), None)
    if section is None or not section.is_code:
        return []
    data = image.section_data(section)
    if image.arch != "arm":
        return [CodeRun(section.address, data, node.address, node.end, image.arch)]
    markers = sorted((address, kind) for address, kind in image.mapping_symbols
                     if section.address <= address < section.address + section.size)
    before = [kind for address, kind in markers if address <= node.address]
    current = before[-1] if before else "$t"
    inside = [(address, kind) for address, kind in markers if node.address < address < node.end]
    runs = []
    for (begin, kind), (finish, _) in zip([(node.address, current)] + inside, inside + [(node.end, "")]):
        mode = {"$t": "thumb", "$a": "arm"}.get(kind)
        if mode and finish > begin:
            runs.append(CodeRun(section.address, data, begin, finish, mode))
    return runs


def pool_word_addresses(image: ElfImage, node: GraphNode, pointer: struct.Struct) -> list[tuple[int, int]]:
    """(address, value) of the aligned words in a function's ARM literal pools ($d runs inside it)."""
    if image.arch != "arm":
        return []
    section = next((s for s in image.sections if s.name == node.section and s.contains(node.address)), None)
    if section is None:
        return []
    data = image.section_data(section)
    markers = sorted((address, kind) for address, kind in image.mapping_symbols
                     if section.address <= address < section.address + section.size)
    words = []
    for (address, kind), (following, _) in zip(markers, markers[1:] + [(section.address + section.size, "")]):
        if kind != "$d":
            continue
        start, end = max(address, node.address), min(following, node.end)
        for word in range((start + 3) // 4 * 4, end - pointer.size + 1, pointer.size):
            words.append((word, pointer.unpack_from(data, word - section.address)[0]))
    return words


def _data_word_addresses(image: ElfImage, section: Section, size: int,
                         data_ranges: list[tuple[int, int]] = ()) -> Iterable[int]:
    """Aligned word addresses that may hold pointers: all of a data section, the $d runs of ARM code, or the data a
    linker script placed in another architecture's code section (`data_ranges`, from code_sections.data_in_code)."""
    start, end = section.address, section.address + section.size
    if not section.is_code:
        return range((start + size - 1) // size * size, end - size + 1, size)
    if image.arch != "arm":
        return [word for low, high in data_ranges for word in range((low + size - 1) // size * size, high - size + 1, size)]
    addresses: list[int] = []
    markers = [(address, kind) for address, kind in image.mapping_symbols if start <= address < end]
    for (address, kind), following in zip(markers, markers[1:] + [(end, "")]):
        if kind == "$d":
            addresses.extend(range((address + 3) // 4 * 4, following[0] - 3, 4))
    return addresses


def _eh_frame_entries(image: ElfImage, sections: list[Section], contents) -> list[tuple[int, int, int]]:
    """Each function's FDE in .eh_frame and its row in .eh_frame_hdr's search table: they go when it goes."""
    frame = next((s for s in sections if s.name == ".eh_frame"), None)
    if frame is None:
        return []
    from elftools.dwarf.callframe import FDE
    from elftools.elf.elffile import ELFFile

    pieces: list[tuple[int, int, int]] = []
    try:
        with open(image.path, "rb") as stream:
            # Linked values are final: applying (--emit-relocs) relocations again would be wrong, and slow.
            dwarf = ELFFile(stream).get_dwarf_info(relocate_dwarf_sections=False, follow_links=False)
            entries = dwarf.EH_CFI_entries()
        for entry in entries:
            if isinstance(entry, FDE):
                start = frame.address + entry.offset
                size = entry.header["length"] + entry.structs.initial_length_field_size()
                pieces.append((entry.header["initial_location"], start, start + size))
    except Exception:  # unreadable call-frame information only costs precision: the bytes stay runtime
        return []
    header = next((s for s in sections if s.name == ".eh_frame_hdr"), None)
    data = contents.get(header.index, b"") if header is not None else b""
    if len(data) >= 12 and data[0] == 1 and data[3] == 0x3B:  # version 1, table of datarel sdata4 pairs
        layout = struct.Struct("<ii" if image.little_endian else ">ii")
        count = struct.unpack_from("<I" if image.little_endian else ">I", data, 8)[0] if data[2] == 0x03 else 0
        for row in range(min(count, (len(data) - 12) // 8)):
            location, _fde = layout.unpack_from(data, 12 + 8 * row)
            start = header.address + 12 + 8 * row
            pieces.append((header.address + location, start, start + 8))
    return pieces


def _tie_input_sections(graph: ReferenceGraph, edge_sets: list[set[int]], input_sections,
                        code_ranges) -> list[tuple[int, int]]:
    """Functions that came in one code input section (newlib's math_errf.o .text holds __math_oflowf and
    __math_divzerof), and data objects that came in one data input section (an object built without
    -fdata-sections, whose code reaches its objects through one section anchor), are kept or dropped together: each
    refers to the next, the last to the first. Symbol-less code in a code section counts too (Xtensa libgcc's
    assembler routines such as __nesf2 have size-0 symbols). Merged string sections (.rodata.str1.1) are left alone.
    Returns the edges added that no reference made."""
    tied = []
    for piece in input_sections:
        if not piece.size or getattr(piece, "object_file", "") == LINKER_STUBS:
            continue  # veneers: the linker writes each for a call that needs it, none keeps the others
        if piece.name.startswith((".text", ".iram1")) and _inside(piece.address, code_ranges):
            kinds = ("func", "chunk")
        elif piece.name.startswith(DATA_INPUT_SECTIONS) and ".str" not in piece.name:
            kinds = ("object",)  # newlib's e_expf.o .rodata: halF, ln2LO, ... reached through one section anchor
        else:
            continue
        first = graph.node_at(piece.address)
        if first is None:
            continue
        members = [first] if graph.nodes[first].kind in kinds else []
        index = first + 1
        while index < len(graph.nodes) and graph.nodes[index].address < piece.address + piece.size:
            if graph.nodes[index].kind in kinds:
                members.append(index)
            index += 1
        if len(members) > 1:
            for this, following in zip(members, members[1:] + members[:1]):
                if following not in edge_sets[this]:
                    edge_sets[this].add(following)
                    tied.append((this, following))
    return tied


def _tie_split_strings(graph: ReferenceGraph, edge_sets: list[set[int]], sections: list[Section], contents) -> None:
    """A string literal cut into chunks by a reference into it stays whole. GNU ld merges string literals
    (SHF_MERGE|SHF_STRINGS sections) and stores a string that is the tail of another one inside it: "not supported."
    in "Output type %s (%d) not supported.", "" in any string's terminating NUL. The reference to the tail cuts the
    longer string in two, but the code using the longer string needs all of it: its head chunk refers to the rest,
    so the tail stays while either user stays. A chunk of NULs that only ends another string (with its alignment
    padding) belongs to that string alone: an empty string referring to it would share any other string's NUL once
    that string went."""
    nodes = graph.nodes
    data_of = {section.name: (section.address, contents[section.index]) for section in sections
               if section.index in contents and not section.is_nobits}
    terminators: list[tuple[int, int]] = []  # (string head chunk, chunk of its NUL and padding)
    for index in range(len(nodes) - 1):
        head, tail = nodes[index], nodes[index + 1]
        if head.kind != "chunk" or tail.kind != "chunk" or head.end != tail.address or head.section != tail.section:
            continue
        base, data = data_of.get(head.section, (0, b""))
        head_bytes = data[head.address - base : head.end - base]
        tail_bytes = data[tail.address - base : tail.end - base]
        unterminated = head_bytes.rsplit(b"\0", 1)[-1]
        if not unterminated or not _printable(unterminated):
            continue  # the head chunk ends with its own NUL (or is not text): no string goes on into the next chunk
        ends_at = tail_bytes.find(b"\0")
        if not _printable(tail_bytes if ends_at < 0 else tail_bytes[:ends_at]):
            continue  # (a string cut twice goes on through a chunk without a NUL)
        if len(unterminated) + (len(tail_bytes) if ends_at < 0 else ends_at) < 4:
            continue  # too short to tell from numbers: the float 10.0 is the bytes "\0\0 A"
        edge_sets[index].add(index + 1)
        if ends_at == 0 and not tail_bytes.strip(b"\0"):
            terminators.append((index, index + 1))
    if not terminators:
        return
    host_of = {terminator: host for host, terminator in terminators}
    for source, targets in enumerate(edge_sets):
        for terminator in host_of.keys() & targets:
            if host_of[terminator] != source:
                targets.discard(terminator)


def _printable(text: bytes) -> bool:
    """Whether bytes read as the text of a C string literal (printable ASCII, tabs and newlines)."""
    return all(32 <= byte < 127 or byte in (9, 10, 13) for byte in text)


def _give_padding_to_functions(graph: ReferenceGraph, edge_sets: list[set[int]], targets: set[int]) -> None:
    """Alignment fill right after a function (under 16 bytes, referred to by nothing) goes with that function:
    the linker drops it with the function. The same for a zero-filled (.bss) object and the fill after it up to the
    next 8-byte boundary (a 28-byte static TFLMRegistration before its 8-byte guard variable)."""
    nodes = graph.nodes
    for index in range(1, len(nodes)):
        node, before = nodes[index], nodes[index - 1]
        if (node.kind != "chunk" or before.end != node.address or node.section != before.section
                or node.address in targets):
            continue
        if before.kind == "func" and node.end - node.address < 16:
            edge_sets[index - 1].add(index)
        elif (before.kind == "object" and before.rom_bytes == 0 and node.rom_bytes == 0 and node.end % 8 == 0
              and node.end - node.address < 8):
            edge_sets[index - 1].add(index)


def _nodes(sections: list[Section], runs, references, owned, thumb_starts=frozenset()) -> list[GraphNode]:
    cut_points = {target for _, target in references} | {target & ~1 for _, target in references}
    cut_points -= {start | 1 for start in thumb_starts}  # a Thumb routine's address, not a byte of it (crt0's handlers)
    cut_points |= {start for _, start, _ in owned} | {end for _, _, end in owned}
    sorted_cuts = sorted(cut_points)
    nodes: list[GraphNode] = []
    for section in sections:
        stored = not section.is_nobits
        cursor = section.address
        section_end = section.address + section.size
        pieces: list[tuple[int, int, Symbol | None, list[Symbol]]] = []
        for symbol, aliases, size in runs[section.index]:
            begin = max(symbol.address, cursor)
            if begin > cursor:
                pieces.append((cursor, begin, None, []))
            pieces.append((begin, begin + size, symbol, aliases))
            cursor = begin + size
        if cursor < section_end:
            pieces.append((cursor, section_end, None, []))
        for begin, finish, symbol, aliases in pieces:
            if symbol is not None:
                nodes.append(GraphNode(begin, finish, finish - begin if stored else 0, section.name, symbol.name,
                                       symbol.mangled, symbol.kind, tuple(sorted(a.name for a in aliases))))
                continue
            inside = sorted_cuts[bisect.bisect_right(sorted_cuts, begin) : bisect.bisect_left(sorted_cuts, finish)]
            cuts = [begin, *inside, finish]
            for chunk_start, chunk_end in zip(cuts, cuts[1:]):
                label = f"{NO_SYMBOL} {section.name}+{chunk_start - section.address:#x}"
                nodes.append(GraphNode(chunk_start, chunk_end, chunk_end - chunk_start if stored else 0,
                                       section.name, label, "", "chunk"))
    nodes.sort(key=lambda node: node.address)
    return nodes


def _relocations(image: ElfImage, sections: list[Section], contents, dynamic: list[tuple[int, int]],
                 owned: list[tuple[int, int, int]]):
    """(place, target) pairs from relocation sections kept by --emit-relocs; None when the ELF has none.

    Dynamic R_*_RELATIVE relocations of a position-independent ELF (whose pointer words are 0 in the file) are
    appended to `dynamic` as (place, value) data words; every entry of a dynamic relocation section belongs to the
    object it relocates (appended to `owned`: it goes when that object goes). Entries are unpacked with struct in one
    pass: pyelftools' per-entry containers take seconds on a firmware with 100k relocations.
    """
    applies_to = {s.index for s in sections}
    endian = "<" if image.little_endian else ">"
    wide = image.elf_class == 64
    word = struct.Struct(endian + "I")
    pairs: list[tuple[int, int]] = []
    found = False
    try:
        with open(image.path, "rb") as stream:
            raw_sections = section_readers(stream)
            symtab = next((data for header, data in reversed(raw_sections) if header["name"] == ".symtab"), None)
            symbol_values, section_symbols = _symbol_table(symtab() if symtab else None, endian, wide)
            for header, read in raw_sections:
                if header["sh_type"] not in ("SHT_REL", "SHT_RELA"):
                    continue
                is_rela = header["sh_type"] == "SHT_RELA"
                layout = struct.Struct(endian + ("QQ" if wide else "II") + (("q" if wide else "i") if is_rela else ""))
                table = read()
                entries = layout.iter_unpack(table[: len(table) - len(table) % layout.size])
                split = (lambda info: (info >> 32, info & 0xFFFFFFFF)) if wide else (lambda info: (info >> 8, info & 0xFF))
                if header["sh_flags"] & SHF_ALLOC:  # dynamic relocations: R_*_RELATIVE words hold pointers
                    relative = _RELATIVE_TYPES.get(image.arch, ())
                    base = header["sh_addr"]
                    for position, entry in enumerate(entries):
                        start = base + position * layout.size
                        owned.append((entry[0], start, start + layout.size))
                        if is_rela and split(entry[1])[1] in relative:
                            dynamic.append((entry[0], entry[2]))
                    continue
                if header["sh_info"] not in applies_to:
                    continue
                found = True
                target_section = image.sections[header["sh_info"]]
                data = contents[target_section.index]
                for entry in entries:
                    place, info = entry[0], entry[1]
                    symbol_index, kind = split(info)
                    if image.arch == "arm" and kind in _ARM_DATA_RELOCATIONS:
                        offset = place - target_section.address
                        if 0 <= offset <= len(data) - 4:
                            pairs.append((place, word.unpack_from(data, offset)[0]))
                        continue
                    if not 0 < symbol_index < len(symbol_values):
                        continue
                    if symbol_index in section_symbols and not is_rela:
                        continue  # the addend sits in the instruction; the decoder already found this one
                    target = symbol_values[symbol_index] + (entry[2] if is_rela else 0)
                    if image.arch == "x86_64" and kind in _X86_PC_RELATIVE:
                        target += 4
                    pairs.append((place, target))
    except Exception:  # corrupt relocation sections: fall back to decoding and data words, which need none
        return None
    return pairs if found else None


def _symbol_table(table: bytes | None, endian: str, wide: bool) -> tuple[list[int], set[int]]:
    """Every .symtab entry's value by index, and the indices of section symbols."""
    if table is None:
        return [], set()
    layout = struct.Struct(endian + ("IBBHQQ" if wide else "IIIBBH"))
    value_at, info_at = (4, 1) if wide else (1, 3)
    values, section_symbols = [], set()
    for index, entry in enumerate(layout.iter_unpack(table[: len(table) - len(table) % layout.size])):
        values.append(entry[value_at])
        if entry[info_at] & 0xF == 3:  # STT_SECTION
            section_symbols.add(index)
    return values, section_symbols
