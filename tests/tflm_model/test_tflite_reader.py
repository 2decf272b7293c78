"""The FlatBuffer reader: raw operator tables of the committed fixtures, and one clear error for every corrupt file."""

import pytest

from tflm_model.errors import ModelError
from tflm_model.tflite_reader import OperatorCodeEntry, read_operator_table


def test_reads_operator_codes_as_stored(fixtures_dir):
    table = read_operator_table(fixtures_dir / "models" / "new_codes.tflite")
    assert table.operator_codes == [
        OperatorCodeEntry(deprecated_builtin_code=127, builtin_code=128, custom_code=None, version=1),
        OperatorCodeEntry(deprecated_builtin_code=9, builtin_code=9, custom_code=None, version=4),
        OperatorCodeEntry(deprecated_builtin_code=127, builtin_code=145, custom_code=None, version=1),
    ]
    assert table.subgraph_count == 1
    assert table.uses == {(0, 0): 1, (0, 1): 2, (0, 2): 1}


def test_counts_uses_per_subgraph_and_skips_unused_entries(fixtures_dir):
    table = read_operator_table(fixtures_dir / "models" / "two_subgraphs.tflite")
    assert table.subgraph_count == 3
    assert table.uses == {(0, 0): 1, (1, 1): 1, (2, 2): 2}
    unused = read_operator_table(fixtures_dir / "models" / "unused_opcodes.tflite")
    assert len(unused.operator_codes) == 3 and unused.uses == {(0, 1): 1}


def test_custom_code_strings(fixtures_dir):
    table = read_operator_table(fixtures_dir / "models" / "custom_ops.tflite")
    assert [entry.custom_code for entry in table.operator_codes] == [
        "Atan", "tftext:WhitespaceTokenizer", "TFLite_Detection_PostProcess", None]


@pytest.mark.parametrize("name, problem", [
    ("truncated.tflite", "lies outside the file (80 bytes)"),
    ("wrong_identifier.tflite", "not a TFLite model (file identifier b'XXXX'"),
    ("not_a_flatbuffer.tflite", "not a TFLite model"),
    ("too_short.tflite", "too short for a FlatBuffer (4 bytes)"),
    ("schema_version_2.tflite", "schema version 2, expected 3"),
    ("root_offset_out_of_range.tflite", "offset 2147483632 lies outside the file"),
    ("vtable_out_of_range.tflite", "lies outside the file"),
    ("vector_past_end.tflite", "claims 2147483647 elements, running past the end of the file"),
    ("opcode_index_out_of_range.tflite", "operator 1 uses opcode index 5, past the end of operator_codes (1 entries)"),
])
def test_corrupt_files_raise_one_error_naming_the_file(fixtures_dir, name, problem):
    path = fixtures_dir / "models" / name
    with pytest.raises(ModelError) as error:
        read_operator_table(path)
    message = str(error.value)
    assert message.startswith(f"{path}: ") and problem in message and "\n" not in message


def test_every_truncation_of_a_model_is_an_error_not_a_crash(fixtures_dir, tmp_path):
    data = (fixtures_dir / "models" / "control_flow.tflite").read_bytes()
    path = tmp_path / "cut.tflite"
    for length in range(1, len(data)):
        path.write_bytes(data[:length])
        with pytest.raises(ModelError):
            read_operator_table(path)


@pytest.mark.parametrize("model,seed", [("control_flow", 1234), ("int8_vision", 4321)])
def test_random_byte_flips_never_escape_as_other_exceptions(fixtures_dir, tmp_path, model, seed):
    """Three random bytes changed, 400 times: the reader answers or raises its one error type, nothing else (the
    typed model also exercises tensors and buffers)."""
    import random

    data = (fixtures_dir / "models" / f"{model}.tflite").read_bytes()
    rng = random.Random(seed)
    path = tmp_path / "flipped.tflite"
    for _ in range(400):
        corrupt = bytearray(data)
        for _ in range(3):
            corrupt[rng.randrange(len(corrupt))] = rng.randrange(256)
        path.write_bytes(bytes(corrupt))
        try:
            read_operator_table(path)
        except ModelError:
            pass


@pytest.mark.parametrize("kind, problem", [("missing", "no such file"), ("directory", "is a directory"),
                                           ("empty", "empty file")])
def test_unreadable_paths(tmp_path, kind, problem):
    path = tmp_path / "model.tflite"
    if kind == "directory":
        path.mkdir()
    elif kind == "empty":
        path.write_bytes(b"")
    with pytest.raises(ModelError, match=problem):
        read_operator_table(path)


def test_a_fifo_is_refused_without_blocking(tmp_path):
    import os

    fifo = tmp_path / "model.tflite"
    os.mkfifo(fifo)
    with pytest.raises(ModelError, match="not a regular file"):
        read_operator_table(fifo)


def test_reads_tensor_types_and_constant_inputs(fixtures_dir):
    from tflm_model.tflite_reader import TensorTypes

    table = read_operator_table(fixtures_dir / "models" / "hybrid.tflite")
    float32, int8 = 0, 9
    assert table.operators == {
        (0, 0, TensorTypes((float32, float32, float32), (float32,), (False, True, True))): [0],
        (0, 2, TensorTypes((float32, int8, float32), (float32,), (False, True, True))): [1],
        (0, 3, TensorTypes((float32,), (float32,), (False,))): [2],
    }
    assert table.uses == {(0, 0): 1, (0, 2): 1, (0, 3): 1}


def test_groups_operators_by_types_and_keeps_omitted_inputs(fixtures_dir):
    from tflm_model.tflite_reader import NO_TENSOR, TensorTypes

    table = read_operator_table(fixtures_dir / "models" / "signal_rfft_int16.tflite")
    assert (0, 3, TensorTypes((9, 9, NO_TENSOR), (9,), (False, True, False))) in table.operators
    vision = read_operator_table(fixtures_dir / "models" / "int8_vision.tflite")
    conv = [indices for (sub, index, _types), indices in vision.operators.items() if index == 0]
    assert conv == [[0, 3]]  # both int8 convolutions, one group


@pytest.mark.parametrize("name, problem", [
    ("tensor_index_out_of_range.tflite", "subgraph 0 operator 0 reads tensor 7, past the end of the subgraph's "
                                         "tensors (1 entries)"),
    ("buffer_index_out_of_range.tflite", "subgraph 0 tensor 0 uses buffer 5, past the end of the model's buffers "
                                         "(1 entries)"),
])
def test_bad_tensor_and_buffer_indices(fixtures_dir, name, problem):
    path = fixtures_dir / "models" / name
    with pytest.raises(ModelError) as error:
        read_operator_table(path)
    assert str(error.value) == f"{path}: {problem}"


def test_every_truncation_of_a_typed_model_is_an_error_or_cuts_only_unread_bytes(fixtures_dir, tmp_path):
    model = fixtures_dir / "models" / "signal_rfft_int16.tflite"
    data = model.read_bytes()
    whole = read_operator_table(model).operators
    path = tmp_path / "cut.tflite"
    errors = 0
    for length in range(1, len(data)):
        path.write_bytes(data[:length])
        try:
            assert read_operator_table(path).operators == whole  # only bytes never read were cut (buffer 0's vtable)
        except ModelError:
            errors += 1
    assert errors >= len(data) - 16


