"""Place the bytes no symbol covers by the code and data that refer to them: without a linker map all of them, with
one the merged string literals it lists under a single object.

Without a map, string literals (`.rodata.str1.1`, merged across objects), constant tables the compiler emitted
without a symbol, and function-local statics that DWARF describes only inside a function body have no source file:
CMSIS's `ARMCM4_gcc.ld` even merges all of `.rodata` into `.text`, so they sit in one run after the code. The code
still says whose they are: a literal-pool load, an `ADR`, a MOVW/MOVT or `lui`/`addi` pair (code_graph/disassembly.py)
or a pointer in a table names the address of each string and table it uses.

The rule, for each run of unplaced bytes:
- every address referred to inside it starts a piece that reaches to the next such address (or the run's end);
  the bytes before the first one stay unplaced;
- a piece belongs to the compile unit (source file) of the code or data that refers to it. The unit, not the
  declaring file: a string used by an inline function from a header was emitted by the unit that expanded it;
- ld keeps a merged string once, in the first object that has it, and lays each object's strings out together. So
  a piece several files refer to goes to the file among them whose pieces lie next to it (the object ld took it
  from); failing that, to the file that refers to it most, then the first in sort order;
- a data symbol DWARF does not place (`tflite::EnumNamesBuiltinOperator()::names`: a static inside an inline
  function) joins the files that refer to it; once placed, its own pointers place what it refers to (the names).
  A function DWARF does not place is library code built without -g (memcpy, libgcc's __adddf3): its callers say
  nothing of where it comes from, so it stays under (no debug info) (or the map's archive member);
- a table's words count as pointers only when most of its non-zero words point into the image, so a table of
  numbers that happen to look like addresses places nothing;
- with a map, only the bytes the map cannot give a file are asked about (merged string sections, objects whose name
  the map shares between directories), and ARM code counts there by the addresses it loads (literal-pool words,
  MOVW/MOVT pairs): a string or a constant table is reached by its address, never by a branch, an ADR or a
  literal slot of another input section. Reading only those instructions is a quarter of decoding all of them.

What nothing refers to keeps its catch-all. The result is a list of owned ranges, used by labelling.py.
"""

from __future__ import annotations

import bisect
import struct
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from itertools import accumulate
from dataclasses import dataclass, field

from sizetool.code_graph.disassembly import code_decoder, code_runs, global_pointer, run_references
from sizetool.inputs.elf_reader import ElfImage, Section, Symbol
from sizetool.inputs.symbol_runs import section_gaps, symbol_runs

Path = tuple[str, ...]
MAX_ROUNDS = 8  # tables pointing to tables: each round places one more level


@dataclass(frozen=True)
class OwnedRange:
    """Bytes [start, end) placed under a source file by what refers to them."""

    start: int
    end: int
    path: Path


@dataclass
class ReferenceOwners:
    """What references place: ranges of symbol-less bytes, and symbols DWARF left without a file."""

    ranges: list[OwnedRange] = field(default_factory=list)  # sorted by start, disjoint
    symbol_paths: dict[int, Path] = field(default_factory=dict)  # symbol start address -> file
    _starts: list[int] = field(default_factory=list, repr=False)

    def pieces(self, start: int, end: int) -> list[OwnedRange]:
        """The owned ranges inside [start, end), clipped to it."""
        if len(self._starts) != len(self.ranges):
            self._starts = [owned.start for owned in self.ranges]
        position = max(0, bisect.bisect_right(self._starts, start) - 1)
        found = []
        for owned in self.ranges[position:]:
            if owned.start >= end:
                break
            low, high = max(owned.start, start), min(owned.end, end)
            if high > low:
                found.append(OwnedRange(low, high, owned.path))
        return found


@dataclass
class _Unplaced:
    """A run of bytes without a file: a gap between symbols, or a symbol DWARF did not place."""

    start: int
    end: int
    section: Section
    symbol: Symbol | None  # None: a gap
    path: Path | None = None  # once placed (symbols only; gaps are split into pieces at the end)
    targets: dict[int, Counter] = field(default_factory=dict)  # referred address -> referring files


