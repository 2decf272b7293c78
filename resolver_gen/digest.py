"""SHA-256 of a model file, computed on a background thread.

Hashing is the only step that reads a whole model (0.15 s for 200 MB); hashlib releases the GIL while it works, so
gen-resolver starts it first and scans operators, imports jinja2 and compiles templates meanwhile. The file is read in
chunks rather than through the scanner's mmap, so peak memory stays small whatever the model size.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from resolver_gen.errors import ResolverGenError


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
            with open(self.path, "rb") as handle:
                self._result = hashlib.file_digest(handle, "sha256").hexdigest()
        except OSError as error:
            self._error = error.strerror or str(error)

    def hexdigest(self) -> str:
        self._thread.join()
        if self._error is not None:
            raise ResolverGenError(f"{self.path}: cannot read ({self._error})")
        assert self._result is not None
        return self._result
