"""The TFLite models linked into an ELF, read through size-report's ELF reader (tflm_model.embedded_models searches).

Searched: every allocated, stored, read-only section (code sections too: some linker scripts put .rodata there).
A firmware without the `TFL3` identifier anywhere in them costs one byte search per section and no symbol records.
"""

from __future__ import annotations

from dataclasses import replace

from tflm_model.embedded_models import DataSymbol, EmbeddedModel, SectionBytes, find_embedded_models
from tflm_model.tflite_reader import FILE_IDENTIFIER

from sizetool.inputs.elf_reader import ElfImage


def embedded_models(image: ElfImage, section_data: dict[str, bytes] | None = None) -> list[EmbeddedModel]:
    """The models in the image's read-only data, named by the demangled symbol that holds each.
    `section_data`: bytes the caller has read already, by section name."""
    section_data = section_data if section_data is not None else {}
    sections = []
    for section in image.sections:
        if not section.in_rom or section.is_writable or section.is_tls:
            continue
        data = section_data.get(section.name)
        if data is None:
            data = image.section_data(section)
        if FILE_IDENTIFIER in data:
            sections.append(SectionBytes(section.name, section.address, data))
    if not sections:
        return []
    names: dict[tuple[str, int], str] = {}
    symbols = []
    for symbol in image.symbols:
        if symbol.size >= 8 and symbol.kind in ("object", "notype"):
            symbols.append(DataSymbol(symbol.mangled, symbol.address, symbol.size))
            names[(symbol.mangled, symbol.address)] = symbol.name
    models = find_embedded_models(sections, symbols)
    return [replace(m, symbol=names.get((m.symbol, m.address - m.offset_in_symbol), m.symbol)) for m in models]
