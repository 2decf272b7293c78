"""Report files are written whole or not at all (a temp file renamed over the target), except where the target is not
a regular file: --junit /dev/stdout, a pipe or /dev/null is written as it is, never replaced by a regular file."""

import os
import stat
import threading

from sizetool.report.report_model import write_text_atomically


def test_a_regular_file_is_replaced_whole(tmp_path):
    target = tmp_path / "summary.md"
    target.write_text("old")
    write_text_atomically(target, "new")
    assert target.read_text() == "new" and [p.name for p in tmp_path.iterdir()] == ["summary.md"]


def test_a_pipe_is_written_in_place_and_stays_a_pipe(tmp_path):
    fifo = tmp_path / "out.xml"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    write_text_atomically(fifo, "<testsuites/>")
    reader.join(timeout=10)
    assert received == ["<testsuites/>"] and stat.S_ISFIFO(fifo.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out.xml"]
