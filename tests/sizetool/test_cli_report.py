"""The `size-report ELF` command end to end: formats, determinism, saved reports and bad input."""

import csv
import io
import json
import os

from pathlib import Path

import pytest

from sizetool import cli
from sizetool.report.report_model import load_report

ELF = str(Path(__file__).resolve().parents[2] / "fixtures/firmware/out/cortex-m4/firmware.elf")


def run(capsys, *argv):
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_json_has_zephyrs_shape_and_sums(capsys):
    status, out, _ = run(capsys, ELF, "--format", "json")
    data = json.loads(out)
    assert status == 0
    assert set(data) >= {"symbols", "total_size"}
    root = data["symbols"]
    assert {"name", "identifier", "size", "children"} <= set(root)
    assert root["size"] == data["total_size"] == sum(child["size"] for child in root["children"])


def test_csv_rows_sum_to_the_ram_total(capsys):
    _, out, _ = run(capsys, ELF, "--format", "csv", "--ram")
    rows = list(csv.DictReader(io.StringIO(out)))
    _, json_out, _ = run(capsys, ELF, "--format", "json", "--ram")
    assert sum(int(r["size"]) for r in rows) == json.loads(json_out)["total_size"]
    assert {r["memory"] for r in rows} == {"ram"}


@pytest.mark.parametrize("fmt", ["tree", "json", "csv", "markdown"])
def test_output_is_byte_identical_across_runs(capsys, fmt):
    first = run(capsys, ELF, "--format", fmt, "--all")[1]
    second = run(capsys, ELF, "--format", fmt, "--all")[1]
    assert first == second and first


def test_saved_report_reads_back_with_the_same_entries(capsys, tmp_path):
    saved = tmp_path / "report.json"
    run(capsys, ELF, "--format", "json", "--save", str(saved))
    report = load_report(saved)
    from sizetool.report.report_builder import build_report

    original = build_report(ELF)
    assert report.rom_total == original.rom_total and report.ram_total == original.ram_total
    assert sorted((e.memory, e.path, e.symbol, e.size) for e in report.entries) == sorted(
        (e.memory, e.path, e.symbol, e.size) for e in original.entries
    )


def test_depth_folds_the_tree(capsys):
    _, folded, _ = run(capsys, ELF, "--depth", "1")
    _, full, _ = run(capsys, ELF)
    assert "kernels" in folded and "fully_connected.cc" not in folded and "fully_connected.cc" in full


def bad_inputs(tmp_path):
    truncated = tmp_path / "truncated.elf"
    truncated.write_bytes(open(ELF, "rb").read()[:3000])
    empty = tmp_path / "empty.elf"
    empty.write_bytes(b"")
    text = tmp_path / "notes.txt"
    text.write_text("not an elf\n")
    corrupt = tmp_path / "corrupt-headers.elf"
    data = bytearray(open(ELF, "rb").read())
    data[0x20:0x24] = (0x7FFFFFF0).to_bytes(4, "little")  # e_shoff far past the end of the file
    corrupt.write_bytes(bytes(data))
    return [tmp_path / "missing.elf", tmp_path, empty, text, truncated, corrupt]


def test_every_bad_input_is_one_line_and_status_2(capsys, tmp_path):
    for path in bad_inputs(tmp_path):
        status, out, err = run(capsys, str(path))
        assert status == 2, path
        assert err.count("\n") == 1 and str(path) in err and "Traceback" not in err, err


def test_output_file_is_not_written_on_error(capsys, tmp_path):
    target = tmp_path / "out.txt"
    status, _, _ = run(capsys, str(tmp_path / "missing.elf"), "-o", str(target))
    assert status == 2 and not target.exists()
    status, _, _ = run(capsys, ELF, "-o", str(target), "--format", "csv")
    assert status == 0 and target.read_text().startswith("memory,path")
    assert [p for p in os.listdir(tmp_path) if p.startswith(".tmp-")] == []


