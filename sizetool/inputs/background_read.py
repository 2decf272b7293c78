"""Read an input in a second process while this one goes on: a cold report of a large `-g` ELF scans its DWARF
(~0.08 s of ~0.29 s on a 13 MB TFLM build) while the ELF, its placement and its models are read here.

The reader runs in a forked child, which sends its result back pickled through a pipe; `result()` waits for it.
The answer is the reader's own, byte for byte: where the child cannot give it (no `os.fork`, as on Windows; threads
running here, which a fork would not carry over; the child failing or killed; a result that does not come back whole),
`result()` runs the reader here instead, so that its errors and warnings are the ones a serial run gives.
`multiprocessing` would do the same for ~25 ms of imports and ~35 ms of start-up, more than the scan it saves on most
ELFs. SIZETOOL_SERIAL=1 reads in this process (for profiling, and to compare the two).

A child lives only until `result()` or `close()`: whoever starts one closes it (`with`), so that an error here
between the two leaves no process behind.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
from collections.abc import Callable

_READ_SIZE = 1 << 20


class BackgroundRead:
    """reader(*arguments), computed in a forked child when one can be used, else here when asked for."""

    def __init__(self, reader: Callable, *arguments, beside: bool = True) -> None:
        """beside=False: read here (when a child would cost more than it saves)."""
        self.reader, self.arguments = reader, arguments
        self.child: int | None = None
        self.pipe: int | None = None
        if beside and _can_fork():
            self._start()

    def _start(self) -> None:
        read_end, write_end = os.pipe()
        try:
            child = os.fork()
        except OSError:  # no process to spare: read here
            os.close(read_end)
            os.close(write_end)
            return
        if child == 0:  # the child: never returns to the caller's code, never runs its exit handlers
            status = 1
            try:
                os.close(read_end)
                payload = pickle.dumps(self.reader(*self.arguments), protocol=pickle.HIGHEST_PROTOCOL)
                _write_all(write_end, payload)
                status = 0
            except BaseException:  # noqa: BLE001 - the parent reads again and meets the error itself
                pass
            finally:
                os._exit(status)
        os.close(write_end)
        self.child, self.pipe = child, read_end

    @property
    def in_second_process(self) -> bool:
        """Whether the read runs beside (a child started, its result not yet taken)."""
        return self.child is not None

    def result(self):
        """The reader's result: the child's, or (where it gave none) computed here."""
        if self.child is not None:
            payload = _read_all(self.pipe)
            status = self._reap()
            if status == 0 and payload:
                try:
                    return pickle.loads(payload)
                except Exception:  # noqa: BLE001 - a result cut short: read here
                    pass
        return self.reader(*self.arguments)

    def close(self) -> None:
        """End the child if its result was never asked for."""
        if self.child is not None:
            try:
                os.kill(self.child, signal.SIGKILL)
            except OSError:
                pass
            self._reap()

    def _reap(self) -> int:
        os.close(self.pipe)
        _, status = os.waitpid(self.child, 0)
        self.child = self.pipe = None
        return os.waitstatus_to_exitcode(status)

    def __enter__(self) -> BackgroundRead:
        return self

    def __exit__(self, *_exception) -> None:
        self.close()


def _can_fork() -> bool:
    if not hasattr(os, "fork") or os.environ.get("SIZETOOL_SERIAL") == "1":
        return False
    threading = sys.modules.get("threading")  # imported only where something may have started a thread
    return threading is None or threading.active_count() == 1


def _write_all(descriptor: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        view = view[os.write(descriptor, view):]


def _read_all(descriptor: int) -> bytes:
    chunks = []
    while chunk := os.read(descriptor, _READ_SIZE):
        chunks.append(chunk)
    return b"".join(chunks)