def find_reference_owners(
    image: ElfImage,
    sections: list[Section],
    path_of: Callable[[Symbol], Path],
    unit_path_of: Callable[[int], Path | None],
    is_unplaced: Callable[[Path], bool],
    asked: list[tuple[int, int]] | None = None,
) -> ReferenceOwners:
    """Place the gaps between symbols of `sections` (those with contents), and the symbols whose path_of is_unplaced,
    by what refers to them. unit_path_of(address) is the source file of the compile unit holding the address.
    With `asked` (address ranges), only the gaps that overlap one of them are placed: a gap's pieces depend on the
    references to it alone, so the caller gets the same answer for those ranges, without the work for the others."""
    sections = [s for s in sections if not s.is_nobits and s.size]
    overlaps_asked = _overlap_test(asked or [])
    runs = _runs_by_section(image, sections)

    placed: list[tuple[int, int, Symbol]] = []  # referrers with a file
    unplaced: list[_Unplaced] = []
    for section in sections:
        for symbol, _, size in runs[section.index]:
            start = max(symbol.address, section.address)
            if is_unplaced(path_of(symbol)):
                if symbol.kind != "func":  # code without DWARF is a library's (libc, libgcc): a caller says nothing
                    unplaced.append(_Unplaced(start, start + size, section, symbol))
            else:
                placed.append((start, start + size, symbol))
        gaps = section_gaps(section, runs[section.index])
        if asked is not None:
            gaps = [(low, high) for low, high in gaps if overlaps_asked(low, high)]
        unplaced.extend(_Unplaced(low, high, section, None) for low, high in gaps)
    if not unplaced:
        return ReferenceOwners()
    placed.sort(key=lambda item: item[0])
    unplaced.sort(key=lambda item: item.start)
    placed_starts = [start for start, _, _ in placed]
    unplaced_starts = [item.start for item in unplaced]
    code_marks = _code_marks(image)

    def unplaced_at(address: int) -> _Unplaced | None:
        position = bisect.bisect_right(unplaced_starts, address) - 1
        if position >= 0 and address < unplaced[position].end:
            return unplaced[position]
        return None

    file_cache: dict[int, Path | None] = {}

    def referrer_file(address: int) -> Path | None:
        """The file of the placed symbol at `address`: its compile unit's, else its own path."""
        position = bisect.bisect_right(placed_starts, address) - 1
        if position < 0 or address >= placed[position][1]:
            return None
        start, _, symbol = placed[position]
        if start not in file_cache:
            file_cache[start] = unit_path_of(start) or path_of(symbol)
        return file_cache[start]

    unplaced_ends = [item.end for item in unplaced]
    references = list(_references(image, sections, runs, unplaced_at, (unplaced_starts, unplaced_ends), code_marks,
                                  address_loads_only=asked is not None))
    waiting: list[tuple[int, int]] = []  # references from unplaced symbols: count once those are placed
    for source, target in references:
        item = unplaced_at(target)
        referrer = referrer_file(source)
        if referrer is not None:
            counts = item.targets.get(target)
            if counts is None:  # (setdefault would build a Counter for every reference: 4,000 on a TFLM build)
                counts = item.targets[target] = Counter()
            counts[referrer] += 1
        elif (holder := unplaced_at(source)) is not None and holder.symbol is not None and holder is not item:
            waiting.append((source, target))

    for _ in range(MAX_ROUNDS):
        newly = [item for item in unplaced if item.symbol is not None and item.path is None and item.targets]
        for item in newly:
            votes = Counter()
            for counts in item.targets.values():
                votes.update(counts)
            item.path = _most_referred(votes)
        if not newly:
            break
        still_waiting = []
        for source, target in waiting:
            holder = unplaced_at(source)
            if holder.path is not None:
                unplaced_at(target).targets.setdefault(target, Counter())[holder.path] += 1
            else:
                still_waiting.append((source, target))
        waiting = still_waiting

    owners = ReferenceOwners()
    contents: dict[int, bytes] = {}  # section index -> its bytes, read once (not once per gap that has references)
    for item in unplaced:
        if item.symbol is not None:
            if item.path is not None:
                owners.symbol_paths[item.symbol.address] = item.path
        elif item.targets:
            data = contents.get(item.section.index)
            if data is None:
                data = contents[item.section.index] = image.section_data(item.section)
            for piece in split_by_references(item.end, item.targets):
                end = string_end(data, piece.start - item.section.address, piece.end - item.section.address)
                owners.ranges.append(OwnedRange(piece.start, item.section.address + end, piece.path))
    return owners


