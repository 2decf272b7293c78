"""Where a model's bytes go (tflm_model.model_layout): parts that sum exactly to the model's size, the weights under
the operator and tensor that use them, the FlatBuffer's extent, and the model written again without names and
metadata (its size is what stripping saves)."""

import struct
from pathlib import Path

import flatbuffers
import pytest

from tests.conftest import REPO_ROOT
from tflm_model.errors import ModelError
from tflm_model.model_layout import (
    METADATA, OVERHEAD, SIGNATURES, TENSOR_NAMES, WEIGHTS, layout, model_extent, rewrite, strip_saving,
)
from tflm_model.model_source import ModelData
from tflm_model.tensor_graph import read_tensor_graph
from tflm_model.tflite_reader import read_operator_table

FIXTURES = REPO_ROOT / "fixtures/models"
SHARED = REPO_ROOT.parent / "shared/models"
CORRUPT = {"not_a_flatbuffer", "root_offset_out_of_range", "too_short", "truncated", "vector_past_end",
           "vtable_out_of_range", "wrong_identifier"}
VALID_FIXTURES = sorted(p for p in FIXTURES.glob("*.tflite") if p.stem not in CORRUPT)


def _vector(builder, offsets):
    builder.StartVector(4, len(offsets), 4)
    for offset in reversed(offsets):
        builder.PrependUOffsetTRelative(offset)
    return builder.EndVector()


def _ints(builder, values):
    builder.StartVector(4, len(values), 4)
    for value in reversed(values):
        builder.PrependInt32(value)
    return builder.EndVector()


def named_model() -> bytes:
    """A FULLY_CONNECTED model as a converter writes one: tensor and subgraph names, a description, a signature, a
    min_runtime_version metadata buffer and an OfflineMemoryAllocation plan (which TFLM reads and stripping keeps)."""
    b = flatbuffers.Builder(1024)
    weights = b.CreateByteVector(bytes(range(64)))
    runtime = b.CreateByteVector(b"1.14.0\0\0\0\0\0\0\0\0\0\0")
    plan = b.CreateByteVector(struct.pack("<6i", 1, 0, 3, 0, -1, 64))
    buffers = []
    for data in (None, weights, runtime, plan):
        b.StartObject(3)
        if data is not None:
            b.PrependUOffsetTRelativeSlot(0, data, 0)
        buffers.append(b.EndObject())
    tensors = []
    for index, (name, buffer) in enumerate((("serving_default_input:0", 0), ("dense/MatMul", 1),
                                            ("StatefulPartitionedCall:0", 0))):
        name_offset, shape = b.CreateString(name), _ints(b, [1, 8] if index != 1 else [8, 8])
        b.StartObject(8)
        b.PrependUOffsetTRelativeSlot(0, shape, 0)
        b.PrependInt8Slot(1, 9, 0)
        b.PrependUint32Slot(2, buffer, 0)
        b.PrependUOffsetTRelativeSlot(3, name_offset, 0)
        tensors.append(b.EndObject())
    inputs, outputs = _ints(b, [0, 1]), _ints(b, [2])
    b.StartObject(9)
    b.PrependUint32Slot(0, 0, 0)
    b.PrependUOffsetTRelativeSlot(1, inputs, 0)
    b.PrependUOffsetTRelativeSlot(2, outputs, 0)
    operator = b.EndObject()
    tensor_vector, operator_vector = _vector(b, tensors), _vector(b, [operator])
    graph_inputs, graph_outputs, graph_name = _ints(b, [0]), _ints(b, [2]), b.CreateString("main")
    b.StartObject(5)
    b.PrependUOffsetTRelativeSlot(0, tensor_vector, 0)
    b.PrependUOffsetTRelativeSlot(1, graph_inputs, 0)
    b.PrependUOffsetTRelativeSlot(2, graph_outputs, 0)
    b.PrependUOffsetTRelativeSlot(3, operator_vector, 0)
    b.PrependUOffsetTRelativeSlot(4, graph_name, 0)
    subgraph = b.EndObject()
    b.StartObject(4)
    b.PrependInt8Slot(0, 9, 0)
    b.PrependInt32Slot(2, 1, 1)
    b.PrependInt32Slot(3, 9, 0)
    code = b.EndObject()
    metadata = []
    for name, buffer in (("min_runtime_version", 2), ("OfflineMemoryAllocation", 3)):
        name_offset = b.CreateString(name)
        b.StartObject(2)
        b.PrependUOffsetTRelativeSlot(0, name_offset, 0)
        b.PrependUint32Slot(1, buffer, 0)
        metadata.append(b.EndObject())
    maps = []
    for name, tensor in (("input", 0), ("output", 2)):
        name_offset = b.CreateString(name)
        b.StartObject(2)
        b.PrependUOffsetTRelativeSlot(0, name_offset, 0)
        b.PrependUint32Slot(1, tensor, 0)
        maps.append(b.EndObject())
    sig_inputs, sig_outputs, key = _vector(b, maps[:1]), _vector(b, maps[1:]), b.CreateString("serving_default")
    b.StartObject(5)
    b.PrependUOffsetTRelativeSlot(0, sig_inputs, 0)
    b.PrependUOffsetTRelativeSlot(1, sig_outputs, 0)
    b.PrependUOffsetTRelativeSlot(2, key, 0)
    signature = b.EndObject()
    codes, subgraphs, buffer_vector = _vector(b, [code]), _vector(b, [subgraph]), _vector(b, buffers)
    metadata_vector, signatures = _vector(b, metadata), _vector(b, [signature])
    description = b.CreateString("MLIR Converted.")
    b.StartObject(8)
    b.PrependUint32Slot(0, 3, 0)
    b.PrependUOffsetTRelativeSlot(1, codes, 0)
    b.PrependUOffsetTRelativeSlot(2, subgraphs, 0)
    b.PrependUOffsetTRelativeSlot(3, description, 0)
    b.PrependUOffsetTRelativeSlot(4, buffer_vector, 0)
    b.PrependUOffsetTRelativeSlot(6, metadata_vector, 0)
    b.PrependUOffsetTRelativeSlot(7, signatures, 0)
    b.Finish(b.EndObject(), file_identifier=b"TFL3")
    return bytes(b.Output())


