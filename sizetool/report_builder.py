"""Build a SizeReport from an ELF: read it, find source paths in DWARF, label every byte, attach warnings."""

from __future__ import annotations

import bisect
import posixpath

from sizetool.dwarf_paths import SourceIndex, read_source_index
from sizetool.elf_reader import ElfImage, Symbol, read_elf
from sizetool.labelling import NO_DEBUG_INFO, label_bytes, section_entries
from sizetool.map_file import object_path, read_map
from sizetool.report_cache import cache_enabled, cache_key, load_cached, store
from sizetool.report_model import MemoryRegion, SizeReport, entry_order

OUTSIDE_WORKSPACE = "(outside workspace)"


def build_report(
    elf_path: str,
    *,
    map_path: str | None = None,
    group_by: str = "file",
    workspace: str | None = None,
    mangled: bool = False,
    flash_size: int | None = None,
    ram_size: int | None = None,
    use_cache: bool = False,
) -> SizeReport:
    """The report of an ELF; with use_cache, a report cached for identical inputs is reused (see report_cache)."""
    options = dict(group_by=group_by, workspace=workspace, mangled=mangled, flash_size=flash_size, ram_size=ram_size)
    key = None
    if use_cache and cache_enabled():
        read_elf(elf_path)  # validates the file first, so bad input reports the same error with or without cache
        if map_path:
            read_map(map_path)
        key = cache_key([elf_path, map_path], options)
        cached = load_cached(key, elf_path)
        if cached is not None:
            return cached
    report = build_report_and_image(elf_path, map_path=map_path, **options)[0]
    if key is not None:
        store(key, report)
    return report


def build_report_and_image(
    elf_path: str,
    *,
    map_path: str | None = None,
    group_by: str = "file",
    workspace: str | None = None,
    mangled: bool = False,
    flash_size: int | None = None,
    ram_size: int | None = None,
) -> tuple[SizeReport, ElfImage]:
    image = read_elf(elf_path)
    linker_map = read_map(map_path) if map_path else None
    warnings: list[str] = []
    if not image.has_symtab:
        warnings.append(f"{elf_path}: no symbol table (stripped ELF); reporting by section")
        entries = section_entries(image)
    else:
        index = read_source_index(elf_path) if image.has_dwarf else SourceIndex()
        warnings.extend(index.warnings)
        if not image.has_dwarf:
            warnings.append(f"{elf_path}: no DWARF debug info; symbols are under '{NO_DEBUG_INFO}'")
        root = workspace.rstrip("/") if workspace else index.workspace()
        source_files = {_tree_path(f, root) for f in set(index.decl_file.values()) | set(index.unit_of.values())}
        object_path_of = _object_finder(source_files)
        path_of = _path_finder(index, root, group_by, linker_map, object_path_of, image.symbols)
        entries = label_bytes(
            image,
            path_of,
            mangled_names=mangled,
            input_sections=linker_map.input_sections if linker_map else None,
            object_path_of=object_path_of,
        )
    entries.sort(key=entry_order)
    report = SizeReport(
        source=elf_path,
        arch=image.arch,
        rom_total=image.rom_total,
        ram_total=image.ram_total,
        entries=entries,
        regions=_regions(image, linker_map, flash_size, ram_size),
        warnings=warnings,
    )
    return report, image


def _regions(image: ElfImage, linker_map, flash_size: int | None, ram_size: int | None) -> list[MemoryRegion]:
    """Memory regions with their use: from the map's MEMORY table, else from --flash-size/--ram-size."""
    if linker_map is not None and linker_map.regions:
        regions = []
        for region in linker_map.regions:
            end = region.origin + region.length
            used = 0
            for section in image.sections:
                if not section.is_alloc or section.size == 0:
                    continue
                if region.origin <= section.address < end:
                    used += section.size
                elif not section.is_nobits and region.origin <= section.load_address < end:
                    used += section.size  # the flash copy of initialised data
            regions.append(MemoryRegion(region.name, region.origin, region.length, used, region.attributes))
        return regions
    regions = []
    if flash_size:
        regions.append(MemoryRegion("FLASH", 0, flash_size, image.rom_total))
    if ram_size:
        regions.append(MemoryRegion("RAM", 0, ram_size, image.ram_total))
    return regions


def _object_finder(source_files: set[tuple[str, ...]]):
    """Put an object's symbol-less bytes under the source file it was compiled from (obj/app/main.o -> app/main.cc)."""
    by_stem: dict[tuple[str, ...], tuple[str, ...]] = {}
    for path in source_files:
        if path and path[0] != OUTSIDE_WORKSPACE and "." in path[-1]:
            by_stem.setdefault(path[:-1] + (path[-1].rsplit(".", 1)[0],), path)

    def object_path_of(object_file: str) -> tuple[str, ...]:
        parts = object_path(object_file)
        if parts and parts[0] != "(archives)":
            stem = parts[:-1] + (parts[-1].rsplit(".", 1)[0],)
            for length in range(len(stem), 0, -1):
                match = by_stem.get(stem[-length:])
                if match:
                    return match
            return ("(objects)",) + parts
        return parts

    return object_path_of


def _path_finder(index: SourceIndex, workspace: str, group_by: str, linker_map, object_path_of, symbols):
    """DWARF first; for symbols DWARF does not place (e.g. const tables folded to constants), the map's object."""
    units_by_file_symbol: dict[str, set[str]] = {}
    for unit in set(index.unit_of.values()) | {name for _, _, name in index.unit_ranges}:
        units_by_file_symbol.setdefault(posixpath.basename(unit), set()).add(unit)
    pieces = [s for s in linker_map.input_sections if s.object_file] if linker_map else []
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
        return _tree_path(source, workspace) if source else None

    def path_of(symbol: Symbol) -> tuple[str, ...]:
        found = dwarf_path(symbol.address)
        if found is None and symbol.file_symbol:
            # Statics inside functions, lambdas in inlined code: the symbol table's STT_FILE names their unit.
            units = units_by_file_symbol.get(posixpath.basename(symbol.file_symbol), set())
            if len(units) == 1:
                found = _tree_path(next(iter(units)), workspace)
        return found or (pieces and from_map(symbol.address)) or (NO_DEBUG_INFO,)

    return path_of


def _tree_path(source: str, workspace: str) -> tuple[str, ...]:
    if workspace and (source == workspace or source.startswith(workspace + "/")):
        relative = posixpath.relpath(source, workspace)
        return tuple(part for part in relative.split("/") if part)
    return (OUTSIDE_WORKSPACE,) + tuple(part for part in source.split("/") if part)