def string_end(data: bytes, start: int, end: int) -> int:
    """Where the bytes of a piece end once the alignment padding after its last string is left out: a string's
    last character, its NUL, then fewer than 8 zero bytes up to an aligned end. Anything else keeps its end."""
    last = len(data[start:end].rstrip(b"\0")) + start
    if last in (start, end) or not 0x20 <= data[last - 1] < 0x7F or end - (last + 1) >= 8 or end % 4:
        return end  # (ending mid-string: the next piece is this string's tail, which ld merged into it)
    return last + 1


def split_by_references(end: int, referrers: dict[int, Counter]) -> list[OwnedRange]:
    """Split a run of unplaced bytes ending at `end` at each referred address (referrers: address -> the files that
    refer to it, with how often); each piece reaches to the next referred address and goes to the file that refers
    to it. A piece several files refer to goes to the one among them that owns the nearest piece before it, else
    the nearest after it, else the one referring most (then the first in sort order). Neighbouring pieces of one
    file are one range."""
    targets = sorted(referrers)
    bounds = list(zip(targets, targets[1:] + [end]))
    paths: list[Path | None] = [next(iter(referrers[t])) if len(referrers[t]) == 1 else None for t in targets]
    for position, target in enumerate(targets):
        if paths[position] is not None:
            continue
        candidates = referrers[target]
        neighbours = [paths[i] for i in range(position - 1, -1, -1) if paths[i] is not None][:1]
        neighbours += [paths[i] for i in range(position + 1, len(paths)) if paths[i] is not None][:1]
        paths[position] = next((n for n in neighbours if n in candidates), None) or _most_referred(candidates)
    pieces: list[OwnedRange] = []
    for (low, high), path in zip(bounds, paths):
        if pieces and pieces[-1].path == path and pieces[-1].end == low:
            pieces[-1] = OwnedRange(pieces[-1].start, high, path)
        else:
            pieces.append(OwnedRange(low, high, path))
    return pieces


def looks_like_pointer_table(values: Sequence[int], in_image: Callable[[int], bool]) -> bool:
    """Whether a data object's aligned words are pointers: most of its non-zero words point into the image (a table
    of numbers that happen to fall in the image's address range now and then is not). The words are looked at until
    the answer is known (half of them in, or more than half out)."""
    nonzero = [value for value in values if value]
    if not nonzero:
        return False
    needed = (len(nonzero) + 1) // 2  # 2 * inside >= len(nonzero)
    inside = outside = 0
    for value in nonzero:
        if in_image(value):
            inside += 1
            if inside >= needed:
                return True
        else:
            outside += 1
            if outside > len(nonzero) - needed:
                return False
    return False


def _most_referred(votes: Counter) -> Path:
    return min(votes.items(), key=lambda item: (-item[1], item[0]))[0]


