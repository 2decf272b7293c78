"""Finding TFLite models in a firmware's read-only bytes (tflm_model.embedded_models): by the TFL3 identifier, checked
as the reader checks a file, sized by the symbol that holds each or else by the FlatBuffer's extent."""

from tests.conftest import REPO_ROOT
from tflm_model.embedded_models import DataSymbol, SectionBytes, find_embedded_models
from tflm_model.model_source import ModelData, read_model_argument

FIXTURES = REPO_ROOT / "fixtures/models"
VISION = (FIXTURES / "int8_vision.tflite").read_bytes()
CUSTOM = (FIXTURES / "tflm_custom_ops.tflite").read_bytes()
BASE = 0x08000000


def rodata() -> tuple[SectionBytes, list[DataSymbol]]:
    """A .rodata holding a string "TFL3" (TFLM's own identifier check), then VISION, then CUSTOM as a string literal
    (its symbol one byte longer: the NUL), then other data."""
    data = bytearray(b"version TFL3\0\0\0\0")
    vision_at = len(data)
    data += VISION
    custom_at = len(data)
    data += CUSTOM + b"\0" + bytes(11) + b"tail"
    symbols = [DataSymbol("kIdentifier", BASE, 16), DataSymbol("g_model", BASE + vision_at, len(VISION)),
               DataSymbol("_ZN7keyword10model_dataE", BASE + custom_at, len(CUSTOM) + 1)]
    return SectionBytes(".rodata", BASE, bytes(data)), symbols


def test_each_model_is_found_named_by_its_symbol_and_equal_to_its_source():
    section, symbols = rodata()
    found = find_embedded_models([section], symbols)
    assert [(m.symbol, m.address - BASE, m.size, m.sized_by) for m in found] == [
        ("g_model", 16, len(VISION), "symbol"), ("_ZN7keyword10model_dataE", 16 + len(VISION), len(CUSTOM), "symbol")]
    assert found[0].data == VISION and found[1].data == CUSTOM  # the string literal's NUL is not the model's
    assert found[0].sha256 == read_model_argument(str(FIXTURES / "int8_vision.tflite")).sha256


def test_without_symbols_a_model_is_sized_by_its_extent_and_named_by_its_address():
    section, _symbols = rodata()
    found = find_embedded_models([section], [])
    assert [(m.symbol, m.size, m.sized_by) for m in found] == [
        (f"model@0x{BASE + 16:08x}", len(VISION), "extent"),
        (f"model@0x{BASE + 16 + len(VISION):08x}", len(CUSTOM), "extent")]
    assert [m.data for m in found] == [VISION, CUSTOM]


def test_a_model_inside_a_larger_object_is_named_by_that_object():
    section, _symbols = rodata()
    found = find_embedded_models([section], [DataSymbol("g_bundle", BASE + 8, len(section.data) - 8)])
    assert [(m.symbol, m.offset_in_symbol, m.data) for m in found] == [("g_bundle", 8, VISION),
                                                                        ("g_bundle", 8 + len(VISION), CUSTOM)]


def test_bytes_that_only_look_like_a_model_are_not_one():
    fake = bytes(4) + b"TFL3" + bytes(8) + b"\x10\x00\x00\x00TFL3" + bytes(32)
    assert find_embedded_models([SectionBytes(".rodata", 0, fake)], []) == []
    corrupt = (FIXTURES / "vector_past_end.tflite").read_bytes()
    assert find_embedded_models([SectionBytes(".rodata", 0, corrupt)], []) == []


def test_an_embedded_model_is_a_source_labelled_firmware_symbol():
    section, symbols = rodata()
    source = find_embedded_models([section], symbols)[0].source("build/fw.elf")
    assert isinstance(source, ModelData) and source == "build/fw.elf:g_model" and source.data == VISION
