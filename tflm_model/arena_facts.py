"""What the arena estimate's allocation steps are made of, shared by every allocator generation's replay
(tflm_model.arena_estimate, tflm_model.arena_tensor_array): the steps being gathered, the sizes and kernel facts of one
generation and ABI (the build's first, then the generation's table, then kernel_memory's), and small helpers."""

from __future__ import annotations

from dataclasses import dataclass, field

from tflm_model.errors import ModelError
from tflm_model.operator_uses import op_key
from tflm_model.tensor_graph import TensorGraph
from tflm_facts.allocator_generations import CURRENT, STAND_INS, Generation
from tflm_facts.build_sizes import BuildSizes
from tflm_facts.kernel_memory import ELEMENT_BYTES, PARAM_STRUCTS, STRUCTS
from tflm_facts.op_view import OpView, TensorView


@dataclass
class Steps:
    steps: list[tuple]
    plans: list[tuple[int, int]]  # per model: (plan bytes, plan bytes without scratch buffers)
    notes: list[str]
    exact: bool = True
    assumed: set = field(default_factory=set)
    widened: set = field(default_factory=set)  # int-enum sizes taken from a generation's short-enum table
    guessed: set = field(default_factory=set)  # ops whose allocations only UNKNOWN_OP_BOUND's guess gives
    drop_guessed: bool = False  # leave those allocations out (the figure without the guess)


class Facts:
    """Sizes and kernel rules for one generation and ABI: the build's (DWARF) first, then the generation's table, then
    kernel_memory's (90b983c), which for another generation is an assumption the answer names."""

    def __init__(self, sizes: BuildSizes, generation: Generation, abi: str, kernels: str, out: Steps):
        self.sizes, self.generation, self.abi, self.kernels, self.out = sizes, generation, abi, kernels, out
        self.other = generation is not CURRENT

    def _table(self, tables: dict) -> tuple[dict, bool]:
        """The generation's table for this ABI; for int-sized enums (ilp32) where only the short-enum (eabi) build was
        measured, that build's table, to be widened: (table, widened)."""
        if self.abi in tables:
            return tables[self.abi], False
        if self.abi == "ilp32" and "eabi" in tables:
            return tables["eabi"], True
        return {}, False

    def _widened(self, name: str, size: int, table: dict) -> int:
        """A short-enum size as an int-enum build's bound: the measured eabi size plus what int-sized enums add to the
        same struct at 90b983c (never less than the eabi build needs; the answer notes it)."""
        self.out.widened.add(name)
        return size + max(0, table[name]["ilp32"][0] - table[name]["eabi"][0]) if name in table else size

    def struct(self, name: str) -> tuple[int, int]:
        size, align = STRUCTS[STAND_INS.get(name, name)][self.abi]
        if name in self.sizes.structs:
            return self.sizes.structs[name], align
        table, widened = self._table(self.generation.structs)
        if name in table:
            if widened:
                return self._widened(STAND_INS.get(name, name), table[name], STRUCTS), align
            return table[name], align
        if self.other:
            self.out.assumed.add(name)
        return size, align

    def param(self, name: str) -> tuple[int, int]:
        size, align = PARAM_STRUCTS[name][self.abi]
        if name in self.sizes.params:
            return self.sizes.params[name], align
        table, widened = self._table(self.generation.params)
        if name in table:
            if widened:
                return self._widened(name, table[name], PARAM_STRUCTS), align
            return table[name], align
        if self.other:
            self.out.assumed.add(name)
        return size, align

    def op_data(self, op: str, default: int) -> int:
        if op in self.sizes.op_data:
            return self.sizes.op_data[op]
        table, widened = self._table(self.generation.op_data)
        if op in table and self.kernels == "reference":
            if widened:  # OpData structs hold no enums that widen: the short-enum size, noted
                self.out.widened.add(f"OpData {op}")
            return table[op]
        if self.other:
            self.out.assumed.add(f"OpData {op}")
        return default

    def kernel_rules(self, op: str) -> None:
        """Note when the generation's kernel for op was not measured (its 90b983c rules are assumed)."""
        gen = self.generation
        if self.other and (op not in gen.measured_ops or self.kernels not in gen.measured_kernels):
            self.out.assumed.add(f"{op} kernel rules")

    def temps(self, op: str, in_type: int | None, default: list, counts: tuple[int, int] = (0, 0)) -> list:
        """The temporary tensors op's Prepare takes; a table entry "every" means each input, then each output."""
        listed = self.generation.temp_tensors.get(op) if self.kernels == "reference" else None
        if listed is None:
            return default
        if listed == "every":
            return [("i", n) for n in range(counts[0])] + [("o", n) for n in range(counts[1])]
        return list(listed(in_type) if callable(listed) else listed)


def align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def tensor_bytes(graph: TensorGraph, sub: int, index: int) -> int:
    tensor = graph.subgraphs[sub].tensors[index]
    size = ELEMENT_BYTES.get(tensor.type)
    if size is None:
        raise ModelError(f"{graph.path}: subgraph {sub} tensor {index} has tensor type code {tensor.type}, "
                               "which TFLM cannot allocate")
    for dim in tensor.shape:
        size *= dim
    return size


def op_names(graph: TensorGraph) -> list[str]:
    names = []
    for index, entry in enumerate(graph.operator_codes):
        key, _code = op_key(entry, str(graph.path), index)
        names.append(key.name if key.kind == "builtin" else key.name)
    return names


def op_view(graph: TensorGraph, sub: int, operator, name: str) -> OpView:
    """What a kernel's Prepare sees of one operator: its op, input and output tensors (None for an omitted input) and
    options (tflm_facts.op_view, which the kernel rules read)."""
    tensors = graph.subgraphs[sub].tensors

    def view(index: int) -> TensorView | None:
        if index < 0:
            return None
        tensor = tensors[index]
        return TensorView(tensor.type, tensor.shape, tensor.scale_count, tensor.has_data)

    return OpView(name, tuple(view(i) for i in operator.inputs), tuple(view(i) for i in operator.outputs),
                  operator.options)
