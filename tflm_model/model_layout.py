"""Where a .tflite model's bytes go, and the model rewritten without its names and metadata.

A walk over every table, vector and string of the Model FlatBuffer (schema.fbs of TFLite) claims each byte for one
part of the model:
- the weights: each Buffer's data, under the operator that first reads the tensor it backs and that tensor's name;
- tensor metadata (Tensor tables, shapes, quantization, sparsity) and tensor names;
- operators (Operator tables, their input/output lists, builtin and custom options), operator codes, subgraphs;
- signatures (SignatureDef) and metadata (Metadata tables, their names, the buffers they point to, description);
- the FlatBuffer's own overhead: every byte no part claims (root offset, file identifier, vtables, Buffer tables,
  the vectors of table offsets, vector lengths of the weights, alignment padding).
The parts sum exactly to the model's size. The furthest byte the walk reaches is the model's extent (a FlatBuffer
does not store its own length: a model found in a firmware without a symbol to size it is sized by this).

`rewrite` writes the model again with the flatbuffers Builder, table by table, optionally without the names and
metadata TFLM never reads (tensor and subgraph names, the description, signature defs, metadata other than the
OfflineMemoryAllocation plan TFLM's planner uses, and the buffers only those held): its size is what stripping saves,
measured rather than estimated. Scalars are copied as the raw bytes between one field and the next (their values are
kept; the width is the largest power of two that fits), so option tables need no schema of their own beyond their few
vector and string fields listed in OFFSET_FIELDS.
"""

from __future__ import annotations

import importlib.machinery
import struct
import sys
from dataclasses import dataclass

from tflm_model.errors import ModelError
from tflm_model.model_source import ModelData, source_bytes, source_path
from tflm_model.tflite_reader import FILE_IDENTIFIER, _Reader

# Field kinds: ("s",) string, ("v", element size, alignment) vector of scalars, ("t", type) table,
# ("vt", type) vector of tables, ("u", type field, union name) union value. Fields not listed are scalars.
_S = ("s",)
_V1, _V4, _V8 = ("v", 1, 1), ("v", 4, 4), ("v", 8, 8)
_DATA = ("v", 1, 16)  # Buffer.data and CustomQuantization.custom: force_align 16
TABLES: dict[str, dict[int, tuple]] = {
    "Model": {1: ("vt", "OperatorCode"), 2: ("vt", "SubGraph"), 3: _S, 4: ("vt", "Buffer"), 5: _V4,
              6: ("vt", "Metadata"), 7: ("vt", "SignatureDef"), 8: ("vt", "ExternalBufferGroup"),
              9: ("vt", "ExternalBuffer")},
    "OperatorCode": {1: _S},
    "SubGraph": {0: ("vt", "Tensor"), 1: _V4, 2: _V4, 3: ("vt", "Operator"), 4: _S},
    "Tensor": {0: _V4, 3: _S, 4: ("t", "QuantizationParameters"), 6: ("t", "SparsityParameters"), 7: _V4,
               9: ("vt", "VariantSubType")},
    "QuantizationParameters": {0: _V4, 1: _V4, 2: _V4, 3: _V8, 5: ("u", 4, "QuantizationDetails")},
    "CustomQuantization": {0: _DATA},
    "SparsityParameters": {0: _V4, 1: _V4, 2: ("vt", "DimensionMetadata")},
    "DimensionMetadata": {3: ("u", 2, "SparseIndexVector"), 5: ("u", 4, "SparseIndexVector")},
    "Int32Vector": {0: _V4}, "Uint16Vector": {0: ("v", 2, 4)}, "Uint8Vector": {0: ("v", 1, 4)},
    "VariantSubType": {0: _V4},
    "Operator": {1: _V4, 2: _V4, 4: ("u", 3, "BuiltinOptions"), 5: _V1, 7: _V1, 8: _V4,
                 12: ("u", 11, "BuiltinOptions2")},
    "Buffer": {0: _DATA},
    "Metadata": {0: _S},
    "SignatureDef": {0: ("vt", "TensorMap"), 1: ("vt", "TensorMap"), 2: _S, 3: _S},
    "TensorMap": {0: _S},
    "ExternalBufferGroup": {0: _S},
    "ExternalBuffer": {},
}
# The option tables that hold vectors or strings (union member number -> fields); every other option table is
# scalars only. From schema.fbs: ConcatEmbeddings, Reshape, Squeeze, VarHandle, Bucketize; the StableHLO options.
OFFSET_FIELDS: dict[str, dict[int, dict[int, tuple]]] = {
    "BuiltinOptions": {3: {1: _V4, 2: _V4}, 17: {0: _V4}, 30: {0: _V4}, 111: {0: _S, 1: _S}, 115: {0: _V4}},
    "BuiltinOptions2": {2: {0: _V8}, 3: {0: _V8, 1: _V8, 2: _V8}, 4: {0: _V8, 1: _V8, 2: _V8, 3: _V8, 4: _V1, 7: _V8,
                                                                      10: _V8},
                        5: {0: _S, 2: _S, 4: _V4, 5: _V1}, 6: {0: _V8}, 7: {1: _V8, 2: _V8, 3: _V8}, 9: {0: _V8},
                        10: {0: _V8, 1: _V8, 2: _V8}, 12: {0: _V8, 1: _V8, 2: _V8, 3: _V8},
                        13: {0: _V8, 1: _V8, 2: _V8, 3: _V8, 4: _V8}, 16: {0: _V8, 1: _V8, 2: _V8, 4: _V8},
                        17: {0: _V8}, 21: {0: _S, 2: _V1}, 23: {0: _V4}},
    "QuantizationDetails": {1: TABLES["CustomQuantization"]},
    "SparseIndexVector": {1: TABLES["Int32Vector"], 2: TABLES["Uint16Vector"], 3: TABLES["Uint8Vector"]},
}
UNION_TABLES = {"QuantizationDetails": {1: "CustomQuantization"},
                "SparseIndexVector": {1: "Int32Vector", 2: "Uint16Vector", 3: "Uint8Vector"}}

