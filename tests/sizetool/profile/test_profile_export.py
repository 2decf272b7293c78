"""`size-report profile ELF`: a profile exported from a fixture firmware reproduces `size-report ELF --keep OPS` on
the same ELF byte for byte, for op sets and models, with and without the map; stack, static RAM and build facts."""

import json
import random
from pathlib import Path

import pytest

from sizetool import cli
from sizetool.inputs.elf_reader import read_elf
from tflm_facts.target_profile import load_profile
from tflm_model.profile_sets import ProfileSets
from tflm_model.target_fit import model_ops, read_models, serving_registrations

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
OUT = FIXTURES / "firmware/out"
MODELS = FIXTURES / "models"
BUILDS = ["cortex-m4", "riscv32", "lx106", "cortex-m0plus", "riscv32-rodata-in-text"]


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def export(capsys, tmp_path, build, with_map=True):
    elf = OUT / build / "firmware.elf"
    args = [elf, "-o", tmp_path / f"{build}.json"] + (["--map", OUT / build / "firmware.map"] if with_map else [])
    status, _, err = run(capsys, "profile", *args)
    assert status == 0, err
    return load_profile(str(tmp_path / f"{build}.json"))


def keep_answer(capsys, build, names, with_map=True):
    args = [OUT / build / "firmware.elf", "--keep", ",".join(names), "--format", "json"]
    status, out, err = run(capsys, *args, *(["--map", OUT / build / "firmware.map"] if with_map else []))
    assert status == 0, err
    return json.loads(out)


def op_sets(registered):
    rnd = random.Random(24)
    sets = [[op] for op in registered[:3]] + [registered, registered[1:]]
    sets += [sorted(rnd.sample(registered, k)) for k in (2, 4, 7, 10)]
    return sets


@pytest.mark.parametrize("with_map", [True, False], ids=["map", "no-map"])
@pytest.mark.parametrize("build", BUILDS)
def test_a_profile_predicts_the_rom_of_any_op_set_as_keep_does(capsys, tmp_path, build, with_map):
    profile = export(capsys, tmp_path, build, with_map)
    sets = ProfileSets(profile)
    for names in op_sets(list(sets.registered)):
        expected = keep_answer(capsys, build, names, with_map)
        cost = sets.keep(names)
        # --keep with a map also counts the alignment fill the relink gives back (aligned_fill.py), which a
        # profile's reduced graph does not carry: the rest is the same byte for byte
        assert profile.rom_total - cost.saving == expected["predicted_rom"] + expected["fill_bytes"], names
        assert (cost.may_be_high_by, cost.may_be_low_by) == (expected["may_be_high_by"], expected["may_be_low_by"])


@pytest.mark.parametrize("build", BUILDS)
def test_a_profile_predicts_the_firmware_for_models_as_keep_does(capsys, tmp_path, build):
    profile = export(capsys, tmp_path, build)
    sets = ProfileSets(profile)
    for names in (["vision_subset.tflite"], ["unused_opcodes.tflite"], ["deprecated_codes.tflite"],
                  ["vision_subset.tflite", "unused_opcodes.tflite"]):
        paths = [MODELS / name for name in names]
        models = read_models(paths)
        kept, _, _ = serving_registrations(sets.registered, model_ops(models), models)
        expected = keep_answer(capsys, build, [str(p) for p in paths])
        assert profile.rom_total - sets.keep(kept).saving == expected["predicted_rom"] + expected["fill_bytes"], names


def test_the_profile_is_compact_and_deterministic(capsys, tmp_path):
    first = export(capsys, tmp_path, "cortex-m4")
    text = (tmp_path / "cortex-m4.json").read_text()
    export(capsys, tmp_path, "cortex-m4")
    assert (tmp_path / "cortex-m4.json").read_text() == text
    assert text.count("\n") == 1 and len(text) < 20_000
    # the graph keeps only what the registrations change: far fewer nodes than the firmware's symbols
    assert 0 < len(first.graph.flash) < 200
    assert first.runtime_bytes + sum(first.graph.flash) == first.rom_total


def test_build_facts_static_ram_and_stack_come_from_the_elf(capsys, tmp_path):
    profile = export(capsys, tmp_path, "cortex-m4")
    build = profile.build
    assert (build.arch, build.pointer_bytes, build.short_enums, build.kernels) == ("arm", 4, True, "reference")
    assert build.compiler.startswith("GCC: ") and "-mcpu=cortex-m4" in build.flags
    # both arenas the fixture passes to interpreters are left out of the static RAM
    assert "g_vision_arena" in profile.arena_symbol and "g_keyword_arena" in profile.arena_symbol
    sections = read_elf(str(OUT / "cortex-m4/firmware.elf")).sections
    data_and_bss = sum(s.size for s in sections if s.name in (".data", ".bss", ".noinit"))
    assert profile.static_ram + profile.arena_bytes == data_and_bss
    assert profile.stack_root == "tflite::MicroInterpreter::Invoke()"
    deepest = max(profile.registrations, key=lambda r: r.stack.depth)
    status, out, _ = run(capsys, OUT / "cortex-m4/firmware.elf", "--stack", profile.stack_root, "--format", "json")
    assert deepest.stack.depth == json.loads(out)["roots"][0]["depth"]


def test_the_stack_of_a_model_equals_stack_with_that_model(capsys, tmp_path):
    profile = export(capsys, tmp_path, "riscv32")
    sets = ProfileSets(profile)
    for name in ("vision_subset.tflite", "unused_opcodes.tflite", "deprecated_codes.tflite"):
        models = read_models([MODELS / name])
        kept, _, _ = serving_registrations(sets.registered, model_ops(models), models)
        predicted = max([profile.stack_base.depth] + [profile.registration(op).stack.depth for op in kept])
        _, out, _ = run(capsys, OUT / "riscv32/firmware.elf", "--stack", profile.stack_root, "--model",
                        MODELS / name, "--format", "json")
        assert predicted == json.loads(out)["roots"][0]["depth"], name


def test_xtensa_profiles_have_no_stack_figures_and_say_so(capsys, tmp_path):
    profile = export(capsys, tmp_path, "lx106")
    assert profile.stack_base is None and any("stack" in note for note in profile.notes)


def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path):
    status, out, err = run(capsys, "profile", FIXTURES / "models/vision_subset.tflite", "-o", tmp_path / "p.json")
    assert status == 2 and err.count("\n") == 1 and not (tmp_path / "p.json").exists()
    status, _, err = run(capsys, "profile", OUT / "cortex-m4/firmware-stripped.elf", "-o", tmp_path / "p.json")
    assert status == 2 and "no TFLM operator registrations" in err and not (tmp_path / "p.json").exists()


def test_flags_are_the_runtimes_own_or_none():
    # Real TFLM is built without -g beside a C library built with it: the library's units are the only ones with
    # DWARF, and their producer ("GNU AS 2.40", picolibc's "-march=rv32im_zicsr") is not the build's flags.
    from sizetool.profile.build_facts import producer_of

    elf = str(OUT / "riscv32/firmware.elf")
    assert "-march=rv32imac" in producer_of(elf, "micro_interpreter")
    assert producer_of(elf, "a_unit_this_build_lacks") == ""
    assert producer_of(elf) == producer_of(elf, "")  # no preference: the first unit's
    assert producer_of(elf) != ""