def test_html_is_rendered_by_render_html_or_is_a_clear_error(capsys):
    import importlib.util

    status, out, err = run(capsys, ELF, "--format", "html")
    if importlib.util.find_spec("sizetool.render.html") is None:
        assert status == 2 and err.strip() == "size-report: error: html output is not available in this installation"
    else:
        assert status == 0 and "<html" in out.lower()


def test_unknown_format_and_group_by_are_usage_errors(capsys):
    for option, value in (("--format", "yaml"), ("--group-by", "dir")):
        status, _, err = run(capsys, ELF, option, value)
        assert status == 2 and value in err and err.count("\n") == 1


def test_corrupt_dwarf_still_reports_symbols_with_a_warning(capsys, tmp_path):
    from sizetool.inputs.elf_reader import read_elf

    info = read_elf(ELF).section_by_name(".debug_info")
    data = bytearray(open(ELF, "rb").read())
    data[info.offset + 11 : info.offset + info.size] = b"\xee" * (info.size - 11)
    broken = tmp_path / "broken.elf"
    broken.write_bytes(bytes(data))
    status, out, err = run(capsys, str(broken), "--format", "csv")
    assert status == 0 and "tflite::Register_SOFTMAX()" in out
    assert "warning" in err and "DWARF" in err and "Traceback" not in err


def test_toolchain_code_has_its_own_top_level_node(capsys):
    _, out, _ = run(capsys, ELF, "--format", "csv")
    paths = {row.split(",")[1] for row in out.splitlines()[1:]}
    assert any(p.startswith("(toolchain)/libgcc/") for p in paths)
    assert not any(p.startswith("(outside workspace)") for p in paths)


def test_mangled_and_group_by_cu(capsys):
    _, out, _ = run(capsys, ELF, "--format", "csv", "--mangled", "--group-by", "cu")
    rows = list(csv.DictReader(io.StringIO(out)))
    resolver = [r for r in rows if "MicroMutableOpResolverILj13EE10AddBuiltin" in r["symbol"]]
    assert resolver and {r["path"] for r in resolver} == {"app/main.cc"}


def test_map_coverage_through_the_command(capsys):
    status, out, _ = run(capsys, ELF, "--format", "csv", "--map", ELF.replace(".elf", ".map"))
    rows = list(csv.DictReader(io.StringIO(out)))
    total = sum(int(r["size"]) for r in rows)
    anonymous = sum(int(r["size"]) for r in rows if r["path"].startswith(("(no symbol)", "(no debug info)")))
    assert status == 0 and anonymous / total < 0.005


def test_cached_and_uncached_runs_print_the_same_bytes(capsys):
    cold = run(capsys, ELF, "--format", "json", "--all", "--no-cache")[1]
    run(capsys, ELF, "--format", "json", "--all")
    warm = run(capsys, ELF, "--format", "json", "--all")[1]
    assert cold == warm


# --ops and --model. The fake-table test checks the wiring whatever sizetool/operators/operator_cost.py computes; the others
# run the real operator-cost analysis on the fixture firmware, whose registrations are listed in manifest.json.

MODELS = Path(__file__).resolve().parents[2] / "fixtures/models"
VISION = str(MODELS / "vision_subset.tflite")
MANIFEST = json.loads((Path(ELF).parents[1] / "manifest.json").read_text())
FIRMWARE_OPS = set(MANIFEST["builds"]["cortex-m4/firmware.elf"]["ops"])
# What vision_subset.tflite uses (fixtures/models/make_models.py), as the firmware's registrations: CONV_2D also
# through the INT8 kernel, Sinh through Register_SINH, SignalWindow and TFLite_Detection_PostProcess through theirs.
VISION_REGISTRATIONS = {"CONV_2D", "CONV_2D_INT8", "DEPTHWISE_CONV_2D", "ADD", "RESHAPE", "SOFTMAX", "SINH", "WINDOW",
                        "DETECTION_POSTPROCESS"}


