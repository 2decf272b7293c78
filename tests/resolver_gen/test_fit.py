"""`gen-resolver MODEL --fit PROFILE`: flash, RAM and stack from a target profile, each with its parts; exit 1 over a
limit or for an op the profile lacks (a custom op TFLM does not ship is the application's: named, no failure); bad
input one line and exit 2; `--fit list`."""

import json
from pathlib import Path

import pytest

from resolver_gen import cli
from sizetool import cli as size_report
from tflm_model.arena_estimate import estimate_arena
from tflm_model.target_fit import embedded_bytes

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
ELF = FIXTURES / "firmware/out/cortex-m4/firmware.elf"
MAP = FIXTURES / "firmware/out/cortex-m4/firmware.map"
ADD = FIXTURES / "models/arena_add_chain.tflite"
CONV = FIXTURES / "models/arena_conv_per_channel.tflite"
WHILE = FIXTURES / "models/arena_while.tflite"
CUSTOM = FIXTURES / "models/arena_custom_op.tflite"  # NeutronGraph: a custom op TFLM does not ship
TFLM_CUSTOM = FIXTURES / "models/signal_rfft_int16.tflite"  # SignalRfft: a custom op TFLM ships (AddRfft)


@pytest.fixture(scope="module")
def profile(tmp_path_factory):
    path = tmp_path_factory.mktemp("profile") / "fixture-m4.json"
    assert size_report.main(["profile", str(ELF), "--map", str(MAP), "-o", str(path)]) == 0
    return str(path)


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_json_gives_each_figure_with_parts_that_add_up(capsys, profile):
    status, out, _ = run(capsys, ADD, CONV, "--fit", profile, "--format", "json")
    data = json.loads(out)
    assert status == 0 and data["fits"] is True
    assert data["registrations"] == ["ADD", "CONV_2D", "CONV_2D_INT8"]
    for figure in ("flash", "ram"):
        assert data[figure]["bytes"] == sum(part["bytes"] for part in data[figure]["parts"])
        assert all(part["bytes"] >= 0 for part in data[figure]["parts"])
    model_part = data["flash"]["parts"][-1]["bytes"]
    assert model_part == embedded_bytes(ADD.stat().st_size) + embedded_bytes(CONV.stat().st_size)
    # the fixture's profile names no TFLM revision: its arena is the bound over the measured allocator generations
    arena = estimate_arena([ADD, CONV], kernels="reference", pointer_bytes=4, short_enums=True, generation=None)
    assert data["ram"]["arena_bytes"] == arena.total_bytes and data["ram"]["arena_exact"] is False
    assert data["stack"]["bytes"] == sum(step["frame"] for step in data["stack"]["path"][:-1]) + \
        data["stack"]["path"][-1]["frame"]
    assert data["reduced_types"]["registrations"] == ["ADD", "CONV_2D_INT8"]


def test_flash_equals_keep_with_the_models_less_the_firmwares_own_model_data(capsys, profile):
    _, out, _ = run(capsys, ADD, CONV, "--fit", profile, "--format", "json")
    flash = json.loads(out)["flash"]["bytes"]
    size_report.main([str(ELF), "--map", str(MAP), "--keep", "ADD,CONV_2D,CONV_2D_INT8", "--format", "json"])
    keep = json.loads(capsys.readouterr().out)
    # --keep with a map also counts the alignment fill the relink gives back, which profiles do not carry
    predicted = keep["predicted_rom"] + keep["fill_bytes"]
    assert flash == predicted + embedded_bytes(ADD.stat().st_size) + embedded_bytes(CONV.stat().st_size)


def test_over_a_limit_is_exit_1_naming_it(capsys, profile):
    status, out, _ = run(capsys, ADD, "--fit", profile, "--flash", "8K", "--ram", "1M")
    assert status == 1 and "OVER the limit of 8,192" in out and "does not fit: flash over by" in out
    status, out, _ = run(capsys, ADD, "--fit", profile, "--flash", "1M", "--ram", "2K")
    assert status == 1 and "RAM over by" in out
    status, out, _ = run(capsys, ADD, "--fit", profile, "--flash", "1M", "--ram", "1M")
    assert status == 0 and "verdict: fits" in out


