"""gen-resolver --tflm DIR: the header calls only what the user's TFLM tree declares, an op the tree lacks is exit 1
naming the op, the method and the file, and the tree's revision is named (git, or a known fingerprint)."""

import json
import shutil
import subprocess

import pytest

from resolver_gen.cli import main
from resolver_gen.tflm_tree import fingerprint, parse_methods, parse_registrations, read_tflm_tree
from tests.resolver_gen.tflm_trees import VISION_METHODS, VISION_VARIANTS, write_tree
from tflm_facts import tree_revisions


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_parser_reads_methods_and_whether_they_take_a_registration():
    text = """
    // TfLiteStatus AddGone() {}
    TfLiteStatus AddAbs() { return AddBuiltin(BuiltinOperator_ABS, Register_ABS(), ParseAbs); }
    TfLiteStatus AddConv2D(
        const TFLMRegistration& registration = Register_CONV_2D()) {
    TfLiteStatus AddOld(TfLiteRegistration registration = Register_OLD()) {
    /* TfLiteStatus AddAlsoGone(); */
    TfLiteStatus AddCustom(const char* name, TFLMRegistration* registration) {
    """
    assert parse_methods(text) == {"AddAbs": False, "AddConv2D": True, "AddOld": True, "AddCustom": True}


def test_parser_reads_registration_declarations():
    text = ("TFLMRegistration Register_CONV_2D_INT8();\ninline TFLMRegistration Register_ADD_INT8() { return "
            "Register_ADD(); }\nTFLMRegistration* Register_WINDOW();\n// TFLMRegistration Register_NOT();\n"
            "TfLiteRegistration_V1 Register_OLD_INT8();\n")
    assert parse_registrations(text) == ["Register_CONV_2D_INT8", "Register_ADD_INT8", "Register_WINDOW",
                                         "Register_OLD_INT8"]


def test_reverse_v2_refused_naming_op_method_and_file(fixtures_dir, tmp_path, capsys):
    project = tmp_path / "pico-like"
    write_tree(project / "src", {"AddAdd": True})  # the tree under src/, as pico-tflmicro keeps it
    output = tmp_path / "ops.h"
    status, out, err = run(capsys, fixtures_dir / "models" / "reverse_v2.tflite", "--tflm", project, "-o", output)
    assert status == 1 and not output.exists()
    assert ("unsupported op REVERSE_V2 in reverse_v2.tflite: this TFLM tree (unknown revision (fingerprint "
            f"{fingerprint(project / 'src')[:16]})) has no AddReverseV2() in "
            "src/tensorflow/lite/micro/micro_mutable_op_resolver.h") in err
    # with --allow-unsupported the header leaves it out and says why
    status, out, err = run(capsys, fixtures_dir / "models" / "reverse_v2.tflite", "--tflm", project,
                           "--allow-unsupported")
    assert status == 0 and "AddReverseV2" not in out.split("#ifndef")[1]
    assert "REVERSE_V2 (reverse_v2.tflite): this TFLM tree" in out and "status = resolver.AddAdd();" in out


def test_a_tree_with_the_method_takes_the_same_model(fixtures_dir, tmp_path, capsys):
    write_tree(tmp_path, {"AddAdd": True, "AddReverseV2": True})
    status, out, err = run(capsys, fixtures_dir / "models" / "reverse_v2.tflite", "--tflm", tmp_path)
    assert status == 0 and "status = resolver.AddReverseV2();" in out


