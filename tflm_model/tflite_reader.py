"""Read the operator table of a .tflite file straight from its FlatBuffer bytes.

Only what gen-resolver needs is touched: Model.version, Model.operator_codes and, for each subgraph, which
operator_codes entry each operator uses and the types of the tensors it reads and writes (Tensor.type), with, for each
input, whether it is constant (its Buffer has data: weights, biases, shapes). Constness comes from the Buffer table and
the 4-byte length of its data vector; the data itself (the weights, nearly all of a model's bytes) is never read. The
file is memory-mapped, so a model of hundreds of megabytes costs only the pages that hold these tables. Every offset,
vtable and vector followed is checked against the file size first, so a truncated or hostile file raises
ModelError naming the file instead of reading out of range.

Why plain `struct` and not the `flatbuffers` runtime's Table class: the runtime imports numpy when it is installed
(about 0.1 s), which alone would exceed gen-resolver's start-up budget, and its accessors do no bounds checks.
The layout rules are the FlatBuffers binary format's: a uoffset (u32) points forward, a table starts with an soffset
(i32) back to its vtable, a vtable is u16 [vtable size, table size, field offsets...], a vector is u32 length + items.
"""

from __future__ import annotations

import mmap
import os
import struct
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tflm_model.errors import ModelError
from tflm_model.model_source import ModelData, source_path
from tflm_model.model_sources import model_bytes

FILE_IDENTIFIER = b"TFL3"
SCHEMA_VERSION = 3

# Field indices (declaration order; a union takes two) in tensorflow/lite/schema/schema.fbs.
MODEL_VERSION, MODEL_OPERATOR_CODES, MODEL_SUBGRAPHS, MODEL_BUFFERS = 0, 1, 2, 4
OPCODE_DEPRECATED_BUILTIN, OPCODE_CUSTOM, OPCODE_VERSION, OPCODE_BUILTIN = 0, 1, 2, 3
SUBGRAPH_TENSORS, SUBGRAPH_OPERATORS = 0, 3
OPERATOR_OPCODE_INDEX, OPERATOR_INPUTS, OPERATOR_OUTPUTS = 0, 1, 2
TENSOR_TYPE, TENSOR_BUFFER = 1, 2
BUFFER_DATA, BUFFER_OFFSET = 0, 1
NO_TENSOR = -1  # an omitted optional input (the schema's -1 tensor index)

_U8, _I8, _U16, _I32, _U32, _U64 = (struct.Struct(f) for f in ("<B", "<b", "<H", "<i", "<I", "<Q"))


@dataclass(frozen=True)
class OperatorCodeEntry:
    """One entry of Model.operator_codes, exactly as stored (no interpretation yet)."""

    deprecated_builtin_code: int
    builtin_code: int
    custom_code: str | None
    version: int


@dataclass(frozen=True)
class TensorTypes:
    """The tensors one operator reads and writes, as stored: TensorType codes (NO_TENSOR for an omitted optional
    input), and per input whether it is constant (backed by a buffer with data)."""

    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    constant_inputs: tuple[bool, ...]


@dataclass(frozen=True)
class OperatorTable:
    """What one .tflite file says about its operators.

    operators maps (subgraph index, operator_codes index, tensor types) to the indices, within that subgraph, of the
    operators with exactly those types; entries no operator uses do not appear in it.
    """

    path: Path
    file_size: int
    operator_codes: list[OperatorCodeEntry]
    subgraph_count: int
    operators: dict[tuple[int, int, TensorTypes], list[int]]

    @property
    def uses(self) -> dict[tuple[int, int], int]:
        """(subgraph index, operator_codes index) -> how many operators of that subgraph use that entry."""
        counts: dict[tuple[int, int], int] = {}
        for (sub, index, _types), operators in self.operators.items():
            counts[(sub, index)] = counts.get((sub, index), 0) + len(operators)
        return counts


class _Reader:
    """Bounds-checked FlatBuffer accessors over a buffer (an mmap)."""

    def __init__(self, data, label: str):
        self.data = data
        self.size = len(data)
        self.label = label
        self._vtable_cache: dict[tuple[int, int], int] = {}

    def fail(self, problem: str) -> ModelError:
        return ModelError(f"{self.label}: {problem}")

    def _read(self, fmt: struct.Struct, pos: int) -> int:
        if pos < 0 or pos + fmt.size > self.size:
            raise self.fail(f"offset {pos} lies outside the file ({self.size} bytes): truncated or corrupt")
        return fmt.unpack_from(self.data, pos)[0]

    def u16(self, pos: int) -> int:
        return self._read(_U16, pos)

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

    def int_vector(self, table: int, index: int) -> tuple[int, ...]:
        """The int32 items of a vector field; () when the field is absent."""
        start, length = self.vector(table, index, 4)
        return struct.unpack_from(f"<{length}i", self.data, start) if length else ()

    def buffer_has_data(self, buffer: int) -> bool:
        """Whether the Buffer table at `buffer` holds data: a non-empty data vector (only its length is read), or
        an offset into the file past the FlatBuffer (models over 2 GB)."""
        if self.vector(buffer, BUFFER_DATA, 1)[1]:
            return True
        return self.scalar(buffer, BUFFER_OFFSET, _U64, 0) > 1

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


