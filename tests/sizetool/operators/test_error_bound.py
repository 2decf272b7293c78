"""The error bound of a set prediction (operator_sets.SetCost.unsure_bytes), and every output format stating it.

The TFLM-shaped fixture builds link libc_min.cc the way vendors ship their C library: no function sections, no debug
info. memmove, memcmp and __cxa_pure_virtual come in with memcpy's .text, which nothing else explains: without the map
they stay as runtime, and a prediction keeping bytes only through them says by how much it may be too high. With the
map they are tied to memcpy, and the bound is 0.
"""

import csv
import io
import json

import pytest

from sizetool import cli
from sizetool.operators.graph_cache import load_operator_graph
from sizetool.operators.operator_sets import keep_only
from tests.conftest import FIXTURES

BUILD = FIXTURES / "firmware" / "out" / "cortex-m4-tflm-os"
ELF, MAP = str(BUILD / "firmware.elf"), str(BUILD / "firmware.map")
MODEL = str(FIXTURES / "models" / "unused_opcodes.tflite")  # FULLY_CONNECTED only


def run(capsys, *argv):
    status = cli.main(list(argv))
    return status, capsys.readouterr().out


@pytest.fixture(scope="module")
def graphs():
    return load_operator_graph(ELF, use_cache=False), load_operator_graph(ELF, MAP, use_cache=False)


def test_without_the_map_a_prediction_says_how_much_unexplained_code_it_keeps(graphs):
    without, with_map = graphs
    names = {without.graph.nodes[i].name for i in without.unexplained_roots}
    assert {"memmove", "memcmp"} <= names
    loose, exact = keep_only(without, {"FULLY_CONNECTED"}), keep_only(with_map, {"FULLY_CONNECTED"})
    assert loose.unsure_bytes >= sum(without.graph.nodes[i].rom_bytes for i in without.unexplained_roots)
    assert exact.unsure_bytes == 0 and not with_map.unexplained_roots
    # memcpy stays in this firmware, so the map keeps its neighbours too: the bound holds, and is not reached here
    assert 0 <= loose.saving - exact.saving <= loose.unsure_bytes


@pytest.mark.parametrize("fmt", ["tree", "json", "csv", "markdown"])
def test_every_format_states_the_bound(capsys, graphs, fmt):
    bound = keep_only(graphs[0], {"FULLY_CONNECTED"}).unsure_bytes
    status, out = run(capsys, ELF, "--keep", "FULLY_CONNECTED", "--format", fmt, "--no-cache")
    assert status == 0
    if fmt == "json":
        assert json.loads(out)["may_be_high_by"] == bound
    elif fmt == "csv":
        rows = {row["kind"]: row for row in csv.DictReader(io.StringIO(out))}
        assert int(rows["may_be_high_by"]["bytes"]) == bound
    else:
        assert f"may be up to {bound} bytes too high" in out and "--map" in out


def test_with_the_map_there_is_no_bound_to_state(capsys):
    status, out = run(capsys, ELF, "--map", MAP, "--keep", "FULLY_CONNECTED", "--no-cache")
    assert status == 0 and "too high" not in out
    assert json.loads(run(capsys, ELF, "--map", MAP, "--keep", "FULLY_CONNECTED", "--format", "json",
                          "--no-cache")[1])["may_be_high_by"] == 0


def test_model_answers_carry_the_bound(capsys, graphs):
    bound = keep_only(graphs[0], {"FULLY_CONNECTED"}).unsure_bytes
    data = json.loads(run(capsys, ELF, "--model", MODEL, "--format", "json", "--no-cache")[1])
    assert data["predicted_rom_may_be_high_by"] == bound
    assert [m["may_be_high_by"] for m in data["model_costs"]] == [bound]
    tree = run(capsys, ELF, "--model", MODEL, "--no-cache")[1]
    assert f"may be up to {bound} bytes too high" in tree
    rows = [row for row in csv.DictReader(io.StringIO(run(capsys, ELF, "--model", MODEL, "--format", "csv",
                                                          "--no-cache")[1]))]
    assert any(row["kind"] == "predicted_rom_may_be_high_by" and int(row["bytes"]) == bound for row in rows)
