"""How a set question's figures combine into the predicted saving and its stated error, for both places that answer
it: `size-report ops ELF --drop|--keep` (sizetool/operators/operator_sets.py, on the ELF's graph) and
`gen-resolver --fit` (tflm_model/profile_sets.py, on a target profile's reduced graph).

The one measured fact in it: when a set leaves the resolver's registration machinery (`AddBuiltin()`/`AddCustom()`)
with a single `AddXxx()` call, GCC at -Os and -O2 inlines it into that caller and folds it to the one op. On real
TFLM 90b983c builds it removed 37-60% of what it could (the function and what only it keeps): the prediction counts
half as removed and states the other half as its error either way.
"""

from __future__ import annotations


class SetPrediction:
    """The derived figures of a set's cost. A subclass (a dataclass) has the fields code_bytes, call_site_bytes,
    unsure_bytes and inline_bytes."""

    code_bytes: int
    call_site_bytes: int
    unsure_bytes: int
    inline_bytes: int

    @property
    def inline_estimate(self) -> int:
        """What inlining the machinery left with one call most likely removes: half of what it can remove."""
        return self.inline_bytes // 2

    @property
    def saving(self) -> int:
        return self.code_bytes + self.call_site_bytes + self.inline_estimate

    @property
    def may_be_high_by(self) -> int:
        """How much the prediction (ROM minus the saving) may be too high, all known causes together."""
        return self.unsure_bytes + self.inline_bytes - self.inline_estimate

    @property
    def may_be_low_by(self) -> int:
        """How much the prediction may be too low: the compiler folds less of the inlined machinery than counted."""
        return self.inline_estimate


def kept_calls(calls, kept) -> tuple[int, bool]:
    """(bytes, machinery inlined) of the AddXxx() calls `kept` of one caller whose calls are `calls` (objects with
    `bytes` and `inlined`), as the compiler builds them with only those calls left.

    At -O3 GCC inlines the registration machinery into the first calls of a caller (about ten) and calls it from the
    rest; the all-ops build shows how many (k) and what an inlined call costs (the median of their lengths). With n
    calls left the first min(n, k) are inlined, the rest call the machinery, and with n <= k nothing calls the
    machinery any more. Without inlined calls (-Os, -O2, profiles before format 3) the calls keep their own bytes.
    """
    inlined = sorted(site.bytes for site in calls if site.inlined)
    if not inlined or not kept:
        return sum(site.bytes for site in kept), False
    others = sorted(site.bytes for site in calls if not site.inlined)
    each = inlined[len(inlined) // 2]
    out = others[len(others) // 2] if others else each
    n, k = len(kept), len(inlined)
    return min(n, k) * each + max(0, n - k) * out, n <= k


def inlined_machinery(call_sites, kept_targets, chosen, cut: dict[int, set[int]]) -> dict[int, int]:
    """Per caller whose calls the compiler inlined the machinery into (kept_calls), the bytes its calls left cost
    beyond their own, with the ops `chosen` removed; where it inlines every call left, the machinery's edges are cut
    too (in place). `call_sites`: objects with `caller`, `op`, `bytes`, `targets` and `inlined`; `kept_targets`:
    caller -> what it refers to outside its call sites. Shared by size-report's set costs and --fit's."""
    by_caller: dict[int, list] = {}
    for site in call_sites:
        by_caller.setdefault(site.caller, []).append(site)
    extra = {}
    for caller, calls in by_caller.items():
        kept = [site for site in calls if site.op not in chosen]
        cost, all_inlined = kept_calls(calls, kept)
        own = sum(site.bytes for site in kept)
        if cost == own and not all_inlined:
            continue
        extra[caller] = cost - own
        if all_inlined:
            machinery = {target for site in calls for target in site.targets}
            cut[caller] = cut.get(caller, set()) | (machinery - set(kept_targets.get(caller, ())))
    return extra
