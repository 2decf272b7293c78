"""The reader's rules, on committed fixtures built by fixtures/models/make_models.py."""

import pytest

from resolver_gen.errors import ResolverGenError
from resolver_gen.tflite_reader import read_model
from resolver_gen.tflm_registry import builtin_name


def ops_of(fixtures_dir, name):
    model = read_model(fixtures_dir / "models" / name, builtin_name)
    return {op.name: (op.versions, op.uses_per_subgraph) for op in model.ops}


def test_deprecated_builtin_code_is_read(fixtures_dir):
    assert ops_of(fixtures_dir, "deprecated_codes.tflite") == {"CONV_2D": ([2], {0: 2}), "SOFTMAX": ([1], {0: 1})}


def test_codes_from_127_come_from_builtin_code(fixtures_dir):
    ops = ops_of(fixtures_dir, "new_codes.tflite")
    assert sorted(ops) == ["BROADCAST_ARGS", "CUMSUM", "FULLY_CONNECTED"]
    assert ops["FULLY_CONNECTED"] == ([4], {0: 2})


def test_ops_used_only_in_other_subgraphs_count(fixtures_dir):
    assert ops_of(fixtures_dir, "two_subgraphs.tflite") == {
        "WHILE": ([1], {0: 1}), "LESS": ([1], {1: 1}), "ADD": ([1], {2: 2})}


def test_unused_operator_codes_are_ignored(fixtures_dir):
    assert ops_of(fixtures_dir, "unused_opcodes.tflite") == {"FULLY_CONNECTED": ([2], {0: 1})}


def test_custom_entries_are_custom_never_a_phantom_add(fixtures_dir):
    model = read_model(fixtures_dir / "models" / "custom_ops.tflite", builtin_name)
    customs = sorted(op.custom_name for op in model.ops if op.custom_name is not None)
    assert customs == ["Atan", "TFLite_Detection_PostProcess", "tftext:WhitespaceTokenizer"]
    assert [op.name for op in model.ops if op.builtin_code is not None] == ["CONV_2D"]


@pytest.mark.parametrize("name, problem", [
    ("truncated.tflite", "out of range"),
    ("wrong_identifier.tflite", "file identifier"),
    ("opcode_index_out_of_range.tflite", "opcode index 5"),
    ("unknown_builtin_code.tflite", "newer than gen-resolver knows"),
])
def test_bad_models_raise_one_error_naming_the_file(fixtures_dir, name, problem):
    with pytest.raises(ResolverGenError) as error:
        read_model(fixtures_dir / "models" / name, builtin_name)
    assert str(error.value).startswith(str(fixtures_dir / "models" / name) + ": ")
    assert problem in str(error.value)


def test_hostile_vector_length_is_rejected(fixtures_dir, tmp_path):
    data = bytearray((fixtures_dir / "models" / "deprecated_codes.tflite").read_bytes())
    # Corrupt every uint32 that reads as a small vector length into a huge one; at least one must be caught.
    path = tmp_path / "hostile.tflite"
    import struct
    root = struct.unpack_from("<I", data, 0)[0]
    vtable = root - struct.unpack_from("<i", data, root)[0]
    codes_field = root + struct.unpack_from("<H", data, vtable + 4 + 2)[0]
    codes_vec = codes_field + struct.unpack_from("<I", data, codes_field)[0]
    struct.pack_into("<I", data, codes_vec, 0x7FFFFFFF)
    path.write_bytes(bytes(data))
    with pytest.raises(ResolverGenError, match="runs past the end of the file"):
        read_model(path, builtin_name)
