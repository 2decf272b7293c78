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


def _new_process(monkeypatch):
    """Forget what this process memoised, as a new run would."""
    from sizetool.report import cache_files

    cache_files._content_digest.cache_clear()
    cache_files._known_digests.cache_clear()


def _count_reads(monkeypatch) -> list:
    import hashlib

    reads = []
    real = hashlib.sha256

    def counting(*args):
        reads.append(1)
        return real(*args)

    monkeypatch.setattr(hashlib, "sha256", counting)
    return reads


def test_a_settled_file_is_not_read_again_by_the_next_run(tmp_path, monkeypatch):
    """Its digest was taken well after its last change (more than RACY_NS): the next run trusts it while the file's
    status is unchanged, and reads the file again once it changes."""
    import time

    from sizetool.report import cache_files

    path = tmp_path / "firmware.elf"
    path.write_bytes(b"\x7fELF settled")
    changed = os.stat(path).st_ctime_ns
    monkeypatch.setattr(time, "time_ns", lambda: changed + cache_files.RACY_NS + 1)
    first = file_digest(str(path))
    _new_process(monkeypatch)
    reads = _count_reads(monkeypatch)
    assert cache_files.file_digest(str(path)) == first and not reads
    path.write_bytes(b"\x7fELF changed")
    _new_process(monkeypatch)
    assert cache_files.file_digest(str(path)) != first and reads


def test_a_digest_taken_just_after_a_change_is_never_reused(tmp_path, monkeypatch):
    """A rewrite within the same timestamp granule could keep the file's status: such a digest is taken again."""
    from sizetool.report import cache_files

    path = tmp_path / "firmware.elf"
    path.write_bytes(b"\x7fELF fresh")
    first = file_digest(str(path))
    _new_process(monkeypatch)
    reads = _count_reads(monkeypatch)
    assert cache_files.file_digest(str(path)) == first and reads


def test_without_the_cache_no_digest_is_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("SIZETOOL_NO_CACHE", "1")
    path = tmp_path / "firmware.elf"
    path.write_bytes(b"\x7fELF")
    file_digest(str(path))
    assert not (tmp_path / "sizetool-cache").exists()