_INT_VECTORS = [struct.Struct(f"<{n}i") for n in range(64)]


def _layout(reader: _Reader, vtable: int, fields: tuple[tuple[int, int], ...]) -> tuple[int, tuple[int, ...]]:
    """(inline size of the table, relative position of each (field index, width); 0 when absent) from a vtable.

    Every present field is checked to lie inside the table, so once `table + inline size` is inside the file, every
    field of every table sharing this vtable can be read without another check.
    """
    vtable_size = reader.u16(vtable)
    if vtable_size < 4 or vtable_size % 2:
        raise reader.fail(f"corrupt vtable at offset {vtable} (size {vtable_size})")
    table_size = reader.u16(vtable + 2)
    relatives = []
    for index, width in fields:
        slot = 4 + 2 * index
        relative = reader.u16(vtable + slot) if slot + 2 <= vtable_size else 0
        if relative and relative + width > table_size:
            raise reader.fail(f"corrupt vtable at offset {vtable}: field {index} lies outside its {table_size}-byte "
                              "table")
        relatives.append(relative)
    return table_size, tuple(relatives)


def _operators(reader: _Reader, model: int, code_count: int) -> tuple[int, dict]:
    """Every operator of every subgraph, grouped by (subgraph, opcode index, tensor types).

    The hot loop of a big model (tens of thousands of operators and tensors), so it is written flat: vtable layouts
    are cached (a converter writes a handful), a table's size is checked once against the file instead of each field,
    each tensor is read once, and operators are grouped on plain tuples before any record is made.
    """
    data, size, fail = reader.data, reader.size, reader.fail
    read_i32, read_u32 = _I32.unpack_from, _U32.unpack_from
    operator_layouts: dict[int, tuple[int, tuple[int, ...]]] = {}
    tensor_layouts: dict[int, tuple[int, tuple[int, ...]]] = {}
    buffers_start, buffer_count = reader.vector(model, MODEL_BUFFERS, 4)
    buffer_has_data: dict[int, bool] = {}

    def table_layout(table: int, layouts: dict, fields: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
        if table + 4 > size:
            raise fail(f"offset {table} lies outside the file ({size} bytes): truncated or corrupt")
        vtable = table - read_i32(data, table)[0]
        layout = layouts.get(vtable)
        if layout is None:
            layout = layouts[vtable] = _layout(reader, vtable, fields)
        if table + layout[0] > size:
            raise fail(f"table at offset {table} runs past the end of the file ({size} bytes)")
        return layout[1]

    def int_vector(table: int, relative: int) -> tuple[int, ...]:
        if not relative:
            return ()
        vector = table + relative + read_u32(data, table + relative)[0]
        if vector + 4 > size:
            raise fail(f"offset {vector} lies outside the file ({size} bytes): truncated or corrupt")
        length = read_u32(data, vector)[0]
        if vector + 4 + 4 * length > size:
            raise fail(f"vector at offset {vector} claims {length} elements, running past the end of the file")
        unpack = _INT_VECTORS[length] if length < 64 else struct.Struct(f"<{length}i")
        return unpack.unpack_from(data, vector + 4)

    start, subgraph_count = reader.vector(model, MODEL_SUBGRAPHS, 4)
    operators: dict[tuple[int, int, TensorTypes], list[int]] = {}
    for sub, subgraph in enumerate(reader.table_offsets(start, subgraph_count)):
        tensors_start, tensor_count = reader.vector(subgraph, SUBGRAPH_TENSORS, 4)
        tensor_offsets = reader.table_offsets(tensors_start, tensor_count)
        types: list[int | None] = [None] * tensor_count
        constant = [False] * tensor_count

        def read_tensor(tensor: int, operator: int, role: str) -> None:
            if not 0 <= tensor < tensor_count:
                raise fail(f"subgraph {sub} operator {operator} {role} tensor {tensor}, past the end of the "
                           f"subgraph's tensors ({tensor_count} entries)")
            table = tensor_offsets[tensor]
            type_at, buffer_at = table_layout(table, tensor_layouts, ((TENSOR_TYPE, 1), (TENSOR_BUFFER, 4)))
            types[tensor] = _I8.unpack_from(data, table + type_at)[0] if type_at else 0
            buffer = read_u32(data, table + buffer_at)[0] if buffer_at else 0
            if buffer:
                if buffer >= buffer_count:
                    raise fail(f"subgraph {sub} tensor {tensor} uses buffer {buffer}, past the end of the model's "
                               f"buffers ({buffer_count} entries)")
                has_data = buffer_has_data.get(buffer)
                if has_data is None:
                    has_data = buffer_has_data[buffer] = reader.buffer_has_data(
                        reader.uoffset(buffers_start + 4 * buffer))
                constant[tensor] = has_data

        op_start, op_count = reader.vector(subgraph, SUBGRAPH_OPERATORS, 4)
        grouped: dict[tuple, list[int]] = {}
        for j, operator in enumerate(reader.table_offsets(op_start, op_count)):
            code_at, inputs_at, outputs_at = table_layout(
                operator, operator_layouts, ((OPERATOR_OPCODE_INDEX, 4), (OPERATOR_INPUTS, 4), (OPERATOR_OUTPUTS, 4)))
            index = read_u32(data, operator + code_at)[0] if code_at else 0
            if index >= code_count:
                raise fail(f"subgraph {sub} operator {j} uses opcode index {index}, "
                           f"past the end of operator_codes ({code_count} entries)")
            inputs = int_vector(operator, inputs_at)
            outputs = int_vector(operator, outputs_at)
            for tensor in inputs:
                if tensor != NO_TENSOR and (tensor < 0 or tensor >= tensor_count or types[tensor] is None):
                    read_tensor(tensor, j, "reads")
            for tensor in outputs:
                if tensor < 0 or tensor >= tensor_count or types[tensor] is None:
                    read_tensor(tensor, j, "writes")
            key = (index,
                   tuple([NO_TENSOR if t == NO_TENSOR else types[t] for t in inputs]),
                   tuple([types[t] for t in outputs]),
                   tuple([t != NO_TENSOR and constant[t] for t in inputs]))
            group = grouped.get(key)
            if group is None:
                grouped[key] = [j]
            else:
                group.append(j)
        for (index, input_types, output_types, constant_inputs), indices in grouped.items():
            operators[(sub, index, TensorTypes(input_types, output_types, constant_inputs))] = indices
    return subgraph_count, operators


def _open_mmap(path: Path) -> tuple:
    """An mmap of a .tflite file and its size."""
    label = str(path)
    try:
        if path.exists() and not path.is_dir() and not path.is_file():
            raise ModelError(f"{label}: not a regular file, not a .tflite model")
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size == 0:
                raise ModelError(f"{label}: empty file, not a .tflite model")
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ), size
    except IsADirectoryError:
        raise ModelError(f"{label}: is a directory, not a .tflite model") from None
    except FileNotFoundError:
        raise ModelError(f"{label}: no such file") from None
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise ModelError(f"{label}: cannot read ({reason})") from None


