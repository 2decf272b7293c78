"""A custom op no rule models (NXP's NeutronGraph on an MCXN947 eIQ build, vegedoge/mod_nxp_mcxn947_mobileNet): its
allocations are only UNKNOWN_OP_BOUND's guess (8 B per element of every tensor, its constant microcode included), so
the "upper bound" said the real firmware's 262,144 B arena was 1,249,384 B short and `fit` and `ops` exited 1 on a
firmware that runs. A gate never fails on a guess: when the linked arena holds everything else, the arena is not
checked, and the answer says which op's allocations are guessed and what the rest needs.

Fixture: fixtures/models/arena_custom_op.tflite (make_models.py), against fixtures/real_builds' firmware."""

import json

from sizetool import cli
from sizetool.fit.arena_finder import LinkedArena
from sizetool.fit.model_fit import ArenaFit, KernelChoice
from tflm_model.arena_estimate import estimate_arena
from tests.conftest import FIXTURES

MODEL = FIXTURES / "models" / "arena_custom_op.tflite"
STATIC = FIXTURES / "real_builds" / "out" / "data-model" / "firmware.elf"  # 12,288 B arena in .noinit
HEAP = FIXTURES / "real_builds" / "out" / "heap-arena" / "firmware.elf"  # 20,480 B from ei_aligned_calloc


def test_the_estimate_names_the_guessed_op_and_gives_the_figure_without_its_guess():
    guessed = estimate_arena([MODEL], short_enums=True)
    assert guessed.guessed_ops == ("NeutronGraph",) and not guessed.exact
    assert guessed.without_guessed is not None and guessed.without_guessed < 2048 < 12288 < guessed.total_bytes
    modelled = estimate_arena([FIXTURES / "models" / "arena_add_chain.tflite"], short_enums=True)
    assert modelled.guessed_ops == () and modelled.without_guessed is None


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    return status, capsys.readouterr().out


def test_fit_does_not_fail_the_arena_on_the_guess(capsys):
    for elf, where in ((STATIC, "linked"), (HEAP, "on the heap")):
        status, out = run(capsys, "fit", "--no-cache", elf, MODEL)
        lines = out.splitlines()
        # The op is not registered in these firmware: that fails, the arena does not.
        assert status == 1 and lines[0].endswith("lacks 1 op the models need (NeutronGraph)")
        assert "tensor arena" not in lines[0]
        ram = next(line for line in lines if line.startswith("RAM: "))
        assert f"B {where}: not checked: NeutronGraph's own allocations are not modelled" in ram
        _, out = run(capsys, "fit", "--no-cache", "--format", "json", elf, MODEL)
        arena = json.loads(out)["arena"]
        assert arena["fits"] is True


def test_a_shortfall_beyond_the_guess_still_fails():
    arena = LinkedArena(symbol="tensor_arena", address=0x20000000, size=600, section=".bss", found_by="test")
    common = dict(models=("m",), kernels=KernelChoice("reference", "test"), pointer_bytes=4, exact=False, parts=(),
                  arena=arena, free_ram=None, guessed_ops=("NeutronGraph",))
    assert ArenaFit(needed=55128, without_guessed=500, **common).passed
    assert not ArenaFit(needed=55128, without_guessed=844, **common).passed
    assert not ArenaFit(needed=55128, without_guessed=None, **{**common, "guessed_ops": ()}).passed


def test_an_arena_that_holds_the_guess_too_is_no_upper_bound_for_the_guessed_part():
    from sizetool.render.fit_summary import ram_line

    arena = LinkedArena(symbol="tensor_arena", address=0x20000000, size=65536, section=".bss", found_by="test")
    fit = ArenaFit(needed=55128, without_guessed=844, models=("m",), kernels=KernelChoice("reference", "test"),
                   pointer_bytes=4, exact=False, parts=(), arena=arena, free_ram=None, guessed_ops=("NeutronGraph",))
    line = ram_line(fit)
    assert fit.passed and line.startswith("RAM: tensor arena 55,128 B needed (upper bound but for a guess: "
                                          "NeutronGraph's own allocations are not modelled (guessed at 54,284 B")
    assert "at most" not in line


def test_the_tensor_array_generations_bound_a_custom_op_as_the_others_do():
    # A 2019/2020-era firmware registers its custom kernel itself (AddCustom): the revision's builtin kernel list does
    # not refuse it; its allocations are the same guess, named, with the figure without it beside.
    from tflm_facts.allocator_generations import GEN_2019, GEN_2020_06

    for generation in (GEN_2019, GEN_2020_06):
        guessed = estimate_arena([MODEL], short_enums=True, generation=generation)
        without = estimate_arena([MODEL.parent / "arena_add_chain.tflite"], short_enums=True, generation=generation)
        assert guessed.guessed_ops == ("NeutronGraph",) and not guessed.exact
        assert guessed.without_guessed is not None and guessed.without_guessed < 2048 < guessed.total_bytes
        assert any("NeutronGraph: kernel allocations not modelled" in note for note in guessed.notes)
        assert without.guessed_ops == () and without.without_guessed is None
