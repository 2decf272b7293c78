"""C arrays read back equal to the model they were written from, in every style TFLM applications hold one, and the
compiler agrees with the reader about the bytes each array holds."""

import shutil
import subprocess

import pytest

from tflm_model.c_arrays import read_c_arrays
from tests.conftest import FIXTURES
from tests.tflm_model import c_array_styles as styles

MODELS = sorted(p for p in (FIXTURES / "models").glob("*.tflite") if p.read_bytes()[4:8] == b"TFL3")
STYLES = {
    "xxd": styles.xxd_style,
    "generate_cc_arrays": lambda data, name: styles.generate_cc_arrays_source(data, name, "model_data.h"),
    "attribute": styles.attribute_style,
    "macro_aligned": styles.macro_aligned_style,
    "decimal": styles.decimal_style,
    "string": styles.string_style,
}


def only_array(text):
    found = read_c_arrays(text)
    assert not found.unreadable, found.unreadable
    assert len(found.arrays) == 1, [a.name for a in found.arrays]
    return found.arrays[0]


@pytest.mark.parametrize("style", STYLES)
def test_every_fixture_model_reads_back_byte_for_byte(style):
    for path in MODELS:
        data = path.read_bytes()
        array = only_array(STYLES[style](data, "g_model"))
        assert array.name == "g_model"
        assert array.data == data, path.name


def test_several_arrays_in_one_file_each_read_with_its_line():
    first, second = (FIXTURES / "models" / "vision_subset.tflite").read_bytes(), (
        FIXTURES / "models" / "control_flow.tflite").read_bytes()
    text = styles.several_arrays({"g_vision": first, "g_control": second}, bytes(range(40)))
    found = read_c_arrays(text)
    assert [(a.name, a.data) for a in found.arrays] == [("g_vision", first), ("g_image", bytes(range(40))),
                                                        ("g_control", second)]
    lines = text.splitlines()
    assert all(a.name + "[]" in lines[a.line - 1] for a in found.arrays)


def test_the_header_of_a_generated_pair_only_declares_the_array():
    found = read_c_arrays(styles.generate_cc_arrays_header("g_model"))
    assert found.arrays == () and found.declared == ("g_model",)


@pytest.mark.parametrize("text, expected", [
    ('const char m[] = "ab" "\\x41" "\\101\\0" "\\n\\t\\\\\\"\\?";', b"abAA\0\n\t\\\"?"),
    ('const unsigned char m[] = {"\\x1c\\x00", "x"};', None),  # two strings in braces: not one initializer
    ('const unsigned char m[] = { "TFL3" };', b"TFL3"),
    ("const uint8_t m[4] = {'T', 'F', 0114, 0b110011,};", b"TFL3"),
    ("unsigned char m[] = {(uint8_t)0xffu, -1, +2, 255U};", b"\xff\xff\x02\xff"),
    ('const char m[] = u8"\\xe9" "\u00e9";', b"\xe9\xc3\xa9"),
    ("const char m[] = \"\\x0041\";", b"A"),  # \\x takes every hex digit: 0x0041
])
def test_literals_read_as_c_reads_them(text, expected):
    found = read_c_arrays(text)
    if expected is None:
        assert found.arrays == () and "after its literals" in found.unreadable[0].reason
    else:
        assert found.arrays[0].data == expected


@pytest.mark.parametrize("text, reason", [
    ("const unsigned char m[] = {0x1c, 0x100};", "value 0x100 does not fit in a byte"),
    ("const unsigned char m[] = {1, 2, 300};", "value 300 does not fit in a byte"),
    ("const unsigned char m[] = {0x1c, MODEL_BYTE};", "element 'MODEL_BYTE' is not an integer"),
    ("const unsigned char m[2] = {1, 2, 3};", "3 initializers for an array of 2"),
    ('const char m[] = "\\x123";', "value \\x123 does not fit in a byte"),
    ('const char m[] = "\\q";', "unknown escape \\q"),
])
def test_an_unreadable_byte_array_is_reported_with_the_reason(text, reason):
    found = read_c_arrays(text)
    assert found.arrays == () and found.unreadable[0].name == "m" and reason in found.unreadable[0].reason


@pytest.mark.parametrize("text", [
    "const int m[] = {1, 2, 3};",
    "const float m[] = {1.0f};",
    "const char* const m[] = {\"a\", \"b\"};",
    "const uint16_t m[] = {0x1c};",
    "// const unsigned char m[] = {0x1c};",
    "#define M(x) const unsigned char m[] = {x}",
    "unsigned char buffer[64];",
])
def test_other_declarations_are_not_byte_arrays(text):
    found = read_c_arrays(text)
    assert found.arrays == () and found.unreadable == () and found.declared == ()


compiler = shutil.which("c++") or shutil.which("g++")


@pytest.mark.skipif(compiler is None, reason="no C++ compiler on PATH")
@pytest.mark.parametrize("style", STYLES)
def test_the_compiler_places_the_bytes_the_reader_reads(style, tmp_path):
    data = (FIXTURES / "models" / "int8_vision.tflite").read_bytes()
    source = STYLES[style](data, "g_model")
    if style == "generate_cc_arrays":
        (tmp_path / "model_data.h").write_text(styles.generate_cc_arrays_header("g_model"))
    dump = ('#include <cstdio>\nint main() { std::fwrite(g_model, 1, sizeof(g_model), stdout); return 0; }\n')
    (tmp_path / "model.cc").write_text("#include <cstdint>\n#include <stdint.h>\n" + source + dump)
    subprocess.run([compiler, "-std=c++17", "-o", str(tmp_path / "dump"), str(tmp_path / "model.cc")], check=True,
                   cwd=tmp_path, capture_output=True)
    placed = subprocess.run([str(tmp_path / "dump")], check=True, capture_output=True).stdout
    read = only_array(source).data
    # A string initializer's terminating NUL is the compiler's, not the model's.
    assert placed == (read + b"\0" if style == "string" else read) and read == data
