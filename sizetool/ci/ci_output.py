"""Budget results for CI systems: a plain table, markdown for PR comments, GitHub annotations, JUnit XML."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

from sizetool.ci.budget import RuleResult
from sizetool.report.report_model import dump_json


def _row(result: RuleResult) -> tuple[str, str, int, int, int, str]:
    return (result.rule.name, result.rule.limit.text, result.limit, result.actual, result.headroom,
            "pass" if result.passed else "FAIL")


def render_results_text(results: list[RuleResult]) -> str:
    lines = [f"{'rule':<40} {'limit':>10} {'bytes':>10} {'actual':>10} {'headroom':>10}  result"]
    for name, text, limit, actual, headroom, verdict in map(_row, results):
        lines.append(f"{name:<40} {text:>10} {limit:>10} {actual:>10} {headroom:>10}  {verdict}")
    failed = sum(not r.passed for r in results)
    lines.append(f"{len(results) - failed} passed, {failed} failed")
    lines += [f"note: {r.rule.name}: {r.note}" for r in results if r.note]
    return "\n".join(lines) + "\n"


def render_results_markdown(results: list[RuleResult]) -> str:
    failed = [r for r in results if not r.passed]
    summary = (f"**Size budget: {len(failed)} of {len(results)} rules failed**" if failed
               else f"**Size budget: all {len(results)} rules pass**")
    lines = [summary, "", "<details><summary>rules</summary>", "", "| rule | limit | actual | headroom | result |",
             "|---|---:|---:|---:|---|"]
    for name, text, limit, actual, headroom, verdict in map(_row, results):
        lines.append(f"| `{name}` | {text} ({limit}) | {actual} | {headroom} | {verdict} |")
    notes = [f"> note: `{r.rule.name}`: {r.note}" for r in results if r.note]
    lines += [""] + notes if notes else []
    return "\n".join(lines + ["", "</details>", ""])


def render_results_json(results: list[RuleResult]) -> str:
    return dump_json({
        "passed": all(r.passed for r in results),
        "rules": [
            {"rule": r.rule.name, "limit_text": r.rule.limit.text, "limit": r.limit, "actual": r.actual,
             "headroom": r.headroom, "passed": r.passed, **({"note": r.note} if r.note else {})}
            for r in results
        ],
    })


def github_annotations(results: list[RuleResult], budget_path: str) -> str:
    """`::error` workflow commands, one per failed rule, pointing at the budget file's line."""
    lines = []
    for result in results:
        if not result.passed:
            message = (f"{result.rule.name}: {result.actual} bytes exceeds the limit {result.rule.limit.text} "
                       f"({result.limit} bytes) by {-result.headroom}")
            location = f"file={budget_path},line={result.rule.line}," if result.rule.line else ""
            lines.append(f"::error {location}title=Size budget::{message}")
    return "\n".join(lines) + ("\n" if lines else "")


def junit_xml(results: list[RuleResult], suite: str = "size-budget") -> str:
    failures = sum(not r.passed for r in results)
    root = ElementTree.Element("testsuites", name=suite, tests=str(len(results)), failures=str(failures))
    tests = ElementTree.SubElement(root, "testsuite", name=suite, tests=str(len(results)), failures=str(failures),
                                   errors="0", skipped="0")
    for result in results:
        case = ElementTree.SubElement(tests, "testcase", classname=suite, name=result.rule.name)
        if not result.passed:
            failure = ElementTree.SubElement(
                case, "failure", message=f"{result.actual} bytes > limit {result.limit} ({result.rule.limit.text})",
                type="BudgetExceeded")
            failure.text = f"headroom {result.headroom} bytes"
    ElementTree.indent(root)
    return ElementTree.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
