"""`size-report ELF --model m.tflite`: the RAM half of the answer in every format, and its exit status.

The arena estimate itself is resolver_gen's and is tested there; these tests give it a fixed figure (monkeypatched)
so that what the command does with it is checked on its own: the arena found in the firmware, the free RAM from the
map, the verdict, the exit status.
"""

import csv
import io
import json
from dataclasses import dataclass

import pytest

from sizetool import cli
from sizetool.fit import model_fit
from tests.conftest import FIXTURES

LAYOUT = FIXTURES / "layouts" / "out" / "cmsis-armcm4"
ELF, MAP = str(LAYOUT / "firmware.elf"), str(LAYOUT / "firmware.map")
MODEL = str(FIXTURES / "models" / "vision_subset.tflite")
FREE = 106736  # the free RAM of the cmsis-armcm4 layout (tests/sizetool/report/test_ram_use.py derives it)


@dataclass(frozen=True)
class Part:
    name: str
    bytes: int


@dataclass(frozen=True)
class Estimate:
    total_bytes: int
    exact: bool
    kernels: str
    pointer_bytes: int
    parts: tuple
    notes: tuple = ()
    revision: str = "a TFLM revision"
    guessed_ops: tuple = ()  # every op modelled
    without_guessed: int | None = None


@pytest.fixture
def needs(monkeypatch):
    """Make the models need `bytes` of arena; records what the estimate was asked."""
    asked = []

    def set_need(total):
        def fake(paths, kernels, pointer, short_enums=False, sizes=None, generation=None, why=""):
            asked.append((tuple(paths), kernels, pointer, short_enums))
            return Estimate(total, True, kernels, pointer, (Part("tensors", total - 64), Part("persistent", 64)))
        monkeypatch.setattr(model_fit, "estimate", fake)
        return asked
    return set_need


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_a_model_that_fits_the_linked_arena_passes_in_every_format(capsys, needs):
    asked = needs(5000)
    status, out, _ = run(capsys, ELF, "--map", MAP, "--model", MODEL)
    # The fixture is built by arm-none-eabi GCC: short enums (its build attributes say so).
    assert status == 0 and asked == [((MODEL,), "reference", 4, True)]
    assert "RAM: tensor arena" in out
    assert "linked: 12288 bytes: (anonymous namespace)::g_vision_arena in .noinit (passed to the interpreter in main)" \
        in out
    assert f"free RAM: {FREE} bytes (RAM)" in out and "(7288 to spare)" in out
    status, out, _ = run(capsys, ELF, "--map", MAP, "--model", MODEL, "--format", "json")
    arena = json.loads(out)["arena"]
    assert status == 0 and arena["fits"] and arena["needed_bytes"] == 5000 and arena["spare_bytes"] == 7288
    assert arena["linked"]["symbol"].endswith("g_vision_arena") and arena["linked"]["found_by"] == "interpreter"
    assert arena["linked"]["passed_bytes"] == 12288 and arena["free_ram_bytes"] == FREE
    assert arena["kernels"] == "reference" and arena["pointer_bytes"] == 4 and arena["short_enums"] is True
    status, out, _ = run(capsys, ELF, "--map", MAP, "--model", MODEL, "--format", "csv")
    rows = {r["kind"]: r for r in csv.DictReader(io.StringIO(out)) if r["kind"].startswith(("arena", "ram_free"))}
    assert rows["arena_needed"]["bytes"] == "5000" and rows["arena_linked"]["bytes"] == "12288"
    assert rows["ram_free"]["bytes"] == str(FREE) and rows["arena_verdict"]["name"] == "fits"
    status, out, _ = run(capsys, ELF, "--map", MAP, "--model", MODEL, "--format", "markdown")
    assert status == 0 and "## RAM: tensor arena" in out and "| needed (reference kernels, 32-bit pointers, short enums) | 5000 |" \
        in out


def test_a_too_small_linked_arena_exits_1_naming_both_figures(capsys, needs):
    needs(20000)
    for output_format in ("tree", "json", "csv", "markdown"):
        status, out, _ = run(capsys, ELF, "--map", MAP, "--model", MODEL, "--format", output_format)
        assert status == 1, output_format
        assert "20000" in out and "12288" in out
    status, out, _ = run(capsys, ELF, "--map", MAP, "--model", MODEL)
    assert "arena too small: the models need 20000 bytes" in out and "(7712 short)" in out
    assert f"growing it by 7712 fits in the {FREE} bytes of free RAM" in out


def test_arena_symbol_and_kernels_choose_the_arena_and_the_kernel_set(capsys, needs):
    asked = needs(3000)
    status, out, _ = run(capsys, ELF, "--model", MODEL, "--arena-symbol", "g_keyword_arena", "--kernels", "cmsis_nn",
                         "--format", "json")
    arena = json.loads(out)["arena"]
    assert status == 1 and asked[-1][1] == "cmsis_nn" and arena["kernels_from"] == "--kernels"
    assert arena["linked"]["bytes"] == 2048 and arena["linked"]["found_by"] == "--arena-symbol"
    assert arena["free_ram_bytes"] is None  # no map: the free RAM is unknown


