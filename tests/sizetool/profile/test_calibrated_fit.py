"""`size-report fit ELF MODEL ...` on a firmware that lacks ops a model needs: the runtime and linked ops from the
ELF, the missing ops from a profile (scaled when the firmware was built otherwise), the answer's bound; and
`gen-resolver --fit PROFILE --calibrate ELF`, the same answer from the other side.

Ground truth: the fixture keep-only builds. The firmware is the build for `unused_opcodes` (FULLY_CONNECTED only);
the second model, `vision_subset`, needs eight ops it lacks; the relink with them added is the keep-only build for
both models, made the same way."""

import json
from pathlib import Path

import pytest

from resolver_gen import cli as gen_resolver
from sizetool import cli as size_report
from sizetool.profile.calibrated_fit import calibrate, nearest_profile, same_build
from sizetool.report.report_builder import build_report
from tflm_facts.target_profile import load_profile, shipped_profiles

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
OUT = FIXTURES / "firmware/out"
MODELS = [FIXTURES / "models/vision_subset.tflite", FIXTURES / "models/unused_opcodes.tflite"]
BUILDS = ["cortex-m4", "cortex-m0plus", "riscv32", "lx106"]


def run(main, capsys, *argv):
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture(scope="module")
def profiles(tmp_path_factory):
    """Each build's all-ops firmware exported as a profile (without stack figures: not needed here)."""
    folder = tmp_path_factory.mktemp("profiles")
    for build in BUILDS + ["cortex-m4-tflm-os"]:
        elf, map_file = OUT / build / "firmware.elf", OUT / build / "firmware.map"
        assert size_report.main(["profile", str(elf), "--map", str(map_file), "--no-stack",
                                 "-o", str(folder / f"{build}.json")]) == 0
    return folder


def calibrated_json(capsys, build, profile):
    firmware = OUT / "keep-only" / build / "unused_opcodes.elf"
    status, out, err = run(size_report.main, capsys, "fit", firmware, *MODELS, "--profile", profile, "--format",
                           "json")
    assert status == 1, err  # the firmware still lacks the ops: the check fails, the answer is given beside it
    answer = json.loads(out)["calibrated"]
    # The relinks hold both models' ops and no .tflite array (this firmware embeds none): the figure with the
    # missing ops added, before the models' arrays go in (tests/sizetool/profile/test_model_swap.py tests those).
    assert answer["models_out"] == [] and answer["flash"] == answer["with_missing_ops"]["flash"] + sum(
        model["flash"] for model in answer["models_in"])
    return {**answer, **answer["with_missing_ops"]}


@pytest.mark.parametrize("build", BUILDS)
def test_the_missing_ops_added_are_within_1_percent_of_the_relink(capsys, profiles, build):
    answer = calibrated_json(capsys, build, profiles / f"{build}.json")
    relink = build_report(str(OUT / "keep-only" / build / "vision_subset+unused_opcodes.elf")).rom_total
    alone = build_report(str(OUT / "keep-only" / build / "unused_opcodes.elf")).rom_total
    assert answer["from_firmware"] == alone and answer["linked"] == ["FULLY_CONNECTED"]
    assert "CONV_2D" in answer["missing"] and "WINDOW" in answer["missing"] and answer["not_counted"] == []
    assert abs(answer["flash"] - relink) <= 0.01 * relink
    assert answer["low"] <= answer["flash"] <= answer["high"]


