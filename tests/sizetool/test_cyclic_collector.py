"""The plain report runs with the cyclic collector off and switches it back on as it found it: on, with nothing left
frozen; a caller's own frozen objects stay frozen; off stays off."""

import gc
from pathlib import Path

from sizetool.cli import main

ELF = Path(__file__).resolve().parents[2] / "fixtures" / "firmware" / "out" / "cortex-m4" / "firmware.elf"


def _run(capsys) -> None:
    assert main([str(ELF), "--no-cache"]) == 0
    assert capsys.readouterr().out


def test_the_collector_comes_back_on_with_nothing_frozen(capsys):
    assert gc.isenabled() and gc.get_freeze_count() == 0
    _run(capsys)
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_callers_frozen_objects_stay_frozen(capsys):
    kept = [[] for _ in range(10)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        _run(capsys)
        assert gc.isenabled() and gc.get_freeze_count() >= frozen
    finally:
        gc.unfreeze()
    assert kept


def test_off_stays_off(capsys):
    gc.disable()
    try:
        _run(capsys)
        assert not gc.isenabled()
    finally:
        gc.enable()
