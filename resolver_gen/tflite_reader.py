"""Read the operator table of a .tflite file straight from its FlatBuffer bytes.

Only what gen-resolver needs is touched: Model.version, Model.operator_codes and, for each subgraph, which
operator_codes entry each operator uses. The file is memory-mapped, so a model of hundreds of megabytes costs only the
pages that hold these tables. Every offset, vtable and vector followed is checked against the file size first, so a
truncated or hostile file raises ResolverGenError naming the file instead of reading out of range.

Why plain `struct` and not the `flatbuffers` runtime's Table class: the runtime imports numpy when it is installed
(about 0.1 s), which alone would exceed gen-resolver's start-up budget, and its accessors do no bounds checks.
The layout rules are the FlatBuffers binary format's: a uoffset (u32) points forward, a table starts with an soffset
(i32) back to its vtable, a vtable is u16 [vtable size, table size, field offsets...], a vector is u32 length + items.
"""

from __future__ import annotations

import mmap
import os
import struct
from dataclasses import dataclass
from pathlib import Path

from resolver_gen.errors import ResolverGenError

FILE_IDENTIFIER = b"TFL3"
SCHEMA_VERSION = 3

# Field indices (declaration order) in tensorflow/lite/schema/schema.fbs.
MODEL_VERSION, MODEL_OPERATOR_CODES, MODEL_SUBGRAPHS = 0, 1, 2
OPCODE_DEPRECATED_BUILTIN, OPCODE_CUSTOM, OPCODE_VERSION, OPCODE_BUILTIN = 0, 1, 2, 3
SUBGRAPH_OPERATORS = 3
OPERATOR_OPCODE_INDEX = 0

_U8, _I8, _U16, _I32, _U32 = (struct.Struct(f) for f in ("<B", "<b", "<H", "<i", "<I"))


@dataclass(frozen=True)
class OperatorCodeEntry:
    """One entry of Model.operator_codes, exactly as stored (no interpretation yet)."""

    deprecated_builtin_code: int
    builtin_code: int
    custom_code: str | None
    version: int


@dataclass(frozen=True)
class OperatorTable:
    """What one .tflite file says about its operators.

    uses maps (subgraph index, operator_codes index) to how many operators of that subgraph use that entry; entries no
    operator uses do not appear in it.
    """

    path: Path
    file_size: int
    operator_codes: list[OperatorCodeEntry]
    subgraph_count: int
    uses: dict[tuple[int, int], int]


class _Reader:
    """Bounds-checked FlatBuffer accessors over a buffer (an mmap)."""

    def __init__(self, data, label: str):
        self.data = data
        self.size = len(data)
        self.label = label
        self._vtable_cache: dict[tuple[int, int], int] = {}

    def fail(self, problem: str) -> ResolverGenError:
        return ResolverGenError(f"{self.label}: {problem}")

    def _read(self, fmt: struct.Struct, pos: int) -> int:
        if pos < 0 or pos + fmt.size > self.size:
            raise self.fail(f"offset {pos} lies outside the file ({self.size} bytes): truncated or corrupt")
        return fmt.unpack_from(self.data, pos)[0]

    def uoffset(self, pos: int) -> int:
        """Follow the uoffset stored at pos."""
        return pos + self._read(_U32, pos)

    def field_pos(self, table: int, index: int) -> int | None:
        """Position of field `index` of the table at `table`, or None when the field is absent (default value)."""
        vtable = table - self._read(_I32, table)
        key = (vtable, index)
        relative = self._vtable_cache.get(key)
        if relative is None:
            vtable_size = self._read(_U16, vtable)
            if vtable_size < 4 or vtable_size % 2:
                raise self.fail(f"corrupt vtable at offset {vtable} (size {vtable_size})")
            slot = 4 + 2 * index
            relative = self._read(_U16, vtable + slot) if slot + 2 <= vtable_size else 0
            self._vtable_cache[key] = relative
        return table + relative if relative else None

    def scalar(self, table: int, index: int, fmt: struct.Struct, default: int) -> int:
        pos = self.field_pos(table, index)
        return default if pos is None else self._read(fmt, pos)

    def vector(self, table: int, index: int, element_size: int) -> tuple[int, int]:
        """(position of the first element, length) of a vector field; (0, 0) when the field is absent."""
        pos = self.field_pos(table, index)
        if pos is None:
            return 0, 0
        vector = self.uoffset(pos)
        length = self._read(_U32, vector)
        start = vector + 4
        if start + length * element_size > self.size:
            raise self.fail(f"vector at offset {vector} claims {length} elements, running past the end of the file")
        return start, length

    def table_offsets(self, start: int, length: int) -> list[int]:
        """Positions of the tables a vector of `length` uoffsets at `start` points to (vector already checked)."""
        relatives = struct.unpack_from(f"<{length}I", self.data, start)
        return [start + 4 * i + relative for i, relative in enumerate(relatives)]

    def string(self, table: int, index: int) -> str | None:
        pos = self.field_pos(table, index)
        if pos is None:
            return None
        start, length = self.vector(table, index, 1)
        try:
            return bytes(self.data[start:start + length]).decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail(f"string at offset {start} is not valid UTF-8") from None


