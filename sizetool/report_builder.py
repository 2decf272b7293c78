"""Build a SizeReport from an ELF: read it, find source paths in DWARF, label every byte, attach warnings."""

from __future__ import annotations

import posixpath

from sizetool.dwarf_paths import SourceIndex, read_source_index
from sizetool.elf_reader import ElfImage, Symbol, read_elf
from sizetool.labelling import NO_DEBUG_INFO, label_bytes, section_entries
from sizetool.report_model import SizeReport

OUTSIDE_WORKSPACE = "(outside workspace)"


def build_report(
    elf_path: str,
    *,
    group_by: str = "file",
    workspace: str | None = None,
    mangled: bool = False,
) -> SizeReport:
    return build_report_and_image(elf_path, group_by=group_by, workspace=workspace, mangled=mangled)[0]


def build_report_and_image(
    elf_path: str,
    *,
    group_by: str = "file",
    workspace: str | None = None,
    mangled: bool = False,
) -> tuple[SizeReport, ElfImage]:
    image = read_elf(elf_path)
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
        entries = label_bytes(image, _path_finder(index, root, group_by), mangled_names=mangled)
    entries.sort(key=lambda e: (e.memory, e.path, e.symbol, e.address))
    report = SizeReport(
        source=elf_path,
        arch=image.arch,
        rom_total=image.rom_total,
        ram_total=image.ram_total,
        entries=entries,
        warnings=warnings,
    )
    return report, image


def _path_finder(index: SourceIndex, workspace: str, group_by: str):
    def path_of(symbol: Symbol) -> tuple[str, ...]:
        unit = index.unit_of.get(symbol.address) or index.unit_covering(symbol.address)
        source = unit if group_by == "cu" else (index.decl_file.get(symbol.address) or unit)
        return _tree_path(source, workspace) if source else (NO_DEBUG_INFO,)

    return path_of


def _tree_path(source: str, workspace: str) -> tuple[str, ...]:
    if workspace and (source == workspace or source.startswith(workspace + "/")):
        relative = posixpath.relpath(source, workspace)
        return tuple(part for part in relative.split("/") if part)
    return (OUTSIDE_WORKSPACE,) + tuple(part for part in source.split("/") if part)