WEIGHTS, OVERHEAD = "weights", "FlatBuffer overhead"
UNUSED_BUFFER = "(used by no tensor)"  # the layout path under weights of a buffer no tensor uses
TENSOR_METADATA, TENSOR_NAMES = "tensor metadata", "tensor and subgraph names"
OPERATORS, OPERATOR_CODES, SUBGRAPHS = "operators and options", "operator codes", "subgraphs"
SIGNATURES, METADATA = "signatures", "metadata and description"
# Which part a table's or field's bytes belong to, by (table type, field) (None: the table's own inline bytes).
_PART_OF_TABLE = {"Model": OVERHEAD, "OperatorCode": OPERATOR_CODES, "SubGraph": SUBGRAPHS, "Operator": OPERATORS,
                  "Tensor": TENSOR_METADATA, "Buffer": OVERHEAD, "Metadata": METADATA, "SignatureDef": SIGNATURES,
                  "TensorMap": SIGNATURES, "ExternalBufferGroup": OVERHEAD, "ExternalBuffer": OVERHEAD}
_FIELD_PARTS = {("Model", 3): METADATA, ("Model", 5): METADATA, ("Tensor", 3): TENSOR_NAMES,
                ("SubGraph", 4): TENSOR_NAMES}
OFFLINE_PLAN = "OfflineMemoryAllocation"
APPENDED = "appended after the FlatBuffer"


@dataclass(frozen=True)
class ModelPart:
    """A part of a model's bytes: its path in the breakdown (e.g. ("weights", "operator 3 CONV_2D", "conv/weights")),
    its bytes, and the runs (offset in the model, length) they occupy."""

    path: tuple[str, ...]
    size: int
    runs: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class ModelLayout:
    size: int  # the bytes broken down (the model's size as linked)
    extent: int  # the furthest byte the FlatBuffer's tables, vectors and strings reach
    parts: tuple[ModelPart, ...]  # sum of sizes == size


