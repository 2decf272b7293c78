"""Build a SizeReport from an ELF: read it (and its map), place every byte in ROM and/or RAM, find source paths in
DWARF, label every byte, attach warnings.

The totals are physical (sizetool/report/placement.py): with a map, the sums of the linker's own "Used Size" of its
ROM and RAM regions; without one, from the program headers. Berkeley `size` figures ride along in `report.berkeley`.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import posixpath
from collections import Counter

from sizetool.report.ram_use import script_reservations
from sizetool.report.cache_files import digest_remembered
from sizetool.report.report_cache import cache_enabled, cache_key, load_cached, store
from sizetool.report.report_model import Berkeley, MapSource, MemoryRegion, SizeReport, entry_order

TYPE_CHECKING = False  # typing's constant, which type checkers read alike, without importing typing (~1.6 ms)
if TYPE_CHECKING:
    from sizetool.inputs.dwarf_paths import SourceIndex
    from sizetool.inputs.elf_reader import ElfImage, Symbol
    from sizetool.inputs.map_file import LinkerMap
    from sizetool.report.placement import Placement

# The readers (pyelftools, the DWARF scanner) are imported when a report is built, not when a cached one is served:
# that is most of a cached run's start-up.

SECOND_PROCESS_FROM = 1 << 20  # bytes of ELF from which its DWARF paths are read beside (_source_index_reader)
# Compiler-generated companions of a class or variable: placed with their owner when DWARF gives them no address.
OWNER_PREFIXES = ("vtable for ", "typeinfo for ", "typeinfo name for ", "VTT for ", "guard variable for ")
# Object names CMake and friends give: the source file's name plus .o/.obj ("init.c.obj", "main.cc.o").
_OBJECT_SUFFIXES = (".obj", ".o")


def build_report(
    elf_path: str,
    *,
    map_path: str | None = None,
    group_by: str = "file",
    workspace: str | list[str] | None = None,
    mangled: bool = False,
    flash_size: int | None = None,
    ram_size: int | None = None,
    use_cache: bool = True,
) -> SizeReport:
    """The report of an ELF. With use_cache (and SIZETOOL_NO_CACHE unset), a report cached for byte-identical inputs
    and the same options is reused (see report_cache); a changed ELF or map always gives a fresh report.
    `workspace` may be one directory or several (each then a named top-level node)."""
    return build_report_keeping_image(elf_path, map_path=map_path, group_by=group_by, workspace=workspace,
                                      mangled=mangled, flash_size=flash_size, ram_size=ram_size, use_cache=use_cache)[0]


def build_report_keeping_image(
    elf_path: str,
    *,
    map_path: str | None = None,
    group_by: str = "file",
    workspace: str | list[str] | None = None,
    mangled: bool = False,
    flash_size: int | None = None,
    ram_size: int | None = None,
    use_cache: bool = True,
) -> tuple[SizeReport, ElfImage | None]:
    """build_report, and the ELF image it read (None when the report came from the cache), for a caller that would
    read the same ELF again (the operator graph: reading and demangling the symbols twice costs ~0.04 s on 500 KB)."""
    workspaces = _absolute_all(workspace)
    options = dict(group_by=group_by, workspace=workspaces, mangled=mangled, flash_size=flash_size, ram_size=ram_size)
    caching = use_cache and cache_enabled()
    # An ELF new since the cache last read it is hashed for the key while its DWARF is scanned beside (~0.02 s of a
    # 13 MB ELF's): then a report is seldom cached, and where one is, the scan is dropped.
    with _source_index_reader(elf_path, early=not (caching and digest_remembered(elf_path))) as source_index:
        key = None
        if caching:
            try:
                key = cache_key([elf_path, map_path], options)
            except OSError:
                key = None  # unreadable input: the uncached path below words the error
            if key is not None:
                cached = load_cached(key, elf_path)
                if cached is not None:
                    return cached, None
        report, image = build_report_and_image(elf_path, map_path=map_path, source_index=source_index, **options)
    if key is not None:
        store(key, report)
    return report, image


def build_report_and_image(
    elf_path: str,
    *,
    map_path: str | None = None,
    group_by: str = "file",
    workspace: str | list[str] | None = None,
    mangled: bool = False,
    flash_size: int | None = None,
    ram_size: int | None = None,
    source_index=None,
) -> tuple[SizeReport, ElfImage]:
    """The report of an ELF, built (never from the cache), and the image read for it. A large ELF's DWARF paths are
    read in a second process meanwhile (inputs/background_read.py): the same answer, sooner on more than one core.
    source_index: that read, when the caller started it (build_report_keeping_image)."""
    reader = _source_index_reader(elf_path) if source_index is None else contextlib.nullcontext(source_index)
    with reader as source_index:
        return _build_report_and_image(elf_path, source_index, map_path=map_path, group_by=group_by,
                                       workspace=workspace, mangled=mangled, flash_size=flash_size, ram_size=ram_size)


def _source_index_reader(elf_path: str, early: bool = True):
    """The ELF's DWARF paths, read beside (BackgroundRead) when the ELF is large enough for the scan to outlast a fork
    (~2 ms) and the result's trip back: from 1 MiB (the scan of a 1 MB -g build takes ~10 ms); else read here when
    asked for. early=False: nothing yet, the read starting once the cache has no report. An unreadable path
    is read here, where its error is worded."""
    if not early:
        return contextlib.nullcontext()
    from sizetool.inputs.background_read import BackgroundRead
    from sizetool.inputs.dwarf_paths import read_source_index

    try:
        large = os.path.getsize(elf_path) >= SECOND_PROCESS_FROM
    except OSError:
        large = False
    return BackgroundRead(read_source_index, elf_path, beside=large)


def _build_report_and_image(
    elf_path: str,
    source_index,
    *,
    map_path: str | None,
    group_by: str,
    workspace: str | list[str] | None,
    mangled: bool,
    flash_size: int | None,
    ram_size: int | None,
) -> tuple[SizeReport, ElfImage]:
    from sizetool.inputs.dwarf_paths import SourceIndex
    from sizetool.inputs.elf_reader import read_elf
    from sizetool.inputs.map_names import is_merged_piece
    from sizetool.report.esp_idf_detect import (
        ESP_IDF_LAYOUT, could_be_esp_image, is_esp_idf_map, read_with_esp_idf_layout,
    )
    from sizetool.report.labelling import NO_DEBUG_INFO, MergedStrings, label_bytes, section_entries
    from sizetool.report.placement import place
    from sizetool.report.source_roots import find_roots, tree_path_finder

    image = read_elf(elf_path)
    linker_map, describe, input_format = None, None, ""
    if map_path:  # the map readers (armlink's and IAR's too) load only for a map
        from sizetool.inputs.map_formats import describe, read_linker_map

        linker_map = read_linker_map(map_path)
        input_format = f"ELF + {describe(linker_map)} map"
    if linker_map is not None and linker_map.layout is not None:
        from sizetool.report.map_placement import place_by_map

        placement = place_by_map(image, linker_map)  # armlink, IAR: the map states the layout
    elif linker_map is not None and is_esp_idf_map(linker_map):
        from sizetool.report.esp_idf_layout import esp_idf_placement, esp_idf_version  # only for ESP-IDF (~1.5 ms)

        placement, _uses, chip = esp_idf_placement(image, linker_map)
        input_format = (f"ELF + GNU ld map ({ESP_IDF_LAYOUT}, {chip or 'chip unknown: memory types by region name'}"
                        f"{_idf_version_text(esp_idf_version(image))})")
    elif linker_map is None and could_be_esp_image(image) and (chip := _esp_idf_chip_of_sections(image)):
        from sizetool.report.esp_idf_layout import esp_idf_placement, esp_idf_version

        placement = esp_idf_placement(image, None)[0]
        input_format = (f"ELF ({ESP_IDF_LAYOUT}, {chip}{_idf_version_text(esp_idf_version(image))}, from the section "
                        "addresses; no map)")
    else:
        placement = place(image, linker_map)
    warnings: list[str] = [f"{map_path}: {w}" for w in placement.warnings]
    if read_with_esp_idf_layout(input_format):
        from sizetool.report.esp_idf_layout import image_note

        if note := image_note(image, placement.rom_total):
            warnings.append(f"{elf_path}: {note}")
    input_sections = _allocated_input_sections(image, linker_map) if linker_map else None
    models = _embedded_models(image)  # (before the DWARF paths are waited for: none of this needs them)
    model_records = _model_records(models, elf_path)
    merged: tuple[int, int] | None = None
    if not image.has_symtab:
        warnings.append(f"{elf_path}: no symbol table (stripped ELF); reporting by section")
        entries = section_entries(image, placement)
    else:
        if image.has_dwarf and not input_sections and source_index.in_second_process:
            _decode_ahead(image, placement)  # while the DWARF scan runs beside: the code the references need
        index = source_index.result() if image.has_dwarf else SourceIndex()
        warnings.extend(index.warnings)
        if not image.has_dwarf:
            warnings.append(f"{elf_path}: no DWARF debug info; symbols are under '{NO_DEBUG_INFO}'")
        roots = find_roots(index, _absolute_all(workspace), image.kconfig_symbols)
        tree_path = tree_path_finder(roots)
        source_files = {tree_path(f) for f in set(index.decl_file.values()) | set(index.unit_files)}
        unit_votes = _code_bytes_by_unit(index, input_sections) if input_sections else {}
        object_units = _units_by_votes(unit_votes)
        object_path_of = _object_finder(source_files, {o: tree_path(u) for o, u in object_units.items()})
        path_of = _path_finder(index, tree_path, group_by, input_sections, object_path_of)
        path_of = _with_owner_fallback(path_of, image.symbols)
        gap_placer = strings_placer = None
        if not input_sections:
            owners = _reference_owners(image, placement, index, tree_path, path_of) if image.has_dwarf else None
            path_of = _with_reference_paths(path_of, owners)
            gap_placer = _gap_placer(index, tree_path, owners)
        shared_names = _shared_by_votes(unit_votes)
        # What the map alone cannot give a file: merged string sections, and the objects whose name it shares.
        asked = [(s.address, s.address + s.size) for s in input_sections or ()
                 if s.size and (is_merged_piece(s.name, s.object_file) or s.object_file in shared_names)]
        if asked and image.has_dwarf:
            owners = _reference_owners(image, placement, index, tree_path, path_of, asked)
            strings_placer = _strings_placer(owners)
        merged_strings = MergedStrings(shared_names=shared_names)
        entries = label_bytes(
            image,
            placement,
            path_of,
            mangled_names=mangled,
            input_sections=input_sections,
            object_path_of=object_path_of,
            gap_placer=gap_placer,
            strings_placer=strings_placer,
            merged_strings=merged_strings,
        )
        if strings_placer is not None:
            merged = (merged_strings.by_references, merged_strings.unreferenced)
    if models and image.has_symtab:
        from sizetool.report.model_records import expand_model_entries

        entries = expand_model_entries(entries, models, elf_path)
    entries.sort(key=entry_order)
    berkeley = image.berkeley()
    report = SizeReport(
        source=elf_path,
        arch=image.arch,
        rom_total=placement.rom_total,
        ram_total=placement.ram_total,
        entries=entries,
        regions=script_reservations(image.sections, _regions(placement, flash_size, ram_size)),
        warnings=warnings,
        berkeley=Berkeley(berkeley.text, berkeley.data, berkeley.bss),
        linker_map=_map_source(linker_map, describe, merged) if linker_map else None,
        input_format=input_format,
    )
    report.models = model_records
    return report, image


def _model_records(models, elf_path: str) -> list:
    if not models:
        return []
    from sizetool.report.model_records import model_record

    return [model_record(model, elf_path) for model in models]


def _embedded_models(image: ElfImage):
    """The TFLite models linked into the image (inputs/firmware_models.py); a model the reader refuses is not one."""
    from sizetool.inputs.firmware_models import embedded_models

    return embedded_models(image)


def _esp_idf_chip_of_sections(image: ElfImage) -> str | None:
    """esp_idf_layout.chip_of_sections, loaded only for an ELF that could be an ESP chip's (~1.5 ms of every other
    cold report)."""
    from sizetool.report.esp_idf_layout import chip_of_sections

    return chip_of_sections(image)


def _idf_version_text(version: str | None) -> str:
    return f", ESP-IDF {version}" if version else ""


def _map_source(linker_map: LinkerMap, describe, merged_strings: tuple[int, int] | None = None) -> MapSource:
    layout = linker_map.layout
    return MapSource(linker_map.format, describe(linker_map), os.path.basename(linker_map.path),
                     layout.rom_total if layout else None, layout.ram_total if layout else None, merged_strings)


def _allocated_input_sections(image: ElfImage, linker_map: LinkerMap):
    """The map's input sections that lie in output sections the ELF allocates: the .debug_*, .comment and
    .ARM.attributes sections a map lists at address 0 never own flash bytes, even when flash starts at 0."""
    from sizetool.inputs.map_file import is_allocated_name
    from sizetool.report.placement import placed_sections

    if linker_map.layout is not None:
        return linker_map.input_sections  # armlink and IAR maps list only what the image holds
    allocated = {s.name for s in placed_sections(image)}
    return [s for s in linker_map.input_sections if s.output_section in allocated and is_allocated_name(s.output_section)]


def _regions(placement: Placement, flash_size: int | None, ram_size: int | None) -> list[MemoryRegion]:
    """Memory regions with their use: the map's MEMORY regions as placed, else from --flash-size/--ram-size."""
    from sizetool.report.placement import RAM, ROM

    if placement.areas:
        return [MemoryRegion(a.name, a.origin, a.length, a.used, a.attributes, a.memory) for a in placement.areas]
    regions = []
    if flash_size:
        regions.append(MemoryRegion("FLASH", 0, flash_size, placement.rom_total, "", ROM))
    if ram_size:
        regions.append(MemoryRegion("RAM", 0, ram_size, placement.ram_total, "", RAM))
    return regions