@pytest.mark.skipif(shutil.which("g++") is None, reason="no system g++")
@pytest.mark.parametrize("variants", [VISION_VARIANTS, {}], ids=["declared", "undeclared"])
def test_type_reduced_header_compiles_against_the_tree(fixtures_dir, tmp_path, capsys, variants):
    tree = write_tree(tmp_path / "tflm", VISION_METHODS, variants)
    status, out, err = run(capsys, fixtures_dir / "models" / "int8_vision.tflite", "--reduce-types", "--tflm", tree)
    assert status == 0, err
    if variants:
        assert "status = resolver.AddConv2D(tflite::Register_CONV_2D_INT8());" in out
    else:  # the tree declares no variant: every op gets its generic call, and the comment says why
        assert "tflite::Register_" not in out and "status = resolver.AddConv2D();" in out
        assert ("this TFLM tree declares no Register_CONV_2D_INT8() in tensorflow/lite/micro/kernels/conv.h "
                "(CONV_2D_INT8 not used)") in out
    (tmp_path / "ops.h").write_text(out)
    (tmp_path / "main.cc").write_text('#include "ops.h"\nint main() { OpResolver r; return RegisterOps(r); }\n')
    result = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", "-Wno-unused-parameter",
                             "-I", str(tmp_path), "-I", str(tree), str(tmp_path / "main.cc")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_variant_needs_a_method_that_takes_a_registration(fixtures_dir, tmp_path, capsys):
    methods = dict(VISION_METHODS, AddConv2D=False)
    write_tree(tmp_path, methods, VISION_VARIANTS)
    status, out, err = run(capsys, fixtures_dir / "models" / "int8_vision.tflite", "--reduce-types", "--tflm", tmp_path)
    assert status == 0 and "status = resolver.AddConv2D();" in out
    assert "AddConv2D() in tensorflow/lite/micro/micro_mutable_op_resolver.h takes no registration" in out
    assert "status = resolver.AddDepthwiseConv2D(tflite::Register_DEPTHWISE_CONV_2D_INT8());" in out


def test_revision_from_a_known_fingerprint(fixtures_dir, tmp_path, capsys, monkeypatch):
    write_tree(tmp_path, {"AddAdd": True, "AddReverseV2": True})
    monkeypatch.setitem(tree_revisions.KNOWN_REVISIONS, fingerprint(tmp_path), "tflite-micro 0000000 (a test tree)")
    status, out, err = run(capsys, fixtures_dir / "models" / "reverse_v2.tflite", "--tflm", tmp_path)
    assert "// TFLM tree: tflite-micro 0000000 (a test tree); calls checked against its " \
           "tensorflow/lite/micro/micro_mutable_op_resolver.h and kernel headers" in out.splitlines()
    status, out, err = run(capsys, fixtures_dir / "models" / "reverse_v2.tflite", "--tflm", tmp_path,
                           "--format", "json")
    tree = json.loads(out)["tflm_tree"]
    assert tree["known_revision"] == "tflite-micro 0000000 (a test tree)" and tree["git"] is None
    assert tree["fingerprint"] == fingerprint(tmp_path) and tree["methods"] == 3


def test_fingerprint_reads_crlf_as_lf_and_changes_with_the_methods(tmp_path):
    first = fingerprint(write_tree(tmp_path / "a", {"AddAdd": True}))
    assert fingerprint(write_tree(tmp_path / "b", {"AddAdd": True}, crlf=True)) == first
    assert fingerprint(write_tree(tmp_path / "c", {"AddAdd": True, "AddReverseV2": False})) != first


def test_known_revisions_are_well_formed():
    assert {"tflite-micro 90b983c", "pico-tflmicro dfea53b"} <= {
        " ".join(name.split()[:2]) for name in tree_revisions.KNOWN_REVISIONS.values()}
    assert all(len(key) == 64 and int(key, 16) >= 0 for key in tree_revisions.KNOWN_REVISIONS)


@pytest.mark.skipif(shutil.which("git") is None, reason="no git")
def test_revision_from_git(tmp_path):
    write_tree(tmp_path, {"AddAdd": True})
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "tree"], check=True)
    subprocess.run(git + ["tag", "v9.9"], check=True)
    assert read_tflm_tree(tmp_path).revision.git == "v9.9"
    (tmp_path / "tensorflow/lite/micro/micro_mutable_op_resolver.h").write_text("TfLiteStatus AddAdd();\n")
    assert read_tflm_tree(tmp_path).revision.describe() == "git v9.9-dirty"


@pytest.mark.parametrize("setup, problem", [
    (lambda p: None, "not a directory"),
    (lambda p: p.mkdir(), "no tensorflow/lite/micro/micro_mutable_op_resolver.h in it"),
    (lambda p: (p / "tensorflow/lite/micro").mkdir(parents=True) or
     (p / "tensorflow/lite/micro/micro_mutable_op_resolver.h").write_text("int x;\n"), "not a TFLM"),
])
def test_a_directory_without_tflm_is_exit_2(fixtures_dir, tmp_path, capsys, setup, problem):
    setup(tmp_path / "tree")
    status, out, err = run(capsys, fixtures_dir / "models" / "reverse_v2.tflite", "--tflm", tmp_path / "tree")
    assert status == 2 and problem in err and len(err.splitlines()) == 1 and not out


