"""The cache of printed reports: a repeated run prints exactly what the first one did (stdout, stderr, exit status)
without loading the option parser or the report code; any change to an input, the arguments or the place they are
read from is a fresh run; runs whose text depends on more than the inputs are never replayed."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sizetool import cli
from sizetool.report.output_cache import output_key

REPO = Path(__file__).resolve().parents[3]
FIRMWARE = REPO / "fixtures" / "firmware" / "out" / "cortex-m4"
PROBE = """
import io, json, sys, contextlib
from sizetool import cli
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    status = cli.main(sys.argv[1:])
print(json.dumps({"status": status, "out": out.getvalue(), "err": err.getvalue(), "modules": sorted(sys.modules)}))
"""


def run_in_fresh_interpreter(argv: list[str], cache: Path) -> dict:
    env = {"SIZETOOL_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=env, cwd=REPO,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("options", [[], ["-f", "json"], ["--map", str(FIRMWARE / "firmware.map"), "--all"],
                                     ["--depth", "2", "--format", "markdown", "--group-by", "cu"]])
def test_a_repeated_run_prints_the_same_and_loads_no_report_code(tmp_path, options):
    argv = [str(FIRMWARE / "firmware-nodebug.elf"), *options]
    first = run_in_fresh_interpreter(argv, tmp_path)
    assert "sizetool.report.report_model" in first["modules"]  # the first run built the report
    again = run_in_fresh_interpreter(argv, tmp_path)
    assert (again["status"], again["out"], again["err"]) == (first["status"], first["out"], first["err"])
    assert again["out"]
    loaded = set(again["modules"])
    assert not loaded & {"argparse", "sizetool.report.report_model", "sizetool.commands.report", "elftools"}


def test_the_warnings_of_a_run_are_replayed_too(tmp_path, capsys):
    argv = [str(FIRMWARE / "firmware-nodebug.elf"), "-f", "csv"]
    assert cli.main(argv) == 0
    first = capsys.readouterr()
    assert "no DWARF debug info" in first.err
    assert cli.main(argv) == 0
    assert capsys.readouterr() == first
    assert len(list((tmp_path / "sizetool-cache").glob("*.output"))) == 1


def test_a_changed_elf_at_the_same_path_is_reported_afresh(tmp_path, capsys):
    elf = tmp_path / "firmware.elf"
    shutil.copy(FIRMWARE / "firmware.elf", elf)
    assert cli.main([str(elf)]) == 0
    with_dwarf = capsys.readouterr().out
    shutil.copy(FIRMWARE / "firmware-nodebug.elf", elf)
    assert cli.main([str(elf)]) == 0
    assert capsys.readouterr().out != with_dwarf
    assert len(list((tmp_path / "sizetool-cache").glob("*.output"))) == 2


def test_the_key_covers_the_arguments_the_map_and_the_working_directory(tmp_path, monkeypatch):
    elf = str(FIRMWARE / "firmware.elf")
    plain = output_key([elf])
    assert plain and output_key([elf]) == plain
    assert output_key([elf, "--ram"]) not in (None, plain)
    map_copy = tmp_path / "firmware.map"
    shutil.copy(FIRMWARE / "firmware.map", map_copy)
    with_map = output_key([elf, "--map", str(map_copy)])
    map_copy.write_text(map_copy.read_text() + "\n")
    assert output_key([elf, "--map", str(map_copy)]) not in (None, with_map)
    monkeypatch.chdir(tmp_path)  # relative paths and --workspace are read from here
    assert output_key([elf]) != plain


@pytest.mark.parametrize("options", [["--ops"], ["-f", "html"], ["--format=json"], ["--no-cache"], ["--save", "r.json"],
                                     ["-o", "out.txt"], ["--stack"], ["--model", "m.tflite"], ["--depth"],
                                     ["--format", "svg"], ["extra.elf"]])
def test_runs_whose_text_depends_on_more_than_the_inputs_are_not_kept(options):
    assert output_key([str(FIRMWARE / "firmware.elf"), *options]) is None


def test_no_key_without_the_cache_an_elf_or_a_readable_input(monkeypatch, tmp_path):
    elf = str(FIRMWARE / "firmware.elf")
    assert output_key([]) is None
    assert output_key([str(tmp_path / "missing.elf")]) is None
    assert output_key([elf, "--map", str(tmp_path / "missing.map")]) is None
    monkeypatch.setenv("SIZETOOL_NO_CACHE", "1")
    assert output_key([elf]) is None


def test_a_failed_run_is_not_kept(tmp_path, capsys):
    not_an_elf = tmp_path / "firmware.elf"
    not_an_elf.write_bytes(b"not an ELF at all")
    assert cli.main([str(not_an_elf)]) == 2
    assert "error" in capsys.readouterr().err
    assert not list((tmp_path / "sizetool-cache").glob("*.output"))
