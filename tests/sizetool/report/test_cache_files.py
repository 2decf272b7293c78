"""The caches' shared keys: the digest of the tool's own code and the content digest of an input file."""

import os

from sizetool.report.cache_files import file_digest


def test_a_file_digest_follows_the_content(tmp_path):
    """Read once per process while unchanged, but a rewritten file (same path) is a new digest, never a stale one."""
    path = tmp_path / "firmware.elf"
    path.write_bytes(b"\x7fELF one")
    first = file_digest(str(path))
    assert file_digest(str(path)) == first
    path.write_bytes(b"\x7fELF two")
    assert file_digest(str(path)) != first
    path.write_bytes(b"\x7fELF one")
    assert file_digest(str(path)) == first


def test_the_fingerprint_covers_every_stage_of_sizetool(tmp_path):
    from sizetool.report.cache_files import SIZETOOL_SOURCE, source_fingerprint

    # The cache key covers the readers and the operator code too, not only report/.
    assert os.path.isfile(os.path.join(SIZETOOL_SOURCE, "inputs", "elf_reader.py"))
    assert os.path.isfile(os.path.join(SIZETOOL_SOURCE, "code_graph", "reference_graph.py"))
    (tmp_path / "inputs").mkdir()
    reader = tmp_path / "inputs" / "elf_reader.py"
    reader.write_text("A = 1\n")
    os.utime(reader, ns=(1_000_000_000, 1_000_000_000))
    before = source_fingerprint(str(tmp_path))
    assert source_fingerprint(str(tmp_path)) == before
    reader.write_text("A = 2\n")  # an edit: same size, a new modification time (as Python's .pyc check sees it)
    assert source_fingerprint(str(tmp_path)) != before
    (tmp_path / "inputs" / "new_stage.py").write_text("")
    assert source_fingerprint(str(tmp_path)) != before


def test_the_fingerprint_covers_the_tflm_facts(monkeypatch, tmp_path):
    """Registration names from tflm_facts shape the operator graph: a change to them is a new key."""
    from sizetool.report import cache_files

    (tmp_path / "registrations.py").write_text("A = 1\n")
    os.utime(tmp_path / "registrations.py", ns=(1_000_000_000, 1_000_000_000))
    monkeypatch.setattr(cache_files, "TFLM_FACTS_SOURCE", str(tmp_path))
    fingerprint = cache_files.tool_fingerprint.__wrapped__  # past the per-process memo
    before = fingerprint()
    (tmp_path / "registrations.py").write_text("A = 2\n")
    assert fingerprint() != before
