"""A read in a second process gives the reader's own answer, or the reader runs here: never a different one, never
a process left behind."""

import os
import threading
import time

import pytest

from sizetool.inputs.background_read import BackgroundRead

forking = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available on this platform")


def where_and_what(value):
    return os.getpid(), value * 2


def _no_child_left(child: int | None) -> bool:
    if child is None:
        return True
    with pytest.raises(ChildProcessError):
        os.waitpid(child, os.WNOHANG)
    return True


@forking
def test_the_reader_runs_in_a_child_and_its_result_comes_back(monkeypatch):
    monkeypatch.delenv("SIZETOOL_SERIAL", raising=False)
    read = BackgroundRead(where_and_what, 21)
    child = read.child
    pid, value = read.result()
    assert value == 42
    assert pid != os.getpid() and pid == child
    assert _no_child_left(child)


def test_serial_beside_false_or_threads_read_here(monkeypatch):
    monkeypatch.setenv("SIZETOOL_SERIAL", "1")
    assert BackgroundRead(where_and_what, 1).result() == (os.getpid(), 2)
    monkeypatch.delenv("SIZETOOL_SERIAL")
    assert BackgroundRead(where_and_what, 2, beside=False).result() == (os.getpid(), 4)
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:  # a fork would not carry the thread over (nor the locks it holds)
        read = BackgroundRead(where_and_what, 3)
        assert read.child is None
        assert read.result() == (os.getpid(), 6)
    finally:
        stop.set()
        worker.join()


def fails_in_a_child(parent: int):
    if os.getpid() != parent:
        raise MemoryError("the child ran out")
    return "read here"


def unpicklable(_):
    return lambda: None


def always_fails(_):
    raise ValueError("no such file")


@forking
def test_what_the_child_cannot_give_is_read_here(monkeypatch):
    monkeypatch.delenv("SIZETOOL_SERIAL", raising=False)
    read = BackgroundRead(fails_in_a_child, os.getpid())
    assert read.child is not None
    assert read.result() == "read here"
    result = BackgroundRead(unpicklable, None).result()
    assert callable(result)
    with pytest.raises(ValueError, match="no such file"):  # the reader's own error, raised here as a serial run would
        BackgroundRead(always_fails, None).result()


def sleeps(seconds):
    time.sleep(seconds)
    return seconds


@forking
def test_a_read_closed_unasked_leaves_no_process(monkeypatch):
    monkeypatch.delenv("SIZETOOL_SERIAL", raising=False)
    with BackgroundRead(sleeps, 30) as read:
        child = read.child
        assert child is not None
    assert read.child is None
    assert _no_child_left(child)
    with BackgroundRead(where_and_what, 5) as read:  # closing after the result is nothing more
        assert read.result()[1] == 10
