"""Budget results for CI systems: a plain table, markdown for PR comments, GitHub annotations, JUnit XML; and the
build's summary (totals, deltas against the baseline, the rules) for CI pages, step outputs and build systems."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass

from sizetool.ci.budget import RuleResult
from sizetool.report.report_model import dump_json
from sizetool.text_escaping import markdown_code, markdown_text, workflow_message, workflow_property, xml_text


@dataclass(frozen=True)
class BuildTotals:
    """The checked build's ROM and RAM totals, and the baseline's when there is one."""

    rom: int
    ram: int
    baseline_rom: int | None = None
    baseline_ram: int | None = None

    @property
    def rom_delta(self) -> int | None:
        return None if self.baseline_rom is None else self.rom - self.baseline_rom

    @property
    def ram_delta(self) -> int | None:
        return None if self.baseline_ram is None else self.ram - self.baseline_ram


def _row(result: RuleResult) -> tuple[str, str, int, int, int, str]:
    return (result.rule.name, result.rule.limit.text, result.limit, result.actual, result.headroom,
            "pass" if result.passed else "FAIL")


def verdict_line(results: list[RuleResult]) -> str:
    """The answer first: pass or FAIL, the count, and the worst breach (or the least headroom when all pass)."""
    failed = [r for r in results if not r.passed]
    count = f"{len(results) - len(failed)} passed, {len(failed)} failed"
    if failed:
        worst = max(failed, key=lambda r: (not r.reason, -r.headroom))
        if worst.reason:
            return f"FAIL ({count}): {worst.rule.name}: {worst.reason}"
        return (f"FAIL ({count}): worst {worst.rule.name}: {worst.actual:,} B against {worst.limit:,} "
                f"({-worst.headroom:,} over)")
    sized = [r for r in results if not r.reason and r.rule.limit.text not in ("matches",)]
    if not sized:
        return f"pass ({count})"
    tightest = min(sized, key=lambda r: r.headroom)
    return f"pass ({count}): least headroom {tightest.rule.name}: {tightest.headroom:,} B"


def render_results_text(results: list[RuleResult]) -> str:
    lines = [verdict_line(results), "",
             f"{'rule':<40} {'limit':>10} {'bytes':>10} {'actual':>10} {'headroom':>10}  result"]
    for name, text, limit, actual, headroom, verdict in map(_row, results):
        lines.append(f"{name:<40} {text:>10} {limit:>10} {actual:>10} {headroom:>10}  {verdict}")
    lines += [f"note: {r.rule.name}: {r.note}" for r in results if r.note]
    return "\n".join(lines) + "\n"


def render_results_markdown(results: list[RuleResult]) -> str:
    failed = [r for r in results if not r.passed]
    summary = (f"**Size budget: {len(failed)} of {len(results)} rules failed**" if failed
               else f"**Size budget: all {len(results)} rules pass**")
    lines = [summary, "", "<details><summary>rules</summary>", "", "| rule | limit | actual | headroom | result |",
             "|---|---:|---:|---:|---|"]
    for name, text, limit, actual, headroom, verdict in map(_row, results):
        lines.append(f"| {markdown_code(name)} | {markdown_text(text)} ({limit}) | {actual} | {headroom} | {verdict} |")
    notes = [f"> note: {markdown_code(r.rule.name, in_table=False)}: {markdown_text(r.note)}" for r in results if r.note]
    lines += [""] + notes if notes else []
    return "\n".join(lines + ["", "</details>", ""])


def render_results_json(results: list[RuleResult]) -> str:
    return dump_json({"passed": all(r.passed for r in results), "rules": json_rules(results)})


def json_rules(results: list[RuleResult]) -> list[dict]:
    return [{"rule": r.rule.name, "limit_text": r.rule.limit.text, "limit": r.limit, "actual": r.actual,
             "headroom": r.headroom, "passed": r.passed, **({"note": r.note} if r.note else {})} for r in results]


def failure_reason(result: RuleResult) -> str:
    """One line saying why a rule failed: `rom.total: 3000 bytes exceeds the limit 2K (2048 bytes) by 952`."""
    if result.reason:
        return f"{result.rule.name}: {result.reason}"
    return (f"{result.rule.name}: {result.actual} bytes exceeds the limit {result.rule.limit.text} "
            f"({result.limit} bytes) by {-result.headroom}")


def github_annotations(results: list[RuleResult], budget_path: str) -> str:
    """`::error` workflow commands, one per failed rule, pointing at the budget file's line."""
    lines = []
    for result in results:
        if not result.passed:
            message = failure_reason(result)
            location = f"file={workflow_property(budget_path)},line={result.rule.line}," if result.rule.line else ""
            lines.append(f"::error {location}title=Size budget::{workflow_message(message)}")
    return "\n".join(lines) + ("\n" if lines else "")


