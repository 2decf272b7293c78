"""The ranking and the combination that reaches a budget (sizetool/advice/changes.py)."""

from sizetool.advice.changes import Change, combination, combined_saving, ranked


def change(kind, saving, memory="flash", combined=None, shares=(), text=None):
    return Change(kind, text or kind, saving, memory, "measured" if saving is not None else "unsized", "how", "costs",
                  combined_bytes=combined, shares=shares)


def test_ranked_puts_most_bytes_first_and_unsized_last():
    changes = [change("model-strip", 500), change("arena", None, "ram"), change("kernel-set", 9000),
               change("unused-registrations", 500)]
    assert [(c.kind, c.bytes) for c in ranked(changes)] == [
        ("kernel-set", 9000), ("unused-registrations", 500), ("model-strip", 500), ("arena", None)]


def test_the_combination_stops_once_the_budget_is_reached():
    changes = [change("type-reduced", 9000), change("unused-registrations", 4000), change("model-strip", 700)]
    plan = combination(changes, "flash", 12000)
    assert [step.change.kind for step in plan.steps] == ["type-reduced", "unused-registrations"]
    assert plan.saved == 13000 and plan.reaches


def test_the_combination_takes_what_costs_no_speed_first():
    changes = [change("kernel-set", 9000), change("unused-registrations", 4000), change("model-strip", 700)]
    assert [s.change.kind for s in combination(changes, "flash", 4500).steps] == ["unused-registrations",
                                                                                 "model-strip"]
    assert [s.change.kind for s in combination(changes, "flash", 6000).steps] == ["unused-registrations",
                                                                                 "model-strip", "kernel-set"]


def test_a_shared_saving_is_counted_once():
    # the kernel set saves 9000 on the firmware as it is, 7000 once the unused registrations are gone
    kernels = change("kernel-set", 9000, combined=7000, shares=("unused-registrations",))
    unused = change("unused-registrations", 4000)
    assert combined_saving([kernels, unused]) == [7000, 4000]
    assert combined_saving([kernels]) == [9000]
    plan = combination([kernels, unused, change("model-strip", 700)], "flash", 11500)
    assert plan.saved == 11700 and plan.reaches
    assert [step.bytes for step in plan.steps] == [4000, 700, 7000]


def test_a_budget_no_combination_reaches_says_how_short_it_falls():
    plan = combination([change("model-strip", 700), change("arena", 300, "ram")], "flash", 5000)
    assert plan.saved == 700 and not plan.reaches
    assert combination([change("arena", None, "ram")], "ram", 10).steps == ()
