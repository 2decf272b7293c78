"""Worst-case stack depth: the walk through calls and TFLM registrations, roots, warnings, and the measured run."""

import json
from pathlib import Path

import pytest

from sizetool.errors import SizeToolError
from sizetool.inputs.elf_reader import read_elf
from sizetool.inputs.stack_usage import read_stack_usage_dir
from sizetool.code_graph.reference_graph import GraphNode, ReferenceGraph, build_reference_graph
from sizetool.stack.stack_depth import _CallGraph, _Walker, analyse_stack
from sizetool.stack.stack_frames import Call, Frame, function_frames

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
OUT = FIXTURES / "firmware/out"
MEASURED = json.loads((FIXTURES / "firmware/stack_measured.json").read_text())
RUN_ELF = {"cortex-m4": OUT / "run/cortex-m4-mps2-an386/firmware.elf", "riscv32": OUT / "run/riscv32-virt/firmware.elf",
           # the same sources compiled by clang 14 (fixtures/clang/build.sh)
           "cortex-m4-clang": FIXTURES / "clang/out/run/cortex-m4-mps2-an386/firmware.elf"}


def stack(arch="cortex-m4", *roots, **options):
    return analyse_stack(read_elf(str(OUT / arch / "firmware.elf")), list(roots) or None, **options)


@pytest.mark.parametrize("arch", ["cortex-m4", "riscv32", "cortex-m4-clang"])
def test_the_measured_run_goes_exactly_as_deep_as_the_frames_of_its_path_add_up_to(arch):
    # fixtures/firmware/measure_stack.py ran the run variant under qemu and kept the call chain at the lowest sp
    measured = MEASURED[arch]
    image = read_elf(str(RUN_ELF[arch]))
    graph = build_reference_graph(image)
    frames = function_frames(image, graph)

    def frame_at(step):
        return frames[graph.node_at(int(step["address"], 16))].size

    path = measured["path"]
    assert path[0]["function"] == "main" and path[0]["depth_at_entry"] == 0
    for caller, callee in zip(path, path[1:]):
        assert callee["depth_at_entry"] - caller["depth_at_entry"] == frame_at(caller), caller["function"]
    # the lowest sp was reached in the last function, with its whole frame allocated
    assert measured["depth"] == path[-1]["depth_at_entry"] + frame_at(path[-1])


@pytest.mark.parametrize("arch", ["cortex-m4", "riscv32"])
def test_the_static_worst_case_of_main_covers_the_measured_depth_and_says_where_it_goes_further(arch):
    report = stack(arch, "main", su_entries=read_stack_usage_dir(str(OUT / arch / "su")))
    main = report.roots[0]
    measured = MEASURED[arch]["depth"]
    assert main.depth >= measured
    names = [step.function for step in main.path]
    # the run's path (main -> Invoke -> DETECTION_POSTPROCESS Eval) is the static worst path up to the kernel; the
    # static walk then goes on into an error message the run never printed
    assert names[:1] == ["main"]
    assert any(step.via == "invoke of DETECTION_POSTPROCESS" for step in main.path)
    assert names[-3:][0].startswith("tflite::MicroPrintf(")
    assert main.path[-1].depth + main.path[-1].frame == main.depth


def test_the_static_worst_case_of_the_clang_build_covers_its_measured_depth():
    # clang emits no .su files: every frame comes from the disassembly. The run went main -> Invoke() ->
    # DETECTION_POSTPROCESS Eval -> NonMaxSuppressionSingleClass -> libgcc's float compare; the static walk takes the
    # same kernel and goes on into its error message
    for elf in (RUN_ELF["cortex-m4-clang"], FIXTURES / "clang/out/firmware/gnu-ld/firmware.elf"):
        main = analyse_stack(read_elf(str(elf)), ["main"]).roots[0]
        assert main.depth >= MEASURED["cortex-m4-clang"]["depth"]
        assert any(step.via == "invoke of DETECTION_POSTPROCESS" for step in main.path)
        assert all(step.frame_source == "disassembly" for step in main.path)


def test_calls_through_the_registration_reach_every_registered_kernel_and_only_those_of_a_model():
    everything = stack("cortex-m4", "tflite::MicroInterpreter::Invoke()")
    narrowed = stack("cortex-m4", "tflite::MicroInterpreter::Invoke()",
                     model_paths=[str(FIXTURES / "models/unused_opcodes.tflite")])
    assert any(step.via.startswith("invoke of ") for step in everything.roots[0].path)
    assert narrowed.roots[0].depth < everything.roots[0].depth
    assert not any(step.via.startswith("invoke of ") and step.via != "invoke of FULLY_CONNECTED"
                   for step in narrowed.roots[0].path)
    assert set(narrowed.kernels) == {"FULLY_CONNECTED"}
    assert all(op in everything.kernels for op in ("CONV_2D", "SOFTMAX", "DETECTION_POSTPROCESS"))


def test_invoke_never_reaches_a_prepare_or_init_function():
    report = stack("cortex-m4", "tflite::MicroInterpreter::Invoke()")
    for step in report.roots[0].path:
        assert not step.via.startswith(("prepare of", "init of"))


def test_default_roots_are_main_the_entry_point_and_the_interrupt_handlers():
    report = stack("cortex-m4")
    assert [(r.root, r.kind) for r in report.roots] == [
        ("main", "main"), ("Reset_Handler", "entry point"), ("Default_Handler", "interrupt"),
        ("SysTick_Handler", "interrupt")]
    reset, main = report.roots[1], report.roots[0]
    assert reset.depth == main.depth + reset.path[0].frame  # Reset_Handler calls main with its frame in use


