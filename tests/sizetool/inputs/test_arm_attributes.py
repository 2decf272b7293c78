"""The own reader of a named section and of the Arm build attributes (arm_attributes.py) gives what pyelftools gave
(build_facts' compiler_of, cpu_and_fpu and elf_reader.arm_short_enums, each beside its _pyelftools reference), on
every fixture ELF; outside the common case it hands the ELF to pyelftools."""

import pytest

from sizetool.inputs.arm_attributes import NotCommon, arm_attributes, named_section
from sizetool.inputs.elf_reader import arm_short_enums, arm_short_enums_pyelftools
from sizetool.profile.build_facts import (
    compiler_of, compiler_of_pyelftools, cpu_and_fpu, cpu_and_fpu_pyelftools,
)
from tests.conftest import FIXTURES


def _elfs() -> list:
    found = []
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.stat().st_size >= 64 and path.suffix not in (".c", ".cc", ".h", ".py", ".map"):
            with open(path, "rb") as stream:
                if stream.read(4) == b"\x7fELF":
                    found.append(path)
    return found


ELFS = _elfs()


@pytest.mark.parametrize("path", ELFS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_build_facts_are_pyelftools(path):
    assert compiler_of(str(path)) == compiler_of_pyelftools(str(path))
    assert cpu_and_fpu(str(path)) == cpu_and_fpu_pyelftools(str(path))
    assert arm_short_enums(path) == arm_short_enums_pyelftools(path)


def test_the_fixtures_hold_what_is_compared():
    """Not a vacuous comparison: Arm ELFs of two CPUs with short and with int enums, several compilers (the fixtures
    are all soft-float: the FPU tags are compared on the real builds, see docs/size-report.md's speed section)."""
    arm = [p for p in ELFS if cpu_and_fpu(str(p))[0] not in ("", "arm", "riscv", "xtensa", "x86-64", "aarch64")]
    assert len(arm) >= 10
    assert any(arm_short_enums(p) for p in arm) and not all(arm_short_enums(p) for p in arm)
    assert len({cpu_and_fpu(str(p))[0] for p in arm}) >= 2
    assert len({compiler_of(str(p)) for p in ELFS}) >= 3


def test_the_common_case_is_read_by_the_own_reader():
    path = next(p for p in ELFS if arm_short_enums(p))
    machine, kind, data, little_endian = named_section(path, ".ARM.attributes")
    assert (machine, kind) == ("EM_ARM", "SHT_ARM_ATTRIBUTES")
    assert (26, 1) in arm_attributes(data, little_endian)  # Tag_ABI_enum_size: small


@pytest.mark.parametrize("data", [b"", b"B", b"A\x05\x00\x00\x00", b"A\x10\x00\x00\x00aeabi\x00\x02\x05\x00\x00\x00",
                                  b"A\x11\x00\x00\x00aeabi\x00\x01\x07\x00\x00\x00\x41\x00"])
def test_what_is_not_the_common_case_is_left_to_pyelftools(data):
    with pytest.raises(NotCommon):
        arm_attributes(data, True)
