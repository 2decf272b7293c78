"""GCC's -fstack-usage files: every line of the fixtures' .su files read, and bad files refused with their line."""

from pathlib import Path

import pytest

from sizetool.errors import SizeToolError
from sizetool.inputs.stack_usage import read_stack_usage_dir, read_stack_usage_file

OUT = Path(__file__).resolve().parents[3] / "fixtures/firmware/out"


def test_every_line_of_the_fixture_su_files_is_read():
    entries = read_stack_usage_dir(str(OUT / "cortex-m4/su"))
    lines = sum(len(path.read_text().splitlines()) for path in (OUT / "cortex-m4/su").rglob("*.su"))
    assert len(entries) == lines > 100
    add_eval = [e for e in entries if e.su_file == "kernels/add.su" and "::Eval(" in e.function]
    assert len(add_eval) == 1
    assert (add_eval[0].source, add_eval[0].bytes, add_eval[0].qualifiers) == ("kernels/add.cc", 224, ("static",))
    assert add_eval[0].is_static


def test_dynamic_and_bounded_qualifiers(tmp_path):
    su = tmp_path / "a.su"
    su.write_text("a.c:3:6:f\t32\tdynamic\na.c:9:6:g\t48\tdynamic,bounded\nb.c:1:5:int h(int)\t0\tstatic\n")
    entries = read_stack_usage_file(str(su))
    assert [(e.function, e.bytes, e.qualifiers, e.line) for e in entries] == [
        ("f", 32, ("dynamic",), 3), ("g", 48, ("dynamic", "bounded"), 9), ("int h(int)", 0, ("static",), 1)]
    assert [e.is_static for e in entries] == [False, False, True]


@pytest.mark.parametrize("content", ["a.c:3:6:f\t32\n", "a.c:3:6:f\tlots\tstatic\n", "f\t32\tstatic\n",
                                     "a.c:3:6:f\t32\tsometimes\n"])
def test_a_line_that_is_not_stack_usage_names_the_file_and_line(tmp_path, content):
    su = tmp_path / "bad.su"
    su.write_text("a.c:1:1:ok\t8\tstatic\n" + content)
    with pytest.raises(SizeToolError, match=r"bad\.su:2: not a -fstack-usage line"):
        read_stack_usage_file(str(su))


def test_a_directory_without_su_files_or_no_directory_is_refused(tmp_path):
    with pytest.raises(SizeToolError, match="no .su files"):
        read_stack_usage_dir(str(tmp_path))
    with pytest.raises(SizeToolError, match="not a directory"):
        read_stack_usage_dir(str(tmp_path / "missing"))
    (tmp_path / "x.su").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(SizeToolError, match="not a .su file"):
        read_stack_usage_dir(str(tmp_path))