def totals(parts) -> dict[str, int]:
    found: dict[str, int] = {}
    for part in parts:
        found[part.path[0]] = found.get(part.path[0], 0) + part.size
    return found


@pytest.mark.parametrize("path", VALID_FIXTURES, ids=lambda p: p.name)
def test_the_parts_of_every_fixture_model_sum_to_its_size_and_cover_each_byte_once(path):
    data = path.read_bytes()
    found = layout(path)
    assert sum(p.size for p in found.parts) == len(data) == found.size
    runs = sorted(run for part in found.parts for run in part.runs)
    assert sum(length for _start, length in runs) == len(data)
    assert all(a[0] + a[1] <= b[0] for a, b in zip(runs, runs[1:]))  # no byte counted twice
    assert found.extent <= len(data) < found.extent + 4  # the Builder pads its output to 4 bytes at most


SHARED_MODELS = sorted(SHARED.glob("*.tflite")) if SHARED.is_dir() else []


@pytest.mark.skipif(not SHARED_MODELS, reason="../shared/models (real converted models) is not beside the repo")
def test_the_parts_of_every_shared_model_sum_to_its_size():
    for path in SHARED_MODELS:
        found = layout(path)
        assert sum(p.size for p in found.parts) == path.stat().st_size, path.name
        graph = read_tensor_graph(path)
        constants = sum(t.has_data for s in graph.subgraphs for t in s.tensors)
        weights = [p for p in found.parts if p.path[0] == WEIGHTS]
        assert len(weights) >= min(constants, 1), path.name  # every model with constants shows weights


