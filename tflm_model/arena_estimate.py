"""The tensor arena TFLM needs for one or more models, from the .tflite files alone (gen-resolver --arena).

Method: replay what MicroInterpreter::AllocateTensors() does to a SingleArenaBufferAllocator, byte for byte, and find
the smallest arena for which no allocation fails (as the ground truth does, by bisection on the size of one 16-byte
aligned buffer). The arena holds, from its top down (the tail, persistent): the allocator, the greedy planner and the
MicroAllocator; per model the builtin-data allocator, SubgraphAllocations, TfLiteEvalTensor and NodeAndRegistration
arrays of every subgraph, each op's parsed builtin params and its kernel's OpData (Init) and Prepare buffers
(per-channel quantization arrays, lookup tables), scratch-buffer handles, variable tensors, and the persistent
TfLiteTensors (with quantization arrays) of the inputs and outputs. From its bottom up (the head, non-persistent):
the scratch-buffer requests and temporary TfLiteTensors while kernels prepare, the AllocationInfo array and the
greedy planner's working memory while planning, then the plan itself: every non-persistent tensor and scratch buffer
laid out by the greedy planner (tflm_model.memory_planner), honouring the model's offline plan.

Several models share one arena the way TFLM's multi-tenant allocation does: one MicroAllocator (created once on the
arena) passed to one MicroInterpreter per model, each calling AllocateTensors() in turn. Tails add up; the head is
shared and sized for the largest plan. (Separate arenas per interpreter are the sum of single-model estimates.)

Kernel facts (OpData sizes, Prepare buffers, CMSIS-NN and esp-nn scratch rules) come from tflm_facts.kernel_memory. Where a
kernel's allocations are not modelled exactly the estimate is a safe upper bound, exact is False and a note says why.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from tflm_model.arena_facts import Facts as _Facts, Steps as _Steps, align_up as _align_up, op_names as _op_names
from tflm_model.arena_facts import op_view as _view, tensor_bytes as _tensor_bytes
from tflm_model.arena_lifetimes import per_subgraph_plans, tensor_lifetimes
from tflm_model.arena_tensor_array import tensor_array_steps
from tflm_model.errors import ModelError
from tflm_model.memory_planner import ONLINE, PlannedBuffer, plan_offsets
from tflm_model.model_source import ModelData
from tflm_model.operator_uses import read_model_uses
from tflm_model.plan import build_plan
from tflm_model.tensor_graph import TensorGraph, read_tensor_graph
from tflm_facts.allocator_generations import CURRENT, CURRENT_REVISION_NAME, GENERATIONS, MEASURED, Generation
from tflm_facts.build_sizes import BuildSizes
from tflm_facts.kernel_memory import (
    ARENA_ALIGNMENT, BUILTIN_PARAMS, CPU_FEATURES, ELEMENT_BYTES, GREEDY_PLANNER_BYTES_PER_BUFFER, KERNEL_SETS,
    MAX_SCRATCH_BUFFERS_PER_OP, POINTER_SIZES, abi_for, op_data, op_data_known,
    prepare_allocations, temp_tensors,
)

KERNEL_NAMES = {"reference": "reference kernels", "cmsis_nn": "CMSIS-NN kernels", "esp_nn": "esp-nn kernels"}
CURRENT_NAME = "tflite-micro 90b983c"

PART_PLAN = "non-persistent tensors (greedy plan)"
PART_SCRATCH = "scratch buffers (in the plan)"
PART_WORKING = "planning and prepare working memory (head peak above the plan)"
PART_ALIGNMENT = "alignment"


@dataclass(frozen=True)
class ArenaPart:
    name: str
    bytes: int


@dataclass(frozen=True)
class ArenaEstimate:
    total_bytes: int  # the kTensorArenaSize to use: never below what TFLM needs
    exact: bool  # False when some allocation is only bounded from above
    kernels: str  # "reference" | "cmsis_nn" | "esp_nn"
    pointer_bytes: int  # 4 or 8
    parts: tuple[ArenaPart, ...]  # breakdown; sums to total_bytes
    notes: tuple[str, ...]  # what was bounded and why, one sentence each
    models: tuple[str, ...] = ()
    plan_bytes: int = 0  # the largest greedy plan (tensors and scratch buffers)
    persistent_bytes: int = 0  # the tail, alignment included
    abi: str = "ilp32"  # tflm_facts.kernel_memory.ABIS: "ilp32", "eabi" (short enums) or "lp64"
    cpu_features: str = "dsp"  # tflm_facts.kernel_memory.CPU_FEATURES: CMSIS-NN's scratch rules ("dsp" or "mve")
    revision: str = CURRENT.label  # the TFLM allocator generation (revisions) the figure holds for
    assumed: tuple[str, ...] = ()  # facts of that generation not known from the build or its table (90b983c's used)
    generation_key: str = CURRENT.key  # that generation's key (tflm_facts.allocator_generations)
    # Ops no rule models (custom ops such as NXP's NeutronGraph): their allocations in total_bytes are a guess
    # (kernel_memory.UNKNOWN_OP_BOUND), and without_guessed is the figure with them left out (None: no such op).
    guessed_ops: tuple[str, ...] = ()
    without_guessed: int | None = None


# ----------------------------------------------------------------------------------------------------------------------
# Allocation steps, independent of the arena size. Each is a tuple: (kind, size, alignment, part name).
#   "tail": AllocatePersistentBuffer; "temp": AllocateTemp; "reset": ResetTempAllocations;
#   "head": ResizeBuffer of the head (scratch requests / reserved plan); "plan": the planner's working memory check.

def _check_static_shapes(graph: TensorGraph) -> None:
    for sub, subgraph in enumerate(graph.subgraphs):
        for index, tensor in enumerate(subgraph.tensors):
            # TFLM sizes tensors by `shape` alone (a -1 batch in shape_signature is common and runs as stored).
            if any(d < 0 for d in tensor.shape):
                shape = list(tensor.shape)
                raise ModelError(f"{graph.path}: subgraph {sub} tensor {index} has a dynamic shape {shape}; "
                                       "TFLM needs every tensor's shape fixed in the model")


def _check_supported(path, linked_types: dict | None = None) -> None:
    """Refuse what gen-resolver refuses (ops TFLM has no kernel for, tensor types its kernels reject), same words;
    with linked_types, the types the firmware's own kernels take are not refused."""
    plan = build_plan([read_model_uses(path, hash_in_background=False)], linked_types=linked_types)
    for op in plan.unsupported:
        for model in sorted(op.uses_by_model):
            raise ModelError(f"unsupported op {op.name} in {model}: {op.registration.unsupported_reason}")
    for rejection in plan.type_rejections:
        raise ModelError(f"unsupported types: {rejection.message()}")