def object_compile_units(index: SourceIndex, input_sections) -> dict[str, str]:
    """Each object file's compile unit (its DW_AT_name, as read), found by where its code went: DWARF's unit ranges
    cover the code a unit contributed, and the map says which object each input section came from. The unit that
    covers at least two thirds of an object's code bytes is its unit; so an object's string literals, vtables,
    literal data and padding, which no unit range covers, follow its code to one source file. Objects whose code no
    unit covers (no DWARF: a C library, assembler without -g) get none."""
    return _units_by_votes(_code_bytes_by_unit(index, input_sections))


def shared_object_names(index: SourceIndex, input_sections) -> frozenset[str]:
    """Objects the map names alike whose code lies in several compile units with none holding two thirds of it:
    archive members of one name from different directories (TFLM's lite/kernels/kernel_util.o and
    lite/micro/kernels/kernel_util.o in libtensorflow-microlite.a), which the map's name cannot tell apart."""
    return _shared_by_votes(_code_bytes_by_unit(index, input_sections))


def _code_bytes_by_unit(index: SourceIndex, input_sections) -> dict[str, dict[str, int]]:
    """Each object's code bytes by the compile unit whose ranges cover them: what object_compile_units and
    shared_object_names decide by (a report computes it once for both: ~1,300 code sections on TFLM's all-ops build)."""
    votes: dict[str, dict[str, int]] = {}
    unit_covering = index.unit_covering
    for piece in input_sections:
        if piece.object_file and piece.size and piece.name.startswith(".text"):
            unit = unit_covering(piece.address)
            if unit is not None:
                counts = votes.get(piece.object_file)
                if counts is None:
                    counts = votes[piece.object_file] = {}
                counts[unit] = counts.get(unit, 0) + piece.size
    return votes