def _open_model(source) -> tuple:
    """The model's bytes and their size: a ModelData's own, a C/C++ array's (model_sources), else the file mapped."""
    if isinstance(source, ModelData):
        data, label = source.data, source.label
    else:
        data, label = model_bytes(source), str(source)
        if data is None:
            return _open_mmap(Path(source))
    if not data:
        raise ModelError(f"{label}: empty, not a .tflite model")
    return memoryview(data), len(data)


def _close(data) -> None:
    if isinstance(data, memoryview):
        data.release()
    elif isinstance(data, mmap.mmap):
        data.close()


@contextmanager
def opened_model(source):
    """The model's reader, root table, size and operator codes, its bytes released on leaving: what every reader of a
    whole model (the operator table, the tensor graph) starts from."""
    data, size = _open_model(source)
    try:
        reader = _Reader(data, str(source_path(source)))
        model = _model_table(reader, data, size)
        yield reader, model, size, _operator_codes(reader, model)
    finally:
        _close(data)


def _model_table(reader: "_Reader", data, size: int) -> int:
    """The root Model table's offset, once the file is known to be a TFLite FlatBuffer of the schema we read."""
    if size < 8:
        raise reader.fail(f"too short for a FlatBuffer ({size} bytes)")
    identifier = bytes(data[4:8])
    if identifier != FILE_IDENTIFIER:
        raise reader.fail(f"not a TFLite model (file identifier {identifier!r}, expected {FILE_IDENTIFIER!r})")
    model = reader.uoffset(0)
    version = reader.scalar(model, MODEL_VERSION, _U32, 0)
    if version != SCHEMA_VERSION:
        raise reader.fail(f"TFLite schema version {version}, expected {SCHEMA_VERSION}")
    return model


def read_operator_table(source) -> OperatorTable:
    """Read operator_codes and per-subgraph operator uses of one model (a path or a ModelData); ModelError on bad
    input."""
    with opened_model(source) as (reader, model, size, codes):
        subgraph_count, operators = _operators(reader, model, len(codes))
    return OperatorTable(source_path(source), size, codes, subgraph_count, operators)