@pytest.fixture
def fake_operator_cost(monkeypatch):
    """Stand-ins for the operator graph (sizetool.operators.graph_cache) and sizetool.operators.operator_cost returning
    a hand-built table (and recording their arguments)."""
    import sys
    import types

    from sizetool.operators import graph_cache
    from sizetool.report.operator_records import OperatorCost, OperatorTable

    calls = []
    graph = types.SimpleNamespace(graph=types.SimpleNamespace(decoded=False))  # no set answers from a fake

    def load_operator_graph(elf_path, map_path=None, use_cache=True, image=None):
        calls.append((elf_path, map_path))
        return graph

    def operator_table_for_graph(operator_graph, report, source):
        assert operator_graph is graph
        calls.append((source, report.source))
        return OperatorTable(operators=[OperatorCost("SOFTMAX", "tflite::Register_SOFTMAX()", 2939, 10, ()),
                                        OperatorCost("MUL", "tflite::Register_MUL()", 998, 10, ())],
                             runtime_bytes=100, total_rom=5000)

    module = types.ModuleType("sizetool.operators.operator_cost")
    module.operator_table_for_graph = operator_table_for_graph
    monkeypatch.setitem(sys.modules, "sizetool.operators.operator_cost", module)
    monkeypatch.setattr(graph_cache, "load_operator_graph", load_operator_graph)
    monkeypatch.setattr(graph_cache, "operator_table_for_graph", operator_table_for_graph)
    return calls


def test_ops_prints_the_operator_table_from_operator_cost(capsys, fake_operator_cost, tmp_path):
    status, out, _ = run(capsys, ELF, "--ops", "--format", "json", "--map", ELF.replace(".elf", ".map"))
    data = json.loads(out)
    assert status == 0 and [o["op"] for o in data["operators"]] == ["SOFTMAX", "MUL"]
    assert fake_operator_cost == [(ELF, ELF.replace(".elf", ".map")), (ELF, ELF)]
    saved = tmp_path / "saved.json"
    status, out, _ = run(capsys, ELF, "--ops", "--save", str(saved))
    assert status == 0 and out.startswith("Operators of firmware.elf") and "symbols" not in out
    assert [o.op for o in load_report(saved).operators.operators] == ["SOFTMAX", "MUL"]


def test_model_gate_with_a_fake_table(capsys, fake_operator_cost):
    status, out, _ = run(capsys, ELF, "--model", str(MODELS / "deprecated_codes.tflite"), "--format", "json")
    data = json.loads(out)  # the model uses CONV_2D and SOFTMAX; the fake firmware has SOFTMAX and MUL
    assert status == 1 and [m["op"] for m in data["missing"]] == ["CONV_2D"]
    assert [u["op"] for u in data["unused"]] == ["MUL"] and data["unused_exclusive_bytes"] == 998


def test_ops_json_lists_the_fixture_registrations(capsys):
    pytest.importorskip("sizetool.operators.operator_cost")
    status, out, _ = run(capsys, ELF, "--ops", "--format", "json")
    data = json.loads(out)
    assert status == 0 and {o["op"] for o in data["operators"]} == FIRMWARE_OPS
    assert {"operators", "resolvers", "runtime_bytes", "total_rom"} <= set(data)
    resolver_sizes = {int(name.split("<")[1].rstrip(">")) for name in
                      MANIFEST["builds"]["cortex-m4/firmware.elf"]["resolvers"]}
    assert {r["n"] for r in data["resolvers"]} == resolver_sizes and data["several_resolver_sizes"] is True
    window = next(o for o in data["operators"] if o["op"] == "WINDOW")
    assert window["registration"] == "tflite::tflm_signal::Register_WINDOW()"


@pytest.mark.parametrize("fmt", ["tree", "json", "csv", "markdown"])
def test_ops_output_is_deterministic(capsys, fmt):
    pytest.importorskip("sizetool.operators.operator_cost")
    first = run(capsys, ELF, "--ops", "--format", fmt)
    assert first[0] == 0 and first[1] and first == run(capsys, ELF, "--ops", "--format", fmt, "--no-cache")