def _units_by_votes(votes: dict[str, dict[str, int]]) -> dict[str, str]:
    units = {}
    for object_file, counts in votes.items():
        unit, size = min(counts.items(), key=lambda item: (-item[1], item[0]))
        if 3 * size >= 2 * sum(counts.values()):
            units[object_file] = unit
    return units


def _shared_by_votes(votes: dict[str, dict[str, int]]) -> frozenset[str]:
    return frozenset(name for name, counts in votes.items()
                     if len(counts) > 1 and 3 * max(counts.values()) < 2 * sum(counts.values()))


def _reference_owners(image: ElfImage, placement: Placement, index: SourceIndex, tree_path, path_of,
                      asked: list[tuple[int, int]] | None = None):
    """What the code and data that refer to symbol-less bytes (and to symbols DWARF did not place) say about their
    source file (referenced_bytes.py): without a map for every such byte; with one, only for the ranges the strings
    placer will ask about (`asked`: merged string sections, objects of shared names)."""
    from sizetool.report.labelling import NO_DEBUG_INFO
    from sizetool.report.referenced_bytes import find_reference_owners

    def unit_path_of(address: int) -> tuple[str, ...] | None:
        unit = index.unit_of.get(address) or index.unit_covering(address)
        return tree_path(unit) if unit else None

    sections = _placed_sections(placement)
    return find_reference_owners(image, sections, path_of, unit_path_of, lambda path: path == (NO_DEBUG_INFO,),
                                 asked)


