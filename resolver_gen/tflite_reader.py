"""Read the operators a .tflite model uses, straight from the FlatBuffer bytes.

Only what gen-resolver needs is touched: the Model's operator_codes and each subgraph's operators' opcode indices.
The file is memory-mapped and every offset and vector is bounds-checked against the file size, so a hostile or
truncated file raises ResolverGenError instead of reading out of range.
"""

from __future__ import annotations

import mmap
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path

from resolver_gen.errors import ResolverGenError

FILE_IDENTIFIER = b"TFL3"
SCHEMA_VERSION = 3
CUSTOM_BUILTIN_CODE = 32

# Field indices from the TFLite schema.
MODEL_VERSION, MODEL_OPERATOR_CODES, MODEL_SUBGRAPHS = 0, 1, 2
OPCODE_DEPRECATED_BUILTIN, OPCODE_CUSTOM, OPCODE_VERSION, OPCODE_BUILTIN = 0, 1, 2, 3
SUBGRAPH_OPERATORS = 3
OPERATOR_OPCODE_INDEX = 0


@dataclass(frozen=True)
class OperatorCode:
    """One entry of the model's operator_codes table."""

    builtin_code: int | None  # None for a custom op
    custom_name: str | None
    version: int


@dataclass
class OperatorUse:
    """An op (builtin or custom) that at least one operator of the model uses."""

    name: str  # builtin enum name or custom op name
    builtin_code: int | None
    custom_name: str | None
    versions: list[int] = field(default_factory=list)
    uses_per_subgraph: dict[int, int] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        return ("custom", self.custom_name) if self.custom_name is not None else ("builtin", self.name)


@dataclass
class ModelOps:
    """Everything gen-resolver learns from one model file."""

    path: Path
    sha256: str
    subgraph_count: int
    ops: list[OperatorUse]


class _FlatBuffer:
    """Bounds-checked accessors over FlatBuffer bytes."""

    def __init__(self, data, label: str):
        self.data = data
        self.size = len(data)
        self.label = label

    def fail(self, problem: str) -> ResolverGenError:
        return ResolverGenError(f"{self.label}: {problem}")

    def _unpack(self, fmt: str, pos: int):
        width = struct.calcsize(fmt)
        if pos < 0 or pos + width > self.size:
            raise self.fail(f"offset {pos} out of range (file is {self.size} bytes; truncated or corrupt)")
        return struct.unpack_from(fmt, self.data, pos)[0]

    def u8(self, pos):
        return self._unpack("<B", pos)

    def i8(self, pos):
        return self._unpack("<b", pos)

    def u16(self, pos):
        return self._unpack("<H", pos)

    def i32(self, pos):
        return self._unpack("<i", pos)

    def u32(self, pos):
        return self._unpack("<I", pos)

    def indirect(self, pos: int) -> int:
        return pos + self.u32(pos)

    def field_pos(self, table: int, index: int) -> int | None:
        vtable = table - self.i32(table)
        vtable_size = self.u16(vtable)
        if vtable_size < 4 or vtable_size % 2:
            raise self.fail(f"bad vtable at offset {vtable}")
        slot = 4 + 2 * index
        if slot + 2 > vtable_size:
            return None
        relative = self.u16(vtable + slot)
        return table + relative if relative else None

    def scalar(self, table: int, index: int, reader, default: int) -> int:
        pos = self.field_pos(table, index)
        return default if pos is None else reader(pos)

    def vector(self, table: int, index: int, element_size: int) -> tuple[int, int] | None:
        """(start of elements, length) of a vector field, bounds-checked; None if absent."""
        pos = self.field_pos(table, index)
        if pos is None:
            return None
        vec = self.indirect(pos)
        length = self.u32(vec)
        start = vec + 4
        if start + length * element_size > self.size:
            raise self.fail(f"vector at offset {vec} with {length} elements runs past the end of the file")
        return start, length

    def table_at(self, element_pos: int) -> int:
        return self.indirect(element_pos)

    def string(self, table: int, index: int) -> str | None:
        located = self.vector(table, index, 1)
        if located is None:
            return None
        start, length = located
        try:
            return bytes(self.data[start:start + length]).decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail(f"string at offset {start} is not UTF-8") from None