def test_the_pointer_size_follows_the_elf_class(capsys, needs):
    asked = needs(100)
    host = FIXTURES / "firmware" / "out" / "host-x86_64" / "firmware.elf"
    status, _, _ = run(capsys, host, "--model", MODEL)
    assert asked[-1][2:] == (8, False)


@pytest.mark.parametrize("argv,message", [
    ((ELF, "--kernels", "cmsis_nn"), "--kernels and --arena-symbol go with --model"),
    ((ELF, "--arena-symbol", "x"), "--kernels and --arena-symbol go with --model"),
    ((ELF, "--model", MODEL, "--kernels", "xtensa"), "unknown --kernels 'xtensa'"),
    ((ELF, "--model", MODEL, "--arena-symbol", "g_nothing"), "no RAM object named 'g_nothing'"),
])
def test_bad_fit_options_get_one_line_and_exit_2(capsys, needs, argv, message):
    needs(100)
    status, out, err = run(capsys, *argv)
    assert status == 2 and message in err and err.count("\n") == 1 and out == ""


# With resolver_gen's estimate itself (int8_vision.tflite needs 3260 bytes with reference kernels, 32-bit pointers:
# tests/resolver_gen test the figure).
INT8_VISION = str(FIXTURES / "models" / "int8_vision.tflite")


def estimated(model, kernels="reference", pointer=4, short_enums=True, sizes=None):
    """The figure fit gives for the fixture firmware: it names none of TFLM's allocator classes, so the revision is not
    known and the figure is the bound over the measured allocator generations."""
    from tflm_model.arena_estimate import estimate_arena

    return estimate_arena([model], kernels=kernels, pointer_bytes=pointer, short_enums=short_enums,
                          sizes=sizes, generation=None).total_bytes


def _needed(data):
    """needed_bytes in size-report fit's JSON, wherever the answer nests it."""
    if isinstance(data, dict):
        if "needed_bytes" in data:
            return data["needed_bytes"]
        data = list(data.values())
    for value in data if isinstance(data, list) else ():
        found = _needed(value)
        if found is not None:
            return found
    return None


def fixture_dwarf_sizes():
    """The struct sizes the fixture firmware's DWARF gives (its own TFLM-shaped structs), which size-report fit takes."""
    from tflm_facts.build_sizes import BuildSizes

    return BuildSizes({"TfLiteTensor": 48, "TfLiteIntArray": 20}, {"CONV_2D": 160, "DEPTHWISE_CONV_2D": 160})


def test_the_real_estimate_against_the_fixture_arenas(capsys):
    # The fixture firmware's DWARF describes TFLM-shaped structs of its own sizes (TfLiteTensor of 48 B, conv OpData
    # of 160 B): the estimate takes them, as it would a real TFLM revision's.
    need = estimated(INT8_VISION, sizes=fixture_dwarf_sizes())
    # 3 OpData of 160 B instead of 56 (+312), 16 B less padding between the 16-aligned kernel buffers; the larger
    # temporary TfLiteTensors stay under the planner's working memory peak
    from tflm_model.arena_estimate import estimate_arena

    assert need - estimate_arena([INT8_VISION], short_enums=True).total_bytes == 3 * (160 - 56) - 16
    assert 2048 < need < 12288  # between the fixture's two arenas
    # (int8_vision also needs PAD and TRANSPOSE, which the fixture does not register: the flash gate fails it.)
    status, out, _ = run(capsys, ELF, "--map", MAP, "--model", INT8_VISION, "--format", "json")
    data = json.loads(out)
    assert status == 1 and [m["op"] for m in data["missing"]] == ["PAD", "TRANSPOSE"]
    arena = data["arena"]
    assert arena["fits"] and arena["needed_bytes"] == need and arena["spare_bytes"] == 12288 - need
    facts = arena["facts"]
    assert facts["source"] == "firmware.elf DWARF" and "OpData CONV_2D" in facts["from_elf"]
    assert "OpData SOFTMAX" in facts["defaults"] and "TfLiteTensor 32 -> 48" in facts["differ"]
    assert facts["sizes"]["structs"]["TfLiteTensor"] == 48 and facts["sizes"]["op_data"]["CONV_2D"] == 160
    status, out, _ = run(capsys, ELF, "--map", MAP, "--model", INT8_VISION, "--arena-symbol", "g_keyword_arena")
    assert f"arena too small: the models need at most {need} bytes" in out and f"gives 2048 ({need - 2048} short)" in out
    assert ("the linked TFLM differs from tflm_facts (tflite-micro 90b983c (August 2026)): TfLiteIntArray 4 -> 20, "
            "TfLiteTensor 32 -> 48, OpData CONV_2D 56 -> 160, OpData DEPTHWISE_CONV_2D 56 -> 160") in out