def _decode_ahead(image: ElfImage, placement: Placement) -> None:
    from sizetool.report.referenced_bytes import decode_ahead

    decode_ahead(image, _placed_sections(placement))


def _placed_sections(placement: Placement) -> list:
    return [p.section for p in placement.sections if p.rom_area is not None or p.ram_area is not None]


def _with_reference_paths(path_of, owners):
    """Symbols DWARF did not place take the file of what refers to them, when references say."""
    from sizetool.report.labelling import NO_DEBUG_INFO

    if owners is None or not owners.symbol_paths:
        return path_of

    def path_with_references(symbol: Symbol) -> tuple[str, ...]:
        found = path_of(symbol)
        if found == (NO_DEBUG_INFO,):
            return owners.symbol_paths.get(symbol.address, found)
        return found

    return path_with_references


def _gap_placer(index: SourceIndex, tree_path, owners):
    """Without a map, the source file of bytes no symbol covers:
    - in a code section, a gap lying between two functions of one compile unit (alignment between them, a literal
      pool after a function) belongs to that unit's source file, and so do the bytes a unit's address ranges cover
      (an assembler routine without a symbol size, such as newlib's memchr);
    - elsewhere, and in code sections when that fails, the pieces that code or data refers to belong to the file
      that refers to them (referenced_bytes.py). Data sections hold merged string literals of several objects
      between two symbols of one unit, so there only references say whose bytes are whose."""

    def place(section, start: int, end: int) -> list[tuple[int, int, tuple[str, ...]]]:
        if section.is_code:
            before, after = index.unit_covering(start - 1), index.unit_covering(end)
            if before is not None and before == after:
                return [(start, end, tree_path(before))]
            covered = index.units_over(start, end)  # code a unit's ranges cover: assembler without a sized symbol
            if covered:
                return [(low, high, tree_path(unit)) for low, high, unit in covered]
        if owners is None:
            return []
        return [(piece.start, piece.end, piece.path) for piece in owners.pieces(start, end)]

    return place