def _quantization_bytes(tensor, facts: _Facts) -> list[tuple[int, int]]:
    """(size, alignment) of the TfLiteAffineQuantization and zero-point array a TfLiteTensor copy allocates."""
    if tensor.scale_count > 0 and tensor.zero_point_count > 0:
        size, align = facts.struct("TfLiteAffineQuantization")
        return [(size, align), (4 + 4 * tensor.scale_count, facts.struct("TfLiteIntArray")[1])]
    return []


def _model_steps(graph: TensorGraph, kernels: str, abi: str, out: _Steps, cpu_features: str = "dsp",
                 sizes: BuildSizes = BuildSizes(), generation: Generation = CURRENT) -> None:
    """Append the allocation steps of one model's AllocateTensors() to out, as the generation's allocator takes them
    (tflm_facts.allocator_generations)."""
    names = _op_names(graph)
    label = graph.path.name
    steps = out.steps
    facts = _Facts(sizes, generation, abi, kernels, out)
    gen = generation
    if gen.single_subgraph and len(graph.subgraphs) != 1:
        raise ModelError(f"{graph.path}: the model has {len(graph.subgraphs)} subgraphs; TFLM of {gen.covers} "
                         "supports one only (AllocateTensors() fails)")

    if not gen.unread_outputs_live and gen.per_subgraph_plans and len(graph.subgraphs) > 1 \
            and _has_unread_output(graph):
        out.exact = False
        out.notes.append(f"{label}: an operator output that nothing reads lives for no time in {gen.label}'s plan; "
                         "the estimate keeps it alive at its operator: an upper bound")
    # StartModelAllocation
    if gen.arena_builtin_allocator:
        steps.append(("tail", *facts.struct("MicroBuiltinDataAllocator"), "allocator objects"))
    request_size, request_align = facts.struct("ScratchBufferRequest")
    steps.append(("head", request_size * MAX_SCRATCH_BUFFERS_PER_OP, request_align, None))
    if gen.subgraph_allocations:
        size, align = facts.struct("SubgraphAllocations")
        steps.append(("tail", size * len(graph.subgraphs), align, "SubgraphAllocations"))
    eval_size, eval_align = facts.struct("TfLiteEvalTensor")
    for subgraph in graph.subgraphs:
        steps.append(("tail", eval_size * len(subgraph.tensors), eval_align, "TfLiteEvalTensor arrays"))
    node_size, node_align = facts.struct("NodeAndRegistration")
    for subgraph in graph.subgraphs:
        steps.append(("tail", node_size * len(subgraph.operators), node_align, "NodeAndRegistration arrays"))
    # Builtin data (parsed options), every subgraph in order
    for subgraph in graph.subgraphs:
        for operator in subgraph.operators:
            params = BUILTIN_PARAMS.get(names[operator.opcode_index])
            if params:
                steps.append(("tail", *facts.param(params), "builtin params"))
    # What each kernel takes in Init() and Prepare(), from its operator's tensors
    rules = sizes.rules | gen.rules
    effects_of: dict[tuple[int, int], object] = {}
    for sub, subgraph in enumerate(graph.subgraphs):
        for node, operator in enumerate(subgraph.operators):
            name = names[operator.opcode_index]
            facts.kernel_rules(name)
            try:
                effects_of[(sub, node)] = prepare_allocations(_view(graph, sub, operator, name), kernels, abi,
                                                                 cpu_features, rules)
            except (IndexError, AttributeError, ZeroDivisionError):
                raise ModelError(f"{graph.path}: subgraph {sub} operator {node} ({name}) lacks the tensors or "
                                       "shapes its TFLM kernel needs") from None
            if effects_of[(sub, node)].guessed:
                out.guessed.add(name)
                if out.drop_guessed:
                    effects_of[(sub, node)] = replace(effects_of[(sub, node)], persistent=(), scratch=(), init=())
    # Init: each kernel's OpData (and the few buffers some kernels take in Init too)
    for sub, subgraph in enumerate(graph.subgraphs):
        for node, operator in enumerate(subgraph.operators):
            name = names[operator.opcode_index]
            data = op_data(name, kernels)
            if data is not None or name in gen.op_data.get(abi, {}):
                bytes_ = facts.op_data(name, data.bytes[abi] if data is not None else 0)
                if bytes_:
                    steps.append(("tail", bytes_, ARENA_ALIGNMENT, f"OpData {name}"))
            for buffer in effects_of[(sub, node)].init:
                steps.append(("tail", buffer, ARENA_ALIGNMENT, f"kernel buffers {name}"))
    # Prepare: per node, temp TfLiteTensors of its inputs and outputs, persistent buffers, scratch requests
    scratch_owner: list[tuple[int, int]] = []
    scratch_bytes: list[int] = []
    tensor_size, tensor_align = facts.struct("TfLiteTensor")
    for sub, subgraph in enumerate(graph.subgraphs):
        for node, operator in enumerate(subgraph.operators):
            name = names[operator.opcode_index]
            effects = effects_of[(sub, node)]
            if not effects.exact or not op_data_known(name, kernels):
                out.exact = False
                note = effects.note or f"{name}: kernel allocations not modelled"
                if f"{label}: {note}" not in out.notes:
                    out.notes.append(f"{label}: {note}")
            for persistent in effects.persistent:
                steps.append(("tail", persistent, ARENA_ALIGNMENT, f"kernel buffers {name}"))
            # Temp tensors are checked against the tail as it is when they are taken; kernels take some after their
            # persistent buffers (CONV_2D: after the per-channel arrays), so they are replayed after them.
            known = op_data_known(name, kernels)
            first_input = operator.inputs[0] if operator.inputs else -1
            in_type = subgraph.tensors[first_input].type if first_input >= 0 else None
            listed = temp_tensors(len(operator.inputs), len(operator.outputs), name, kernels, known)
            for role, position in facts.temps(name, in_type, listed, (len(operator.inputs), len(operator.outputs))):
                tensors = operator.inputs if role == "i" else operator.outputs
                index = tensors[position] if position < len(tensors) else -1
                if index < 0:
                    continue  # an omitted optional input: AllocateTempInputTensor returns nullptr
                steps.append(("temp", tensor_size, tensor_align, None))
                for q_size, q_align in _quantization_bytes(subgraph.tensors[index], facts):
                    steps.append(("temp", q_size, q_align, None))
            for scratch in effects.scratch:
                scratch_owner.append((sub, node))
                scratch_bytes.append(scratch)
            steps.append(("reset", 0, 0, None))
            steps.append(("head", request_size * (len(scratch_owner) + MAX_SCRATCH_BUFFERS_PER_OP), request_align,
                          None))
    # FinishModelAllocation: scratch handles (once per subgraph before 6f99907d3, each subgraph's variables after
    # them: added below), then the static memory plan
    handles_each_subgraph = gen.scratch_handles_per_subgraph and len(graph.subgraphs) > 1
    handle_size, handle_align = facts.struct("ScratchBufferHandle")
    handles = [("tail", handle_size * len(scratch_owner), handle_align, "scratch buffer handles")] if scratch_owner else []
    if not handles_each_subgraph:
        steps.extend(handles)
    if gen.subgraph_sizes_array:
        steps.append(("temp", facts.struct("size_t")[0] * len(graph.subgraphs), facts.struct("size_t")[1], None))
    tensor_count = sum(len(s.tensors) for s in graph.subgraphs)
    info_size, info_align = facts.struct("AllocationInfo")
    steps.append(("temp", info_size * (tensor_count + len(scratch_owner)), info_align, None))
    offline = None
    if graph.offline_plan is not None:
        offline = graph.offline_plan[3:]
        if len(offline) != tensor_count:
            raise ModelError(f"{graph.path}: the OfflineMemoryAllocation metadata has {len(offline)} offsets "
                                   f"for {tensor_count} tensors; TFLM refuses the model")
    # variable tensors not offline planned live in the tail
    flat = 0
    variables: list[tuple] = []
    needs: list[tuple[int, int, int]] = []  # (subgraph, tensor, offline offset) of planned tensors
    for sub, subgraph in enumerate(graph.subgraphs):
        if handles_each_subgraph:
            variables.extend(handles)
        for index, tensor in enumerate(subgraph.tensors):
            offset = offline[flat] if offline is not None else ONLINE
            flat += 1
            bytes_ = _tensor_bytes(graph, sub, index) if not tensor.has_data else 0
            if tensor.is_variable and (offset == ONLINE or gen.variables_after_plan):
                variables.append(("tail", _tensor_bytes(graph, sub, index), ARENA_ALIGNMENT, "variable tensors"))
            if tensor.has_data:
                continue
            planned = bytes_ != 0 or gen.zero_size_planned  # zero-size tensors: planned before 78bb847
            if not tensor.is_variable and planned or tensor.is_variable and offset != ONLINE \
                    and not gen.variables_after_plan and planned:
                needs.append((sub, index, offset))
        for node, operator in enumerate(subgraph.operators):
            for index in operator.intermediates:
                if _tensor_bytes(graph, sub, index) != 0:
                    raise ModelError(f"{graph.path}: subgraph {sub} operator {node} has intermediate tensor "
                                           f"{index} of non-zero size, which TFLM does not support")
    if gen.per_subgraph_plans and len(graph.subgraphs) > 1:
        per_subgraph_plans(graph, needs, scratch_owner, scratch_bytes, facts, steps, out)
        _io_tensor_steps(graph, facts, tensor_size, tensor_align, steps)
        return
    if not gen.variables_after_plan:
        steps.extend(variables)
    first, last, scratch_times = tensor_lifetimes(graph, names, scratch_owner)
    buffers = [PlannedBuffer(_align_up(_tensor_bytes(graph, sub, index), ARENA_ALIGNMENT), first[sub][index],
                             last[sub][index], offset) for sub, index, offset in needs]
    tensor_plan = plan_offsets(buffers)[1]
    buffers += [PlannedBuffer(_align_up(b, ARENA_ALIGNMENT), t[0], t[1]) for b, t in zip(scratch_bytes, scratch_times)]
    plan = plan_offsets(buffers)[1]
    steps.append(("plan", len(buffers), ARENA_ALIGNMENT, "keep" if gen.plan_beside_requests else None))
    if gen.plan_beside_requests:
        steps.append(("planfits", plan, ARENA_ALIGNMENT, None))
    steps.append(("reset", 0, 0, None))
    steps.append(("reserve", plan, ARENA_ALIGNMENT, None))
    if gen.variables_after_plan:
        steps.extend(variables)
    out.plans.append((plan, tensor_plan))
    _io_tensor_steps(graph, facts, tensor_size, tensor_align, steps)