def _code_marks(image: ElfImage) -> tuple[list[int], list[bool]]:
    """ARM mapping symbols as (addresses, is-code flags): a referred address in a $t/$a run is a branch into code
    without a sized symbol (an assembler routine), not data, and places nothing.

    A mapping symbol holds to the end of its section only. Each allocated section therefore starts with a mark of its
    own kind (data, or code for an executable one), which a mapping symbol at the same address overrides: ld.lld
    keeps no `$d` for the merged string sections it puts first in `.rodata`, so the last `$t` of `.text` would
    otherwise make all of `.rodata` "code" up to the first `$d` and place none of its strings (a clang-built TFLM
    linked with ld.lld left 10 KB of strings and tables under "(no symbol)")."""
    if not image.mapping_symbols:
        return [], []
    marks = sorted([(s.address, 0, s.is_code) for s in image.sections if s.is_alloc and s.size]
                   + [(address, 1, kind in ("$t", "$a", "$x")) for address, kind in image.mapping_symbols])
    return [address for address, _, _ in marks], [is_code for _, _, is_code in marks]


def _references(image: ElfImage, sections: list[Section], runs, unplaced_at, unplaced_bounds, code_marks,
                address_loads_only: bool = False):
    """(referring address, referred address) pairs whose referred address is unplaced: from decoded code, and from
    the aligned words of data symbols that look like pointer tables. unplaced_bounds: the unplaced runs' (starts,
    ends), sorted, for the first test of each of the code's references (most are branches into placed code). With
    address_loads_only, ARM code gives only the addresses it loads (disassembly.thumb_address_loads), decoded for
    this alone: the operator graph, which shares run_references' decoding, needs every reference."""
    mark_addresses, mark_is_code = code_marks
    unplaced_starts, unplaced_ends = unplaced_bounds
    lowest, highest = unplaced_starts[0], max(unplaced_ends)  # most references fall outside: no bisection for them
    bisect_right = bisect.bisect_right
    # Entries of functions without a size (assembler routines): a call lands there, and a call is no use of data.
    entries = {symbol.address for symbol in image.symbols if symbol.kind == "func" and symbol.size == 0}

    def is_data_target(address: int) -> bool:
        if unplaced_at(address) is None or address in entries:
            return False
        position = bisect.bisect_right(mark_addresses, address) - 1
        return position < 0 or not mark_is_code[position]

    loads_only = address_loads_only and image.arch == "arm"  # elsewhere code_decoder reads every reference anyway
    decoder = code_decoder(image.arch, image.elf_class, image.little_endian, global_pointer(image), loads_only)
    pointer = struct.Struct(("<" if image.little_endian else ">") + ("I" if image.elf_class == 32 else "Q"))
    word_order, word_code = pointer.format[0], pointer.format[1:]
    in_image = _in_image(image)
    top_at = pointer.size - 1 if word_order == "<" else 0  # where a word's most significant byte lies
    tops_outside = _top_bytes_outside(image, pointer.size)
    for section in sections:
        data = image.section_data(section)
        section_runs = runs[section.index]
        if section.is_code and decoder is not None:
            for run in _function_code_runs(image, section, data, section_runs):
                for source, target in (decoder(run) if loads_only else run_references(image, decoder, run)):
                    if lowest <= target < highest:
                        found = bisect_right(unplaced_starts, target) - 1
                        if found >= 0 and target < unplaced_ends[found] and is_data_target(target):
                            yield source, target
        for symbol, _, size in section_runs:
            if symbol.kind == "func":
                continue
            start = max(symbol.address, section.address)
            first = (start + pointer.size - 1) // pointer.size * pointer.size
            addresses = range(first, start + size - pointer.size + 1, pointer.size)
            # every aligned word in one unpack (in C): a linked model is ~75k of them
            values = struct.unpack_from(f"{word_order}{len(addresses)}{word_code}", data, first - section.address)
            if len(values) >= _BOUND_FROM and _too_few_in_image(values, data, first - section.address + top_at,
                                                                 pointer.size, tops_outside):
                continue
            if not looks_like_pointer_table(values, in_image):
                continue
            for address, value in zip(addresses, values):
                if value and is_data_target(value):
                    yield address, value


def _runs_by_section(image: ElfImage, sections: list[Section]) -> dict[int, list]:
    """Section index -> its symbol runs (symbol_runs), for the sections with contents."""
    by_section: dict[int, list[Symbol]] = defaultdict(list)
    for symbol in image.symbols:
        if symbol.size > 0:
            by_section[symbol.section_index].append(symbol)
    return {s.index: symbol_runs(s, by_section.get(s.index, [])) for s in sections}


