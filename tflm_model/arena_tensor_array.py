"""The allocation steps of AllocateTensors() in TFLM's allocator generations that keep a TfLiteTensor per tensor
(tflm_facts.allocator_generations GEN_2019: TensorFlow's micro to about 2020-06; GEN_2020_06: TensorFlow 2.3's), for
tflm_model.arena_estimate to replay and bisect.

How those allocators fill the arena (read from each revision's micro_allocator.cc, micro_interpreter.cc,
simple_memory_allocator.cc and greedy_memory_planner.cc, and measured under qemu; the generations' data says where
they differ):
- the MicroInterpreter's constructor places the SimpleMemoryAllocator in the arena's tail (2020-06: and the
  MicroAllocator, MicroAllocator::Create), then a persistent TfLiteTensor for every tensor of the model
  (context->tensors) and, for each tensor with quantization, a TfLiteAffineQuantization and a copy of its zero points
  (2019: and of its scales), 4 + 4 x channels B each;
- AllocateTensors(): the NodeAndRegistration array and each operator's parsed builtin params (tail); each kernel's
  Init() and Prepare() allocations (only the generation's arena_kernels take any: OpData, CONV_2D's per-channel
  arrays, SVDF's scratch-buffer handles, all from the tail; a persistent allocation between two scratch requests
  fails); no temporary TfLiteTensors (GetInput() returns the persistent ones);
- FinishTensorAllocation() (2020-06: FinishModelAllocation()): the AllocationInfo array just below the tail, the
  greedy planner's working memory (2019: 36 B a buffer; 2020-06: 40) in what is left above the head; the plan (every
  tensor without data that is not a variable and is produced or a graph input, and every scratch buffer, each rounded
  up to 16 B; 2019: equal sizes placed in the order added and offline plans ignored; 2020-06: as today's planner,
  offline plans honoured) must fit between the head and the tail; it is taken from the head; variable tensors then
  come from the tail.
One arena per interpreter: this allocator cannot share one between models.
"""

from __future__ import annotations

from tflm_model.arena_facts import Facts, Steps, align_up, op_names, op_view, tensor_bytes
from tflm_model.arena_lifetimes import local_lifetimes
from tflm_model.errors import ModelError
from tflm_model.memory_planner import ONLINE, PlannedBuffer, plan_offsets
from tflm_model.operator_uses import op_key
from tflm_model.tensor_graph import TensorGraph
from tflm_facts.kernel_memory import ARENA_ALIGNMENT, BUILTIN_PARAMS, unknown_op_allocations

_INT8 = 9
PART_TENSORS = "TfLiteTensor arrays"
PART_QUANTIZATION = "TfLiteTensor quantization copies"


def _lifetimes(graph: TensorGraph) -> tuple[list[int], list[int]]:
    """First and last use of each tensor as the 2019 AllocationInfoBuilder marks them: graph inputs created at 0,
    graph outputs used to the last operator, operator i at time i (an operator's outputs not used at it)."""
    return local_lifetimes(graph.subgraphs[0], outputs_used=False)