def junit_xml(results: list[RuleResult], suite: str = "size-budget") -> str:
    failures = sum(not r.passed for r in results)
    root = ElementTree.Element("testsuites", name=suite, tests=str(len(results)), failures=str(failures))
    tests = ElementTree.SubElement(root, "testsuite", name=suite, tests=str(len(results)), failures=str(failures),
                                   errors="0", skipped="0")
    for result in results:
        case = ElementTree.SubElement(tests, "testcase", classname=xml_text(suite), name=xml_text(result.rule.name))
        if not result.passed:
            message = result.reason or f"{result.actual} bytes > limit {result.limit} ({result.rule.limit.text})"
            failure = ElementTree.SubElement(case, "failure", message=xml_text(message),
                                             type="ModelMismatch" if result.reason else "BudgetExceeded")
            failure.text = f"headroom {result.headroom} bytes"
    ElementTree.indent(root)
    return ElementTree.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def status_word(results: list[RuleResult]) -> str:
    return "pass" if all(r.passed for r in results) else "fail"


def _signed(delta: int | None) -> str:
    return "" if delta is None else f"{delta:+d}"


def render_summary_markdown(results: list[RuleResult], totals: BuildTotals) -> str:
    """The budget's verdict, the build's totals (with deltas against the baseline), a line per failed rule, then the
    rule table folded as in render_results_markdown: a CI page, a PR comment or a report beside the binary."""
    rule_lines = render_results_markdown(results).split("\n")
    headline = rule_lines[0] if results else "**Size: no budget rules**"
    lines = [headline, "", "| | bytes | change |", "|---|---:|---:|",
             f"| ROM | {totals.rom} | {_signed(totals.rom_delta) or '-'} |",
             f"| RAM | {totals.ram} | {_signed(totals.ram_delta) or '-'} |", ""]
    lines += [f"- {markdown_code(r.rule.name, in_table=False)}: "
              f"{markdown_text(failure_reason(r).removeprefix(r.rule.name + ': '))}" for r in results if not r.passed]
    if results:
        lines += ([""] if lines[-1] else []) + rule_lines[2:]  # the folded rule table, without its headline
    return "\n".join(lines).rstrip("\n") + "\n"


def render_summary_json(results: list[RuleResult], totals: BuildTotals) -> str:
    """The summary as JSON: status, totals and deltas (null without a baseline), and the rules."""
    rules = json_rules(results)
    return dump_json({"status": status_word(results), "rom": totals.rom, "ram": totals.ram,
                      "rom_delta": totals.rom_delta, "ram_delta": totals.ram_delta,
                      "failures": [failure_reason(r) for r in results if not r.passed], "rules": rules})


def github_step_outputs(results: list[RuleResult], totals: BuildTotals) -> str:
    """`name=value` lines for $GITHUB_OUTPUT: rom, ram, rom-delta, ram-delta (empty without a baseline), status."""
    values = {"rom": str(totals.rom), "ram": str(totals.ram), "rom-delta": _signed(totals.rom_delta),
              "ram-delta": _signed(totals.ram_delta), "status": status_word(results)}
    return "".join(f"{name}={value}\n" for name, value in values.items())