def test_unresolved_indirect_calls_are_warnings_with_their_site():
    main = stack("cortex-m4").roots[0]
    assert not main.bounded
    kinds = {w.kind for w in main.warnings}
    assert "indirect call" in kinds
    parser_call = [w for w in main.warnings if w.function == "tflite::MicroInterpreter::AllocateTensors()"
                   and w.detail == "through a function pointer, not followed"]
    assert len(parser_call) == 1 and parser_call[0].address > 0
    assert "indirect call in tflite::MicroInterpreter::AllocateTensors() at 0x" in parser_call[0].text()


def test_named_roots_demangled_mangled_or_without_parameters_and_bad_names():
    by_demangled = stack("cortex-m4", "tflite::MicroInterpreter::Invoke()").roots[0]
    by_mangled = stack("cortex-m4", "_ZN6tflite16MicroInterpreter6InvokeEv").roots[0]
    by_short = stack("cortex-m4", "tflite::MicroInterpreter::Invoke").roots[0]
    assert by_demangled.depth == by_mangled.depth == by_short.depth > 0
    with pytest.raises(SizeToolError, match="unknown root function 'nosuch'"):
        stack("cortex-m4", "nosuch")
    with pytest.raises(SizeToolError, match="names 2 functions"):
        stack("cortex-m4", "tflite::MicroMutableOpResolver<3u>::FindOp")


def test_a_stripped_elf_is_refused():
    with pytest.raises(SizeToolError, match="no symbol table"):
        analyse_stack(read_elf(str(OUT / "cortex-m4/firmware-stripped.elf")))


def test_x86_64_frames_count_the_return_address():
    main = stack("host-x86_64", "main").roots[0]
    assert main.depth > 0 and all(step.frame >= 8 for step in main.path)


def _node(address, name):
    return GraphNode(address, address + 16, 16, ".text", name, name, "func")


def test_recursion_is_a_warning_and_the_cycle_counts_once():
    nodes = [_node(0x100, "a"), _node(0x200, "b"), _node(0x300, "c")]
    graph = ReferenceGraph(nodes=nodes, edges=[[1], [0, 2], []])
    frames = {0: Frame(0x100, 16, (Call(0x104, 16, 0x200),)),
              1: Frame(0x200, 24, (Call(0x204, 24, 0x100), Call(0x208, 24, 0x300))),
              2: Frame(0x300, 8)}
    walker = _Walker(_CallGraph(graph, frames, {n: f.size for n, f in frames.items()},
                                {n: "disassembly" for n in frames}, {}, 4, {}))
    assert walker.depth(0) == 16 + 24 + 8
    warnings = walker.warnings_reached(0)
    assert [(w.kind, w.function, w.address) for w in warnings] == [("recursion", "b", 0x204)]
    assert "a -> b -> a" in warnings[0].detail


def test_a_tail_call_adds_only_what_is_left_of_the_callers_frame():
    nodes = [_node(0x100, "a"), _node(0x200, "b")]
    graph = ReferenceGraph(nodes=nodes, edges=[[1], []])
    frames = {0: Frame(0x100, 32, (Call(0x10c, 0, 0x200, tail=True),)), 1: Frame(0x200, 40)}
    walker = _Walker(_CallGraph(graph, frames, {0: 32, 1: 40}, {0: "su", 1: "su"}, {}, 4, {}))
    assert walker.depth(0) == 40
    assert [(s.function, s.depth, s.via) for s in walker.path(0)] == [("a", 0, "root"), ("b", 0, "tail call")]


def test_each_kernel_the_interpreter_reaches_is_listed_with_its_own_depth():
    invoke = stack("cortex-m4", "tflite::MicroInterpreter::Invoke()").roots[0]
    ops = {kernel.op for kernel in invoke.kernels}
    assert {"DETECTION_POSTPROCESS", "CONV_2D", "SOFTMAX", "ADD"} <= ops
    assert {kernel.role for kernel in invoke.kernels} == {"invoke"}
    deepest = invoke.kernels[0]
    assert deepest.op == "DETECTION_POSTPROCESS" and deepest.depth == invoke.depth - invoke.path[0].frame
    assert [k.depth for k in invoke.kernels] == sorted((k.depth for k in invoke.kernels), reverse=True)


def test_thread_entries_come_from_thread_creation_calls_and_zephyrs_static_threads():
    from sizetool.stack.stack_roots import thread_entries as _thread_entries

    nodes = [_node(0x100, "app_main"), _node(0x200, "k_thread_create"), _node(0x300, "sensor_thread"),
             _node(0x400, "helper"), _node(0x500, "shell_thread"),
             GraphNode(0x600, 0x630, 0x30, "._static_thread_data.static._k_thread_data_shell", "_k_thread_data_shell",
                       "_k_thread_data_shell", "object")]
    graph = ReferenceGraph(nodes=nodes, edges=[[1, 2, 3], [], [], [], [], [4]])
    frames = {0: Frame(0x100, 16, (Call(0x104, 16, 0x200), Call(0x108, 16, 0x400))),
              1: Frame(0x200, 8), 2: Frame(0x300, 8), 3: Frame(0x400, 8), 4: Frame(0x500, 8)}
    # app_main passes sensor_thread's address to k_thread_create and calls helper: only sensor_thread is an entry
    assert _thread_entries(graph, frames) == {2, 4}


def test_an_unsupported_architecture_is_refused(monkeypatch):
    image = read_elf(str(OUT / "cortex-m4/firmware.elf"))
    monkeypatch.setattr(image, "arch", "xtensa")
    with pytest.raises(SizeToolError, match="not supported for xtensa"):
        analyse_stack(image)