def test_an_op_the_profile_lacks_is_named_and_exit_1(capsys, profile):
    status, out, _ = run(capsys, WHILE, "--fit", profile, "--format", "markdown")
    assert status == 1 and "missing: `WHILE`" in out and "| flash |" in out


def test_a_custom_op_tflm_does_not_ship_is_the_applications_named_and_no_failure(capsys, profile):
    """A user's custom op (AddCustom, a kernel the application links) is no op the profile lacks: its kernel is the
    application's code, left out and named with it; a custom op TFLM ships that the profile lacks still fails."""
    status, out, _ = run(capsys, CUSTOM, "--fit", profile, "--flash", "1M", "--ram", "1M")
    first, second = out.splitlines()[:2]
    assert status == 0 and first.startswith("fits (TFLM and the models only)")
    assert "your kernel for the custom op NeutronGraph" in second and "yours: NeutronGraph (in arena_custom_op.tflite)" in out
    assert "missing:" not in out and "does not fit" not in out
    status, out, _ = run(capsys, CUSTOM, "--fit", profile, "--format", "json")
    data = json.loads(out)
    assert data["missing"] == [] and [k["op"] for k in data["application_kernels"]] == ["NeutronGraph"]
    # its kernel's own arena allocations (no rule: only a guess) are the application's too: out of the RAM figure
    arena = estimate_arena([CUSTOM], kernels="reference", pointer_bytes=4, short_enums=True, generation=None)
    assert arena.guessed_ops == ("NeutronGraph",) and arena.without_guessed < arena.total_bytes
    assert data["ram"]["arena_bytes"] == arena.without_guessed == data["ram"]["parts"][0]["bytes"]
    assert "without NeutronGraph's own allocations" in data["ram"]["parts"][0]["part"]
    assert any("NeutronGraph: kernel allocations not modelled (no rule), guessed at" in note for note in data["notes"])
    status, out, _ = run(capsys, CUSTOM, "--fit", profile, "--app-flash", "4K", "--app-ram", "1K", "--format", "markdown")
    assert status == 0 and "your kernel for the custom op NeutronGraph belongs in it" in out and "- yours: `NeutronGraph`" in out

    status, out, _ = run(capsys, TFLM_CUSTOM, "--fit", profile, "--format", "json")
    data = json.loads(out)
    assert status == 1 and data["application_kernels"] == []
    assert [m["op"] for m in data["missing"]] == ["SignalRfft"]  # TFLM's own: the fixture's profile registers none


