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


def test_an_elf_rewritten_unchanged_is_served_from_the_cache_and_its_early_dwarf_read_ended(tmp_path, monkeypatch):
    """A file whose status changed is hashed while its DWARF is read beside; when the hash finds its report cached,
    that read is dropped (its child ended), and the report is the cached one."""
    from sizetool.inputs import background_read
    from sizetool.report import cache_files, report_builder

    monkeypatch.setattr(report_builder, "SECOND_PROCESS_FROM", 0)
    monkeypatch.setattr(cache_files, "RACY_NS", 0)  # (a digest taken within 2 s of a change is otherwise not trusted)
    started = []

    class Recording(background_read.BackgroundRead):
        def __init__(self, *arguments, **options):
            super().__init__(*arguments, **options)
            started.append(self)

    monkeypatch.setattr(background_read, "BackgroundRead", Recording)
    elf = tmp_path / "firmware.elf"
    shutil.copy(OUT / "cortex-m4/firmware.elf", elf)
    first = build_report(str(elf), use_cache=True)
    assert len(started) == 1  # new to the cache: read beside from the start
    again = build_report(str(elf), use_cache=True)
    assert len(started) == 1  # known unchanged: the cache answers, nothing started
    elf.write_bytes(elf.read_bytes())  # the same bytes, a new modification time
    rewritten = build_report(str(elf), use_cache=True)
    assert len(started) == 2 and started[-1].child is None
    assert report_to_dict(first) == report_to_dict(again) == report_to_dict(rewritten)
    assert len(list((tmp_path / "sizetool-cache").glob("*.report"))) == 1
