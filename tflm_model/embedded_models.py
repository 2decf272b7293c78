"""TFLite models linked into a firmware: found by their FlatBuffer file identifier in the image's stored data.

Read-only data and writable data with contents (.data) are both searched: an `xxd -i` array has no `const` and is
linked into .data, where it costs its size twice (its stored copy and the RAM it is copied to at start-up); the
caller marks such sections `writable` and each model found there says so.

The caller reads the ELF (size-report through its own reader, gen-resolver through pyelftools) and passes plain
records: each read-only section's name, address and bytes, and the image's data symbols. A model starts 4 bytes
before a `TFL3` identifier; a candidate counts when the model reader accepts it (root table inside the section,
schema version 3, operator codes and subgraphs in bounds), exactly as for a .tflite file.

Its size: a FlatBuffer does not store its own length. When a symbol starts at the model (`g_model[]`), its st_size is
the array as linked and is taken (less one trailing NUL when the array is a string literal: st_size is then one more
than a multiple of 4, which a FlatBuffer never is); without one (a stripped image, a model inside a larger object),
the size is the furthest byte its tables, vectors and strings reach (tflm_model.model_layout), rounded up to 4 bytes as
the flatbuffers Builder pads its output. The model is named by the symbol that holds it, else by its address.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from tflm_model.errors import ModelError
from tflm_model.model_source import ModelData
from tflm_model.tflite_reader import FILE_IDENTIFIER, read_operator_table


@dataclass(frozen=True)
class SectionBytes:
    name: str
    address: int
    data: bytes  # or any buffer (an mmap slice)
    writable: bool = False  # a writable section with contents (.data): its bytes are copied to RAM at start-up


@dataclass(frozen=True)
class DataSymbol:
    name: str
    address: int
    size: int


@dataclass(frozen=True)
class EmbeddedModel:
    """A model linked into a firmware."""

    symbol: str  # the symbol that holds it, or "model@0x<address>"
    section: str
    address: int
    size: int
    sized_by: str  # "symbol" (st_size) or "extent" (the FlatBuffer's furthest byte)
    data: bytes
    offset_in_symbol: int = 0  # where the model starts inside its symbol (0: the symbol is the model)
    writable: bool = False  # in writable data (.data: an array without `const`): stored in flash and copied to RAM

    @property
    def where(self) -> str:
        """Where the model lives, in words: "flash (.rodata)" or "RAM (.data, copied from flash at start-up)"."""
        if self.writable:
            return f"RAM ({self.section}, initialised from its stored copy at start-up: its size counts twice)"
        return f"read-only data ({self.section})"

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def source(self, firmware: str, kernel_types: dict | None = None) -> ModelData:
        """The model as a source for tflm_model's readers, labelled FIRMWARE:SYMBOL (with the firmware's own kernel
        types, when the caller read them, so that its uses are checked against the firmware's rules)."""
        return ModelData(f"{firmware}:{self.symbol}", self.data, kernel_types)


def find_embedded_models(sections: list[SectionBytes], symbols: list[DataSymbol]) -> list[EmbeddedModel]:
    """Every TFLite model in the sections, in address order."""
    by_start: dict[int, DataSymbol] = {}
    for symbol in sorted(symbols, key=lambda s: (s.address, -s.size, s.name)):
        if symbol.size >= 8:
            by_start.setdefault(symbol.address, symbol)
    holders = sorted(by_start.values(), key=lambda s: s.address)
    found: list[EmbeddedModel] = []
    for section in sections:
        data = section.data
        position = data.find(FILE_IDENTIFIER, 4)
        while position != -1:
            start = position - 4
            model = _candidate(section, start, by_start, holders)
            if model is not None:
                found.append(model)
                position = data.find(FILE_IDENTIFIER, start + max(model.size, 8))
            else:
                position = data.find(FILE_IDENTIFIER, position + 1)
    return sorted(found, key=lambda m: m.address)


def _candidate(section: SectionBytes, start: int, by_start: dict[int, DataSymbol],
               holders: list[DataSymbol]) -> EmbeddedModel | None:
    data = section.data
    address = section.address + start
    root = int.from_bytes(bytes(data[start:start + 4]), "little")
    if root < 8 or start + root + 4 > len(data):
        return None
    symbol = by_start.get(address)
    available = len(data) - start
    if symbol is not None and symbol.size <= available:
        size, sized_by, name, offset = symbol.size, "symbol", symbol.name, 0
        if size % 4 == 1 and data[start + size - 1] == 0:
            size -= 1
    else:
        from tflm_model.model_layout import model_extent

        try:
            extent = model_extent(ModelData(f"0x{address:x}", bytes(data[start:])), available)
        except ModelError:
            return None
        size, sized_by = min(-(-extent // 4) * 4, available), "extent"
        holder = _holder(holders, address)
        name, offset = (holder.name, address - holder.address) if holder else (f"model@0x{address:08x}", 0)
    model_bytes = bytes(data[start:start + size])
    try:
        read_operator_table(ModelData(f"0x{address:x}", model_bytes))
    except ModelError:
        return None
    return EmbeddedModel(name, section.name, address, size, sized_by, model_bytes, offset, section.writable)


def _holder(holders: list[DataSymbol], address: int) -> DataSymbol | None:
    import bisect

    index = bisect.bisect_right([h.address for h in holders], address) - 1
    if index >= 0 and holders[index].address <= address < holders[index].address + holders[index].size:
        return holders[index]
    return None
