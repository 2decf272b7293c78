"""The tensor graph of a .tflite model: what the tensor-arena estimate needs (shapes, buffers, lifetimes,
quantization, offline plans), read straight from the FlatBuffer bytes with tflite_reader's checked reader.

Apart from tflite_reader because only the arena estimate (`fit`, `ops`' arena, gen-resolver's arena) reads it: a
report that only names a linked model's operators does not define these records (~3 ms of a cold report).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from tflm_model.errors import ModelError
from tflm_model.model_source import ModelData, source_path
from tflm_model.tflite_reader import (
    BUFFER_DATA,
    MODEL_BUFFERS,
    MODEL_SUBGRAPHS,
    NO_TENSOR,
    OPERATOR_INPUTS,
    OPERATOR_OPCODE_INDEX,
    OPERATOR_OUTPUTS,
    SUBGRAPH_OPERATORS,
    SUBGRAPH_TENSORS,
    TENSOR_BUFFER,
    TENSOR_TYPE,
    OperatorCodeEntry,
    opened_model,
    _I8,
    _I32,
    _Reader,
    _U8,
    _U32,
)

MODEL_METADATA = 6
SUBGRAPH_INPUTS, SUBGRAPH_OUTPUTS = 1, 2
OPERATOR_BUILTIN_OPTIONS_TYPE, OPERATOR_BUILTIN_OPTIONS, OPERATOR_CUSTOM_OPTIONS = 3, 4, 5
OPERATOR_INTERMEDIATES = 8
TENSOR_SHAPE, TENSOR_QUANTIZATION, TENSOR_IS_VARIABLE, TENSOR_SHAPE_SIGNATURE = 0, 4, 5, 7
QUANT_SCALE, QUANT_ZERO_POINT, QUANT_QUANTIZED_DIMENSION = 2, 3, 6
METADATA_NAME, METADATA_BUFFER = 0, 1
OFFLINE_PLAN_METADATA = "OfflineMemoryAllocation"

# The builtin options tables whose fields change what TFLM allocates: union type -> (field name, width, default) in
# schema order (widths: 1 = byte enum or bool, 4 = int or float bits). Conv, depthwise and pooling set CMSIS-NN's
# scratch sizes, SVDF's rank and LSTM's time_major the scratch sizes of those kernels; IF, WHILE and CALL_ONCE name
# the subgraphs they run, which the planner walks.
_OPTION_FIELDS: dict[int, tuple[tuple[str, int, int], ...]] = {
    1: (("padding", 1, 0), ("stride_w", 4, 0), ("stride_h", 4, 0), ("activation", 1, 0), ("dilation_w", 4, 1),
        ("dilation_h", 4, 1)),  # Conv2DOptions
    2: (("padding", 1, 0), ("stride_w", 4, 0), ("stride_h", 4, 0), ("depth_multiplier", 4, 0), ("activation", 1, 0),
        ("dilation_w", 4, 1), ("dilation_h", 4, 1)),  # DepthwiseConv2DOptions
    5: (("padding", 1, 0), ("stride_w", 4, 0), ("stride_h", 4, 0), ("filter_w", 4, 0), ("filter_h", 4, 0),
        ("activation", 1, 0)),  # Pool2DOptions
    6: (("rank", 4, 0),),  # SVDFOptions
    71: (("activation", 1, 0), ("cell_clip", 4, 0), ("proj_clip", 4, 0), ("time_major", 1, 0)),  # Unidir. LSTM
    49: (("padding", 1, 0), ("stride_w", 4, 0), ("stride_h", 4, 0), ("activation", 1, 0)),  # TransposeConvOptions
    101: (("adj_x", 1, 0), ("adj_y", 1, 0)),  # BatchMatMulOptions
    92: (("then_subgraph", 4, 0), ("else_subgraph", 4, 0)),  # IfOptions
    93: (("cond_subgraph", 4, 0), ("body_subgraph", 4, 0)),  # WhileOptions
    103: (("init_subgraph", 4, 0),),  # CallOnceOptions
}
_WIDTH_FORMATS = {1: _I8, 4: _I32}


@dataclass(frozen=True)
class GraphTensor:
    """One tensor of a subgraph as stored: type code, shape, whether a buffer with data backs it (a constant, never
    planned in the arena), variable flag, and the lengths of its quantization scale and zero-point vectors."""

    type: int
    shape: tuple[int, ...]
    shape_signature: tuple[int, ...] | None
    has_data: bool
    is_variable: bool
    scale_count: int = 0
    zero_point_count: int = 0
    quantized_dimension: int = 0


@dataclass(frozen=True)
class GraphOperator:
    opcode_index: int
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    intermediates: tuple[int, ...] = ()
    options: tuple[tuple[str, int], ...] = ()  # the known builtin option fields (see _OPTION_FIELDS), as (name, value)
    has_custom_options: bool = False

    def option(self, name: str, default: int = 0) -> int:
        for key, value in self.options:
            if key == name:
                return value
        return default


@dataclass(frozen=True)
class GraphSubgraph:
    tensors: tuple[GraphTensor, ...]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    operators: tuple[GraphOperator, ...]


@dataclass(frozen=True)
class TensorGraph:
    """Every subgraph's tensors and operators, and the model's offline memory plan (the int32 words of the
    "OfflineMemoryAllocation" metadata buffer: version, subgraph, tensor count, then one offset per tensor; None when
    the model has none)."""

    path: Path
    file_size: int
    operator_codes: list[OperatorCodeEntry]
    subgraphs: tuple[GraphSubgraph, ...]
    offline_plan: tuple[int, ...] | None


def _graph_tensor(reader: _Reader, table: int, buffers_start: int, buffer_count: int, where: str) -> GraphTensor:
    shape = reader.int_vector(table, TENSOR_SHAPE)
    signature_pos = reader.field_pos(table, TENSOR_SHAPE_SIGNATURE)
    signature = reader.int_vector(table, TENSOR_SHAPE_SIGNATURE) if signature_pos is not None else None
    buffer = reader.scalar(table, TENSOR_BUFFER, _U32, 0)
    has_data = False
    if buffer:
        if buffer >= buffer_count:
            raise reader.fail(f"{where} uses buffer {buffer}, past the end of the model's buffers ({buffer_count} "
                              "entries)")
        has_data = reader.buffer_has_data(reader.uoffset(buffers_start + 4 * buffer))
    scale_count = zero_point_count = quantized_dimension = 0
    quantization_pos = reader.field_pos(table, TENSOR_QUANTIZATION)
    if quantization_pos is not None:
        quantization = reader.uoffset(quantization_pos)
        scale_count = reader.vector(quantization, QUANT_SCALE, 4)[1]
        zero_point_count = reader.vector(quantization, QUANT_ZERO_POINT, 8)[1]
        quantized_dimension = reader.scalar(quantization, QUANT_QUANTIZED_DIMENSION, _I32, 0)
    return GraphTensor(
        type=reader.scalar(table, TENSOR_TYPE, _I8, 0), shape=tuple(shape),
        shape_signature=tuple(signature) if signature is not None else None, has_data=has_data,
        is_variable=bool(reader.scalar(table, TENSOR_IS_VARIABLE, _U8, 0)), scale_count=scale_count,
        zero_point_count=zero_point_count, quantized_dimension=quantized_dimension)


def _graph_operator(reader: _Reader, table: int, code_count: int, tensor_count: int, where: str) -> GraphOperator:
    index = reader.scalar(table, OPERATOR_OPCODE_INDEX, _U32, 0)
    if index >= code_count:
        raise reader.fail(f"{where} uses opcode index {index}, past the end of operator_codes ({code_count} entries)")
    inputs = tuple(reader.int_vector(table, OPERATOR_INPUTS))
    outputs = tuple(reader.int_vector(table, OPERATOR_OUTPUTS))
    intermediates = tuple(reader.int_vector(table, OPERATOR_INTERMEDIATES))
    for role, tensors in (("reads", inputs), ("writes", outputs), ("has intermediate", intermediates)):
        for tensor in tensors:
            if (tensor != NO_TENSOR or role != "reads") and not 0 <= tensor < tensor_count:
                raise reader.fail(f"{where} {role} tensor {tensor}, past the end of the subgraph's tensors "
                                  f"({tensor_count} entries)")
    options: tuple[tuple[str, int], ...] = ()
    options_type = reader.scalar(table, OPERATOR_BUILTIN_OPTIONS_TYPE, _U8, 0)
    fields = _OPTION_FIELDS.get(options_type)
    options_pos = reader.field_pos(table, OPERATOR_BUILTIN_OPTIONS)
    if fields and options_pos is not None:
        options_table = reader.uoffset(options_pos)
        options = tuple((name, reader.scalar(options_table, i, _WIDTH_FORMATS[width], default))
                        for i, (name, width, default) in enumerate(fields))
    return GraphOperator(index, inputs, outputs, intermediates, options,
                         reader.field_pos(table, OPERATOR_CUSTOM_OPTIONS) is not None)


def _offline_plan(reader: _Reader, model: int, buffers_start: int, buffer_count: int) -> tuple[int, ...] | None:
    start, length = reader.vector(model, MODEL_METADATA, 4)
    for entry in reader.table_offsets(start, length):
        if reader.string(entry, METADATA_NAME) != OFFLINE_PLAN_METADATA:
            continue
        buffer = reader.scalar(entry, METADATA_BUFFER, _U32, 0)
        if buffer >= buffer_count:
            raise reader.fail(f"metadata {OFFLINE_PLAN_METADATA!r} names buffer {buffer}, past the end of the "
                              f"model's buffers ({buffer_count} entries)")
        data_start, data_length = reader.vector(reader.uoffset(buffers_start + 4 * buffer), BUFFER_DATA, 1)
        if data_length < 12 or data_length % 4:
            raise reader.fail(f"metadata {OFFLINE_PLAN_METADATA!r} holds {data_length} bytes, not a header of 3 "
                              "int32 words and one offset per tensor")
        words = struct.unpack_from(f"<{data_length // 4}i", reader.data, data_start)
        if words[2] < 0 or len(words) < 3 + words[2]:
            raise reader.fail(f"metadata {OFFLINE_PLAN_METADATA!r} claims {words[2]} offsets but holds "
                              f"{len(words) - 3}")
        return tuple(words[:3 + words[2]])
    return None


def read_tensor_graph(source) -> TensorGraph:
    """Read every subgraph's tensors (shape, type, constness, quantization counts), operators and inputs/outputs,
    and the offline memory plan of a model (a path or a ModelData); ModelError on bad input. Weights are never read."""
    with opened_model(source) as (reader, model, size, codes):
        buffers_start, buffer_count = reader.vector(model, MODEL_BUFFERS, 4)
        start, subgraph_count = reader.vector(model, MODEL_SUBGRAPHS, 4)
        subgraphs = []
        for sub, subgraph in enumerate(reader.table_offsets(start, subgraph_count)):
            tensors_start, tensor_count = reader.vector(subgraph, SUBGRAPH_TENSORS, 4)
            tensors = tuple(_graph_tensor(reader, table, buffers_start, buffer_count, f"subgraph {sub} tensor {i}")
                            for i, table in enumerate(reader.table_offsets(tensors_start, tensor_count)))
            inputs = tuple(reader.int_vector(subgraph, SUBGRAPH_INPUTS))
            outputs = tuple(reader.int_vector(subgraph, SUBGRAPH_OUTPUTS))
            for role, indices in (("input", inputs), ("output", outputs)):
                for tensor in indices:
                    if not 0 <= tensor < tensor_count:
                        raise reader.fail(f"subgraph {sub} {role} tensor {tensor}, past the end of the subgraph's "
                                          f"tensors ({tensor_count} entries)")
            op_start, op_count = reader.vector(subgraph, SUBGRAPH_OPERATORS, 4)
            operators = tuple(_graph_operator(reader, table, len(codes), tensor_count, f"subgraph {sub} operator {j}")
                              for j, table in enumerate(reader.table_offsets(op_start, op_count)))
            subgraphs.append(GraphSubgraph(tensors, inputs, outputs, operators))
        offline_plan = _offline_plan(reader, model, buffers_start, buffer_count)
    return TensorGraph(source_path(source), size, codes, tuple(subgraphs), offline_plan)
