"""`ops` and `fit` on a freshly built report read the DWARF their models' answers need (the arena's struct types,
the resolver's API) in a second process while the operator graph is built: the same answer as in one process."""

import os

import pytest

from sizetool import cli
from tests.conftest import FIXTURES

ELF = str(FIXTURES / "firmware" / "out" / "cortex-m4-tflm-speed" / "firmware.elf")
MODEL = str(FIXTURES / "models" / "vision_subset.tflite")


def answer(capsys, argv: list[str]) -> tuple[int, str, str]:
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available on this platform")
@pytest.mark.parametrize("command", [["ops"], ["fit"], ["ops", "-f", "json"], ["fit", "-f", "json"]])
def test_the_answer_read_beside_is_the_answer_read_here(command, capsys, monkeypatch):
    from sizetool.commands import firmware
    from sizetool.inputs import background_read
    from sizetool.report import report_builder

    argv = [*command, "--no-cache", ELF, MODEL]
    monkeypatch.setenv("SIZETOOL_SERIAL", "1")
    here = answer(capsys, argv)
    monkeypatch.delenv("SIZETOOL_SERIAL")
    monkeypatch.setattr(report_builder, "SECOND_PROCESS_FROM", 0)  # the fixture is below 1 MiB
    started = []

    class Recording(background_read.BackgroundRead):
        def __init__(self, reader, *arguments, **options):
            super().__init__(reader, *arguments, **options)
            started.append((reader, self))

    monkeypatch.setattr(background_read, "BackgroundRead", Recording)
    beside = answer(capsys, argv)
    assert beside == here
    reads = [read for reader, read in started if reader is firmware.answer_dwarf]
    assert len(reads) == 1 and reads[0].child is None  # read beside, and the child ended


def test_outside_the_block_the_answers_read_their_own_dwarf():
    from sizetool.commands.firmware import FirmwareOptions, load_firmware

    loaded = load_firmware(FirmwareOptions(ELF, use_cache=False))
    assert loaded.dwarf_types() is None and loaded.resolver_api() is None
