"""profile_sets.py on a profile whose resolver set-up was built at -O3: the calls a set leaves cost what the compiler
builds with only them left (set_prediction.kept_calls), and the machinery goes once every call left is inlined."""

from dataclasses import replace

from tflm_facts.target_profile import BuildFacts, CallSite, ProfileGraph, Registration, TargetProfile
from tflm_model.profile_sets import ProfileSets

# Node 0: RegisterOps() (always kept), 1-3: the registrations A, B, C (100 bytes each), 4: AddBuiltin() (200 bytes).
# A's call had AddBuiltin() inlined (150 bytes); B's and C's call it (26 bytes each).
SITES = (CallSite("A", 0, 150, (), True), CallSite("B", 0, 26, (4,)), CallSite("C", 0, 26, (4,)))


def profile(sites=SITES) -> TargetProfile:
    graph = ProfileGraph(flash=(0, 100, 100, 100, 200), ram=(0,) * 5, edges=((4,), (), (), (), ()), always=(0,),
                         roots=(), unexplained=(), functions=(4,), names={4: "AddBuiltin()"}, call_sites=sites,
                         kept_targets={0: ()})
    build = BuildFacts("arm", "cortex-m0plus", "", "cmsis_nn", 4, True, "GCC: 12.2.1", "-O3", "", "allops.elf")
    registrations = tuple(Registration(op, f"tflite::Register_{op}()", f"Add{op}", (node,))
                          for node, op in enumerate("ABC", start=1))
    return TargetProfile("o3", build, 2000, 1000, 0, 0, "", 0, 0, graph, registrations, "", None, ())


def calls_left(sets: ProfileSets, ops) -> int:
    """What fit() counts for the resolver's calls: every call's bytes less those the set drops."""
    return sets.drop(sets.registered).call_site_bytes - sets.keep(ops).call_site_bytes


def test_one_call_left_is_inlined_and_the_machinery_goes_with_the_others():
    sets = ProfileSets(profile())
    assert calls_left(sets, ["B"]) == 150  # B's call, inlined now
    assert sets.keep(["B"]).code_bytes == 100 + 100 + 200  # A, C and AddBuiltin()
    assert sets.keep(["B"]).inline_bytes == 0  # nothing left to guess about


def test_more_calls_than_were_inlined_keep_the_machinery():
    sets = ProfileSets(profile())
    assert calls_left(sets, ["B", "C"]) == 150 + 26
    assert sets.keep(["B", "C"]).code_bytes == 100  # A only
    assert calls_left(sets, ["A", "B", "C"]) == 150 + 26 + 26


def test_a_profile_without_inlined_calls_answers_as_before():
    sets = ProfileSets(profile(tuple(replace(site, inlined=False) for site in SITES)))
    assert calls_left(sets, ["B"]) == 26
    cost = sets.keep(["B"])
    assert cost.code_bytes == 200 and cost.inline_bytes == 200 and cost.inline_estimate == 100
