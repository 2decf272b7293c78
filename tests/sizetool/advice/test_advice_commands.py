"""The advice on the command line: `size-report fit --flash/--ram/--advise`, `size-report check` over a budget and
`gen-resolver --fit PROFILE --flash LIMIT`, on the committed TFLM-shaped firmware with two models linked in
(fixtures/embedded_models/out/tflm-two-models): ranked changes with bytes, memory, certainty and the command, exit 1
over budget, and the figures equal to the set questions they come from."""

import json

from sizetool import cli
from sizetool.operators.graph_cache import load_operator_graph
from sizetool.operators.operator_sets import set_cost
from tests.conftest import FIXTURES

ELF = str(FIXTURES / "embedded_models" / "out" / "tflm-two-models" / "firmware.elf")


def run(capsys, *args):
    status = cli.main(list(args))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_fit_over_its_flash_budget_exits_1_with_the_ranked_changes(capsys):
    status, out, _ = run(capsys, "fit", ELF, "--flash", "20K", "-f", "json")
    data = json.loads(out)
    assert status == 1
    assert data["budget"]["over"] == {"flash": 32256 - 20480}
    advice = data["advice"]
    assert all(set(item) >= {"change", "bytes", "memory", "certainty", "how"} for item in advice)
    sized = [item["bytes"] for item in advice if item["bytes"] is not None]
    assert sized == sorted(sized, reverse=True)
    kinds = {item["kind"] for item in advice}
    assert {"unused-registrations", "type-reduced", "arena"} <= kinds
    graph = load_operator_graph(ELF, None, use_cache=False)
    unused = next(item for item in advice if item["kind"] == "unused-registrations")
    dropped = {"DETECTION_POSTPROCESS", "LOGISTIC", "MUL", "SINH", "WINDOW"}
    assert unused["bytes"] == set_cost(graph, dropped).saving
    assert unused["certainty"] == "measured" and unused["how"].startswith("gen-resolver ")
    plan = data["advice_plan"][0]
    assert plan["memory"] == "flash" and plan["reaches"] is (plan["saved"] >= plan["over_by"])


def test_within_its_budget_the_advice_is_given_only_on_request(capsys):
    # this firmware lacks two ops its models need, so fit exits 1 whatever the budget: the budget adds no failure
    without_budget, _, _ = run(capsys, "fit", ELF)
    status, out, _ = run(capsys, "fit", ELF, "--flash", "1M")
    assert status == without_budget == 1 and "Changes that save" not in out
    status, out, _ = run(capsys, "fit", ELF, "--flash", "1M", "--advise")
    assert "Changes that save flash or RAM" in out and "how: gen-resolver" in out
    _, out, _ = run(capsys, "fit", ELF, "--flash", "1M", "-f", "json")
    assert json.loads(out)["budget"]["over"] == {}


def test_fit_reasons_name_the_budget_and_its_largest_saving(capsys):
    status, _, err = run(capsys, "fit", ELF, "--flash", "20K", "--reasons")
    assert status == 1
    assert "size-report fit: FAIL flash is 11776 bytes over budget; largest saving: remove the 5 registrations" in err


def test_the_markdown_is_a_table_for_a_pull_request(capsys):
    status, out, _ = run(capsys, "fit", ELF, "--flash", "20K", "-f", "markdown")
    assert status == 1
    assert "### What would make it fit" in out and "| # | change | saves | memory | certainty | how | costs |" in out


def test_check_over_a_total_rule_lists_the_changes(capsys, tmp_path):
    budget = tmp_path / "size-budget.toml"
    budget.write_text('[rom]\ntotal = "20K"\n')
    status, out, err = run(capsys, "check", ELF, "--budget", str(budget), "--reasons")
    assert status == 1
    assert "flash: 11,776 B over budget" in out
    assert "size-report check: FAIL largest saving: remove the 5 registrations no model uses" in err
    status, out, _ = run(capsys, "check", ELF, "--budget", str(budget), "-f", "json")
    assert any(item["kind"] == "unused-registrations" for item in json.loads(out)["advice"])


def test_gen_resolver_fit_below_the_answer_advises_before_any_firmware(capsys, shared_models):
    from resolver_gen import cli as gen_cli

    model = str(shared_models / "person_detect.tflite")
    status = gen_cli.main([model, "--fit", "cortex-m4f-cmsis_nn", "--flash", "400K", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 1
    kernel = next(item for item in data["advice"] if item["kind"] == "kernel-set" and item["memory"] == "flash")
    assert kernel["certainty"] == "predicted" and "--fit cortex-m4f-reference" in kernel["how"]
    strip = next(item for item in data["advice"] if item["kind"] == "model-strip")
    assert strip["certainty"] == "measured" and strip["bytes"] > 0
    assert data["advice_plan"][0]["reaches"]
    unsized = [item for item in data["advice"] if item["bytes"] is None]
    assert all(item["certainty"] == "unsized" for item in unsized)


def test_gen_resolver_advise_needs_fit(capsys):
    from resolver_gen import cli as gen_cli

    assert gen_cli.main([str(FIXTURES / "models" / "vision_subset.tflite"), "--advise"]) == 2
    assert "--advise goes with --fit PROFILE" in capsys.readouterr().err


def test_the_unused_registrations_state_what_a_smaller_resolver_may_save_more(capsys):
    """gen-resolver's header sizes the resolver to the kept ops: its lookups (and at -O3 the AddXxx() calls GCC
    unrolled with them) shrink with N, by at most (N - M)/N of themselves; the advice states that in its bound. A
    firmware with two resolver sizes gets none (which one would shrink is not known)."""
    import re

    from sizetool.advice.firmware_advice import resolver_shrink_bound

    graph = load_operator_graph(str(FIXTURES / "old_tflm" / "out" / "firmware.elf"), None, use_cache=False)
    dropped = {"MAX_POOL_2D", "FULLY_CONNECTED"}
    lookup = re.compile(r"MicroMutableOpResolver<(\d+)u?>::(FindOp|GetOpDataParser)\(")
    found = [node for node in graph.graph.nodes if lookup.search(node.name)]
    count = int(lookup.search(found[0].name).group(1))
    kept = len({o.op for o in graph.operators} - dropped)
    callers = {s.caller for s in graph.call_sites if s.op in dropped}
    calls = sum(s.bytes for s in graph.call_sites if s.caller in callers and s.op not in dropped)
    whole = sum(node.rom_bytes for node in found) + calls
    assert found and calls and kept < count
    assert resolver_shrink_bound(graph, dropped) == (-(-whole * (count - kept) // count), count)
    assert resolver_shrink_bound(graph, set())[0] < resolver_shrink_bound(graph, dropped)[0]
    assert resolver_shrink_bound(load_operator_graph(ELF, None, use_cache=False), dropped) == (0, 0)
    status, out, _ = run(capsys, "fit", ELF, "--advise", "-f", "json")
    unused = next(item for item in json.loads(out)["advice"] if item["kind"] == "unused-registrations")
    assert "gen-resolver's resolver for" not in unused.get("note", "")
