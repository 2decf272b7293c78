"""Where a model's bytes come from: a .tflite file, or a byte array in a C/C++ source or header (c_arrays).

A model argument is one of:
- a .tflite file (any file that is not C/C++ by its suffix), read as is;
- a C/C++ file (.c .cc .cpp .cxx .c++ .h .hh .hpp .hxx .inc .ipp .inl .ino): every byte array in it whose bytes
  are a TFLite model (the FlatBuffer identifier TFL3 at offset 4), each named `file.cc:ARRAY`;
- `FILE:NAME`: the byte array NAME of the C/C++ file FILE. The argument is split at its last colon only when what
  follows is a C identifier and the whole argument is not an existing file, so Windows paths read as written:
  `C:\\models\\model.cc` is a file, `C:\\models\\model.cc:g_model` its array g_model.

The commands expand their arguments with expand_model_arguments into references (a path, or `path:NAME`), which
every reader of the package (tflite_reader, digest, target_fit) opens with model_bytes: so a reference passes through
the commands as the string it is, and a model's name in any output is the reference's last component
(`model.cc:g_model`). A file with no model in it is a ModelError naming the file. A C/C++ file is parsed once per
process while it is unchanged (size, modification and change times, inode), however many readers open its arrays.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from tflm_model.errors import ModelError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from tflm_model.c_arrays import CArrays

C_SUFFIXES = frozenset({".c", ".cc", ".cpp", ".cxx", ".c++", ".cp", ".h", ".hh", ".hpp", ".hxx", ".h++", ".inc",
                        ".ipp", ".inl", ".ino"})
TFLITE_IDENTIFIER = b"TFL3"
_REFERENCE = re.compile(r"(.+):([A-Za-z_][A-Za-z0-9_]*)", re.DOTALL)


@dataclass(frozen=True)
class ModelSource:
    """One model: the reference the readers take (a path, or `path:NAME`), the file, the array's name in a C/C++
    file (None for a .tflite) and the array's bytes (None for a .tflite: readers map the file)."""

    reference: str
    path: Path
    array: str | None = None
    data: bytes | None = None

    @property
    def name(self) -> str:
        """How outputs name the model: `model.tflite`, or `model.cc:g_model` for an array."""
        return self.path.name + (f":{self.array}" if self.array else "")

    def read_bytes(self) -> bytes:
        """The model's bytes (a .tflite file is read whole)."""
        return self.data if self.data is not None else read_model_file(self.path)


def split_reference(argument: str | os.PathLike) -> tuple[str, str | None]:
    """(file, array name or None) of a model argument: `FILE:NAME` when NAME is a C identifier and the whole
    argument is not an existing file (so `C:\\m.cc` is a file, and `C:\\m.cc:g_model` its array)."""
    text = os.fspath(argument)
    match = _REFERENCE.fullmatch(text)
    if match is None or os.path.exists(text):
        return text, None
    return match.group(1), match.group(2)


def is_c_source(path: str | os.PathLike) -> bool:
    return Path(path).suffix.lower() in C_SUFFIXES


def is_model_argument(argument: str) -> bool:
    """Whether a command-line word names a model (a .tflite, a C/C++ file or FILE:NAME) rather than an op name."""
    file, array = split_reference(argument)
    return file.endswith(".tflite") or is_c_source(file) or array is not None or os.path.sep in argument