def test_model_crosscheck_on_the_fixture_firmware(capsys):
    pytest.importorskip("sizetool.operators.operator_cost")
    status, out, _ = run(capsys, ELF, "--model", VISION, "--format", "json")
    data = json.loads(out)
    assert status == 0 and data["missing"] == []
    assert {u["op"] for u in data["unused"]} == FIRMWARE_OPS - VISION_REGISTRATIONS
    exclusive = {o["op"]: o["exclusive_bytes"] for o in data["operators"]}
    assert data["unused_exclusive_bytes"] == sum(exclusive[u["op"]] for u in data["unused"])
    # Repeated --model and models after the ELF are the same thing.
    custom = str(MODELS / "custom_ops.tflite")
    repeated = run(capsys, ELF, "--model", VISION, "--model", custom)
    shorthand = run(capsys, ELF, "--model", VISION, custom)
    assert repeated == shorthand and repeated[0] == 1
    assert "Atan" in repeated[1] and "tftext:WhitespaceTokenizer" in repeated[1]


@pytest.mark.parametrize("argv,message", [
    ([ELF, str(MODELS / "vision_subset.tflite")], "unexpected extra argument"),
    ([ELF, "--model", str(MODELS / "truncated.tflite")], "truncated.tflite"),
    ([ELF, "--model", str(MODELS / "missing.tflite")], "missing.tflite: no such file"),
    ([ELF, "--ops", "--ram"], "ROM"),
    ([ELF.replace("firmware.elf", "firmware-stripped.elf"), "--model", VISION], "no TFLM operator registrations"),
])
def test_ops_and_model_input_errors_are_one_line_and_status_2(capsys, argv, message):
    pytest.importorskip("sizetool.operators.operator_cost")
    status, out, err = run(capsys, *argv)
    assert status == 2 and message in err and err.count("\n") == 1 and out == ""


def test_an_elf_without_tflm_has_an_empty_table_that_says_so(capsys):
    pytest.importorskip("sizetool.operators.operator_cost")
    stripped = ELF.replace("firmware.elf", "firmware-stripped.elf")
    status, out, _ = run(capsys, stripped, "--ops", "--format", "json")
    data = json.loads(out)
    assert status == 0 and data["operators"] == [] and data["runtime_bytes"] == data["total_rom"]
    assert "no TFLM operator registrations found" in data["notes"][0]


def test_ops_with_html_adds_the_operator_view(capsys):
    pytest.importorskip("sizetool.operators.operator_cost")
    pytest.importorskip("sizetool.render.html")
    status, out, _ = run(capsys, ELF, "--ops", "--format", "html")
    assert status == 0 and '"id":"ops"' in out and '"id":"ops"' not in run(capsys, ELF, "--format", "html")[1]


# --drop / --keep and the set answers of --model, on the fixture firmware and its keep-only links (manifest.json).

KEEP_VISION = MANIFEST["builds"]["keep-only/cortex-m4/vision_subset.elf"]


def test_model_json_predicts_the_firmware_with_exactly_the_models_ops(capsys):
    status, out, _ = run(capsys, ELF, "--model", VISION, "--format", "json")
    data = json.loads(out)
    assert status == 0 and data["predicted_rom"] == data["total_rom"] - data["unused_saving"]["bytes"]
    assert abs(data["predicted_rom"] - KEEP_VISION["flash_bytes"]) <= 256
    assert sorted(data["unused_saving"]["ops"]) == sorted(KEEP_VISION["dropped"])
    tree = run(capsys, ELF, "--model", VISION)[1]
    assert f"Dropping the {len(KEEP_VISION['dropped'])} ops no model uses saves {data['unused_saving']['bytes']} " \
           "bytes" in tree
    assert f"Firmware with exactly these models' ops: {data['predicted_rom']} bytes" in tree


