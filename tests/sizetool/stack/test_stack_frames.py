"""Frames read from the disassembly equal GCC's -fstack-usage figures, and the calls come out with their sites."""

from pathlib import Path

import pytest

from sizetool.inputs.dwarf_paths import read_source_index
from sizetool.inputs.elf_reader import read_elf
from sizetool.inputs.stack_usage import read_stack_usage_dir
from sizetool.code_graph.reference_graph import build_reference_graph
from sizetool.stack.stack_crosscheck import match_stack_usage
from sizetool.stack.stack_frames import function_frames

OUT = Path(__file__).resolve().parents[3] / "fixtures/firmware/out"


def frames_and_match(arch):
    elf = str(OUT / arch / "firmware.elf")
    image = read_elf(elf)
    graph = build_reference_graph(image)
    frames = function_frames(image, graph)
    entries = read_stack_usage_dir(str(OUT / arch / "su"))
    return graph, frames, entries, match_stack_usage(entries, graph, frames, read_source_index(elf).decl_file)


@pytest.mark.parametrize("arch", ["cortex-m4", "riscv32"])
def test_every_static_frame_equals_gccs_figure(arch):
    graph, frames, entries, match = frames_and_match(arch)
    static = [check for check in match.checks if check.qualifiers == ("static",)]
    assert len(static) >= 100
    assert [(c.function, c.disassembly, c.su_bytes) for c in static if not c.agrees] == []


@pytest.mark.parametrize("arch", ["cortex-m4", "riscv32"])
def test_every_compiled_function_in_the_elf_has_its_su_entry(arch):
    # what is left unmatched is code GCC did not compile from our sources: libgcc, the assembly entry, and the
    # static-initialiser function GCC names "(static initializers for ...)"
    graph, frames, _, match = frames_and_match(arch)
    left = {graph.nodes[n].name for n in frames if n not in match.by_node and graph.nodes[n].kind == "func"}
    ours = {name for name in left if not name.startswith(("__", "_start", "_GLOBAL__sub_I"))}
    assert ours <= {"trap_entry"}, ours


def test_a_variadic_function_keeps_its_register_save_area_apart():
    # MicroPrintf(const char*, ...) starts with push {r0-r3}: GCC's .su leaves those 16 bytes out, the stack has them
    graph, frames, _, match = frames_and_match("cortex-m4")
    node = next(n for n in frames if graph.nodes[n].name.startswith("tflite::MicroPrintf("))
    assert frames[node].argument_save == 16
    assert frames[node].size == match.by_node[node].bytes + 16


def test_calls_carry_their_site_and_the_frame_in_use():
    image = read_elf(str(OUT / "cortex-m4/firmware.elf"))
    graph = build_reference_graph(image)
    frames = function_frames(image, graph)
    main = next(n for n in frames if graph.nodes[n].name == "main")
    direct = [c for c in frames[main].calls if c.target is not None and not c.tail]
    assert direct and all(graph.nodes[main].address <= c.site < graph.nodes[main].end for c in direct)
    assert {c.depth for c in direct} == {frames[main].size}  # main calls with its whole frame allocated
    targets = {graph.nodes[graph.node_at(c.target)].name for c in direct}
    assert "app::RunKeywordModel(signed char*, int)" in targets


def test_the_interpreters_registration_call_is_an_indirect_call_from_the_invoke_field():
    for arch in ("cortex-m4", "riscv32"):
        image = read_elf(str(OUT / arch / "firmware.elf"))
        graph = build_reference_graph(image)
        frames = function_frames(image, graph)
        invoke = next(n for n in frames if graph.nodes[n].name == "tflite::MicroInterpreter::Invoke()")
        indirect = [c for c in frames[invoke].calls if c.target is None]
        assert [(c.loaded_from, c.virtual) for c in indirect] == [(12, False)], arch


def test_an_unsupported_architecture_has_no_frames(monkeypatch):
    image = read_elf(str(OUT / "cortex-m4/firmware.elf"))
    graph = build_reference_graph(image, with_edges=False)
    monkeypatch.setattr(image, "arch", "xtensa")
    assert function_frames(image, graph) == {}


X86_SOURCE = r"""
#include <alloca.h>
#include <string.h>
extern "C" {
__attribute__((noinline)) int leaf(int a) { return a * 3 + 1; }
__attribute__((noinline)) int big(int n) { volatile char b[1000]; b[n % 1000] = 1; return b[(n + 1) % 1000] + leaf(n); }
__attribute__((noinline)) int dynamic(int n) { char* p = (char*)alloca(n); memset(p, 1, n); return p[n / 2] + big(n); }
__attribute__((noinline)) int recurse(int n) { volatile int pad[8]; pad[n & 7] = n; return n <= 0 ? pad[0] : recurse(n - 1) + pad[n & 7]; }
__attribute__((noinline)) int many(int a, int b, int c, int d, int e, int f, int g, int h) { return big(a + b + c + d + e + f + g + h); }
}
int main(int argc, char**) { return dynamic(argc + 10) + recurse(argc) + many(argc, 1, 2, 3, 4, 5, 6, 7); }
"""


def test_x86_64_frames_equal_gccs_and_alloca_and_recursion_are_reported(tmp_path):
    import shutil
    import subprocess

    from sizetool.stack.stack_depth import analyse_stack

    if shutil.which("g++") is None:
        pytest.skip("the host compiler g++ is absent")
    (tmp_path / "t.cc").write_text(X86_SOURCE)
    subprocess.run(["g++", "-O2", "-fstack-usage", "-c", "t.cc", "-o", "t.o"], cwd=tmp_path, check=True)
    subprocess.run(["g++", "-O2", "t.o", "-o", "t"], cwd=tmp_path, check=True)
    entries = read_stack_usage_dir(str(tmp_path))
    report = analyse_stack(read_elf(str(tmp_path / "t")), ["main"], entries)
    static = {e.function.split(" ", 1)[1].split("(")[0]: e.bytes for e in entries if e.is_static}
    assert set(static) >= {"leaf", "big", "recurse", "many"}
    assert [m for m in report.su_mismatches if m[3] == "static"] == []
    assert report.su_matched == len(entries)
    main = report.roots[0]
    kinds = {(w.kind, w.function) for w in main.warnings}
    assert ("dynamic frame", "dynamic") in kinds and ("recursion", "recurse") in kinds
    assert [step.function for step in main.path][:3] == ["main", "dynamic", "big"]
    assert main.depth >= sum(static[name] for name in ("big", "leaf"))