def _strings_placer(owners):
    """With a map: the bytes of merged string sections go to the file whose code refers to them, by the rule the
    no-map placement uses (referenced_bytes.py), not to the first object ld merged them into."""

    def place(_section, start: int, end: int) -> list[tuple[int, int, tuple[str, ...]]]:
        return [(piece.start, piece.end, piece.path) for piece in owners.pieces(start, end)]

    return place


def _object_finder(source_files: set[tuple[str, ...]], unit_paths: dict[str, tuple[str, ...]] | None = None):
    """Put an object's symbol-less bytes under the source file it was compiled from: its compile unit's file when
    DWARF says which unit it is (unit_paths, from object_compile_units); else by path: obj/app/main.o ->
    app/main.cc (the longest tail of the object's path that names exactly one source file, so a root node such as
    tflite-micro/ in front does not matter); an archive member by its name (libfoo.a(micro_interpreter.o)), and
    CMake's objects by the source file's name (init.c.obj, also as libkernel.a(init.c.obj)), when only one source
    file has that name."""
    from sizetool.inputs.map_names import object_path
    from sizetool.report.source_roots import OUTSIDE_WORKSPACE, SYSTEM_HEADERS, TOOLCHAIN, outside_root

    by_tail: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    by_name: dict[str, set[tuple[str, ...]]] = {}
    for path in source_files:
        if path and path[0] not in (OUTSIDE_WORKSPACE, TOOLCHAIN, SYSTEM_HEADERS) and "." in path[-1]:
            stem = path[:-1] + (path[-1].rsplit(".", 1)[0],)
            for length in range(1, len(stem) + 1):
                by_tail.setdefault(stem[-length:], set()).add(path)
            by_name.setdefault(path[-1], set()).add(path)

    def source_named(member: str) -> tuple[str, ...] | None:
        for suffix in _OBJECT_SUFFIXES:
            if member.endswith(suffix) and "." in member[: -len(suffix)]:
                found = by_name.get(member[: -len(suffix)], ())
                if len(found) == 1:
                    return next(iter(found))
        return None

    unit_paths = unit_paths or {}
    known: dict[str, tuple[str, ...]] = {}  # a map lists each object under many input sections

    def object_path_of(object_file: str) -> tuple[str, ...]:
        found = known.get(object_file)
        if found is None:
            found = known[object_file] = object_path_uncached(object_file)
        return found

    def object_path_uncached(object_file: str) -> tuple[str, ...]:
        unit_path = unit_paths.get(object_file)
        if unit_path is not None:
            return unit_path
        parts = object_path(object_file)
        if not parts or parts[0].startswith("(") and parts[0] != "(archives)":
            return parts
        named = source_named(parts[-1])
        if named:
            return named
        stem = parts[:-1] + (parts[-1].rsplit(".", 1)[0],)
        if parts[0] == "(archives)":
            from sizetool.inputs.map_formats import is_toolchain_library  # object files come from a map

            archive = object_file.replace("\\", "/").rpartition("(")[0]
            toolchain = outside_root(archive)  # the C library, libgcc: shipped with the compiler
            if toolchain and toolchain[0] == TOOLCHAIN or is_toolchain_library(archive):  # Arm's c_w.l, IAR's dl*.a
                return (TOOLCHAIN,) + parts[1:]
            found = by_tail.get(stem[-1:], ())  # a member keeps only its file name: libfoo.a(micro_interpreter.o)
            return next(iter(found)) if len(found) == 1 else parts
        for length in range(len(stem), 0, -1):
            found = by_tail.get(stem[-length:], ())
            if len(found) == 1:
                return next(iter(found))
            if found:
                break  # several sources end this way: a shorter tail cannot be more certain
        toolchain = outside_root(object_file.replace("\\", "/"))  # crti.o, crtbegin.o of the compiler
        if toolchain and toolchain[0] == TOOLCHAIN:
            return (TOOLCHAIN, parts[-1])
        return ("(objects)",) + parts

    return object_path_of


