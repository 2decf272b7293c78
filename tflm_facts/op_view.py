"""What a kernel's Prepare() sees of one operator: its tensors' types, shapes, quantization channels and constness,
and its builtin options (the input of tflm_facts.kernel_memory.prepare_allocations and of CMSIS-NN's scratch rules)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TensorView:
    """What a kernel's Prepare sees of one tensor: type code, shape, element count, quantization channels."""

    type: int
    shape: tuple[int, ...]
    scale_count: int = 0
    constant: bool = False  # its data is in the model (TFLM's IsConstantTensor)

    @property
    def elements(self) -> int:
        count = 1
        for dim in self.shape:
            count *= dim
        return count

    def dim(self, index: int, default: int = 1) -> int:
        if -len(self.shape) <= index < len(self.shape):
            return self.shape[index]
        return default


@dataclass(frozen=True)
class OpView:
    op: str
    inputs: tuple[TensorView | None, ...]  # None for an omitted optional input
    outputs: tuple[TensorView, ...]
    options: tuple[tuple[str, int], ...] = ()

    def option(self, name: str, default: int = 0) -> int:
        for key, value in self.options:
            if key == name:
                return value
        return default

    def input(self, index: int) -> TensorView | None:
        return self.inputs[index] if index < len(self.inputs) else None