def _read_operator_codes(fb: _FlatBuffer, model: int) -> list[OperatorCode]:
    located = fb.vector(model, MODEL_OPERATOR_CODES, 4)
    if located is None:
        return []
    start, length = located
    codes = []
    for i in range(length):
        entry = fb.table_at(start + 4 * i)
        custom = fb.string(entry, OPCODE_CUSTOM)
        deprecated = fb.scalar(entry, OPCODE_DEPRECATED_BUILTIN, fb.i8, 0)
        builtin = fb.scalar(entry, OPCODE_BUILTIN, fb.i32, 0)
        version = fb.scalar(entry, OPCODE_VERSION, fb.i32, 1)
        code = max(deprecated, builtin)
        if custom is not None and code in (0, CUSTOM_BUILTIN_CODE):
            codes.append(OperatorCode(None, custom, version))
        elif code == CUSTOM_BUILTIN_CODE:
            raise fb.fail(f"operator code {i} is CUSTOM but has no custom_code name")
        else:
            codes.append(OperatorCode(code, None, version))
    return codes


def _count_uses(fb: _FlatBuffer, model: int, code_count: int) -> tuple[int, dict[int, dict[int, int]]]:
    """(subgraph count, {opcode index: {subgraph index: uses}})."""
    located = fb.vector(model, MODEL_SUBGRAPHS, 4)
    if located is None:
        return 0, {}
    start, length = located
    uses: dict[int, dict[int, int]] = {}
    for sub in range(length):
        subgraph = fb.table_at(start + 4 * sub)
        ops = fb.vector(subgraph, SUBGRAPH_OPERATORS, 4)
        if ops is None:
            continue
        op_start, op_count = ops
        for j in range(op_count):
            operator = fb.table_at(op_start + 4 * j)
            index = fb.scalar(operator, OPERATOR_OPCODE_INDEX, fb.u32, 0)
            if index >= code_count:
                raise fb.fail(
                    f"subgraph {sub} operator {j} uses opcode index {index}, "
                    f"past the operator_codes table ({code_count} entries)"
                )
            per_sub = uses.setdefault(index, {})
            per_sub[sub] = per_sub.get(sub, 0) + 1
    return length, uses


def read_model(path: str | os.PathLike, builtin_name=None) -> ModelOps:
    """Read the operator uses of one .tflite file. builtin_name(code) -> enum name (raises for unknown codes)."""
    import hashlib

    path = Path(path)
    label = str(path)
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size == 0:
                raise ResolverGenError(f"{label}: empty file")
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except IsADirectoryError:
        raise ResolverGenError(f"{label}: is a directory, not a .tflite model") from None
    except FileNotFoundError:
        raise ResolverGenError(f"{label}: no such file") from None
    except OSError as error:
        raise ResolverGenError(f"{label}: cannot read ({error.strerror or error})") from None
    try:
        fb = _FlatBuffer(data, label)
        if size < 8:
            raise fb.fail(f"too short for a FlatBuffer ({size} bytes)")
        if bytes(data[4:8]) != FILE_IDENTIFIER:
            raise fb.fail(f"not a TFLite model (file identifier {bytes(data[4:8])!r}, expected b'TFL3')")
        model = fb.indirect(0)
        version = fb.scalar(model, MODEL_VERSION, fb.u32, 0)
        if version != SCHEMA_VERSION:
            raise fb.fail(f"unsupported TFLite schema version {version} (expected {SCHEMA_VERSION})")
        codes = _read_operator_codes(fb, model)
        subgraph_count, uses = _count_uses(fb, model, len(codes))
        digest = hashlib.sha256(data).hexdigest()
    finally:
        data.close()

    merged: dict[tuple, OperatorUse] = {}
    for index in sorted(uses):
        code = codes[index]
        if code.custom_name is not None:
            name = code.custom_name
        else:
            name = builtin_name(code.builtin_code) if builtin_name else str(code.builtin_code)
            if name is None:
                raise ResolverGenError(f"{label}: builtin operator code {code.builtin_code} is newer than gen-resolver knows")
        op = OperatorUse(name, code.builtin_code, code.custom_name)
        op = merged.setdefault(op.key, op)
        if code.version not in op.versions:
            op.versions.append(code.version)
            op.versions.sort()
        for sub, count in uses[index].items():
            op.uses_per_subgraph[sub] = op.uses_per_subgraph.get(sub, 0) + count
    ops = sorted(merged.values(), key=lambda o: (o.name, o.custom_name is not None))
    return ModelOps(path=path, sha256=digest, subgraph_count=subgraph_count, ops=ops)
