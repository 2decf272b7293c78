"""Where a model's bytes come from: a .tflite file, a C/C++ array (model_sources), or bytes already in memory (a
model found inside a firmware).

Every reader of tflm_model takes a *model source*: a path (str or os.PathLike) or a ModelData. A ModelData carries
its label, which outputs and error messages name it by (`firmware.elf:g_model`, like the FILE:NAME of a C array), and
its bytes. A path may also be a C/C++ array's reference (`file.cc:g_model`, see model_sources), read through
model_sources. `read_model_argument` is the one function the commands pass a model given on their command line
through.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from tflm_model.errors import ModelError
from tflm_model.model_sources import model_bytes, model_size, read_model_file


class ModelData(str):
    """A model held in memory: a str, its label (e.g. "build/firmware.elf:g_model"), with the bytes in `data`.

    It is a str so that code which only names models (os.path.basename, joins, JSON, sorting) names it by its label
    unchanged; code that reads a model goes through the functions below, never through open()."""

    data: bytes
    # For a model read from a firmware: the tensor types that firmware's own kernels take (tflm_facts.linked_types),
    # whose rules its uses are checked against; None for any other model (the rules of tflm_facts' revision).
    kernel_types: dict | None

    def __new__(cls, label: str, data: bytes, kernel_types: dict | None = None) -> "ModelData":
        obj = super().__new__(cls, label)
        obj.data = bytes(data)
        obj.kernel_types = kernel_types
        return obj

    @property
    def label(self) -> str:
        return str.__str__(self)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def source_path(source) -> Path:
    """The Path a source is named by (a ModelData's label as a Path)."""
    return Path(source.label) if isinstance(source, ModelData) else Path(source)


def source_size(source) -> int:
    if isinstance(source, ModelData):
        return len(source.data)
    return model_size(source)


def source_exists(source) -> bool:
    return isinstance(source, ModelData) or model_bytes(source) is not None or Path(source).is_file()


def source_bytes(source) -> bytes:
    """The whole model; ModelError naming the file when it cannot be read."""
    if isinstance(source, ModelData):
        return source.data
    data = model_bytes(source)
    return data if data is not None else read_model_file(Path(source))


def read_model_argument(argument: str) -> ModelData:
    """A model named on a command line (a .tflite, or a C/C++ file holding one model, or FILE:NAME), as bytes with
    the argument as its label."""
    return ModelData(argument, source_bytes(argument))
