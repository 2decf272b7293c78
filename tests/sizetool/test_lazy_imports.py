"""A cached `size-report firmware.elf` loads no parsing code: no ELF/DWARF reader, disassembler, database layer,
template engine or CLI framework (most of a cached run's time would be importing them). Checked in a fresh
interpreter, as a user's run is."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIRMWARE = REPO / "fixtures" / "firmware" / "out" / "cortex-m4"
HEAVY = ("elftools", "capstone", "sqlalchemy", "alembic", "jinja2", "typer", "click", "rich", "pydantic", "cxxfilt",
         "flatbuffers", "tempfile")
PROBE = """
import io, json, sys, contextlib
from sizetool import cli
with contextlib.redirect_stdout(io.StringIO()) as out:
    status = cli.main(sys.argv[1:])
print(json.dumps({"status": status, "output": len(out.getvalue()),
                  "modules": sorted({name.split(".")[0] for name in sys.modules})}))
"""


def modules_of_a_run(argv: list[str], cache: Path, probe: str = PROBE) -> dict:
    env = {"SIZETOOL_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, env=env, cwd=REPO,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def modules_at_start_up(tmp_path) -> set[str]:
    """What the interpreter itself loads (site and .pth files of the installation may import some of HEAVY)."""
    probe = "import sys, json; print(json.dumps({'modules': sorted({n.split('.')[0] for n in sys.modules})}))"
    return set(modules_of_a_run([], tmp_path, probe)["modules"])


@pytest.mark.parametrize("options", [[], ["--map", str(FIRMWARE / "firmware.map")], ["--format", "json"],
                                     ["--all", "--format", "csv"], ["--depth", "2", "--format", "markdown"]])
def test_a_cached_report_loads_no_parsing_code(tmp_path, options):
    argv = [str(FIRMWARE / "firmware.elf"), *options]
    cold = modules_of_a_run(argv, tmp_path)
    assert cold["status"] == 0 and "elftools" in cold["modules"]  # the cold run did parse (the probe sees imports)
    cached = modules_of_a_run(argv, tmp_path)
    assert cached["status"] == 0 and cached["output"] == cold["output"]
    loaded = set(cached["modules"]) - modules_at_start_up(tmp_path)
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_diff_and_check_of_saved_reports_load_no_parsing_code(tmp_path):
    """CI runs these on every build: two saved reports compared, a saved report gated, without an ELF reader, a
    database layer or a CLI framework."""
    saved = tmp_path / "report.json"
    assert modules_of_a_run([str(FIRMWARE / "firmware.elf"), "--save", str(saved), "-o", str(tmp_path / "t.txt")],
                            tmp_path)["status"] == 0
    budget = tmp_path / "budget.toml"
    budget.write_text('[rom]\ntotal = "1M"\nmax_growth = "1K"\n')
    start = modules_at_start_up(tmp_path)
    for argv in (["diff", str(saved), str(saved)], ["check", str(saved), "--budget", str(budget), "--baseline",
                                                     str(saved)]):
        run = modules_of_a_run(argv, tmp_path)
        assert run["status"] == 0 and run["output"] > 0
        loaded = set(run["modules"]) - start
        assert not loaded & set(HEAVY), (argv[0], sorted(loaded & set(HEAVY)))


def test_the_operator_table_loads_no_model_reader(tmp_path):
    """`--ops` alone prints the table: the .tflite reader, the arena estimate and the what-if code load only for
    --model, --drop and --keep; and Cortex-M code (Thumb, read by disassembly.thumb_references) needs no capstone."""
    probe = PROBE.replace('sorted({name.split(".")[0] for name in sys.modules})', "sorted(sys.modules)")
    run = modules_of_a_run([str(FIRMWARE / "firmware.elf"), "--ops", "--no-cache"], tmp_path, probe)
    assert run["status"] == 0 and run["output"] > 0
    assert "sizetool.operators.operator_cost" in run["modules"]  # the probe sees the table's own modules
    model_code = {"resolver_gen", "flatbuffers", "sizetool.operators.model_crosscheck", "sizetool.fit.model_fit",
                  "sizetool.operators.what_if", "sizetool.render.arena_fit", "capstone"}
    assert not model_code & set(run["modules"]), sorted(model_code & set(run["modules"]))


def test_a_report_with_a_gnu_map_loads_neither_armlink_nor_iar_reader(tmp_path):
    """Which linker wrote a map is told by map_formats itself: the armlink and IAR readers, their layout records and
    the placement by a stated layout load only for their maps."""
    probe = PROBE.replace('sorted({name.split(".")[0] for name in sys.modules})', "sorted(sys.modules)")
    run = modules_of_a_run([str(FIRMWARE / "firmware.elf"), "--map", str(FIRMWARE / "firmware.map"), "--no-cache"],
                           tmp_path, probe)
    assert run["status"] == 0 and "sizetool.inputs.map_file" in run["modules"]
    readers = {"sizetool.inputs.armlink_map", "sizetool.inputs.iar_map", "sizetool.inputs.map_layout",
               "sizetool.report.map_placement"}
    assert not readers & set(run["modules"]), sorted(readers & set(run["modules"]))


def cold_gnu_map_report_modules(tmp_path) -> set[str]:
    probe = PROBE.replace('sorted({name.split(".")[0] for name in sys.modules})', "sorted(sys.modules)")
    run = modules_of_a_run([str(FIRMWARE / "firmware.elf"), "--map", str(FIRMWARE / "firmware.map"), "--no-cache"],
                           tmp_path, probe)
    assert run["status"] == 0 and "sizetool.report.placement" in run["modules"]  # the probe sees the report's modules
    return set(run["modules"])


def test_a_cortex_m_report_loads_no_esp_idf_layout(tmp_path):
    """The ESP-IDF layout and the ESP chips' address maps load only for an ESP-IDF map, an Xtensa or RISC-V ELF read
    without a map, or a report read with that layout: a GNU map names its regions, an ARM ELF its architecture."""
    esp_idf = {"sizetool.report.esp_idf_layout", "sizetool.report.esp_idf_chips"}
    assert not esp_idf & cold_gnu_map_report_modules(tmp_path)


def test_a_cortex_m_report_loads_no_other_architectures_code_reader(tmp_path):
    """The report places bytes by the Thumb code that refers to them; the RISC-V, x86-64 and Xtensa readers (their
    records of capstone ids, their regexes) load only for code of their architecture."""
    readers = {"sizetool.code_graph.riscv_references", "sizetool.code_graph.x86_references",
               "sizetool.code_graph.xtensa_scan"}
    modules = cold_gnu_map_report_modules(tmp_path)
    assert "sizetool.code_graph.disassembly" in modules  # the Thumb scanner did load
    assert not readers & modules, sorted(readers & modules)


def test_a_report_without_operators_builds_no_operator_records(tmp_path):
    """The operator table's records (operator_records.py) are built for --ops or a saved report with a table, not at
    the start-up of every report."""
    probe = PROBE.replace('sorted({name.split(".")[0] for name in sys.modules})',
                          'sorted(name for name, module in list(sys.modules.items()) if hasattr(module, "OperatorCost"))')
    run = modules_of_a_run([str(FIRMWARE / "firmware.elf"), "--map", str(FIRMWARE / "firmware.map"), "--no-cache"],
                           tmp_path, probe)
    assert run["status"] == 0 and run["modules"] == []
    with_ops = modules_of_a_run([str(FIRMWARE / "firmware.elf"), "--ops", "--no-cache"], tmp_path, probe)
    assert with_ops["status"] == 0 and with_ops["modules"]  # the probe sees them where they are built


def test_a_report_does_not_import_typing(tmp_path):
    """The modules of a report's path take TYPE_CHECKING as a constant of their own and their aliases from
    collections.abc: importing typing alone is ~1.6 ms of a cold report's start-up."""
    loaded = cold_gnu_map_report_modules(tmp_path) - modules_at_start_up(tmp_path)
    assert "typing" not in loaded