def _path_finder(index: SourceIndex, tree_path, group_by: str, input_sections, object_path_of):
    """DWARF first; for symbols DWARF does not place (e.g. const tables folded to constants), the map's object.
    Linker-made pieces (veneers, stubs) go to their own node of each kind (linker_made.py)."""
    from sizetool.report.labelling import NO_DEBUG_INFO
    from sizetool.report.linker_made import linker_made_path

    units_by_file_symbol: dict[str, set[str]] = {}
    for unit in set(index.unit_of.values()) | {name for _, _, name in index.unit_ranges}:
        units_by_file_symbol.setdefault(posixpath.basename(unit), set()).add(unit)
    pieces = [s for s in input_sections if s.object_file] if input_sections else []
    starts = [s.address for s in pieces]

    def from_map(address: int) -> tuple[str, ...] | None:
        position = bisect.bisect_right(starts, address) - 1
        # Input sections may overlap (merged strings); look back a few for one that contains the address.
        for candidate in pieces[max(0, position - 8) : position + 1][::-1]:
            if candidate.address <= address < candidate.address + candidate.size:
                return object_path_of(candidate.object_file)
        return None

    def dwarf_path(address: int) -> tuple[str, ...] | None:
        unit = index.unit_of.get(address) or index.unit_covering(address)
        source = unit if group_by == "cu" else (index.decl_file.get(address) or unit)
        return tree_path(source) if source else None

    def path_of(symbol: Symbol) -> tuple[str, ...]:
        made = linker_made_path(symbol.mangled)  # veneers and stubs: (linker)/<kind>, whatever covers their address
        if made is not None:
            return made
        if symbol.address in index.definition_unnamed and symbol.binding == "global" and group_by == "file":
            # clang's out-of-line static member, DWARF naming only the class's header: a strong global is defined
            # once, in its unit's file (an inline or template static is weak, and stays with its header)
            unit = index.unit_of.get(symbol.address)
            if unit:
                return tree_path(unit)
        found = dwarf_path(symbol.address)
        if found is None and symbol.file_symbol:
            # Statics inside functions, lambdas in inlined code: the symbol table's STT_FILE names their unit.
            units = units_by_file_symbol.get(posixpath.basename(symbol.file_symbol), set())
            if len(units) == 1:
                found = tree_path(next(iter(units)))
        return found or (pieces and from_map(symbol.address)) or (NO_DEBUG_INFO,)

    return path_of