@pytest.mark.parametrize("argv, message", [
    ([ADD, "--fit", "no-such-target"], "unknown profile 'no-such-target'"),
    ([ADD, "--fit", "/nonexistent/p.json"], "no such profile file"),
    ([ADD, "--fit", str(FIXTURES / "models/make_models.py") + ".json"], "no such profile file"),
    ([ADD, "--fit", "PROFILE", "--flash", "lots"], "--flash 'lots'"),
    ([ADD, "--fit", "PROFILE", "--format", "header"], None),
    ([ADD, "--fit", "PROFILE", "--format", "lite"], "--fit prints text, json or markdown"),
    ([ADD, "--flash", "1M"], "--flash and --ram are limits for --fit"),
    ([ADD, "--fit", "PROFILE", "--kernels", "cmsis_nn"], "from the profile"),
    ([ADD, "--fit", "PROFILE", "--arena"], "leave out --arena"),
    ([ADD, "--format", "markdown"], "--format markdown goes with --fit"),
    (["--fit", "PROFILE"], "--fit needs at least one model (.tflite, C array or firmware ELF)"),
    ([FIXTURES / "models/truncated.tflite", "--fit", "PROFILE"], "truncated.tflite"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, profile, argv, message):
    status, out, err = run(capsys, *[profile if a == "PROFILE" else a for a in argv])
    if message is None:  # the default format is text
        assert status == 0 and out.startswith("needs flash ")
        return
    assert status == 2 and message in err and err.count("\n") == 1 and out == ""


def test_a_damaged_profile_and_one_of_another_version_are_exit_2(capsys, profile, tmp_path):
    data = json.loads(Path(profile).read_text())
    (tmp_path / "v9.json").write_text(json.dumps({**data, "version": 9}))
    (tmp_path / "cut.json").write_text(Path(profile).read_text()[:500])
    for name, message in (("v9.json", "format version 9"), ("cut.json", "damaged profile")):
        status, out, err = run(capsys, ADD, "--fit", tmp_path / name)
        assert status == 2 and message in err and err.count("\n") == 1


def test_the_output_file_is_written_atomically(capsys, profile, tmp_path):
    status, out, _ = run(capsys, ADD, "--fit", profile, "-o", tmp_path / "fit.md", "--format", "markdown")
    assert status == 0 and out == "" and (tmp_path / "fit.md").read_text().startswith("### needs flash ")


def test_fit_list_names_the_shipped_profiles(capsys):
    status, out, _ = run(capsys, "--fit", "list", "--format", "json")
    assert status == 0 and isinstance(json.loads(out)["profiles"], list)
    status, _, err = run(capsys, ADD, "--fit", "list")
    assert status == 2 and "give no model" in err


def test_show_names_every_compiler_its_elf_names(capsys):
    # RV32: picolibc was built by GCC 12.1, TFLM by 12.2; the ELF's .comment names both and neither is TFLM's alone
    status, out, _ = run(capsys, "--fit", "show", "riscv32-reference")
    compiler = " ".join(next(line for line in out.splitlines() if line.startswith("compiler")).split()[1:])
    assert status == 0 and compiler == "GCC: (12.1.0-7+11) 12.1.0 + GCC: (12.2.0-14+deb12u1+11+b2) 12.2.0"
    status, out, _ = run(capsys, "--fit", "show", "cortex-m4f-reference")
    assert "20221205" in out and " + GCC" not in out and "118 (its all-ops build" in out


def test_show_gives_one_profile_in_full_with_how_closely_it_was_measured(capsys):
    status, out, _ = run(capsys, "--fit", "show", "pico-rp2040")
    assert status == 0 and out.startswith("profile ") and "measured against 10 keep-only builds" in out
    assert "-mcpu=cortex-m0plus" in out and max(len(line) for line in out.splitlines()) <= 120
    status, out, _ = run(capsys, "--fit", "show", "pico-rp2040", "--format", "json")
    assert status == 0 and json.loads(out)["measured"]["builds"] == 10
    status, _, err = run(capsys, "--fit", "show")
    assert status == 2 and "--fit show takes one profile" in err


def test_show_lists_each_compile_flag_once():
    from resolver_gen.render_profiles import compile_lines

    assert compile_lines("GNU C++14 -Og -O3 -O3 -std=c++11 -std=gnu++14; GNU C11 -O2") == [
        "GNU C++14 -Og -O3 -std=c++11 -std=gnu++14", "GNU C11 -O2"]


def test_an_mve_profile_estimates_the_arena_with_cmsis_nn_mve_rules(capsys, tmp_path):
    # a Cortex-M55 CMSIS-NN profile: the shipped CMSIS-NN one with an M55 build's facts (Tag_MVE_arch: MVE-F)
    from tflm_facts.target_profile import profile_text, shipped_profiles
    assert "cortex-m4f-cmsis_nn" in shipped_profiles()
    data = json.loads(profile_text("cortex-m4f-cmsis_nn")[1])
    data["name"] = "cortex-m55-cmsis_nn"
    data["build"].update(cpu="8.1-M.main", fpu="FPv5/FP-D16 for ARMv8 + MVE-F")
    m55 = tmp_path / "cortex-m55-cmsis_nn.json"
    m55.write_text(json.dumps(data))
    status, out, _ = run(capsys, CONV, "--fit", m55, "--format", "json")
    answer = json.loads(out)
    mve = estimate_arena([CONV], kernels="cmsis_nn", pointer_bytes=4, short_enums=True, cpu_features="mve")
    dsp = estimate_arena([CONV], kernels="cmsis_nn", pointer_bytes=4, short_enums=True, cpu_features="dsp")
    assert status == 0 and mve.total_bytes != dsp.total_bytes and mve.exact
    assert answer["ram"]["arena_bytes"] == mve.total_bytes and answer["ram"]["arena_exact"] is True
    assert not any("MVE" in note or "not modelled" in note for note in answer["notes"])


@pytest.mark.parametrize("model,named", [("unsupported_ops.tflite", "unsupported op FlexAddV2"),
                                         ("hybrid.tflite", "unsupported types:")])
def test_a_model_tflm_cannot_run_fits_no_target_and_is_named_with_exit_1(capsys, profile, model, named):
    status, out, err = run(capsys, str(FIXTURES / "models" / model), "--fit", str(profile))
    assert status == 1 and out == ""
    assert named in err and "--fit: the models cannot run on TFLM as they are" in err


SHIPPED = "cortex-m4f-reference"  # a profile measured on a real TFLM build (tflm_facts/profiles)


def test_the_stack_path_shows_its_first_frames_the_largest_the_deepest_and_verbose_shows_every_step(capsys):
    _, out, _ = run(capsys, ADD, CONV, "--fit", SHIPPED, "--format", "json")
    path = json.loads(out)["stack"]["path"]
    assert len(path) > 6  # the worst Invoke() path of a real build runs through newlib's printf
    _, text, _ = run(capsys, ADD, CONV, "--fit", SHIPPED)
    _, verbose, _ = run(capsys, ADD, CONV, "--fit", SHIPPED, "--verbose")
    stack = [line for line in text.split("\nBeside it:")[0].split("\nstack ", 1)[1].splitlines()[1:] if line.strip()]
    largest = max(path[3:-1], key=lambda step: step["frame"])
    shown = [step["function"] for step in path[:3]] + [largest["function"], path[-1]["function"]]
    assert [line.split(None, 1)[1] for line in stack if "more frame" not in line] == shown
    left_out = [line for line in stack if "more frame" in line]
    assert left_out and sum(int(line.split("... ")[1].split()[0]) for line in left_out) == len(path) - 5
    assert all(f"  {step['function']}" in verbose for step in path) and "more frame" not in verbose


def test_verbose_without_fit_is_a_usage_error(capsys):
    status, _, err = run(capsys, ADD, "--verbose")
    assert status == 2 and "--verbose goes with --fit" in err


def test_fit_list_is_one_table_within_120_columns_grouped_by_distribution(capsys):
    from tflm_facts.target_profile import load_profile, shipped_profiles
    status, out, _ = run(capsys, "--fit", "list")
    lines = out.splitlines()
    assert status == 0 and max(len(line) for line in lines) <= 120
    assert lines[0].split() == ["profile", "distribution", "TFLM", "CPU", "kernels", "-O", "C", "library"]
    rows = [line.split() for line in lines[1:] if line and line.split()[0] in shipped_profiles()]
    assert sorted(row[0] for row in rows) == sorted(shipped_profiles())
    distributions = [row[1] for row in rows]
    assert distributions == sorted(distributions)  # grouped
    for row in rows:
        build = load_profile(row[0]).build
        assert row[4] == build.kernels and (row[1] == "upstream") == build.distribution.endswith("(upstream)")
    pico = next(row for row in rows if row[0] == "pico-rp2040")
    assert pico[1:7] == ["pico-tflmicro", "2024-12-26", "Cortex-M0+", "cmsis_nn", "-O3", "newlib"]


def test_the_first_line_names_the_distribution_its_revision_and_flags(capsys, profile, tmp_path):
    from tflm_facts.target_profile import load_profile
    built = tmp_path / "pico.json.xz"
    assert size_report.main(["profile", str(ELF), "--map", str(MAP), "-o", str(built), "--tflm-commit", "a" * 40,
                             "--distribution", "pico-tflmicro", "--distribution-revision", "dfea53b0123",
                             "--build-system", "pico-sdk 2.1.0 CMake, Release", "--opt-level=-O3",
                             "--c-library", "newlib-nano"]) == 0
    assert built.read_bytes().startswith(b"\xfd7zXZ")  # .xz: compressed
    assert load_profile(str(built)).graph == load_profile(profile).graph
    status, out, _ = run(capsys, ADD, "--fit", built)
    verdict, leaves_out, build = out.splitlines()[:3]
    assert status == 0 and verdict.startswith("needs flash ") and "TFLM and the models only" in verdict
    assert leaves_out.startswith("leaves out your application's code and data")
    assert build.startswith("1 model(s) on pico: pico-tflmicro dfea53b, TFLM aaaaaaa, -O3, newlib-nano")
    status, out, _ = run(capsys, ADD, "--fit", built, "--verbose")  # the whole build, flags DWARF names included
    assert "build: pico-tflmicro dfea53b: TFLM aaaaaaa, pico-sdk 2.1.0 CMake, Release, -O3, newlib-nano, GNU C++" in out


def test_a_version_1_profile_is_still_read_with_no_distribution_recorded(capsys, profile, tmp_path):
    data = json.loads(Path(profile).read_text())
    assert data["version"] == 3
    for key in ("distribution", "distribution_revision", "build_system", "opt_level", "c_library"):
        del data["build"][key]
    (tmp_path / "old.json").write_text(json.dumps({**data, "version": 1}))
    status, out, _ = run(capsys, ADD, "--fit", tmp_path / "old.json")
    assert status == 0 and "distribution not recorded, TFLM revision not recorded" in out.splitlines()[2]


def test_app_statics_counts_the_guard_runtime_the_note_without_it_names(capsys):
    """pico-tflmicro builds thread-safe statics and a signal kernel links libstdc++'s guard and exception runtime:
    an app with a function-local static (TFLM's examples) links it too, whatever its model's kernels need."""
    _, plain, _ = run(capsys, ADD, "--fit", "pico-rp2040", "--format", "json")
    _, counted, _ = run(capsys, ADD, "--fit", "pico-rp2040", "--format", "json", "--app-statics")
    plain, counted = json.loads(plain), json.loads(counted)
    (note,) = [n for n in plain["notes"] if n.startswith("not counted")]
    added = int(note.split()[2])
    assert added > 5000 and "--app-statics" in note
    assert counted["app_statics"] is True and plain["app_statics"] is False
    assert counted["flash"]["bytes"] - plain["flash"]["bytes"] == added
    part = {p["part"]: p["bytes"] for p in counted["flash"]["parts"]}
    assert part["C++ guard and exception runtime (--app-statics)"] == added
    assert not [n for n in counted["notes"] if n.startswith("not counted")]
    _, text, _ = run(capsys, ADD, "--fit", "pico-rp2040", "--app-statics")
    assert " with --app-statics on " in text.splitlines()[2]


def test_app_statics_on_a_build_without_a_guard_runtime_says_it_adds_nothing(capsys, profile):
    _, plain, _ = run(capsys, ADD, "--fit", profile, "--format", "json")
    _, counted, _ = run(capsys, ADD, "--fit", profile, "--format", "json", "--app-statics")
    plain, counted = json.loads(plain), json.loads(counted)
    assert counted["flash"]["bytes"] == plain["flash"]["bytes"]
    assert any("--app-statics adds nothing" in n for n in counted["notes"])


def test_app_statics_without_fit_is_a_usage_error(capsys):
    status, out, err = run(capsys, ADD, "--app-statics")
    assert status == 2 and not out and "--app-statics" in err and len(err.strip().splitlines()) == 1


def test_the_columns_beside_it_stay_aligned_with_long_profile_names(capsys):
    # "reference kernels (zephyr-cortex-m33-reference)" is longer than the usual label column
    status, out, _ = run(capsys, ADD, "--fit", "zephyr-cortex-m33-cmsis_nn")
    table = out.split("Beside it:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert status == 0 and any("zephyr-cortex-m33-reference" in line for line in table)
    flash_end = table[0].index("flash") + len("flash")
    for line in table[1:]:
        label, flash = line[:flash_end - 10], line[flash_end - 10:flash_end]
        assert label.endswith("  ") and flash.strip().replace(",", "").isdigit(), line


def test_the_esp_tflite_micro_profile_estimates_the_arena_with_its_esp_nn_kernels(capsys):
    # its build links esp-nn (esp_nn_conv_s8_opt, ...): the arena follows esp-tflite-micro's esp_nn kernels, and
    # no other kernel set of that distribution is shipped to show beside it
    model = FIXTURES / "models" / "arena_conv_per_channel.tflite"
    status, out, _ = run(capsys, str(model), "--fit", "esp-tflite-micro-esp32c3-esp_nn", "--format", "json")
    answer = json.loads(out)
    esp = estimate_arena([model], kernels="esp_nn", pointer_bytes=4)
    assert esp.total_bytes == estimate_arena([model], kernels="reference").total_bytes + 4  # conv NodeData
    # the profile's esp-tflite-micro d6465fd is not the revision the tables hold (90b983c): a bound, never below them
    assert status == 0 and answer["ram"]["arena_bytes"] >= esp.total_bytes and answer["ram"]["arena_exact"] is False
    assert answer["ram"]["arena_bytes"] == estimate_arena([model], kernels="esp_nn", revision="esp-tflite-micro "
                                                          "d6465fd").total_bytes
    assert answer["other_kernels"] is None
    assert answer["ram"]["parts"][0]["part"] == "tensor arena (esp_nn kernels, upper bound)"


def test_the_answer_says_first_that_it_leaves_the_application_out(capsys, profile):
    status, out, _ = run(capsys, ADD, "--fit", profile, "--flash", "1M", "--ram", "256K")
    verdict, leaves_out = out.splitlines()[:2]
    assert status == 0 and verdict.startswith("fits (TFLM and the models only): flash ")
    assert "of 1,048,576" in verdict and "drivers, DSP, USB, printf" in leaves_out and "--app-flash" in leaves_out
    assert out.splitlines()[-1].startswith("verdict: fits (TFLM and the models in a minimal app; your application's")
    data = json.loads(run(capsys, ADD, "--fit", profile, "--format", "json")[1])
    assert data["application"] == {"flash": None, "ram": None, "counted": False}
    assert data["counts"].startswith("leaves out your application's code and data")


def test_the_application_given_is_counted_as_a_part_of_its_own(capsys, profile):
    _, bare, _ = run(capsys, ADD, "--fit", profile, "--format", "json")
    status, out, _ = run(capsys, ADD, "--fit", profile, "--format", "json", "--app-flash", "30K", "--app-ram", "4096")
    alone, counted = json.loads(bare), json.loads(out)
    assert status == 0 and counted["flash"]["bytes"] == alone["flash"]["bytes"] + 30 * 1024
    assert counted["ram"]["bytes"] == alone["ram"]["bytes"] + 4096
    assert {"part": "your application (--app-flash, as given)", "bytes": 30720} in counted["flash"]["parts"]
    assert counted["application"]["counted"] and counted["other_kernels"] is None or \
        counted["other_kernels"]["flash"]["bytes"] > 30720
    status, out, _ = run(capsys, ADD, "--fit", profile, "--flash", str(alone["flash"]["bytes"] + 1000),
                         "--app-flash", "2K", "--app-ram", "0")
    assert status == 1 and out.startswith("does not fit: flash ") and "(1,048 over)" in out.splitlines()[0]
    status, out, _ = run(capsys, ADD, "--fit", profile, "--app-flash", "2K")
    assert status == 0 and out.splitlines()[1] == "leaves out your application's RAM: --app-ram adds it"
    status, _, err = run(capsys, ADD, "--app-flash", "2K")
    assert status == 2 and "--app-flash and --app-ram describe your app for --fit PROFILE" in err


def test_the_arena_header_names_a_guess_as_a_guess(capsys):
    """--arena keeps the guess for an op no rule models in kTensorArenaSize, but does not call it a bound."""
    status, out, _ = run(capsys, CUSTOM, "--arena")
    line = next(line for line in out.splitlines() if line.startswith("// Tensor arena:"))
    assert status == 0 and line.endswith("upper bound but for a guess at NeutronGraph's own allocations)")
    status, out, _ = run(capsys, ADD, "--arena")
    line = next(line for line in out.splitlines() if line.startswith("// Tensor arena:"))
    assert "guess" not in line
