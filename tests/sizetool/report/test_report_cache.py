"""The report cache: reused only for identical inputs, and never changes what is reported."""

import os
import shutil
from pathlib import Path

from sizetool.report.report_builder import build_report
from sizetool.report.report_model import report_to_dict

OUT = Path(__file__).resolve().parents[3] / "fixtures" / "firmware" / "out"


def test_a_cached_report_equals_a_fresh_one(tmp_path):
    elf = str(OUT / "cortex-m4/firmware.elf")
    fresh = build_report(elf)
    first = build_report(elf, use_cache=True)
    second = build_report(elf, use_cache=True)
    assert len(list((tmp_path / "sizetool-cache").glob("*.report"))) == 1
    assert report_to_dict(first) == report_to_dict(second) == report_to_dict(fresh)


def test_a_changed_elf_is_never_served_from_the_cache(tmp_path):
    elf = tmp_path / "firmware.elf"
    shutil.copy(OUT / "cortex-m4/firmware.elf", elf)
    before = build_report(str(elf), use_cache=True)
    shutil.copy(OUT / "variants/cortex-m4/without_SOFTMAX.elf", elf)
    after = build_report(str(elf), use_cache=True)
    assert after.rom_total != before.rom_total
    assert report_to_dict(after) == report_to_dict(build_report(str(elf)))


def test_options_are_part_of_the_key():
    elf = str(OUT / "cortex-m4/firmware.elf")
    by_file = build_report(elf, use_cache=True)
    by_unit = build_report(elf, use_cache=True, group_by="cu")
    assert report_to_dict(by_unit) == report_to_dict(build_report(elf, group_by="cu"))
    assert report_to_dict(by_unit) != report_to_dict(by_file)


def test_the_cache_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv("SIZETOOL_NO_CACHE", "1")
    build_report(str(OUT / "cortex-m4/firmware.elf"), use_cache=True)
    assert not (tmp_path / "sizetool-cache").exists()


def test_the_fingerprint_covers_every_stage_of_sizetool(tmp_path):
    from sizetool.report.report_cache import SIZETOOL_SOURCE, source_fingerprint

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
    from sizetool.report import report_cache

    (tmp_path / "registrations.py").write_text("A = 1\n")
    os.utime(tmp_path / "registrations.py", ns=(1_000_000_000, 1_000_000_000))
    monkeypatch.setattr(report_cache, "TFLM_FACTS_SOURCE", str(tmp_path))
    fingerprint = report_cache.tool_fingerprint.__wrapped__  # past the per-process memo
    before = fingerprint()
    (tmp_path / "registrations.py").write_text("A = 2\n")
    assert fingerprint() != before