def test_only_the_arena_fails_a_model_whose_ops_are_all_registered(capsys):
    model = str(FIXTURES / "models" / "unused_opcodes.tflite")  # FULLY_CONNECTED only
    need = estimated(model, sizes=fixture_dwarf_sizes())
    status, out, _ = run(capsys, ELF, "--map", MAP, "--model", model)
    assert status == 0 and f"fits: the models need at most {need} bytes" in out
    # Any RAM object can be named as the arena: a 4-byte counter is too small.
    status, out, _ = run(capsys, ELF, "--map", MAP, "--model", model, "--arena-symbol", "g_systick_count")
    assert status == 1 and f"g_systick_count gives 4 ({need - 4} short)" in out


def test_fit_reasons_prints_each_missing_op_and_the_arena_verdict_one_line_each(capsys, tmp_path):
    """--reasons: what a build system shows of a failed step (CMake's tflm_size_check runs it after each link)."""
    need = estimated(INT8_VISION, sizes=fixture_dwarf_sizes())
    report = tmp_path / "fit.md"
    status, out, err = run(capsys, "fit", ELF, INT8_VISION, "--map", MAP, "--arena-symbol", "g_keyword_arena",
                           "--reasons", "--format", "markdown", "-o", report)
    assert status == 1 and out == "" and report.read_text().startswith("### does not fit: firmware.elf")
    failures = [line for line in err.splitlines() if line.startswith("size-report fit: FAIL ")]
    assert failures == [
        "size-report fit: FAIL PAD (builtin) is not registered; needed by int8_vision.tflite",
        "size-report fit: FAIL TRANSPOSE (builtin) is not registered; needed by int8_vision.tflite",
        f"size-report fit: FAIL arena too small: the models need at most {need} bytes of tensor arena (reference kernels); "
        f"app::(anonymous namespace)::g_keyword_arena gives 2048 ({need - 2048} short); growing it by "
        f"{need - 2048} fits in the {FREE} bytes of free RAM"]
    model = str(FIXTURES / "models" / "unused_opcodes.tflite")
    assert run(capsys, "fit", ELF, model, "--map", MAP, "--reasons")[::2] == (0, "")


def test_fit_reasons_escapes_control_characters_of_a_model_name():
    from sizetool.ci.fit_reasons import console_line

    assert console_line("Op\x1b[31m\nX\ty") == "Op\\x1b[31m\\nX\\ty"


def test_a_model_the_estimate_refuses_leaves_ram_unanswered_and_the_flash_gate_decides(capsys):
    status, out, err = run(capsys, ELF, "--map", MAP, "--model", MODEL, "--format", "json")
    arena = json.loads(out)["arena"]
    assert status == 0 and arena["needed_bytes"] is None and arena["fits"]
    assert "lacks the tensors or shapes" in arena["error"] and arena["verdict"].startswith("tensor arena not estimated")
    status, out, _ = run(capsys, ELF, "--map", MAP, "--model", MODEL)
    assert status == 0 and "tensor arena not estimated: " in out


def test_check_gates_a_models_arena(tmp_path, capsys):
    need = estimated(INT8_VISION, sizes=fixture_dwarf_sizes())  # the figure size-report fit gives for this build
    budget = tmp_path / "size-budget.toml"
    budget.write_text(f'[models]\n"{INT8_VISION}" = {{ arena = {need} }}\n')
    status, out, _ = run(capsys, "check", ELF, "--budget", budget, "--format", "json")
    [rule] = json.loads(out)["rules"]
    assert status == 0 and rule["actual"] == need and rule["passed"]
    budget.write_text(f'[models]\n"{INT8_VISION}" = {{ arena = {need - 1} }}\n')
    status, out, _ = run(capsys, "check", ELF, "--budget", budget)
    assert status == 1 and "FAIL" in out and str(need) in out
    assert "tensor arena for reference kernels, 32-bit pointers, short enums" in out
    status, out, _ = run(capsys, "check", ELF, "--budget", budget, "--kernels", "cmsis_nn", "--format", "json")
    actual = json.loads(out)["rules"][0]["actual"]
    status, out, _ = run(capsys, "fit", ELF, INT8_VISION, "--kernels", "cmsis_nn", "--format", "json")
    assert actual == _needed(json.loads(out))  # one build, one model: the figure size-report fit gives
    budget.write_text(f'[models]\n"{MODEL}" = {{ arena = "64K" }}\n')  # a model the estimate refuses: bad input
    status, out, err = run(capsys, "check", ELF, "--budget", budget)
    assert status == 2 and "vision_subset.tflite" in err and err.count("\n") == 1
