"""Which ops count, as typed records: the schema's code rules, custom ops, unused entries, subgraphs and versions."""

import pytest

from tflm_model.errors import ModelError
from tflm_model.operator_uses import OpKey, op_key, read_model_uses
from tflm_model.tflite_reader import OperatorCodeEntry


def uses_of(fixtures_dir, name):
    model = read_model_uses(fixtures_dir / "models" / name)
    return {op.name: (op.versions, op.uses_per_subgraph) for op in model.ops}


def test_deprecated_builtin_code_alone_is_read(fixtures_dir):
    assert uses_of(fixtures_dir, "deprecated_codes.tflite") == {"CONV_2D": ([2], {0: 2}), "SOFTMAX": ([1], {0: 1})}


def test_codes_from_127_come_from_builtin_code(fixtures_dir):
    ops = uses_of(fixtures_dir, "new_codes.tflite")
    assert ops == {"BROADCAST_ARGS": ([1], {0: 1}), "CUMSUM": ([1], {0: 1}), "FULLY_CONNECTED": ([4], {0: 2})}


def test_ops_used_only_in_while_bodies_count(fixtures_dir):
    assert uses_of(fixtures_dir, "two_subgraphs.tflite") == {
        "ADD": ([1], {2: 2}), "LESS": ([1], {1: 1}), "WHILE": ([1], {0: 1})}


def test_if_and_call_once_bodies_and_versions_per_subgraph(fixtures_dir):
    model = read_model_uses(fixtures_dir / "models" / "control_flow.tflite")
    ops = {op.name: op for op in model.ops}
    assert sorted(ops) == ["ADD", "CALL_ONCE", "FULLY_CONNECTED", "IF", "SUB", "VAR_HANDLE"]
    fully_connected = ops["FULLY_CONNECTED"]
    assert fully_connected.versions == [1, 3]
    assert fully_connected.versions_per_subgraph == {0: [1], 1: [3]}
    assert fully_connected.uses_per_subgraph == {0: 1, 1: 1}
    assert ops["ADD"].versions == [2] and ops["VAR_HANDLE"].uses_per_subgraph == {3: 1}
    assert model.subgraph_count == 4


def test_unused_operator_codes_are_ignored(fixtures_dir):
    assert uses_of(fixtures_dir, "unused_opcodes.tflite") == {"FULLY_CONNECTED": ([2], {0: 1})}


def test_custom_entries_are_never_a_phantom_add(fixtures_dir):
    model = read_model_uses(fixtures_dir / "models" / "custom_ops.tflite")
    assert [op.key for op in model.ops] == [
        OpKey("builtin", "CONV_2D"), OpKey("custom", "Atan"), OpKey("custom", "TFLite_Detection_PostProcess"),
        OpKey("custom", "tftext:WhitespaceTokenizer")]
    assert [op.builtin_code for op in model.ops] == [3, None, None, None]


@pytest.mark.parametrize("entry, expected", [
    (OperatorCodeEntry(32, 0, "FlexAddV2", 1), (OpKey("custom", "FlexAddV2"), None)),  # old converter: phantom ADD
    (OperatorCodeEntry(32, 32, "Sinh", 1), (OpKey("custom", "Sinh"), None)),
    (OperatorCodeEntry(0, 0, None, 1), (OpKey("builtin", "ADD"), 0)),
    (OperatorCodeEntry(127, 209, None, 1), (OpKey("builtin", "STABLEHLO_CASE"), 209)),
    (OperatorCodeEntry(9, 0, None, 1), (OpKey("builtin", "FULLY_CONNECTED"), 9)),
])
def test_op_key_rules(entry, expected):
    assert op_key(entry, "m.tflite", 0) == expected


@pytest.mark.parametrize("name, problem", [
    ("unknown_builtin_code.tflite", "builtin operator code 4000 (operator code 0) is unknown"),
    ("custom_without_name.tflite", "operator code 0 is CUSTOM but has no custom_code name"),
])
def test_bad_operator_codes(fixtures_dir, name, problem):
    path = fixtures_dir / "models" / name
    with pytest.raises(ModelError) as error:
        read_model_uses(path)
    assert str(error.value) == f"{path}: {problem}" or str(error.value).startswith(f"{path}: {problem}")


def test_sha256_is_of_the_whole_file(fixtures_dir):
    import hashlib

    path = fixtures_dir / "models" / "control_flow.tflite"
    assert read_model_uses(path).sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert read_model_uses(path, hash_in_background=False).sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_real_model_traps(shared_models):
    flex = read_model_uses(shared_models / "multi_add_flex.tflite")
    assert [op.key for op in flex.ops] == [OpKey("custom", "FlexAddV2")]
    keyword = read_model_uses(shared_models / "keyword_scrambled.tflite")
    assert [op.name for op in keyword.ops] == ["FULLY_CONNECTED", "QUANTIZE", "SOFTMAX", "SVDF"]
    hello = read_model_uses(shared_models / "hello_world_int8.tflite")
    assert [(op.name, op.versions, op.total_uses) for op in hello.ops] == [("FULLY_CONNECTED", [4], 3)]
    loop = read_model_uses(shared_models / "multi_subgraphs_while.tflite")
    assert {op.name: sorted(op.uses_per_subgraph) for op in loop.ops}["WHILE"] == [0]
    assert any(0 not in op.uses_per_subgraph for op in loop.ops)
