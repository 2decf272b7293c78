"""SHA-256 of a model (a .tflite file, or a C/C++ array: tflm_model.model_sources), computed on a background thread.

Hashing is the only step that reads a whole model (about 0.15 s per 200 MB); hashlib releases the GIL while it hashes,
so gen-resolver starts it as soon as a file has proved to be a model, and imports jinja2 and renders meanwhile.
The file is hashed straight from an mmap in large chunks: no copy through a read buffer, few GIL hand-overs (a
busy main thread holds the GIL for up to 5 ms at a time, so small chunks would stall the hash), and each chunk's pages
are dropped from the process (MADV_DONTNEED; they stay in the page cache) so peak memory does not grow with the model.
"""

from __future__ import annotations

import hashlib
import mmap
import threading
from pathlib import Path

from tflm_model.errors import ModelError
from tflm_model.model_sources import model_bytes


class BackgroundDigest:
    """Starts hashing a file at construction; hexdigest() waits for the result."""

    def __init__(self, path: Path):
        self.path = path
        self._result: str | None = None
        self._error: str | None = None
        self._thread = threading.Thread(target=self._run, name=f"sha256 {path.name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._result = sha256_of_model(self.path)
        except ModelError as error:
            self._error = str(error)
        except (OSError, ValueError) as error:
            self._error = f"{self.path}: cannot read ({getattr(error, 'strerror', None) or error})"

    def hexdigest(self) -> str:
        self._thread.join()
        if self._error is not None:
            raise ModelError(self._error)
        assert self._result is not None
        return self._result


CHUNK = 32 * 1024 * 1024


def sha256_of_model(reference: Path) -> str:
    """SHA-256 of a model's bytes: a C/C++ array's, or a .tflite file's."""
    data = model_bytes(reference)
    return hashlib.sha256(data).hexdigest() if data is not None else sha256_of_file(reference)


def sha256_of_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        size = handle.seek(0, 2)
        if size == 0:
            return digest.hexdigest()
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            if hasattr(mapped, "madvise"):
                mapped.madvise(mmap.MADV_SEQUENTIAL)
            view = memoryview(mapped)
            try:
                for start in range(0, size, CHUNK):
                    length = min(CHUNK, size - start)
                    digest.update(view[start:start + length])
                    if hasattr(mmap, "MADV_DONTNEED"):
                        mapped.madvise(mmap.MADV_DONTNEED, start, length)
            finally:
                view.release()
    return digest.hexdigest()