def test_a_cold_tree_of_an_elf_alone_loads_only_what_it_reads(tmp_path):
    """A cold `size-report ELF` (no map) reads no map, answers no other command's question, reads no model from C
    source and no model's tensor graph: the map reader and its records, the ops, what-if and stack commands, the
    C-array parser, the tensor graph's records, typing and tempfile stay unloaded (each a few ms of every cold
    tree)."""
    probe = PROBE.replace('sorted({name.split(".")[0] for name in sys.modules})', "sorted(sys.modules)")
    with_model = REPO / "fixtures" / "embedded_models" / "out" / "tflm-two-models" / "firmware.elf"
    run = modules_of_a_run([str(with_model), "--no-cache"], tmp_path, probe)
    assert run["status"] == 0 and run["output"] > 0
    # the probe sees what the tree does read: the map names, the models linked in
    assert {"sizetool.inputs.map_names", "tflm_model.model_layout"} <= set(run["modules"])
    unread = {"sizetool.inputs.map_file", "sizetool.commands.ops", "sizetool.commands.what_if", "sizetool.commands.stack",
              "tflm_model.c_arrays", "tflm_model.tensor_graph", "typing", "tempfile"}
    loaded = set(run["modules"]) - modules_at_start_up(tmp_path)
    assert not unread & loaded, sorted(unread & loaded)
    with_map = modules_of_a_run([str(FIRMWARE / "firmware.elf"), "--map", str(FIRMWARE / "firmware.map"), "--no-cache"],
                                tmp_path, probe)
    assert with_map["status"] == 0 and "sizetool.inputs.map_file" in with_map["modules"]