def test_tflm_does_not_apply_to_tflite_selective_registration(fixtures_dir, tmp_path, capsys):
    write_tree(tmp_path, {"AddAdd": True})
    status, out, err = run(capsys, fixtures_dir / "models" / "reverse_v2.tflite", "--tflm", tmp_path,
                           "--format", "lite")
    assert status == 2 and "--format lite" in err


def _allocator_files(root, files: dict):
    micro = root / "tensorflow" / "lite" / "micro"
    for name, text in files.items():
        (micro / name).parent.mkdir(parents=True, exist_ok=True)
        (micro / name).write_text(text)


def test_the_arena_follows_the_trees_allocator_generation(fixtures_dir, tmp_path, capsys):
    """A tree with the 2020-2021 allocator (simple_memory_allocator.h, TfLiteEvalTensor, no SubgraphAllocations, as
    Edge Impulse's 2021 SDK) gets that generation's figure, the one measured on it; the header and JSON name it."""
    from tflm_facts.allocator_generations import GEN_2020
    from tflm_model.arena_estimate import estimate_arena

    model = fixtures_dir / "models" / "arena_add_chain.tflite"
    write_tree(tmp_path, {"AddAdd": True})
    _allocator_files(tmp_path, {"simple_memory_allocator.h": "class SimpleMemoryAllocator {};\n",
                                "micro_allocator.h": "TfLiteStatus StartModelAllocation(TfLiteEvalTensor** t);\n"})
    status, out, _ = run(capsys, model, "--tflm", tmp_path, "--arena", "--short-enums", "--format", "json")
    arena = json.loads(out)["arena"]
    expected = estimate_arena([model], short_enums=True, generation=GEN_2020)
    assert status == 0 and arena["total_bytes"] == expected.total_bytes and arena["exact"]
    assert arena["revision"] == GEN_2020.label and arena["assumed"] == []
    status, out, _ = run(capsys, model, "--tflm", tmp_path, "--arena", "--short-enums")
    assert f"kTensorArenaSize = {expected.total_bytes};" in out and "//   for TFLM: TFLM 2020-2021" in out


def test_a_tree_whose_generation_cannot_be_told_gets_the_bound(fixtures_dir, tmp_path, capsys):
    from tflm_model.arena_estimate import estimate_arena

    model = fixtures_dir / "models" / "arena_add_chain.tflite"
    write_tree(tmp_path, {"AddAdd": True})  # no allocator header at all
    status, out, _ = run(capsys, model, "--tflm", tmp_path, "--arena", "--short-enums", "--format", "json")
    arena = json.loads(out)["arena"]
    bound = estimate_arena([model], short_enums=True, generation=None)
    assert status == 0 and arena["total_bytes"] == bound.total_bytes and not arena["exact"]
    assert arena["notes"][0].startswith("TFLM revision not known (the --tflm tree has neither")


def test_without_a_tree_the_arena_is_the_bound_over_every_measured_generation_and_says_so(fixtures_dir, capsys):
    from tflm_facts.allocator_generations import MEASURED
    from tflm_model.arena_estimate import estimate_arena

    model = fixtures_dir / "models" / "arena_add_chain.tflite"
    status, out, _ = run(capsys, model, "--arena", "--format", "json")
    arena = json.loads(out)["arena"]
    assert status == 0 and not arena["exact"] and arena["revision"].startswith("not named: an upper bound")
    for generation in MEASURED:
        if generation.in_unnamed_bound:
            assert arena["total_bytes"] >= estimate_arena([model], generation=generation).total_bytes
            assert f"for generation {generation.key}" in arena["notes"][0]
    current = estimate_arena([model]).total_bytes
    assert f"tflite-micro 90b983c alone needs {current:,} B exactly (gen-resolver --tflm-revision 90b983c" \
        in arena["notes"][1]
    for left in ("2019", "2020-06"):  # TensorFlow <= 2.3's two generations: named, with the flag for their figure
        assert any(note.startswith("leaves out TFLM") and note.endswith(f"--tflm-revision {left}")
                   for note in arena["notes"])


