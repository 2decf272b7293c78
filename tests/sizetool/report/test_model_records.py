"""Models linked into a firmware in size-report's report: found in the fixture ELFs equal to their sources byte for
byte, each model's symbol expanded into the model's parts (summing to the symbol), records in JSON, saved reports and
the cache, and nothing for a firmware without a model."""

import hashlib
import json

import pytest

from sizetool.inputs.elf_reader import read_elf
from sizetool.inputs.firmware_models import embedded_models
from sizetool.render.html import page_data
from sizetool.render.json_output import render_json
from sizetool.report.model_records import REST
from sizetool.report.report_builder import build_report
from sizetool.report.report_model import load_report, save_report
from tests.conftest import REPO_ROOT

OUT = REPO_ROOT / "fixtures/embedded_models/out"
MODELS = REPO_ROOT / "fixtures/models"
TWO = OUT / "two-models/firmware.elf"
SOURCES = {"g_model": MODELS / "int8_vision.tflite", "keyword::model_data": MODELS / "tflm_custom_ops.tflite"}


@pytest.mark.parametrize("elf,names", [
    (TWO, ["keyword::model_data", "g_model"]),
    (OUT / "two-models/firmware-stripped.elf", ["model@0x08000030", "model@0x080001b0"]),
    (OUT / "tflm-two-models/firmware.elf", ["keyword::model_data", "g_model"]),
])
def test_the_fixture_firmwares_give_their_models_back_byte_for_byte(elf, names):
    found = embedded_models(read_elf(str(elf)))
    assert [m.symbol for m in found] == names
    sources = [MODELS / "int8_vision.tflite", MODELS / "tflm_custom_ops.tflite"]
    if "tflm" in str(elf):
        sources = [MODELS / "int8_vision.tflite", MODELS / "arena_add_chain.tflite"]
    assert sorted(m.data for m in found) == sorted(p.read_bytes() for p in sources)


def test_a_firmware_without_a_model_has_none():
    assert embedded_models(read_elf(str(OUT / "no-models/firmware.elf"))) == []
    assert build_report(str(OUT / "no-models/firmware.elf"), use_cache=False).models == []


def test_a_models_symbol_expands_into_its_parts_summing_to_the_symbol():
    report = build_report(str(TWO), use_cache=False)
    assert sum(e.size for e in report.entries_for("rom")) == report.rom_total
    symbols = {s.name: s for s in read_elf(str(TWO)).symbols}
    for name, source in SOURCES.items():
        parts = [e for e in report.entries if name in e.path]
        assert sum(e.size for e in parts) == symbols[name].size
        assert sum(e.size for e in parts if e.symbol != REST) == source.stat().st_size
        assert not any(e.symbol == name for e in report.entries)  # no longer one opaque leaf
    weights = [e for e in report.entries if "g_model" in e.path and "weights" in e.path]
    assert {e.path[-1] for e in weights} >= {"operator 0 CONV_2D", "operator 2 FULLY_CONNECTED"}
    rest = [e for e in report.entries if e.symbol == REST]
    assert [(e.path[-1], e.size) for e in rest] == [("keyword::model_data", 1)]  # the string literal's NUL


def test_records_carry_symbol_address_size_digest_and_operators_through_json_saves_and_the_cache(tmp_path,
                                                                                                  monkeypatch):
    report = build_report(str(TWO), use_cache=False)
    listed = json.loads(render_json(report, ["rom"]))["embedded_models"]
    assert [(m["symbol"], m["size"], m["sha256"]) for m in listed] == [
        (name, SOURCES[name].stat().st_size, hashlib.sha256(SOURCES[name].read_bytes()).hexdigest())
        for name in ("keyword::model_data", "g_model")]
    assert listed[1]["operators"] == ["AVERAGE_POOL_2D", "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED",
                                      "MAX_POOL_2D", "PAD", "RESHAPE", "SOFTMAX", "TRANSPOSE"]
    assert listed[1]["address"] == next(s.address for s in read_elf(str(TWO)).symbols if s.name == "g_model")
    save_report(report, str(tmp_path / "saved.json"))
    assert load_report(tmp_path / "saved.json").models == report.models
    monkeypatch.setenv("SIZETOOL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SIZETOOL_NO_CACHE", raising=False)
    build_report(str(TWO))
    assert build_report(str(TWO)).models == report.models  # the second comes from the cache


def test_the_treemap_shows_the_same_parts():
    report = build_report(str(TWO), use_cache=False)
    rom = next(view for view in page_data(report, "t")["views"] if view["id"] == "rom")

    def find(node, name):
        if node["name"] == name:
            return node
        for child in node.get("children", []):
            if found := find(child, name):
                return found
        return None

    g_model = find(rom["tree"], "g_model")
    assert g_model["size"] == SOURCES["g_model"].stat().st_size
    assert {c["name"] for c in g_model["children"]} >= {"weights", "FlatBuffer overhead", "tensor metadata"}


def test_a_model_with_an_op_code_newer_than_the_table_is_still_broken_down_and_recorded():
    from tflm_model.embedded_models import EmbeddedModel

    from sizetool.report.model_records import expand_model_entries, model_record
    from sizetool.report.report_model import SizeEntry

    data = (MODELS / "unknown_builtin_code.tflite").read_bytes()
    model = EmbeddedModel("g_model", ".rodata", 0x1000, len(data), "symbol", data)
    record = model_record(model, "fw.elf")
    assert record.operators == () and record.sha256 == hashlib.sha256(data).hexdigest()
    entry = SizeEntry("rom", ("app.cc",), "g_model", ".rodata", 0x1000, len(data))
    parts = expand_model_entries([entry], [model], "fw.elf")
    assert sum(p.size for p in parts) == len(data) and all(p.path[:2] == ("app.cc", "g_model") for p in parts)
