"""cxx_demangler.py: the C++ runtime's demangler, giving what cxxfilt gives for every name of the fixtures."""

from pathlib import Path

import cxxfilt
import pytest

from sizetool.inputs import cxx_demangler
from sizetool.inputs.cxx_demangler import InvalidName, demangle
from sizetool.inputs.elf_reader import read_elf

FIRMWARE = Path(__file__).resolve().parents[3] / "fixtures" / "firmware" / "out"


def cxxfilt_or_invalid(name: str) -> str | None:
    try:
        return cxxfilt.demangle(name, external_only=False)
    except cxxfilt.InvalidName:
        return None


def ours_or_invalid(name: str) -> str | None:
    try:
        return demangle(name)
    except InvalidName:
        return None


@pytest.mark.parametrize("target", ["cortex-m4", "riscv32", "lx106", "host-x86_64"])
def test_every_symbol_demangles_as_cxxfilt_demangles_it(target):
    names = {symbol.mangled.partition(".")[0] for symbol in read_elf(FIRMWARE / target / "firmware.elf").symbols}
    names |= {"_Z", "_Zfoo", "_ZN5tflite", "main", "_ZSt4cout"}  # invalid, a C name, a library name
    assert sum(name.startswith("_Z") for name in names) > 20
    assert {name: ours_or_invalid(name) for name in names} == {name: cxxfilt_or_invalid(name) for name in names}


def test_without_the_runtime_by_its_usual_name_cxxfilt_does_it(monkeypatch):
    monkeypatch.setattr(cxx_demangler, "_runtime", lambda: None)
    assert demangle("_ZN6tflite14MicroAllocatorD2Ev") == "tflite::MicroAllocator::~MicroAllocator()"
    with pytest.raises(InvalidName):
        demangle("_Zfoo")
