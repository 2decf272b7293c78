"""The TFLite models linked into an ELF, read through size-report's ELF reader (tflm_model.embedded_models searches).

Searched: every allocated section with contents (code sections too: some linker scripts put .rodata there; writable
ones too: a model array without `const` is in .data) but the unwind tables and thread-local data.
A firmware without the `TFL3` identifier anywhere in them costs one byte search per section and no symbol records.
"""

from __future__ import annotations

import mmap
from dataclasses import replace

from tflm_model.embedded_models import DataSymbol, EmbeddedModel, SectionBytes, find_embedded_models
from tflm_model.tflite_reader import FILE_IDENTIFIER

from sizetool.inputs.elf_reader import ElfImage


# Sections the toolchain writes for unwinding, never an array of the program's.
UNWIND_TABLES = (".eh_frame", ".ARM.exidx", ".ARM.extab", ".gcc_except_table")


def embedded_models(image: ElfImage) -> list[EmbeddedModel]:
    """The models in the image's stored data, named by the demangled symbol that holds each."""
    searched = [s for s in image.sections if s.in_rom and not s.is_tls and not s.name.startswith(UNWIND_TABLES)]
    sections = []
    if searched:
        # Searched in place through an mmap: a -g build's read-only sections are megabytes of code, and reading
        # them into memory would cost more than the search (10 ms against 2 ms on 8 MB).
        try:
            with open(image.path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                for section in searched:
                    end = section.offset + section.size
                    if end <= len(mapped) and mapped.find(FILE_IDENTIFIER, section.offset, end) != -1:
                        sections.append(SectionBytes(section.name, section.address, mapped[section.offset:end],
                                                     section.is_writable and not section.is_code))
        except (OSError, ValueError):
            sections = [SectionBytes(s.name, s.address, data, s.is_writable and not s.is_code) for s in searched
                        if FILE_IDENTIFIER in (data := image.section_data(s))]
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
