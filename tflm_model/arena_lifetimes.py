"""Tensor lifetimes as TFLM's AllocationInfoBuilder marks them, and the per-subgraph plans of the revisions before
8c41f96 (2022-03-01): what the arena estimate (arena_estimate.py) plans its non-persistent tensors and scratch buffers
with.
"""

from __future__ import annotations

from tflm_model.arena_facts import Facts, Steps, align_up, tensor_bytes
from tflm_model.errors import ModelError
from tflm_model.memory_planner import PlannedBuffer, plan_offsets
from tflm_model.tensor_graph import TensorGraph
from tflm_facts.kernel_memory import ARENA_ALIGNMENT

# Builtin ops that run other subgraphs, and the option fields naming them (in the order TFLM walks them).
SUBGRAPH_OPTIONS = {"IF": ("then_subgraph", "else_subgraph"), "WHILE": ("cond_subgraph", "body_subgraph"),
                    "CALL_ONCE": ("init_subgraph",)}


def tensor_lifetimes(graph: TensorGraph, names: list[str], scratch_owner: list[tuple[int, int]]):
    """First and last use of every tensor (per subgraph) and of every scratch request, as AllocationInfoBuilder
    marks them: subgraph 0 from time 0, each operator one step, a subgraph an IF/WHILE/CALL_ONCE runs walked in place."""
    first = [[-1] * len(s.tensors) for s in graph.subgraphs]
    last = [[-1] * len(s.tensors) for s in graph.subgraphs]
    scratch_times = [[-1, -1] for _ in scratch_owner]
    requests_by_node: dict[tuple[int, int], list[int]] = {}
    for request, owner in enumerate(scratch_owner):
        requests_by_node.setdefault(owner, []).append(request)
    clock = [0]
    depth = [0]

    def created(sub: int, index: int) -> None:
        if first[sub][index] == -1:
            first[sub][index] = clock[0]

    def walk(sub: int) -> None:
        depth[0] += 1
        if depth[0] > 64:
            raise ModelError(f"{graph.path}: subgraphs call each other more than 64 deep (a cycle?)")
        subgraph = graph.subgraphs[sub]
        for index in subgraph.inputs:
            created(sub, index)
            last[sub][index] = clock[0]
        for node, operator in enumerate(subgraph.operators):
            clock[0] += 1
            for index in operator.outputs:
                created(sub, index)
            start = clock[0]
            for field in SUBGRAPH_OPTIONS.get(names[operator.opcode_index], ()):
                target = operator.option(field, -1)
                if not 0 <= target < len(graph.subgraphs):
                    raise ModelError(f"{graph.path}: subgraph {sub} operator {node} runs subgraph {target}, "
                                           f"which the model does not have")
                clock[0] += 1
                walk(target)
            for index in operator.inputs:
                if index >= 0:
                    last[sub][index] = clock[0]
            for index in operator.outputs:
                last[sub][index] = clock[0]
            for request in requests_by_node.get((sub, node), ()):
                if scratch_times[request][0] == -1:
                    scratch_times[request][0] = start
                scratch_times[request][1] = clock[0]
        for index in subgraph.outputs:
            created(sub, index)
            last[sub][index] = clock[0]
        depth[0] -= 1

    if graph.subgraphs:
        walk(0)
    return first, last, scratch_times


def local_lifetimes(subgraph, outputs_used: bool = True) -> tuple[list[int], list[int]]:
    """First and last use of a subgraph's tensors as AllocationInfoBuilder::AddTensors marked them before 8c41f96
    (2022-03-01), the subgraph alone: its inputs from node 0, its outputs to its last node, else the operators (with
    outputs_used, an operator's outputs are used at it too; the 2019 builder marked only its inputs)."""
    first = [-1] * len(subgraph.tensors)
    last = [-1] * len(subgraph.tensors)
    for index in subgraph.inputs:
        first[index] = 0
    for index in subgraph.outputs:
        last[index] = len(subgraph.operators) - 1
    for node in reversed(range(len(subgraph.operators))):
        operator = subgraph.operators[node]
        for index in operator.inputs:
            if index >= 0 and (last[index] == -1 or last[index] < node):
                last[index] = node
        for index in operator.outputs:
            if first[index] == -1 or first[index] > node:
                first[index] = node
            if outputs_used and (last[index] == -1 or last[index] < node):
                last[index] = node
    return first, last


def per_subgraph_plans(graph: TensorGraph, needs: list[tuple[int, int, int]], scratch_owner: list[tuple[int, int]],
                        scratch_bytes: list[int], facts: Facts, steps: list, out: Steps) -> None:
    """FinishModelAllocation before 8c41f96 (2022-03-01), one subgraph after the other: scratch handles for every
    request, the subgraph's AllocationInfo (its tensors and every request, each at its node's index), its own plan,
    which must fit above the head the earlier subgraphs' plans left (the head then grows to the largest plan), then
    its variable tensors."""
    handle_size, handle_align = facts.struct("ScratchBufferHandle")
    info_size, info_align = facts.struct("AllocationInfo")
    scratch = [PlannedBuffer(align_up(b, ARENA_ALIGNMENT), node, node)
               for b, (_sub, node) in zip(scratch_bytes, scratch_owner)]
    largest = (0, 0)
    for sub, subgraph in enumerate(graph.subgraphs):
        if scratch_owner:
            steps.append(("tail", handle_size * len(scratch_owner), handle_align, "scratch buffer handles"))
        steps.append(("temp", info_size * (len(subgraph.tensors) + len(scratch_owner)), info_align, None))
        first, last = local_lifetimes(subgraph)
        tensors = [PlannedBuffer(align_up(tensor_bytes(graph, sub, index), ARENA_ALIGNMENT), first[index],
                                 last[index], offset) for s, index, offset in needs if s == sub]
        tensor_plan = plan_offsets(tensors)[1]
        plan = plan_offsets(tensors + scratch)[1]
        largest = max(largest, (plan, tensor_plan))
        steps.append(("plan", len(tensors) + len(scratch), ARENA_ALIGNMENT, "keep"))
        steps.append(("planfits", plan, ARENA_ALIGNMENT, None))
        steps.append(("reset", 0, 0, None))
        steps.append(("reserve", plan, ARENA_ALIGNMENT, None))
        for index, tensor in enumerate(subgraph.tensors):
            if tensor.is_variable:
                steps.append(("tail", tensor_bytes(graph, sub, index), ARENA_ALIGNMENT, "variable tensors"))
    out.plans.append(largest)