class _Walk:
    """Claims byte runs for parts while following the schema; remembers the furthest byte reached."""

    def __init__(self, reader: _Reader):
        self.r = reader
        self.claims: list[tuple[int, int, tuple[str, ...]]] = []
        self.extent = 8
        self.buffer_users: dict[int, tuple[str, ...]] = {}

    def claim(self, start: int, length: int, part: tuple[str, ...] | None) -> None:
        self.extent = max(self.extent, start + length)
        if part is not None and length > 0:
            self.claims.append((start, start + length, part))

    def table(self, table: int, kind: str, part: tuple[str, ...], fields: dict[int, tuple] | None = None) -> dict:
        """Claim a table's inline bytes for `part` and follow its offset fields; returns {field index: position}."""
        r = self.r
        vtable = table - r._read(struct.Struct("<i"), table)
        vtable_size = r.u16(vtable)
        if vtable_size < 4 or vtable_size % 2:
            raise r.fail(f"corrupt vtable at offset {vtable} (size {vtable_size})")
        self.claim(vtable, vtable_size, None)
        self.claim(table, r.u16(vtable + 2), part)
        present = {}
        for index, relative in enumerate(_slots(r, vtable, (vtable_size - 4) // 2)):
            if relative:
                present[index] = table + relative
        schema = TABLES.get(kind, {}) if fields is None else fields
        for index, field_kind in schema.items():
            if index in present:
                sub_part = (_FIELD_PARTS[(kind, index)],) if (kind, index) in _FIELD_PARTS else part
                self.field(table, index, field_kind, sub_part, present)
        return present

    def field(self, table: int, index: int, field_kind: tuple, part: tuple[str, ...], present: dict) -> None:
        r = self.r
        tag = field_kind[0]
        if tag == "s":
            start, length = r.vector(table, index, 1)
            self.claim(start - 4, length + 5, part)  # length, bytes, NUL
        elif tag == "v":
            start, length = r.vector(table, index, field_kind[1])
            self.claim(start - 4, 4 + length * field_kind[1], part)
        elif tag == "t":
            child = r.uoffset(present[index])
            self.table(child, field_kind[1], part)
        elif tag == "vt":
            start, length = r.vector(table, index, 4)
            own = _PART_OF_TABLE.get(field_kind[1])
            self.claim(start - 4, 4 + 4 * length, None)  # offsets to the tables: overhead
            for child in r.table_offsets(start, length):
                self.table(child, field_kind[1], (own,) if own else part)
        elif tag == "u":
            member = r.scalar(table, field_kind[1], struct.Struct("<B"), 0)
            union = field_kind[2]
            child = r.uoffset(present[index])
            self.table(child, UNION_TABLES.get(union, {}).get(member, union), part,
                       OFFSET_FIELDS.get(union, {}).get(member, {}))


def _slots(r: _Reader, vtable: int, count: int) -> tuple[int, ...]:
    """The `count` field offsets of the vtable at `vtable`, read in one unpack (a model's rewrite and breakdown read
    ~8,000 of them one by one); one by one when they run past the end of the file, so the error is the same."""
    if count > 0 and vtable >= 0 and vtable + 4 + 2 * count <= r.size:
        return struct.unpack_from(f"<{count}H", r.data, vtable + 4)
    return tuple(r.u16(vtable + 4 + 2 * index) for index in range(count))


def _tensor_label(name: str | None, index: int) -> str:
    return name if name else f"tensor {index}"


def layout(source, size: int | None = None, op_names: list[str] | None = None) -> ModelLayout:
    """Break a model (a path or ModelData; its first `size` bytes when given) into parts summing to its size.
    `op_names`: the name of each operator_codes entry (default: "opcode N")."""
    data = source_bytes(source)
    size = len(data) if size is None else size
    reader = _Reader(memoryview(data)[:size], str(source_path(source)))
    if size < 8 or bytes(data[4:8]) != FILE_IDENTIFIER:
        raise reader.fail("not a TFLite model")
    walk = _Walk(reader)
    walk.claim(0, 8, None)
    model = reader.uoffset(0)
    fields = walk.table(model, "Model", (OVERHEAD,), {})
    _walk_model(walk, reader, model, fields, op_names)
    parts = _resolve(walk.claims, size, walk.extent)
    return ModelLayout(size, walk.extent, parts)


def _walk_model(walk: _Walk, r: _Reader, model: int, fields: dict, op_names: list[str] | None) -> None:
    u32 = struct.Struct("<I")
    for index in (1, 3, 5, 7, 8, 9):  # operator codes, description, metadata_buffer, signatures, external buffers
        if index in fields:
            walk.field(model, index, TABLES["Model"][index], (_FIELD_PARTS.get(("Model", index), OVERHEAD),), fields)
    buffers_start, buffer_count = r.vector(model, 4, 4) if 4 in fields else (0, 0)
    buffer_tables = r.table_offsets(buffers_start, buffer_count) if buffer_count else []
    if 4 in fields:
        walk.claim(buffers_start - 4, 4 + 4 * buffer_count, None)
    owner: dict[int, tuple[str, ...]] = {}
    if 6 in fields:  # metadata: its tables, names and the buffers they point to
        start, length = r.vector(model, 6, 4)
        walk.claim(start - 4, 4 + 4 * length, None)
        for entry in r.table_offsets(start, length):
            walk.table(entry, "Metadata", (METADATA,))
            name = r.string(entry, 0) or ""
            owner.setdefault(r.scalar(entry, 1, u32, 0), (METADATA, name))
    codes_start, code_count = r.vector(model, 1, 4) if 1 in fields else (0, 0)
    names = op_names or [f"opcode {i}" for i in range(code_count)]
    if 2 in fields:
        start, count = r.vector(model, 2, 4)
        walk.claim(start - 4, 4 + 4 * count, None)
        for sub, subgraph in enumerate(r.table_offsets(start, count)):
            present = walk.table(subgraph, "SubGraph", (SUBGRAPHS,), {k: v for k, v in TABLES["SubGraph"].items()
                                                                      if k not in (0, 3)})
            tensors_start, tensor_count = r.vector(subgraph, 0, 4) if 0 in present else (0, 0)
            tensors = r.table_offsets(tensors_start, tensor_count) if tensor_count else []
            if 0 in present:
                walk.claim(tensors_start - 4, 4 + 4 * tensor_count, None)
            for tensor in tensors:
                walk.table(tensor, "Tensor", (TENSOR_METADATA,))
            prefix = f"subgraph {sub} " if count > 1 else ""
            ops_start, op_count = r.vector(subgraph, 3, 4) if 3 in present else (0, 0)
            if 3 in present:
                walk.claim(ops_start - 4, 4 + 4 * op_count, None)
            for j, operator in enumerate(r.table_offsets(ops_start, op_count) if op_count else []):
                walk.table(operator, "Operator", (OPERATORS,))
                opcode = r.scalar(operator, 0, u32, 0)
                label = f"{prefix}operator {j} {names[opcode] if opcode < len(names) else f'opcode {opcode}'}"
                for tensor in r.int_vector(operator, 1) + r.int_vector(operator, 8):
                    if 0 <= tensor < tensor_count:
                        buffer = r.scalar(tensors[tensor], 2, u32, 0)
                        owner.setdefault(buffer, (WEIGHTS, label, _tensor_label(r.string(tensors[tensor], 3),
                                                                                  tensor)))
            for tensor, table in enumerate(tensors):  # constants no operator reads (graph inputs, variables)
                buffer = r.scalar(table, 2, u32, 0)
                owner.setdefault(buffer, (WEIGHTS, f"{prefix}(read by no operator)",
                                          _tensor_label(r.string(table, 3), tensor)))
    for buffer, table in enumerate(buffer_tables):
        walk.table(table, "Buffer", (OVERHEAD,), {})
        data_start, length = r.vector(table, 0, 1)
        if length:
            walk.claim(data_start - 4, 4, None)
            walk.claim(data_start, length, owner.get(buffer, (WEIGHTS, UNUSED_BUFFER, f"buffer {buffer}")))


def _resolve(claims: list[tuple[int, int, tuple[str, ...]]], size: int, extent: int) -> tuple[ModelPart, ...]:
    """Each byte to the first claim covering it (a string or vector a FlatBuffer shares is counted once); what no
    claim covers is overhead, except whole 4-byte-or-longer runs past the FlatBuffer's extent: data appended to it
    (a zip of associated files, as TFLite metadata writers append)."""
    runs: dict[tuple[str, ...], list[tuple[int, int]]] = {}
    cursor = 0
    for start, end, part in sorted(claims):
        start, end = max(start, cursor), min(end, size)
        if end > start:
            runs.setdefault(part, []).append((start, end - start))
            cursor = end
    claimed = sum(length for pieces in runs.values() for _start, length in pieces)
    if size > claimed:
        covered = sorted(run for pieces in runs.values() for run in pieces)
        gaps, at = [], 0
        for start, length in covered:
            if start > at:
                gaps.append((at, start - at))
            at = max(at, start + length)
        if size > at:
            gaps.append((at, size - at))
        past = -(-extent // 4) * 4
        for start, length in gaps:
            if start + length > past + 3 and start + length == size:
                if past > start:
                    runs.setdefault((OVERHEAD,), []).append((start, past - start))
                    start, length = past, start + length - past
                runs.setdefault((APPENDED,), []).append((start, length))
            else:
                runs.setdefault((OVERHEAD,), []).append((start, length))
    parts = [ModelPart(path, sum(length for _s, length in pieces), tuple(sorted(pieces)))
             for path, pieces in runs.items()]
    parts.sort(key=lambda p: (p.path[0] != WEIGHTS, -p.size, p.path))
    return tuple(p for p in parts if p.size)


def model_extent(source, limit: int) -> int:
    """The furthest byte a model's FlatBuffer reaches within its first `limit` bytes; ModelError when it is not one."""
    data = source_bytes(source)[:limit]
    return layout(ModelData(str(source_path(source)), data)).extent


# ---------------------------------------------------------------------------------------------------------------------
# Writing the model again (whole, or stripped of what TFLM never reads).

_WIDTHS = ((8, "<Q"), (4, "<I"), (2, "<H"), (1, "<B"))


def rewrite(source, strip: bool = False, empty_unused: bool = False) -> bytes:
    """The model written again with the flatbuffers Builder; with strip, without names, description, signatures and
    metadata (the OfflineMemoryAllocation plan kept) and with the buffers only those held emptied; with empty_unused,
    with the buffers no tensor and no metadata uses emptied (their Buffer tables stay, so no index moves)."""
    flatbuffers = _flatbuffers()
    data = source_bytes(source)
    reader = _Reader(memoryview(data), str(source_path(source)))
    if len(data) < 8 or bytes(data[4:8]) != FILE_IDENTIFIER:
        raise reader.fail("not a TFLite model")
    builder = flatbuffers.Builder(len(data) + 1024)
    builder.ForceDefaults(True)
    model = reader.uoffset(0)
    dropped_buffers: set[int] = set()
    kept_metadata: list[int] = []
    if strip and reader.field_pos(model, 6) is not None:
        start, length = reader.vector(model, 6, 4)
        for entry in reader.table_offsets(start, length):
            buffer = reader.scalar(entry, 1, struct.Struct("<I"), 0)
            if reader.string(entry, 0) == OFFLINE_PLAN:
                kept_metadata.append(entry)
            else:
                dropped_buffers.add(buffer)
        kept = {reader.scalar(e, 1, struct.Struct("<I"), 0) for e in kept_metadata}
        dropped_buffers -= kept
    if empty_unused:
        dropped_buffers |= unused_buffers(source)
    writer = _Writer(reader, builder, strip, dropped_buffers, kept_metadata)
    root = writer.table(model, "Model", TABLES["Model"])
    builder.Finish(root, file_identifier=FILE_IDENTIFIER)
    return bytes(builder.Output())


def _flatbuffers():
    """The flatbuffers runtime, imported without numpy: the Builder needs none (CreateNumpyVector is never called
    here), and the runtime imports numpy whenever it finds it installed, which was a fifth of a cold `size-report ops`
    on a firmware with a model linked in (the report rewrites it for the strip saving). numpy is hidden from the one
    check the runtime makes (importlib's PathFinder) while it imports, and only then."""
    module = sys.modules.get("flatbuffers")
    if module is not None:
        return module
    finder = importlib.machinery.PathFinder
    original = finder.__dict__["find_spec"]

    def find_spec(name, path=None, target=None):
        return None if name == "numpy" else original.__get__(None, finder)(name, path, target)

    finder.find_spec = staticmethod(find_spec)
    try:
        import flatbuffers
    finally:
        finder.find_spec = original
    return flatbuffers


_STRIPPED = {("Tensor", 3), ("SubGraph", 4), ("Model", 3), ("Model", 5), ("Model", 7)}


class _Writer:
    def __init__(self, reader: _Reader, builder, strip: bool, dropped_buffers: set[int], kept_metadata: list[int]):
        self.r, self.b, self.strip = reader, builder, strip
        self.dropped_buffers, self.kept_metadata = dropped_buffers, kept_metadata
        self.buffer_index = -1

    def table(self, table: int, kind: str, schema: dict[int, tuple]) -> int:
        r, b = self.r, self.b
        vtable = table - r._read(struct.Struct("<i"), table)
        vtable_size, table_size = r.u16(vtable), r.u16(vtable + 2)
        slots = (vtable_size - 4) // 2
        present = sorted((relative, i) for i, relative in enumerate(_slots(r, vtable, slots)) if relative)
        children: dict[int, int] = {}
        for _relative, index in present:
            field_kind = schema.get(index)
            if field_kind is None or (self.strip and (kind, index) in _STRIPPED):
                continue
            if kind == "Buffer" and index == 0 and self.buffer_index in self.dropped_buffers:
                continue
            if kind == "Model" and index == 6 and self.strip:
                if self.kept_metadata:
                    children[index] = self.tables(self.kept_metadata, "Metadata")
                continue
            children[index] = self.child(table, index, field_kind)
        scalars = []
        for position, (relative, index) in enumerate(present):
            if index in schema:
                continue
            end = present[position + 1][0] if position + 1 < len(present) else table_size
            gap = max(1, end - relative)
            width, fmt = next(w for w in _WIDTHS if w[0] <= gap)
            raw = bytes(r.data[table + relative:table + relative + width]).ljust(width, b"\0")
            scalars.append((width, index, struct.unpack(fmt, raw)[0]))
        b.StartObject(slots)
        for width, index, value in sorted(scalars, key=lambda s: (-s[0], s[1])):
            {8: b.PrependUint64Slot, 4: b.PrependUint32Slot, 2: b.PrependUint16Slot,
             1: b.PrependUint8Slot}[width](index, value, 0)
        for index, offset in children.items():
            b.PrependUOffsetTRelativeSlot(index, offset, 0)
        return b.EndObject()

    def tables(self, positions: list[int], kind: str) -> int:
        offsets = []
        for number, child in enumerate(positions):
            if kind == "Buffer":
                self.buffer_index = number
            offsets.append(self.table(child, kind, TABLES[kind]))
        b = self.b
        b.StartVector(4, len(offsets), 4)
        for offset in reversed(offsets):
            b.PrependUOffsetTRelative(offset)
        return b.EndVector()

    def child(self, table: int, index: int, field_kind: tuple) -> int:
        r, b = self.r, self.b
        tag = field_kind[0]
        if tag == "s":
            start, length = r.vector(table, index, 1)
            return b.CreateString(bytes(r.data[start:start + length]))
        if tag == "v":
            size, alignment = field_kind[1], field_kind[2]
            start, length = r.vector(table, index, size)
            raw = bytes(r.data[start:start + size * length])
            b.StartVector(size, length, alignment)
            b.head -= len(raw)
            b.Bytes[b.head:b.head + len(raw)] = raw
            return b.EndVector()
        if tag == "t":
            return self.table(r.uoffset(r.field_pos(table, index)), field_kind[1], TABLES[field_kind[1]])
        if tag == "vt":
            start, length = r.vector(table, index, 4)
            return self.tables(r.table_offsets(start, length), field_kind[1])
        member = r.scalar(table, field_kind[1], struct.Struct("<B"), 0)
        union = field_kind[2]
        kind = UNION_TABLES.get(union, {}).get(member, union)
        if union in UNION_TABLES and member not in UNION_TABLES[union]:
            raise ModelError(f"{r.label}: {union} member {member} is not one this rewriter knows")
        return self.table(r.uoffset(r.field_pos(table, index)), kind, OFFSET_FIELDS.get(union, {}).get(member, {}))


def unused_buffers(source) -> set[int]:
    """The indices of the buffers holding data that no tensor and no metadata entry uses."""
    return {int(part.path[2].split()[1]) for part in layout(source).parts
            if part.path[1:2] == (UNUSED_BUFFER,) and part.path[2].startswith("buffer ")}


@dataclass(frozen=True)
class StripSaving:
    rewritten: int  # bytes of the model written again whole (the baseline: the same writer)
    stripped: int  # bytes written without names and metadata

    @property
    def saving(self) -> int:
        return self.rewritten - self.stripped


def strip_saving(source) -> StripSaving:
    return StripSaving(len(rewrite(source)), len(rewrite(source, strip=True)))