def _svdf_scratch(graph: TensorGraph, operator) -> list[int]:
    """SVDF's Prepare: batch x filters x 4 B (and batch x units x 4 B for int8) as scratch requests."""
    tensors = graph.subgraphs[0].tensors
    batch = tensors[operator.inputs[0]].shape[0]
    filters = tensors[operator.inputs[1]].shape[0]
    if tensors[operator.inputs[0]].type != _INT8:
        return [batch * filters * 4]
    rank = operator.option("rank", 1) or 1
    return [batch * filters * 4, batch * (filters // rank) * 4]


def _custom_ops(graph: TensorGraph) -> set[str]:
    """The model's custom operators: the firmware registers their kernels itself (AddCustom), at any revision."""
    return {key.name for key, _code in (op_key(entry, str(graph.path), index)
                                        for index, entry in enumerate(graph.operator_codes)) if key.kind != "builtin"}


def tensor_array_steps(graph: TensorGraph, kernels: str, out: Steps, facts: Facts) -> None:
    """Append the steps of one model's interpreter (constructor and AllocateTensors()) to out."""
    gen = facts.generation
    if len(graph.subgraphs) != 1:
        raise ModelError(f"{graph.path}: the model has {len(graph.subgraphs)} subgraphs; TFLM of {gen.covers} "
                         "supports one only (AllocateTensors() fails)")
    names = op_names(graph)
    subgraph = graph.subgraphs[0]
    used = [names[operator.opcode_index] for operator in subgraph.operators]
    custom = _custom_ops(graph)
    missing = sorted({name for name in used if gen.kernel_ops and name not in gen.kernel_ops and name not in custom})
    if missing:
        raise ModelError(f"{graph.path}: TFLM of {gen.covers} has no kernel for {', '.join(missing)} "
                         "(AllocateTensors() fails)")
    if kernels not in gen.measured_kernels:
        raise ModelError(f"the arena of {gen.label} is modelled for its reference kernels only")
    steps = out.steps
    # the constructor: a TfLiteTensor per tensor, then each tensor's quantization copied into the arena
    tensor_size, tensor_align = facts.struct("TfLiteTensor")
    steps.append(("tail", tensor_size * len(subgraph.tensors), tensor_align, PART_TENSORS))
    quant_size, quant_align = facts.struct("TfLiteAffineQuantization")
    array_align = facts.struct("TfLiteIntArray")[1]
    copies = 2 if gen.quantization_scales_copied else 1  # the zero points, and the scales where they are copied
    for tensor in subgraph.tensors:
        if tensor.scale_count > 0 and tensor.zero_point_count > 0:
            steps.append(("tail", quant_size, quant_align, PART_QUANTIZATION))
            steps += [("tail", 4 + 4 * tensor.scale_count, array_align, PART_QUANTIZATION)] * copies
    # AllocateTensors(): nodes, builtin params, then each kernel's Init() and Prepare()
    node_size, node_align = facts.struct("NodeAndRegistration")
    steps.append(("tail", node_size * len(subgraph.operators), node_align, "NodeAndRegistration arrays"))
    for name in used:
        if BUILTIN_PARAMS.get(name):
            steps.append(("tail", *facts.param(BUILTIN_PARAMS[name]), "builtin params"))
    for name in used:
        if "op_data" in gen.arena_kernels.get(name, ()):
            steps.append(("tail", facts.op_data(name, 0), ARENA_ALIGNMENT, f"OpData {name}"))
    handle_size, handle_align = facts.struct("ScratchBufferHandle")
    scratch: list[tuple[int, int]] = []  # (node, bytes)
    tail_moved = False  # a tail allocation since the last scratch request
    for node, operator in enumerate(subgraph.operators):
        rules = gen.arena_kernels.get(used[node], ())
        if rules and used[node] not in gen.measured_ops:
            out.exact = False
            note = f"{graph.path.name}: {used[node]}: its kernel's allocations at this revision were read from its " \
                   "source, not measured"
            if note not in out.notes:
                out.notes.append(note)
        try:
            channels = subgraph.tensors[operator.inputs[1]].shape[0] if "per_channel" in rules else \
                subgraph.tensors[operator.inputs[1]].shape[3] if "per_channel_depthwise" in rules else 0
            requests = _svdf_scratch(graph, operator) if "svdf_scratch" in rules else []
        except (IndexError, AttributeError, ZeroDivisionError):
            raise ModelError(f"{graph.path}: subgraph 0 operator {node} ({used[node]}) lacks the tensors or shapes "
                             "its TFLM kernel needs") from None
        if channels:
            steps += [("tail", 4 * channels, ARENA_ALIGNMENT, f"kernel buffers {used[node]}")] * 2
            tail_moved = True
        if used[node] in custom:  # the guess later generations take for an op no rule models
            guess = unknown_op_allocations(op_view(graph, 0, operator, used[node]))
            out.guessed.add(used[node])
            out.exact = False
            if f"{graph.path.name}: {guess.note}" not in out.notes:
                out.notes.append(f"{graph.path.name}: {guess.note}")
            if not out.drop_guessed:  # its scratch buffer from the tail too: never less than planned, and no
                # request after a persistent buffer that this revision would refuse on a guess
                steps.append(("tail", sum(guess.persistent) + sum(guess.scratch), ARENA_ALIGNMENT,
                              f"kernel buffers {used[node]}"))
                tail_moved = True
        if requests:
            for bytes_ in requests:
                if scratch and tail_moved:
                    raise ModelError(f"{graph.path}: operator {node} (SVDF) requests a scratch buffer after another "
                                     "kernel's persistent buffer; TFLM of this revision fails AllocateTensors()")
                steps.append(("tail", handle_size, handle_align, "scratch buffer handles"))
                scratch.append((node, bytes_))
                tail_moved = False
    # FinishTensorAllocation(): plan every tensor that needs it and the scratch buffers, then the variables
    first, last = _lifetimes(graph)
    offline = None
    if gen.offline_plans and graph.offline_plan is not None:
        offline = graph.offline_plan[3:]
        if len(offline) != len(subgraph.tensors):
            raise ModelError(f"{graph.path}: the OfflineMemoryAllocation metadata has {len(offline)} offsets for "
                             f"{len(subgraph.tensors)} tensors; TFLM refuses the model")
    buffers: list[PlannedBuffer] = []
    for index, tensor in enumerate(subgraph.tensors):
        if tensor.has_data or tensor.is_variable or first[index] == -1 and last[index] != -1:
            continue
        if first[index] == -1 or last[index] == -1:
            raise ModelError(f"{graph.path}: tensor {index} is never produced or never used; TFLM of this revision "
                             "fails AllocateTensors() (invalid lifetime)")
        buffers.append(PlannedBuffer(align_up(tensor_bytes(graph, 0, index), ARENA_ALIGNMENT), first[index],
                                     last[index], offline[index] if offline is not None else ONLINE))
    tensor_plan = plan_offsets(buffers[::-1])[1] if gen.planner_ties_first_added else plan_offsets(buffers)[1]
    buffers += [PlannedBuffer(align_up(bytes_, ARENA_ALIGNMENT), node, node) for node, bytes_ in scratch]
    plan = plan_offsets(buffers[::-1])[1] if gen.planner_ties_first_added else plan_offsets(buffers)[1]
    info_size, info_align = facts.struct("AllocationInfo")
    info_bytes = info_size * (len(subgraph.tensors) + len(scratch))
    steps.append(("plan_below", len(buffers), 1, (info_bytes, info_align, gen.planner_bytes_per_buffer)))
    steps.append(("reserve", plan, 1, None))
    for index, tensor in enumerate(subgraph.tensors):
        if tensor.is_variable:
            steps.append(("tail", tensor_bytes(graph, 0, index), ARENA_ALIGNMENT, "variable tensors"))
    out.plans.append((plan, tensor_plan))
