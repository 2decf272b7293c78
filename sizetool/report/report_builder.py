"""Build a SizeReport from an ELF: read it, find source paths in DWARF, label every byte, attach warnings."""

from __future__ import annotations

import bisect
import os
import posixpath
import re
from collections import Counter

from sizetool.inputs.dwarf_paths import SourceIndex, read_source_index
from sizetool.inputs.elf_reader import ElfImage, Symbol, read_elf
from sizetool.report.labelling import NO_DEBUG_INFO, label_bytes, section_entries
from sizetool.inputs.map_file import object_path, read_map
from sizetool.report.report_cache import cache_enabled, cache_key, load_cached, store
from sizetool.report.report_model import MemoryRegion, SizeReport, entry_order

OUTSIDE_WORKSPACE = "(outside workspace)"
TOOLCHAIN = "(toolchain)"
SYSTEM_HEADERS = "(system headers)"
# Run-time libraries built by the toolchain vendor; their sources are shown from the library's own directory.
TOOLCHAIN_LIBRARIES = ("libgcc", "libstdc++-v3", "libsupc++", "newlib", "libgloss", "picolibc", "glibc", "musl",
                       "compiler-rt", "libatomic", "libquadmath")
_SYSTEM_INCLUDE = re.compile(
    r"^/usr/(local/)?include/|/include/c\+\+/|/lib/gcc(-cross)?/[^/]+/[^/]+/include(-fixed)?/|^/usr/lib/[^/]+/include/"
    r"|/(arm-none-eabi|riscv\d*-unknown-elf|[a-z0-9_]+-zephyr-elf|xtensa-[a-z0-9_]+-elf)/include/"
)
_TOOLCHAIN_DIR = re.compile(r"(^|/)(gcc|zephyr-sdk|toolchain)[^/]*(/|$)|-none-eabi|-unknown-elf|-zephyr-elf|^/usr/|^/opt/")
# Compiler-generated companions of a class or variable: placed with their owner when DWARF gives them no address.
OWNER_PREFIXES = ("vtable for ", "typeinfo for ", "typeinfo name for ", "VTT for ", "guard variable for ")


def build_report(
    elf_path: str,
    *,
    map_path: str | None = None,
    group_by: str = "file",
    workspace: str | None = None,
    mangled: bool = False,
    flash_size: int | None = None,
    ram_size: int | None = None,
    use_cache: bool = True,
) -> SizeReport:
    """The report of an ELF. With use_cache (and SIZETOOL_NO_CACHE unset), a report cached for byte-identical inputs
    and the same options is reused (see report_cache); a changed ELF or map always gives a fresh report."""
    workspace = _absolute(workspace)
    options = dict(group_by=group_by, workspace=workspace, mangled=mangled, flash_size=flash_size, ram_size=ram_size)
    key = None
    if use_cache and cache_enabled():
        try:
            key = cache_key([elf_path, map_path], options)
        except OSError:
            key = None  # unreadable input: the uncached path below words the error
        if key is not None:
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
        root = _absolute(workspace) or default_workspace(index)
        tree_path = _tree_path_cache(root)
        source_files = {tree_path(f) for f in set(index.decl_file.values()) | set(index.unit_of.values())}
        object_path_of = _object_finder(source_files)
        path_of = _path_finder(index, tree_path, group_by, linker_map, object_path_of)
        path_of = _with_owner_fallback(path_of, image.symbols)
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
        if path and path[0] not in (OUTSIDE_WORKSPACE, TOOLCHAIN, SYSTEM_HEADERS) and "." in path[-1]:
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


def _path_finder(index: SourceIndex, tree_path, group_by: str, linker_map, object_path_of):
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
        return tree_path(source) if source else None

    def path_of(symbol: Symbol) -> tuple[str, ...]:
        found = dwarf_path(symbol.address)
        if found is None and symbol.file_symbol:
            # Statics inside functions, lambdas in inlined code: the symbol table's STT_FILE names their unit.
            units = units_by_file_symbol.get(posixpath.basename(symbol.file_symbol), set())
            if len(units) == 1:
                found = tree_path(next(iter(units)))
        return found or (pieces and from_map(symbol.address)) or (NO_DEBUG_INFO,)

    return path_of


def _absolute(workspace: str | None) -> str | None:
    """--workspace as an absolute, normalised path (a relative one is taken from the current directory)."""
    if not workspace:
        return None
    return posixpath.normpath(posixpath.join(os.getcwd(), workspace)) if not workspace.startswith("/") else (
        posixpath.normpath(workspace))


def default_workspace(index: SourceIndex) -> str:
    """The common directory of the compile units' sources, leaving out toolchain and system units (libgcc, newlib),
    as Zephyr's size_report roots its tree at the common prefix of the mapped files."""
    project = sorted({posixpath.dirname(f) for f in index.unit_files if f.startswith("/") and _outside_root(f) is None})
    if not project:
        return index.workspace()
    common = posixpath.commonpath(project)
    return "" if common == "/" else common


def _outside_root(source: str) -> tuple[str, ...] | None:
    """The top-level node of a file outside the workspace when it belongs to the toolchain or the system, else None."""
    parts = [part for part in source.split("/") if part]
    for position, part in enumerate(parts):
        if part in TOOLCHAIN_LIBRARIES:
            return (TOOLCHAIN,) + tuple(parts[position:])
    if _SYSTEM_INCLUDE.search(source):
        start = parts.index("include") + 1 if "include" in parts else 0
        return (SYSTEM_HEADERS,) + tuple(parts[start:])
    if _TOOLCHAIN_DIR.search(source):
        return (TOOLCHAIN,) + tuple(parts)
    return None


def _tree_path(source: str, workspace: str) -> tuple[str, ...]:
    if workspace and (source == workspace or source.startswith(workspace + "/")):
        relative = source[len(workspace) + 1 :]
        return tuple(part for part in relative.split("/") if part) or (posixpath.basename(source),)
    if not source.startswith("/"):
        return tuple(part for part in source.split("/") if part)  # relative without a comp_dir: as DWARF gives it
    return _outside_root(source) or (OUTSIDE_WORKSPACE,) + tuple(part for part in source.split("/") if part)


def _tree_path_cache(workspace: str):
    """_tree_path for one workspace, remembered per source file (thousands of symbols share a file)."""
    known: dict[str, tuple[str, ...]] = {}

    def tree_path(source: str) -> tuple[str, ...]:
        found = known.get(source)
        if found is None:
            found = known[source] = _tree_path(source, workspace)
        return found

    return tree_path


def _with_owner_fallback(path_of, symbols: list[Symbol]):
    """Vtables, typeinfo and guard variables that DWARF gives no address go where their class's (or variable's)
    other symbols went: `vtable for tflite::ArenaAllocator` joins the file of tflite::ArenaAllocator's methods."""
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
