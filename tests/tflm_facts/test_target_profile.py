"""The target profile format: written deterministically, read back equal, and every bad profile refused with one
line naming it: unknown name, damaged file, another format version."""

import json

import pytest

from tflm_facts.target_profile import (
    FORMAT_VERSION,
    BuildFacts,
    CallSite,
    ProfileError,
    ProfileGraph,
    Registration,
    SharedRoot,
    StackPath,
    TargetProfile,
    load_profile,
    profile_to_json,
    resolver_object_bytes,
    shipped_profiles,
)


def small_profile() -> TargetProfile:
    graph = ProfileGraph(flash=(0, 100, 40, 60), ram=(0, 0, 8, 0), edges=((1, 2), (3,), (3,), ()), always=(0,),
                         roots=(), unexplained=(), functions=(3,), names={3: "AddBuiltin()"},
                         call_sites=(CallSite("ADD", 0, 22, (3,)), CallSite("MUL", 0, 22, (3,))),
                         kept_targets={0: ()}, shared_roots=(SharedRoot(2, ("ADD", "MUL")),))
    build = BuildFacts("arm", "cortex-m4", "VFPv4-D16", "reference", 4, True, "GCC: 12.2.1", "-Os", "90b983c",
                       "allops.elf")
    return TargetProfile("test", build, 1000, 800, 0, 500, "tensor_arena", 8192, 48, graph,
                         (Registration("ADD", "tflite::Register_ADD()", "AddAdd", (1,), StackPath(300, ((0, 40),))),
                          Registration("MUL", "tflite::Register_MUL()", "AddMul", (2,), None)),
                         "tflite::MicroInterpreter::Invoke()", StackPath(100, ((0, 40),)), ("Invoke()",))


def write(tmp_path, text, name="p.json"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_profile_reads_back_equal_and_writes_the_same_bytes(tmp_path):
    profile = small_profile()
    text = profile_to_json(profile)
    assert load_profile(write(tmp_path, text)) == profile
    assert profile_to_json(load_profile(write(tmp_path, text))) == text
    assert text.endswith("\n") and text.count("\n") == 1
    data = json.loads(text)
    assert (data["format"], data["version"]) == ("tflm-target-profile", FORMAT_VERSION)


def test_an_inlined_call_site_reads_back_and_older_files_have_none(tmp_path):
    from dataclasses import replace

    base = small_profile()
    sites = (CallSite("ADD", 0, 160, (), True), CallSite("MUL", 0, 22, (3,)))
    profile = replace(base, graph=replace(base.graph, call_sites=sites))
    data = json.loads(profile_to_json(profile))
    assert data["graph"]["call_sites"] == [["ADD", 0, 160, [], True], ["MUL", 0, 22, [3]]]
    assert load_profile(write(tmp_path, json.dumps(data))) == profile
    older = json.loads(profile_to_json(base))
    older["version"] = 2
    assert not any(site.inlined for site in load_profile(write(tmp_path, json.dumps(older))).graph.call_sites)
    data["graph"]["call_sites"][0][4] = 1
    with pytest.raises(ProfileError, match="damaged profile"):
        load_profile(write(tmp_path, json.dumps(data)))


def test_the_abi_follows_pointer_size_and_enum_size():
    build = small_profile().build
    assert build.abi == "eabi"
    assert BuildFacts("riscv", "riscv", "", "reference", 4, False, "", "", "", "x").abi == "ilp32"
    assert BuildFacts("x86_64", "x86-64", "", "reference", 8, False, "", "", "", "x").abi == "lp64"


def test_the_resolver_object_grows_by_one_registration_an_op():
    # measured on real TFLM 90b983c Cortex-M4 builds: main::resolver of MicroMutableOpResolver<118> and <5>
    assert (resolver_object_bytes(118, 4), resolver_object_bytes(5, 4)) == (0x10A4, 0xC0)
    assert resolver_object_bytes(1, 8) % 8 == 0 and resolver_object_bytes(2, 8) > resolver_object_bytes(1, 8)


def test_the_resolver_object_takes_the_layout_the_build_had():
    # an early-2023 TFLM sync (Arduino's library): a registration of nine fields, 44 bytes an op with its code and
    # parser; 4,280 bytes for the all-ops app's 97 ops, as its ELF holds
    assert resolver_object_bytes(97, 4, 44) == 4280 and resolver_object_bytes(97, 4, 0) == resolver_object_bytes(97, 4)
    arduino = load_profile("arduino-nano33ble-cortex-m4f-cmsis_nn")
    assert arduino.resolver_op_bytes == 44 and arduino.resolver_ram == 4280
    assert load_profile("cortex-m4f-reference").resolver_op_bytes == 0  # exported before: 90b983c's layout


def test_an_unknown_profile_name_lists_the_shipped_ones():
    with pytest.raises(ProfileError, match=r"unknown profile 'cortex-m99'.*shipped"):
        load_profile("cortex-m99")


def test_every_shipped_profile_loads():
    for name in shipped_profiles():
        assert load_profile(name).name == name


@pytest.mark.parametrize("mutate, message", [
    (lambda d: "{not json", "damaged profile (not JSON"),
    (lambda d: json.dumps({**d, "version": FORMAT_VERSION + 1}), f"format version {FORMAT_VERSION + 1}"),
    (lambda d: json.dumps({**d, "format": "something"}), "not a TFLM target profile"),
    (lambda d: json.dumps({k: v for k, v in d.items() if k != "graph"}), "damaged profile"),
    (lambda d: json.dumps({**d, "graph": {**d["graph"], "edges": [[1, 2], [9], [3], []]}}), "out of range"),
    (lambda d: json.dumps({**d, "graph": {**d["graph"], "flash": [0, -1, 40, 60]}}), "negative"),
    (lambda d: json.dumps({**d, "rom_total": "big"}), "damaged profile"),
    (lambda d: json.dumps([1, 2]), "not a TFLM target profile"),
])
def test_a_bad_profile_is_one_line_naming_the_file(tmp_path, mutate, message):
    data = json.loads(profile_to_json(small_profile()))
    path = write(tmp_path, mutate(data))
    with pytest.raises(ProfileError) as error:
        load_profile(path)
    assert message in str(error.value) and path in str(error.value) and "\n" not in str(error.value)


def test_a_missing_file_and_a_directory_are_named(tmp_path):
    with pytest.raises(ProfileError, match="no such profile file"):
        load_profile(str(tmp_path / "absent.json"))
    with pytest.raises(ProfileError, match="is a directory"):
        load_profile(str(tmp_path) + "/")