def _operator_codes(reader: _Reader, model: int) -> list[OperatorCodeEntry]:
    start, length = reader.vector(model, MODEL_OPERATOR_CODES, 4)
    entries = []
    for entry in reader.table_offsets(start, length):
        entries.append(OperatorCodeEntry(
            deprecated_builtin_code=reader.scalar(entry, OPCODE_DEPRECATED_BUILTIN, _I8, 0),
            builtin_code=reader.scalar(entry, OPCODE_BUILTIN, _I32, 0),
            custom_code=reader.string(entry, OPCODE_CUSTOM),
            version=reader.scalar(entry, OPCODE_VERSION, _I32, 1),
        ))
    return entries


def _operator_uses(reader: _Reader, model: int, code_count: int) -> tuple[int, dict[tuple[int, int], int]]:
    start, subgraph_count = reader.vector(model, MODEL_SUBGRAPHS, 4)
    uses: dict[tuple[int, int], int] = {}
    for sub, subgraph in enumerate(reader.table_offsets(start, subgraph_count)):
        op_start, op_count = reader.vector(subgraph, SUBGRAPH_OPERATORS, 4)
        # The hot loop of a big model: operators' uoffsets are unpacked in one call; field_pos caches vtables.
        for j, operator in enumerate(reader.table_offsets(op_start, op_count)):
            index = reader.scalar(operator, OPERATOR_OPCODE_INDEX, _U32, 0)
            if index >= code_count:
                raise reader.fail(f"subgraph {sub} operator {j} uses opcode index {index}, "
                                  f"past the end of operator_codes ({code_count} entries)")
            key = (sub, index)
            uses[key] = uses.get(key, 0) + 1
    return subgraph_count, uses


def _open_mmap(path: Path) -> tuple[mmap.mmap, int]:
    label = str(path)
    try:
        if path.exists() and not path.is_dir() and not path.is_file():
            raise ResolverGenError(f"{label}: not a regular file, not a .tflite model")
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size == 0:
                raise ResolverGenError(f"{label}: empty file, not a .tflite model")
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ), size
    except IsADirectoryError:
        raise ResolverGenError(f"{label}: is a directory, not a .tflite model") from None
    except FileNotFoundError:
        raise ResolverGenError(f"{label}: no such file") from None
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise ResolverGenError(f"{label}: cannot read ({reason})") from None


def read_operator_table(path: str | os.PathLike) -> OperatorTable:
    """Read operator_codes and per-subgraph operator uses of one .tflite file; ResolverGenError on bad input."""
    path = Path(path)
    data, size = _open_mmap(path)
    try:
        reader = _Reader(data, str(path))
        if size < 8:
            raise reader.fail(f"too short for a FlatBuffer ({size} bytes)")
        identifier = bytes(data[4:8])
        if identifier != FILE_IDENTIFIER:
            raise reader.fail(f"not a TFLite model (file identifier {identifier!r}, expected {FILE_IDENTIFIER!r})")
        model = reader.uoffset(0)
        version = reader.scalar(model, MODEL_VERSION, _U32, 0)
        if version != SCHEMA_VERSION:
            raise reader.fail(f"TFLite schema version {version}, expected {SCHEMA_VERSION}")
        codes = _operator_codes(reader, model)
        subgraph_count, uses = _operator_uses(reader, model, len(codes))
    finally:
        data.close()
    return OperatorTable(path, size, codes, subgraph_count, uses)
