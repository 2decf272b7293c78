"""Mutated maps, budgets, saved reports and history databases through the real command paths (tests/input_fuzz.py):
every run ends in 0, 1 or 2, and 2 is one line on stderr, never a traceback or an internal error. A fixed seed and a
size CI affords; benchmarks/fuzz_inputs.py runs the same at 20,000 inputs."""

from tests.input_fuzz import FAILURES, KINDS, run_fuzz

SEED = 18
PER_KIND = {"map": 27, "budget": 40, "report": 40, "history": 40}


def test_mutated_inputs_never_crash(tmp_path):
    run = run_fuzz(SEED, PER_KIND, tmp_path)
    failures = run.failures()
    assert not failures, "\n".join(f"{o.kind} {o.command}: {o.label}: {o.stderr[-600:]}" for o in failures[:5])
    counts = run.counts()
    for kind in KINDS:
        assert sum(counts[kind].values()) == PER_KIND[kind]
        assert not set(counts[kind]) & set(FAILURES)
    # the mutations reach both sides: inputs refused with one line, and inputs still read
    for kind in ("budget", "report", "history"):
        assert counts[kind]["input error"] > 0 and counts[kind]["ok"] + counts[kind]["gate"] > 0, counts[kind]
    assert counts["map"]["ok"] > 0