def _function_code_runs(image: ElfImage, section: Section, data: bytes, section_runs) -> list:
    """The code runs of a section that lie inside its functions (between them: data a script placed in a code section,
    or padding)."""
    functions = [run for run in section_runs if run[0].kind == "func"]
    function_starts = [symbol.address for symbol, _, _ in functions]
    inside = []
    for run in code_runs(image, section, data, functions):
        position = bisect.bisect_right(function_starts, run.start) - 1
        if position >= 0 and run.start < function_starts[position] + functions[position][2]:
            inside.append(run)
    return inside


def decode_ahead(image: ElfImage, sections: list[Section]) -> None:
    """Decode the code find_reference_owners (without `asked`) will read, into the image's decoded runs, before what
    it needs from DWARF is known: a report waiting for its DWARF scan in a second process does this meanwhile. Only
    where its sections have bytes no symbol covers, which that call then decodes the code for (with none, and no
    symbol DWARF leaves without a file, it decodes nothing)."""
    sections = [s for s in sections if not s.is_nobits and s.size]
    runs = _runs_by_section(image, sections)
    if not any(section_gaps(s, runs[s.index]) for s in sections):
        return
    decoder = code_decoder(image.arch, image.elf_class, image.little_endian, global_pointer(image), False)
    if decoder is None:
        return
    for section in sections:
        if section.is_code:
            data = image.section_data(section)
            for run in _function_code_runs(image, section, data, runs[section.index]):
                run_references(image, decoder, run)


_BOUND_FROM = 64  # words: below this, looks_like_pointer_table's own early answer is as quick


def _too_few_in_image(values: Sequence[int], data: bytes, first_top: int, size: int, tops_outside: bytes) -> bool:
    """Whether fewer than half the non-zero words can point into the image, told by their most significant bytes alone
    (counted in C): a word whose top byte no address in the image has is outside it. A bound on the safe side of
    looks_like_pointer_table, never a different answer: True only where it would say no (a linked model's 75,000
    words of weights were looked up one by one, half of them, before it knew). first_top: the offset in data of the
    first word's most significant byte."""
    count = len(values)
    tops = data[first_top : first_top + count * size : size]
    maybe_inside = len(tops.translate(None, tops_outside))
    zeros = values.count(0)
    if 0 not in tops_outside:  # a zero word's top byte is 0, counted above: a zero is never a pointer
        maybe_inside -= zeros
    return 2 * maybe_inside < count - zeros


def _top_bytes_outside(image: ElfImage, size: int) -> bytes:
    """The values of a size-byte word's most significant byte that no allocated address of the image has."""
    shift = 8 * (size - 1)
    inside: set[int] = set()
    for section in image.sections:
        if section.is_alloc and section.size:
            inside.update(range(section.address >> shift, ((section.address + section.size - 1) >> shift) + 1))
    return bytes(value for value in range(256) if value not in inside)


def _overlap_test(ranges: list[tuple[int, int]]) -> Callable[[int, int], bool]:
    """A test of whether [low, high) overlaps one of `ranges` (by bisection: a map lists hundreds of them)."""
    ordered = sorted(ranges)
    starts = [start for start, _ in ordered]
    reach = list(accumulate((end for _, end in ordered), max))  # the furthest end among ranges starting up to here

    def overlaps(low: int, high: int) -> bool:
        position = bisect.bisect_left(starts, high)  # ranges[:position] start before high
        return position > 0 and reach[position - 1] > low

    return overlaps


def _in_image(image: ElfImage) -> Callable[[int], bool]:
    ranges = sorted((s.address, s.address + s.size) for s in image.sections if s.is_alloc and s.size)
    starts = [low for low, _ in ranges]

    def inside(value: int) -> bool:
        position = bisect.bisect_right(starts, value) - 1
        return position >= 0 and value < ranges[position][1]

    return inside
