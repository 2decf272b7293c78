"""Tensor arenas allocated at run time: `uint8_t* tensor_arena` set from an allocation and passed to the interpreter.

Edge Impulse's SDK (EI_CLASSIFIER_ALLOCATION_HEAP, its default on most boards) declares `uint8_t* tensor_arena = NULL;`
in an anonymous namespace and sets it from `ei_aligned_calloc(16, kTensorArenaSize)` (or, in EON-compiled models,
through the `alloc_fnc` pointer it is given); ESP32 apps use `heap_caps_malloc(size, MALLOC_CAP_SPIRAM)`. The pointer
is 4 bytes of .bss and never the arena. What the firmware states about the arena's size is read, in this order:

1. the size passed to the interpreter's constructor, when a constant (arena_finder.py's constructor calls);
2. the allocation whose result is stored into the pointer: the functions referring to the pointer are decoded again
   (the same register tracking), and a call's result stored there names the allocator and its constant arguments;
   the size argument of the known allocators (ALLOCATORS), else, for an indirect call, the argument equal to (3);
3. a constant named like `kTensorArenaSize` / `*arena_size*` the DWARF states (DW_AT_const_value).

The fit answer compares the models' need with that size and says where it was read; when the firmware states none,
it says so and the arena rule is not checked (a guess never fails a gate).
"""

from __future__ import annotations

import re
from dataclasses import replace

from sizetool.errors import SizeToolError
from sizetool.inputs.dwarf_constants import read_dwarf_constants
from sizetool.inputs.elf_reader import ElfImage
from sizetool.code_graph.reference_graph import ReferenceGraph, function_code_runs
from sizetool.fit.arena_finder import (
    FOUND_BY_HEAP, LinkedArena, arena_pointers, describe_call, trace_stores,
)

# Allocation functions and which arguments make the size (their product for calloc's count and size).
ALLOCATORS: dict[str, tuple[int, ...]] = {
    "malloc": (0,), "calloc": (0, 1), "aligned_alloc": (1,), "memalign": (1,), "_malloc_r": (1,),
    "_calloc_r": (1, 2), "ei_malloc": (0,), "ei_calloc": (0, 1), "ei_aligned_malloc": (1,),
    "ei_aligned_calloc": (1,), "heap_caps_malloc": (0,), "heap_caps_calloc": (0, 1),
    "heap_caps_aligned_alloc": (1,), "heap_caps_aligned_calloc": (1, 2), "ps_malloc": (0,), "ps_calloc": (0, 1),
    "pvPortMalloc": (0,), "k_malloc": (0,), "k_calloc": (0, 1), "k_aligned_alloc": (1,), "rt_malloc": (0,),
    "operator new": (0,), "operator new[]": (0,),
}
ARENA_SIZE_NAME = re.compile(r"(tensor_?)?arena_?size", re.IGNORECASE)


def heap_arena_pointers(image: ElfImage) -> list[LinkedArena]:
    """A heap arena for each pointer named like a tensor arena, when no interpreter construction was found."""
    return [LinkedArena(s.name, s.address, 0, "heap", FOUND_BY_HEAP) for s in arena_pointers(image)]


def complete_heap_arena(image: ElfImage, graph: ReferenceGraph | None, arena: LinkedArena) -> LinkedArena:
    """The heap arena with its allocation and the size the firmware states (see the module's order)."""
    allocation, call = arena.allocation, None
    if arena.address and graph is not None and graph.decoded:
        found = _allocation_stored(image, graph, arena.address)
        if found is not None:
            allocation, call = found
    constants = _arena_size_constants(image)
    size, size_from = 0, ""
    if call is not None:
        size, size_from = _allocated_size(image, call, constants)
    if not size and arena.passed_size is not None:
        size, size_from = arena.passed_size, "the size passed to the interpreter"
    if not size and len({c.value for c in constants}) == 1:
        size, size_from = constants[0].value, f"{constants[0].name.split('::')[-1]} (DWARF constant)"
    return replace(arena, size=size, allocation=allocation, size_from=size_from)


def _allocation_stored(image: ElfImage, graph: ReferenceGraph, pointer: int) -> tuple[str, tuple] | None:
    """("ei_aligned_calloc(16, 20480) in AllocateArena()", the call source) for the call whose result the code stores
    into the pointer."""
    node = graph.node_at(pointer)
    if node is None:
        return None
    for index, targets in enumerate(graph.edges):
        function = graph.nodes[index]
        if function.kind != "func" or node not in targets:
            continue
        for store in trace_stores(image, function_code_runs(image, function)) or ():
            if store.address == pointer and store.source[0] == "call":
                _, target, arguments = store.source
                positions = ALLOCATORS.get(_allocator_name(image, target), (0, 1))
                return (f"{describe_call(image, target, arguments, max(max(positions) + 1, 2))} in {function.name}",
                        store.source)
    return None


def _allocated_size(image: ElfImage, call: tuple, constants) -> tuple[int, str]:
    _, target, arguments = call
    name = _allocator_name(image, target)
    positions = ALLOCATORS.get(name)
    if positions is not None and all(p in arguments for p in positions):
        size = 1
        for position in positions:
            size *= arguments[position]
        return size, f"the allocation's argument ({name})"
    stated = {c.value for c in constants}
    matching = [v for i, v in sorted(arguments.items()) if v in stated]
    if matching:
        constant = next(c for c in constants if c.value == matching[0])
        return matching[0], f"{constant.name.split('::')[-1]} (DWARF constant), an argument of the allocation"
    return 0, ""


def _allocator_name(image: ElfImage, target: int | None) -> str:
    """The called function's name without its parameters ("" for an indirect call)."""
    symbol = None if target is None else next((s for s in image.symbols if s.kind == "func" and s.address == target),
                                              None)
    if symbol is None:
        return ""
    name = symbol.name.split("(")[0]
    return name if name in ALLOCATORS else symbol.mangled if symbol.mangled in ALLOCATORS else name


def _arena_size_constants(image: ElfImage):
    if not image.has_dwarf:
        return []
    try:
        return read_dwarf_constants(image.path, ARENA_SIZE_NAME)
    except SizeToolError:
        return []