def test_the_answer_is_the_firmware_plus_the_profiles_figure_scaled_and_states_both(capsys, profiles):
    answer = calibrated_json(capsys, "cortex-m4", profiles / "cortex-m4.json")
    assert answer["scaled"] is False and answer["scale"] == 1  # built as the profile: not scaled
    assert answer["flash"] == answer["from_firmware"] + answer["added"] and answer["added"] == answer["profile_bytes"]
    scaled = answer["from_firmware"] + round(answer["profile_bytes"] * answer["measured_scale"])
    assert answer["other_answer"] == scaled
    # the profile's accuracy: 0.5% of what it adds, at least 64 bytes, either way
    assert answer["profile_accuracy"] == max(64, -(-answer["added"] * 5 // 1000))
    assert answer["low"] == min(answer["flash"], scaled) - answer["may_be_high_by"] - answer["profile_accuracy"]
    assert answer["high"] == max(answer["flash"], scaled) + answer["may_be_low_by"] + answer["profile_accuracy"]
    assert answer["measured_scale"] == pytest.approx(answer["scale_bytes_here"] / answer["scale_bytes_there"], 1e-5)


def test_a_firmware_built_otherwise_is_scaled_by_what_both_link(capsys, profiles):
    # the Cortex-M0+ firmware against the Cortex-M4 profile: another CPU, so the profile's kernels are scaled
    answer = calibrated_json(capsys, "cortex-m0plus", profiles / "cortex-m4.json")
    assert answer["scaled"] is True and answer["scale_registrations"] == ["FULLY_CONNECTED"]
    assert answer["added"] == round(answer["profile_bytes"] * answer["scale"])
    assert answer["other_answer"] == answer["from_firmware"] + answer["profile_bytes"]


def test_same_build_compares_compiler_cpu_fpu_kernels_and_flags_when_both_record_them(profiles):
    m4, m0 = load_profile(str(profiles / "cortex-m4.json")).build, load_profile(str(profiles / "cortex-m0plus.json")).build
    os_build = load_profile(str(profiles / "cortex-m4-tflm-os.json")).build
    from dataclasses import replace
    assert same_build(m4, m4) and not same_build(m4, m0)
    assert same_build(replace(m4, flags=""), replace(m4, flags="-O3"))  # one ELF without DWARF: flags unknown
    assert not same_build(replace(m4, flags="-Os"), replace(m4, flags="-O3"))
    # a profile without DWARF flags states its optimisation: a firmware whose DWARF names another level differs
    makefile = replace(m4, flags="", opt_level="-Os core, -O2 kernels")
    assert not same_build(replace(m4, flags="g++ -g -O3"), makefile)
    assert same_build(replace(m4, flags="g++ -g -O3"), replace(makefile, opt_level="-O3 (CMake Release)"))
    assert os_build.compiler == m4.compiler


def test_without_a_profile_the_nearest_shipped_one_of_the_same_architecture_is_taken(capsys):
    firmware = OUT / "keep-only" / "cortex-m4" / "unused_opcodes.elf"
    status, out, _ = run(size_report.main, capsys, "fit", firmware, *MODELS, "--format", "json")
    answer = json.loads(out)["calibrated"]
    chosen = load_profile(answer["profile"]).build
    assert status == 1 and chosen.arch == "arm" and chosen.kernels == "reference"
    assert answer["profile_choice"].startswith("nearest shipped profile: same CPU (7e-m)")
    arm = [name for name in shipped_profiles() if load_profile(name).build.arch == "arm"]
    ranked = nearest_profile(load_profile(answer["profile"]).build, arm)
    assert ranked[0][2] == 0 and ranked[-1][2] >= ranked[0][2]


def test_text_names_the_parts_and_the_bound(capsys, profiles):
    firmware = OUT / "keep-only" / "riscv32" / "unused_opcodes.elf"
    status, out, _ = run(size_report.main, capsys, "fit", firmware, *MODELS, "--profile", profiles / "riscv32.json",
                         "--verbose")
    block = out[out.index("This firmware running these models"):]
    assert status == 1 and "the firmware's ROM now (exact)" in block.splitlines()[1]
    assert "registrations no model uses any more: none (this firmware's own graph" in block
    assert "from profile riscv32 (as asked)" in block and "(bound " in block.splitlines()[0]
    assert "models in: vision_subset.tflite, unused_opcodes.tflite" in block


def test_a_firmware_that_lacks_nothing_gets_its_own_part_alone(capsys):
    firmware = OUT / "keep-only" / "cortex-m4" / "unused_opcodes.elf"
    status, out, _ = run(size_report.main, capsys, "fit", firmware, MODELS[1], "--format", "json")
    answer = json.loads(out)["calibrated"]
    assert status == 0 and answer["missing"] == [] and answer["profile"] == "" and answer["added"] == 0
    assert answer["with_missing_ops"]["flash"] == answer["from_firmware"] == build_report(str(firmware)).rom_total
    assert answer["flash"] == answer["from_firmware"] + answer["models_in"][0]["flash"]


def test_gen_resolver_calibrate_gives_the_same_answer(capsys, profiles):
    firmware = OUT / "keep-only" / "cortex-m0plus" / "unused_opcodes.elf"
    profile = profiles / "cortex-m0plus.json"
    from_size_report = calibrated_json(capsys, "cortex-m0plus", profile)
    status, out, _ = run(gen_resolver.main, capsys, *MODELS, "--fit", profile, "--calibrate", firmware, "--format",
                         "json")
    answer = json.loads(out)
    assert status == 0 and answer["with_missing_ops"] == {key: from_size_report[key] for key in ("flash", "low", "high")}
    assert answer["flash"] == from_size_report["flash"] + sum(model["flash"] for model in answer["models_in"])
    status, out, _ = run(gen_resolver.main, capsys, *MODELS, "--fit", profile, "--calibrate", firmware)
    assert status == 0 and out.startswith("Calibrated fit of 2 model(s) on unused_opcodes.elf with profile "
                                          "cortex-m0plus (distribution not recorded: ")
    assert f"This firmware running these models (with the models asked about in place of its own, gen-resolver's " \
           f"resolver for them): {answer['flash']:,} bytes" in out
    status, _, err = run(gen_resolver.main, capsys, *MODELS, "--fit", profile, "--calibrate", firmware, "--flash", "1K")
    assert status == 1


def test_calibrate_without_fit_and_a_bad_elf_are_exit_2(capsys, tmp_path):
    status, _, err = run(gen_resolver.main, capsys, MODELS[0], "--calibrate", OUT / "cortex-m4/firmware.elf")
    assert status == 2 and "--calibrate goes with --fit" in err
    bad = tmp_path / "bad.elf"
    bad.write_bytes(b"not an elf")
    status, _, err = run(gen_resolver.main, capsys, MODELS[0], "--fit", "cortex-m4f-reference", "--calibrate", bad)
    assert status == 2 and err.count("\n") == 1 and "bad.elf" in err


def test_calibrate_on_one_profile_directly_equals_the_command(capsys, profiles):
    from sizetool.inputs.elf_reader import read_elf
    from sizetool.operators.graph_cache import load_operator_graph
    from sizetool.profile.profile_export import export_profile
    elf = str(OUT / "keep-only" / "lx106" / "unused_opcodes.elf")
    image = read_elf(elf)
    firmware = export_profile(image, load_operator_graph(elf, None, image=image), build_report(elf).rom_total, "fw",
                              stack=False)
    answer = calibrate(firmware, [str(m) for m in MODELS], load_profile(str(profiles / "lx106.json")))
    assert answer.flash == calibrated_json(capsys, "lx106", profiles / "lx106.json")["flash"]


def test_a_firmware_that_cannot_be_profiled_gets_no_calibrated_answer_unless_a_profile_is_asked_for():
    # size-report fit still gives the cross-check and arena then; gen-resolver --calibrate (strict) says why not
    from dataclasses import replace

    from sizetool.errors import SizeToolError
    from sizetool.inputs.elf_reader import read_elf
    from sizetool.operators.graph_cache import load_operator_graph
    from sizetool.profile.calibrated_fit import calibrate_firmware
    elf = str(OUT / "keep-only" / "cortex-m4" / "unused_opcodes.elf")
    image = read_elf(elf)
    no_registrations = replace(load_operator_graph(elf, None, image=image), operators=[])
    models = [str(m) for m in MODELS]
    assert calibrate_firmware(image, no_registrations, 1000, models, strict=False) is None
    with pytest.raises(SizeToolError, match="no TFLM operator registrations found"):
        calibrate_firmware(image, no_registrations, 1000, models)


def test_calibrate_names_a_custom_op_tflm_does_not_ship_as_the_applications_kernel(capsys, profiles):
    """NeutronGraph: neither the firmware nor any profile has its kernel, and none ever will (the application links
    it): named as the application's, no failure; an op TFLM ships that nothing provides still fails (SignalRfft)."""
    firmware = OUT / "keep-only" / "cortex-m4" / "unused_opcodes.elf"
    custom = FIXTURES / "models/arena_custom_op.tflite"
    status, out, _ = run(gen_resolver.main, capsys, custom, "--fit", profiles / "cortex-m4.json", "--calibrate", firmware,
                         "--format", "json")
    answer = json.loads(out)
    assert status == 0 and answer["not_counted"] == answer["application_kernels"] == ["NeutronGraph"]
    status, out, _ = run(gen_resolver.main, capsys, custom, "--fit", profiles / "cortex-m4.json", "--calibrate", firmware)
    assert status == 0 and "not counted: NeutronGraph (a custom op TFLM does not ship: your application links its " \
                           "kernel" in out
    status, out, _ = run(gen_resolver.main, capsys, FIXTURES / "models/signal_rfft_int16.tflite", "--fit",
                         profiles / "cortex-m4.json", "--calibrate", firmware, "--format", "json")
    answer = json.loads(out)
    assert status == 1 and answer["not_counted"] == ["SignalRfft"] and answer["application_kernels"] == []