def read_model_file(path: Path) -> bytes:
    """A file's bytes; ModelError naming it when it cannot be read."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise ModelError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ModelError(f"{path}: is a directory, not a model") from None
    except OSError as error:
        raise ModelError(f"{path}: cannot read ({error.strerror or error})") from None


def read_c_file(path: str | os.PathLike) -> CArrays:
    """The byte arrays of a C/C++ file; parsed once per process while the file is unchanged."""
    text = os.fspath(path)
    try:
        status = os.stat(text)
    except OSError:
        read_model_file(Path(text))  # words the error
        raise
    if not os.path.isfile(text):
        raise ModelError(f"{text}: not a regular file")
    return _read_unchanged(os.path.abspath(text), status.st_size, status.st_mtime_ns, status.st_ctime_ns,
                           status.st_ino)


@functools.lru_cache(maxsize=8)
def _read_unchanged(path: str, _size: int, _mtime_ns: int, _ctime_ns: int, _inode: int) -> CArrays:
    data = read_model_file(Path(path))
    if b"\0" in data[:4096]:
        raise ModelError(f"{path}: binary content, not C/C++ source")
    from tflm_model.c_arrays import read_c_arrays  # C sources only: its regexes cost a model read from an ELF ~3 ms

    return read_c_arrays(data.decode("utf-8", "surrogateescape"))


def is_tflite_model(data: bytes) -> bool:
    """The FlatBuffer identifier of a TFLite model at offset 4 (the readers check the rest)."""
    return data[4:8] == TFLITE_IDENTIFIER


def _no_model(file: str, arrays: CArrays) -> ModelError:
    """The one line for a C/C++ file with no model in it, saying what it does hold."""
    if arrays.arrays:
        names = ", ".join(a.name for a in arrays.arrays[:5]) + (", ..." if len(arrays.arrays) > 5 else "")
        what = (f"{len(arrays.arrays)} byte array(s) ({names}), none with the TFLite identifier "
                f"{TFLITE_IDENTIFIER.decode()} at offset 4")
    elif arrays.unreadable:
        first = arrays.unreadable[0]
        what = f"byte array {first.name} (line {first.line}) cannot be read: {first.reason}"
    elif arrays.declared:
        what = (f"{', '.join(arrays.declared)} is only declared here (extern): give the file that defines it, "
                "usually the .cc beside this header")
    else:
        what = "no byte array with an initializer"
    return ModelError(f"{file}: no TFLite model in it: {what}")


def _array(file: str, name: str, arrays: CArrays) -> bytes:
    for array in arrays.arrays:
        if array.name == name:
            return array.data
    for unreadable in arrays.unreadable:
        if unreadable.name == name:
            raise ModelError(f"{file}:{name}: line {unreadable.line}: cannot read the array: {unreadable.reason}")
    if name in arrays.declared:
        raise ModelError(f"{file}:{name}: only declared in {os.path.basename(file)} (extern): give the file that "
                         "defines it")
    names = ", ".join(a.name for a in arrays.arrays) or "none"
    raise ModelError(f"{file}: no byte array named {name} (its byte arrays: {names})")


def load_models(argument: str | os.PathLike) -> list[ModelSource]:
    """The models one argument names, in file order: a .tflite -> itself (its bytes not read here); a C/C++ file ->
    each byte array that is a TFLite model; FILE:NAME -> that array. ModelError when there is none (naming the
    file). The FlatBuffer is checked by the readers when they read it (tflite_reader)."""
    file, name = split_reference(argument)
    if name is not None:
        if not os.path.exists(file):
            raise ModelError(f"{os.fspath(argument)}: no such file")
        arrays = read_c_file(file)
        return [ModelSource(f"{file}:{name}", Path(file), name, _array(file, name, arrays))]
    if not is_c_source(file):
        return [ModelSource(file, Path(file))]
    arrays = read_c_file(file)
    models = [ModelSource(f"{file}:{a.name}", Path(file), a.name, a.data) for a in arrays.arrays
              if is_tflite_model(a.data)]
    if not models:
        raise _no_model(file, arrays)
    return models


def expand_model_arguments(arguments) -> list[str]:
    """Each argument's references (see load_models), in order: what the commands pass to the readers."""
    return [model.reference for argument in arguments for model in load_models(argument)]


def model_bytes(reference: str | os.PathLike) -> bytes | None:
    """The bytes of a C/C++ array reference (`FILE:NAME`, or a C/C++ file holding exactly one model); None for a
    .tflite file, which the readers map themselves. ModelError naming the file when there is no such model."""
    file, name = split_reference(reference)
    if name is None and not is_c_source(file):
        return None
    models = load_models(reference)
    if len(models) > 1:
        raise ModelError(f"{file}: holds {len(models)} models ({', '.join(m.array for m in models)}): name one as "
                         f"{os.path.basename(file)}:NAME")
    return models[0].data


def model_size(reference: str | os.PathLike) -> int:
    """The model's size in bytes (a .tflite file's size, or its array's length)."""
    data = model_bytes(reference)
    if data is not None:
        return len(data)
    try:
        return os.path.getsize(reference)
    except OSError as error:
        raise ModelError(f"{os.fspath(reference)}: cannot read ({error.strerror or error})") from None