def test_weights_are_under_the_operator_and_tensor_that_use_them_and_names_and_metadata_are_counted():
    model = ModelData("named.tflite", named_model())
    found = layout(model, op_names=["FULLY_CONNECTED"])
    weights = [p for p in found.parts if p.path[0] == WEIGHTS]
    assert [(p.path, p.size) for p in weights] == [((WEIGHTS, "operator 0 FULLY_CONNECTED", "dense/MatMul"), 64)]
    sizes = totals(found.parts)
    names = sum(4 + len(n) + 1 for n in ("serving_default_input:0", "dense/MatMul", "StatefulPartitionedCall:0",
                                         "main"))
    assert sizes[TENSOR_NAMES] == names
    assert sizes[SIGNATURES] > 0 and sizes[METADATA] >= 16 + 24 + len("MLIR Converted.")
    assert sizes[OVERHEAD] > 0 and sum(sizes.values()) == len(model.data)
    assert found.extent == len(model.data)


def test_the_stripped_model_keeps_the_graph_weights_and_offline_plan_and_is_smaller():
    model = ModelData("named.tflite", named_model())
    whole, stripped = rewrite(model), rewrite(model, strip=True)
    saving = strip_saving(model)
    assert saving.rewritten == len(whole) and saving.stripped == len(stripped) and saving.saving > 0
    again = ModelData("stripped.tflite", stripped)
    assert read_operator_table(again).operators == read_operator_table(model).operators
    original, reduced = read_tensor_graph(model), read_tensor_graph(again)
    assert reduced.subgraphs == original.subgraphs and reduced.offline_plan == original.offline_plan == (1, 0, 3, 0,
                                                                                                          -1, 64)
    assert bytes(range(64)) in stripped and b"dense/MatMul" not in stripped and b"serving_default" not in stripped
    assert b"min_runtime_version" not in stripped and b"1.14.0" not in stripped
    parts = totals(layout(again).parts)
    assert TENSOR_NAMES not in parts and SIGNATURES not in parts


def _readable(path: Path) -> bool:
    try:
        read_operator_table(path)
    except ModelError:  # FlatBuffers well formed, but an index out of range: nothing to compare
        return False
    return True


@pytest.mark.parametrize("path", [p for p in VALID_FIXTURES if _readable(p)], ids=lambda p: p.name)
def test_a_model_written_again_reads_back_the_same(path):
    again = ModelData(path.name, rewrite(path))
    assert read_operator_table(again).operators == read_operator_table(path).operators


def test_the_extent_of_a_model_followed_by_other_bytes_is_the_model_alone():
    data = (FIXTURES / "int8_vision.tflite").read_bytes()
    assert model_extent(ModelData("m", data + bytes(64) + b"TFL3"), len(data) + 68) == len(data)


def test_a_file_that_is_not_a_model_is_a_model_error():
    with pytest.raises(ModelError, match="not a TFLite model"):
        layout(FIXTURES / "wrong_identifier.tflite")


def test_the_buffers_no_tensor_uses_are_emptied_and_nothing_else_moves(shared_models):
    from tflm_model.model_layout import unused_buffers

    model = shared_models / "trained_lstm_int8.tflite"
    assert unused_buffers(model) == {17, 18}  # 20 and 40 bytes no tensor and no metadata entry reads
    emptied = ModelData("emptied.tflite", rewrite(model, empty_unused=True))
    assert unused_buffers(emptied) == set()
    assert read_operator_table(emptied).operators == read_operator_table(model).operators
    assert read_tensor_graph(emptied).subgraphs == read_tensor_graph(model).subgraphs
    assert len(rewrite(model)) - len(emptied.data) >= 60  # their data, length words and padding, at least
    used = totals(layout(emptied).parts)[WEIGHTS]
    assert used == totals(layout(model).parts)[WEIGHTS] - 60


def test_a_model_without_unused_buffers_is_written_the_same_with_or_without_emptying(shared_models):
    from tflm_model.model_layout import unused_buffers

    model = shared_models / "person_detect.tflite"
    assert unused_buffers(model) == set()
    assert rewrite(model, empty_unused=True) == rewrite(model)