@pytest.mark.parametrize("fmt", ["tree", "json", "csv", "markdown"])
def test_drop_prints_the_saving_and_the_predicted_rom(capsys, fmt):
    status, out, _ = run(capsys, ELF, "--drop", ",".join(KEEP_VISION["dropped"]), "--format", fmt)
    assert status == 0
    keep = run(capsys, ELF, "--keep", VISION, "--format", fmt)
    assert keep[0] == 0
    if fmt == "json":
        dropped, kept = json.loads(out), json.loads(keep[1])
        assert dropped["predicted_rom"] == kept["predicted_rom"]
        assert abs(dropped["predicted_rom"] - KEEP_VISION["flash_bytes"]) <= 256
        assert {f["path"] for f in dropped["files"]} >= {"kernels/pooling.cc", "kernels/mul.cc"}
    else:
        assert "kernels/pooling.cc" in out and "predicted" in out.lower()


@pytest.mark.parametrize("argv,message", [
    (["--drop", "ADD", "--keep", "MUL"], "not both"),
    (["--drop", "ADD", "--model", VISION], "separate questions"),
    (["--drop", "NOT_AN_OP"], "--drop NOT_AN_OP: no such operator registration"),
    (["--keep", "ADD", "--format", "html"], "not html"),
])
def test_what_if_errors_are_one_line_and_status_2(capsys, argv, message):
    status, out, err = run(capsys, ELF, *argv)
    assert status == 2 and message in err and err.count("\n") == 1 and out == ""


def test_a_second_question_on_the_same_elf_reuses_the_graph(capsys, monkeypatch):
    from sizetool.operators import graph_cache

    assert run(capsys, ELF, "--drop", "ADD")[0] == 0
    monkeypatch.setattr(graph_cache, "analyse_operators", lambda *a: pytest.fail("disassembled again"))
    assert run(capsys, ELF, "--keep", "ADD,MUL", "--format", "json")[0] == 0


LAYOUTS = Path(__file__).resolve().parents[2] / "fixtures/layouts/out"


def test_a_map_from_another_build_a_truncated_map_and_an_object_file_are_one_line_and_status_2(capsys, tmp_path):
    flash0 = str(LAYOUTS / "flash0" / "firmware.elf")
    other_map = str(LAYOUTS / "dtcm-itcm" / "firmware.map")
    text = (LAYOUTS / "flash0" / "firmware.map").read_text()
    truncated = tmp_path / "truncated.map"
    truncated.write_text(text[: len(text) // 2])
    target = tmp_path / "out.json"
    cases = [
        ((flash0, "--map", other_map), other_map, "does not belong to"),
        ((flash0, "--map", str(truncated)), str(truncated), "truncated map file"),
        ((str(LAYOUTS / "relocatable" / "add.o"),), "add.o", "relocatable object"),
    ]
    for argv, named, problem in cases:
        status, out, err = run(capsys, *argv, "--format", "json", "-o", str(target))
        assert status == 2 and out == "" and not target.exists(), argv
        assert err.count("\n") == 1 and named in err and problem in err and "Traceback" not in err, err


def test_the_report_leaves_the_cyclic_collector_as_it_found_it(capsys):
    # The command runs with the cyclic collector off (its data has no cycles); callers in the same process get it
    # back, also after an error.
    import gc

    assert gc.isenabled()
    assert run(capsys, ELF, "--ops")[0] == 0
    assert gc.isenabled()
    assert run(capsys, ELF, "--format", "nonsense")[0] == 2
    assert gc.isenabled()
    gc.disable()
    try:
        run(capsys, ELF, "--format", "json")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_cold_operator_table_reads_the_elf_once(capsys, monkeypatch):
    # The report and the operator graph share one reading of the ELF (symbols read and demangled once).
    from sizetool.inputs import elf_reader
    from sizetool.operators import graph_cache

    reads = []
    read_elf = elf_reader.read_elf

    def counting_read_elf(path):
        reads.append(str(path))
        return read_elf(path)

    monkeypatch.setattr(elf_reader, "read_elf", counting_read_elf)
    monkeypatch.setattr(graph_cache, "read_elf", counting_read_elf)
    assert run(capsys, ELF, "--ops", "--no-cache")[0] == 0
    assert reads == [ELF]