def _io_tensor_steps(graph: TensorGraph, facts: _Facts, tensor_size: int, tensor_align: int, steps: list) -> None:
    """The interpreter's input and output TfLiteTensors (subgraph 0), after AllocateTensors()' plan."""
    main = graph.subgraphs[0] if graph.subgraphs else None
    pointer_size = facts.struct("void*")[0]
    for indices in ((main.inputs, main.outputs) if main else ((), ())):
        steps.append(("tail", pointer_size * len(indices), ARENA_ALIGNMENT, "input/output TfLiteTensors"))
        for index in indices:
            steps.append(("tail", tensor_size, tensor_align, "input/output TfLiteTensors"))
            for q_size, q_align in _quantization_bytes(main.tensors[index], facts):
                steps.append(("tail", q_size, q_align, "input/output TfLiteTensors"))


def _has_unread_output(graph: TensorGraph) -> bool:
    for subgraph in graph.subgraphs:
        read = {i for operator in subgraph.operators for i in operator.inputs} | set(subgraph.outputs)
        if any(i not in read for operator in subgraph.operators for i in operator.outputs):
            return True
    return False


class _ArenaTooSmall(Exception):
    pass


def _run(steps: list[tuple], arena_size: int, tally: dict[str, int] | None = None) -> bool:
    """Replay the steps on a SingleArenaBufferAllocator of arena_size bytes starting at a 16-aligned address."""
    buffer_head, tail = 0, arena_size
    head = temp = buffer_head
    max_head = 0
    for kind, size, align, part in steps:
        if kind == "tail":
            result = (tail - size) // align * align
            if result < head:
                return False
            if tally is not None:
                tally[part] = tally.get(part, 0) + size
                tally[PART_ALIGNMENT] = tally.get(PART_ALIGNMENT, 0) + (tail - size - result)
            tail = result
        elif kind == "temp":
            result = _align_up(temp, align)
            if tail - result < size:
                return False
            temp = result + size
        elif kind == "reset":
            temp = head
        elif kind in ("head", "reserve"):
            if kind == "reserve":
                max_head = max(max_head, size)
                size = max_head
            start = _align_up(buffer_head, align)
            if tail - start < size:
                return False
            head = temp = start + size
        elif kind == "plan":
            available = (tail // align * align) - _align_up(temp, align)
            if available // GREEDY_PLANNER_BYTES_PER_BUFFER < size:
                return False
            if size:
                temp = _align_up(temp, align) + available
            if part != "keep":  # CommitStaticMemoryPlan then releases the planner arena and the scratch-request head
                head = temp = buffer_head
        elif kind == "plan_below":  # 2019: AllocationInfo below the tail, the planner's memory what is left above
            info_bytes, info_align, per_buffer = part
            below = (tail - info_bytes) // info_align * info_align
            if below < head or (below - head) // per_buffer < size:
                return False
        elif kind == "planfits":  # the plan must fit between the head (scratch requests) and the tail
            if (tail // align * align) - _align_up(head, align) < size:
                return False
    return True


def _creation_steps(facts: _Facts) -> list[tuple]:
    """MicroAllocator::Create on the arena: the allocator, (since 2022) the greedy planner and the MicroAllocator, in
    its tail."""
    return [("tail", *facts.struct(name), "allocator objects") for name in facts.generation.creation]


def _smallest_arena(steps: list[tuple]) -> int:
    high = 1024
    while not _run(steps, high):
        high *= 2
        if high > 1 << 40:
            raise ModelError("the models need more than 1 TB of arena")
    low = 0  # fails (or is 0)
    while high - low > 1:
        middle = (low + high) // 2
        if _run(steps, middle):
            high = middle
        else:
            low = middle
    return high


def _counted(part: str, steps: list[tuple]) -> str:
    """"OpData CONV_2D x14": how many operators' Init() allocations a part gathers."""
    if not part.startswith("OpData "):
        return part
    count = sum(1 for step in steps if step[0] == "tail" and step[3] == part)
    return f"{part} x{count}" if count > 1 else part


def estimate_arena(model_paths: Sequence[str | os.PathLike], kernels: str = "reference",
                   pointer_bytes: int = 4, short_enums: bool = False, cpu_features: str = "dsp",
                   sizes: BuildSizes | None = None, linked_types: dict | None = None,
                   generation: Generation | None = CURRENT, why: str = "", revision: str = "") -> ArenaEstimate:
    """The smallest tensor arena for which AllocateTensors() and Invoke() succeed with these models sharing one
    MicroAllocator, for a kernel set and the target's pointer size; ModelError on bad input.

    short_enums: the target compiles TFLM with short enums (arm-none-eabi GCC's default on Cortex-M): TfLiteTensor
    and several params structs are smaller, so the arena is a few dozen bytes smaller than with int-sized enums
    (32-bit Arm Linux, RISC-V, Xtensa), which is the default because it is never below either.

    cpu_features: "dsp" (default) or "mve", the core CMSIS-NN is compiled for (its scratch buffers differ with MVE);
    reference kernels do not depend on it.

    sizes: struct sizes read from the build that runs the models (size-report's DWARF facts), for a TFLM revision whose
    structs differ from tflm_facts.kernel_memory's; what it does not give stays the default.

    linked_types: the tensor types the firmware's own kernels take (tflm_facts.linked_types): a use they take is
    estimated like today's kernels' uses of the same op, not refused.

    generation: the TFLM allocator generation (tflm_facts.allocator_generations) the firmware links; the current one
    by default. None (not known) or a generation whose rules were not measured gives the largest figure of the
    measured generations, as an upper bound (exact False), with a note saying why (`why`: how the revision was
    looked for).

    revision: the TFLM revision the caller knows the firmware is ("" when it names none: the generation's tables'
    own revision is assumed). A generation whose tables hold one revision only (the current one: 90b983c's sizes)
    is exact for another revision only with the build's sizes (`sizes`)."""
    if kernels not in KERNEL_SETS:
        raise ModelError(f"unknown kernel set {kernels!r} (choose from {', '.join(KERNEL_SETS)})")
    if pointer_bytes not in POINTER_SIZES:
        raise ModelError(f"pointer size {pointer_bytes} is not 4 or 8 bytes")
    if cpu_features not in CPU_FEATURES:
        raise ModelError(f"unknown CPU features {cpu_features!r} (choose from {', '.join(CPU_FEATURES)})")
    if not model_paths:
        raise ModelError("no model given")
    if short_enums and pointer_bytes != 4:
        raise ModelError("short enums are modelled for 32-bit Arm bare metal only (pointer size 4)")
    abi = abi_for(pointer_bytes, short_enums)
    sizes = sizes or BuildSizes()
    if generation is not None and not generation.modelled:
        raise ModelError(f"the arena of {generation.label} is not modelled (it keeps a TfLiteTensor per tensor in the "
                         "arena, which no measured generation does): no figure")
    if generation is not None and generation.measured:
        found = _estimate(model_paths, kernels, abi, cpu_features, sizes, generation, linked_types)
        if not generation.tables_of:
            return found
        if sizes.structs or sizes.op_data:
            found = _with_early_handles(found, model_paths, kernels, abi, cpu_features, sizes, generation, linked_types)
            return replace(found, revision=f"{generation.label}, with the build's own sizes")
        if not revision or generation.tables_of.split(" (")[0] in revision:
            return replace(found, revision=f"{generation.tables_of}, of {generation.label}")
        note = f"{revision}: {generation.tables_elsewhere}; " + (
            "an upper bound as far as measured" if generation.full_structs else
            f"the figure is {generation.tables_of.split(' (')[0]}'s need, assumed for this revision")
        if any(measured in revision for measured in generation.tables_bound_at):
            return replace(found, exact=False, notes=(note, *found.notes),
                           revision=f"{generation.label} ({revision}), with {generation.tables_of}'s sizes")
        found = _with_full_structs(found, model_paths, kernels, abi, cpu_features, generation, linked_types)
        return replace(found, exact=False, notes=(note, *found.notes),
                       revision=f"{generation.label} ({revision}), with " + (
                           f"the larger of {generation.tables_of}'s sizes and a full-struct build's"
                           if generation.full_structs else f"{generation.tables_of}'s sizes"))
    found, refusals, widened = [], [], []
    for candidate in MEASURED:
        if generation is None and not candidate.in_unnamed_bound:
            continue
        if generation is not None and candidate.tensor_array and not generation.tensor_array:
            continue  # a known generation with TfLiteEvalTensors is not bounded by one keeping a TfLiteTensor each
        try:
            plain = _estimate(model_paths, kernels, abi, cpu_features, sizes, candidate, linked_types)
            figure = plain
            if not (sizes.structs or sizes.op_data):
                figure = _with_full_structs(plain, model_paths, kernels, abi, cpu_features, candidate, linked_types)
            found.append(figure)
            widened.append(figure is not plain)
        except ModelError as error:
            refusals.append(error)
    if not found:
        raise refusals[-1]
    largest = max(found, key=lambda e: e.total_bytes)
    if generation is not None:
        figures = ", ".join(f"{e.total_bytes} B for {e.revision}" for e in found)
        note = (f"the allocator of {generation.label} was not measured; upper bound: the largest figure of the "
                f"measured allocator generations ({figures})")
        return replace(largest, exact=False, notes=(note, *largest.notes), revision=generation.label,
                       assumed=tuple(sorted({a for e in found for a in e.assumed})))
    figures = "; ".join(f"{e.total_bytes:,} B for generation {e.generation_key}"
                        + (" built without TF_LITE_STATIC_MEMORY (as Edge Impulse's SDK)" if wide else "")
                        for e, wide in zip(found, widened))
    notes = [f"TFLM revision not known{' (' + why + ')' if why else ''}: the largest figure of the measured "
             f"allocator generations ({figures}; docs/arena.md lists them)"]
    if not (sizes.structs or sizes.op_data) and CURRENT.tables_of:
        current = _estimate(model_paths, kernels, abi, cpu_features, sizes, CURRENT, linked_types)
        notes.append(f"{CURRENT.tables_of.split(' (')[0]} alone needs {current.total_bytes:,} B exactly "
                     f"(gen-resolver --tflm-revision {CURRENT_REVISION_NAME}, or --tflm TREE)")
    notes += [f"leaves out {left.label}: name it with --tflm-revision {left.key}"
              for left in GENERATIONS if not left.in_unnamed_bound]
    return replace(largest, exact=False, notes=(*notes, *largest.notes), revision=UNNAMED_REVISION,
                   assumed=tuple(sorted({a for e in found for a in e.assumed})))


UNNAMED_REVISION = "not named: an upper bound over TFLM's measured allocator generations, 2020 to today"


def _with_full_structs(found: ArenaEstimate, model_paths, kernels: str, abi: str, cpu_features: str,
                       generation: Generation, linked_types: dict | None = None) -> ArenaEstimate:
    """The larger of found and the generation's figure for a build without TF_LITE_STATIC_MEMORY (its full
    TfLiteTensor and TfLiteNode), for a revision whose build flags are not known."""
    full = generation.full_structs.get(abi)
    if not full:
        return found
    wider = _estimate(model_paths, kernels, abi, cpu_features, BuildSizes(dict(full)), generation, linked_types)
    return wider if wider.total_bytes > found.total_bytes else found


def _with_early_handles(found: ArenaEstimate, model_paths, kernels: str, abi: str, cpu_features: str,
                        sizes: BuildSizes, generation: Generation, linked_types) -> ArenaEstimate:
    """A build whose revision is not known, of a generation whose first revisions allocate the scratch handles once
    per subgraph: the larger of the two figures, as a bound, when they differ (a multi-subgraph model with scratch
    requests)."""
    if not generation.handles_per_subgraph_until or not any(p.name == "scratch buffer handles" for p in found.parts) \
            or not any(len(read_tensor_graph(path).subgraphs) > 1 for path in model_paths):
        return found  # (no request, or one subgraph: the two figures are one, and the second is not worked out)
    early = _estimate(model_paths, kernels, abi, cpu_features, sizes,
                      replace(generation, scratch_handles_per_subgraph=True), linked_types)
    if early.total_bytes <= found.total_bytes:
        return found
    note = (f"{generation.handles_per_subgraph_until} allocate the scratch buffer handles once per subgraph: "
            f"{early.total_bytes - found.total_bytes} B more than later revisions need, counted in (an upper bound "
            "unless the build is later)")
    return replace(early, exact=False, notes=(note, *early.notes))


def _estimate(model_paths, kernels: str, abi: str, cpu_features: str, sizes: BuildSizes,
              generation: Generation, linked_types: dict | None = None, drop_guessed: bool = False) -> ArenaEstimate:
    """estimate_arena for one measured generation; with drop_guessed, without the allocations of the ops no rule
    models."""
    if generation.tensor_array and len(model_paths) > 1:
        return _separate_arenas([_estimate([path], kernels, abi, cpu_features, sizes, generation, linked_types,
                                           drop_guessed)
                                 for path in model_paths])
    out = _Steps([], [], [], drop_guessed=drop_guessed)
    out.steps.extend(_creation_steps(_Facts(sizes, generation, abi, kernels, out)))
    labels = []
    for model_path in model_paths:
        path = model_path if isinstance(model_path, ModelData) else Path(model_path)
        graph = read_tensor_graph(path)
        _check_static_shapes(graph)
        _check_supported(path, linked_types if linked_types is not None else generation.kernel_types or None)
        if not graph.subgraphs:
            raise ModelError(f"{path}: the model has no subgraphs; TFLM refuses it")
        if generation.tensor_array:
            tensor_array_steps(graph, kernels, out, _Facts(sizes, generation, abi, kernels, out))
        else:
            _model_steps(graph, kernels, abi, out, cpu_features, sizes, generation)
        labels.append(str(path))
    total = _smallest_arena(out.steps)
    tally: dict[str, int] = {}
    _run(out.steps, total, tally)
    persistent = sum(tally.values())
    plan, tensor_plan = max(out.plans)
    head_room = total - persistent
    parts = [ArenaPart(PART_PLAN, min(tensor_plan, head_room))]
    scratch = min(plan, head_room) - min(tensor_plan, head_room)
    if scratch:
        parts.append(ArenaPart(PART_SCRATCH, scratch))
    if head_room > plan:
        parts.append(ArenaPart(PART_WORKING, head_room - plan))
    for name, count in tally.items():
        if name != PART_ALIGNMENT and count:
            parts.append(ArenaPart(_counted(name, out.steps), count))
    if tally.get(PART_ALIGNMENT):
        parts.append(ArenaPart(PART_ALIGNMENT, tally[PART_ALIGNMENT]))
    assert sum(p.bytes for p in parts) == total
    notes = list(out.notes)
    exact = out.exact
    if generation is not CURRENT:
        untested = [what for what, measured in ((f"{KERNEL_NAMES[kernels]}", kernels in generation.measured_kernels),
                                                 (f"the {abi} ABI", abi in generation.measured_abis)) if not measured]
        if untested or out.assumed:
            exact = False
            why = f"{' and '.join(untested)} not measured at this revision" if untested else ""
            if out.assumed:
                why += ("; " if why else "") + f"facts assumed from {CURRENT_NAME}: {', '.join(sorted(out.assumed))}"
            notes.insert(0, f"{generation.label}: {why}; the figure may be off")
        if out.widened:
            notes.insert(0, f"{generation.label}: only its short-enum build was measured; the int-enum sizes of "
                            f"{', '.join(sorted(out.widened))} are that build's, widened as 90b983c's enums widen: "
                            "an upper bound, never below the short-enum figure")
    without = None
    if out.guessed and not drop_guessed:
        without = _estimate(model_paths, kernels, abi, cpu_features, sizes, generation, linked_types,
                            True).total_bytes
    return ArenaEstimate(total, exact, kernels, 8 if abi == "lp64" else 4, tuple(parts), tuple(notes), tuple(labels),
                         plan, persistent, abi, cpu_features, generation.label, tuple(sorted(out.assumed)),
                         generation.key, tuple(sorted(out.guessed)), without)


def _separate_arenas(each: list[ArenaEstimate]) -> ArenaEstimate:
    """Several models on an allocator that cannot share an arena (2019): one arena per interpreter, their sum."""
    parts: dict[str, int] = {}
    for estimate in each:
        for part in estimate.parts:
            parts[part.name] = parts.get(part.name, 0) + part.bytes
    first = each[0]
    note = (f"{first.revision}: one arena per interpreter (this allocator cannot share one): the sum of "
            f"{', '.join(f'{e.total_bytes} B' for e in each)}")
    notes = tuple(dict.fromkeys(n for e in each for n in e.notes))
    return replace(first, total_bytes=sum(e.total_bytes for e in each), exact=all(e.exact for e in each),
                   parts=tuple(ArenaPart(name, count) for name, count in parts.items()), notes=(note, *notes),
                   models=tuple(m for e in each for m in e.models), plan_bytes=sum(e.plan_bytes for e in each),
                   persistent_bytes=sum(e.persistent_bytes for e in each),
                   assumed=tuple(sorted({a for e in each for a in e.assumed})),
                   guessed_ops=tuple(sorted({op for e in each for op in e.guessed_ops})),
                   without_guessed=sum(e.total_bytes if e.without_guessed is None else e.without_guessed
                                       for e in each) if any(e.guessed_ops for e in each) else None)
