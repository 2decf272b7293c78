"""set_prediction.py: how the AddXxx() calls a set leaves cost, where the compiler inlined the machinery into some."""

from tflm_facts.set_prediction import kept_calls
from tflm_facts.target_profile import CallSite

# An -O3 caller: two calls with AddBuiltin() inlined (150 and 170 bytes), three calling it (26 bytes each).
CALLS = [CallSite("A", 0, 150, (), True), CallSite("B", 0, 170, (), True), CallSite("C", 0, 26, (9,)),
         CallSite("D", 0, 26, (9,)), CallSite("E", 0, 26, (9,))]


def by_op(*ops):
    return [site for site in CALLS if site.op in ops]


def test_calls_left_up_to_how_many_were_inlined_are_all_inlined_and_the_machinery_goes():
    assert kept_calls(CALLS, by_op("C")) == (170, True)  # an out-of-line call here is inlined once alone
    assert kept_calls(CALLS, by_op("A", "D")) == (340, True)


def test_calls_beyond_that_call_the_machinery_at_the_out_of_line_size():
    assert kept_calls(CALLS, by_op("A", "C", "D")) == (2 * 170 + 26, False)
    assert kept_calls(CALLS, CALLS) == (2 * 170 + 3 * 26, False)


def test_without_inlined_calls_each_call_keeps_its_own_bytes():
    plain = [CallSite(s.op, 0, s.bytes, s.targets) for s in CALLS]
    assert kept_calls(plain, plain[:2]) == (320, False)
    assert kept_calls(CALLS, []) == (0, False)