def _absolute_all(workspace: str | list[str] | tuple[str, ...] | None) -> list[str]:
    """--workspace values as absolute, normalised paths (a relative one is taken from the current directory)."""
    if not workspace:
        return []
    values = [workspace] if isinstance(workspace, str) else list(workspace)
    return [
        posixpath.normpath(value if value.startswith("/") else posixpath.join(os.getcwd(), value)) for value in values
    ]


def _with_owner_fallback(path_of, symbols: list[Symbol]):
    """Vtables, typeinfo and guard variables that DWARF gives no address go where their class's (or variable's)
    other symbols went: `vtable for tflite::ArenaAllocator` joins the file of tflite::ArenaAllocator's methods."""
    from sizetool.report.labelling import NO_DEBUG_INFO

    owners: dict[str, tuple[str, ...]] | None = None

    def owner_paths() -> dict[str, tuple[str, ...]]:
        votes: dict[str, Counter] = {}
        for symbol in symbols:
            if symbol.size <= 0 or symbol.name.startswith(OWNER_PREFIXES):
                continue
            path = path_of(symbol)
            if path[0].startswith("("):
                continue
            votes.setdefault(symbol.name, Counter())[path] += 1
            scope = _scope_of(symbol.name)
            if scope:
                votes.setdefault(scope, Counter())[path] += 1
        # Most symbols decide; ties go to the first path in sorted order, so the choice is stable.
        return {name: min(c.items(), key=lambda item: (-item[1], item[0]))[0] for name, c in votes.items()}

    def path_with_owner(symbol: Symbol) -> tuple[str, ...]:
        nonlocal owners
        found = path_of(symbol)
        if found != (NO_DEBUG_INFO,) or not symbol.name.startswith(OWNER_PREFIXES):
            return found
        if owners is None:
            owners = owner_paths()
        owner = next(symbol.name[len(p) :] for p in OWNER_PREFIXES if symbol.name.startswith(p))
        return owners.get(owner, found)

    return path_with_owner


def _scope_of(name: str) -> str:
    """The class or namespace part of a demangled name: `a::B<int>::f(int) const` -> `a::B<int>`."""
    name = name.split(" [clone ", 1)[0]
    cut = name.find("(")
    head = name if cut < 0 else name[:cut]
    if "<" not in head and ">" not in head and ")" not in head:  # no nesting before the parameters (most names)
        last_scope = head.rfind("::")
        return name[:last_scope] if last_scope > 0 else ""
    depth, cut, last_scope = 0, len(name), -1
    for position, char in enumerate(name):
        if char in "<(":
            if char == "(" and depth == 0:
                cut = position
                break
            depth += 1
        elif char in ">)":
            depth -= 1
        elif char == ":" and depth == 0 and name.startswith("::", position):
            last_scope = position
    return name[:last_scope] if 0 < last_scope < cut else ""