@pytest.mark.parametrize("table", ["ei2023_arena_truth.csv", "ei2021_arena_truth.csv", "tflm2022_arena_truth.csv",
                                   "tflm2021_arena_truth.csv"])
def test_without_a_tree_the_figure_is_never_below_a_measured_revisions_minimum(table, capsys):
    """Edge Impulse's 2023 SDK (full structs) needed more than 90b983c's figure on every model, the 2021 one on some
    (the table's estimate_current_bytes): the tree-less default must not be that figure, but a bound over every
    measured generation."""
    from tests.tflm_model.arena_truth_tables import rows_with_models

    rows = [(row, path) for row, path in rows_with_models(table) if row["status"] == "ok"]
    assert len(rows) >= 30
    for row, path in rows[::4]:
        status, out, _ = run(capsys, path, "--arena", "--short-enums", "--format", "json")
        total = json.loads(out)["arena"]["total_bytes"]
        assert status == 0 and total >= int(row["min_arena_bytes"]), row["model"]


def test_a_named_revision_gives_that_revisions_figure(fixtures_dir, capsys):
    model = fixtures_dir / "models" / "arena_add_chain.tflite"
    status, out, _ = run(capsys, model, "--arena", "--tflm-revision", "90b983c", "--format", "json")
    arena = json.loads(out)["arena"]
    assert status == 0 and arena["exact"]
    assert arena["revision"] == "tflite-micro 90b983c (August 2026), of tflite-micro since 2022-07 " \
                               "(SingleArenaBufferAllocator)"
    status, out, _ = run(capsys, model, "--arena", "--tflm-revision", "edge-impulse-2021", "--format", "json")
    assert status == 0 and json.loads(out)["arena"]["revision"].startswith("TFLM 2020-2021")
    status, out, _ = run(capsys, model, "--arena", "--short-enums", "--tflm-revision", "2021", "--format", "json")
    arena = json.loads(out)["arena"]
    assert status == 0 and arena["exact"] and arena["revision"].startswith("tflite-micro 606b7b2f0 (2021-12-31), of")
    status, out, _ = run(capsys, model, "--arena", "--tflm-revision", "2021", "--format", "json")
    assert status == 0 and not json.loads(out)["arena"]["exact"]  # its int-enum build was not measured
    status, _, err = run(capsys, model, "--arena", "--tflm-revision", "1999")
    assert status == 2 and "unknown TFLM revision" in err and err.count("\n") == 1
    status, _, err = run(capsys, model, "--tflm-revision", "2020")
    assert status == 2 and "add --arena" in err


def test_a_current_generation_tree_of_another_revision_is_a_bound_saying_why(fixtures_dir, tmp_path, capsys):
    """The current generation's tables are 90b983c's sizes: for another revision's tree (here an unknown one) the
    figure is not called exact, and the note says how far off they were where measured."""
    from tflm_facts.build_sizes import BuildSizes
    from tflm_model.arena_estimate import estimate_arena

    model = fixtures_dir / "models" / "arena_add_chain.tflite"
    write_tree(tmp_path, {"AddAdd": True})
    _allocator_files(tmp_path, {"arena_allocator/single_arena_buffer_allocator.h": "class SingleArenaBufferAllocator;"})
    status, out, _ = run(capsys, model, "--tflm", tmp_path, "--arena", "--short-enums", "--format", "json")
    arena = json.loads(out)["arena"]
    assert status == 0 and not arena["exact"]
    # the larger of 90b983c's sizes and a build without TF_LITE_STATIC_MEMORY's (full TfLiteTensor and TfLiteNode)
    full = BuildSizes({"TfLiteTensor": 64, "NodeAndRegistration": 44})
    assert arena["total_bytes"] == max(estimate_arena([model], short_enums=True).total_bytes,
                                       estimate_arena([model], short_enums=True, sizes=full).total_bytes)
    assert arena["total_bytes"] > estimate_arena([model], short_enums=True).total_bytes
    assert "unknown revision" in arena["notes"][0] and "at 02414075e (2023-06)" in arena["notes"][0]
