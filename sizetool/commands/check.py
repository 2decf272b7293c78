"""`size-report check ELF --budget size-budget.toml`: the CI gate. Exit 1 when any rule fails.

--embedded-model MODEL and --header OPS.h tie the firmware to its model (sizetool/ci/model_ties.py): the model linked
in must be MODEL byte for byte, and the committed resolver header must be what gen-resolver writes for it. A budget's
[model] flash rule limits the bytes of the models linked in.

A budget with [rom.operators] needs the build's operator table: computed from an ELF, or read from a report saved
with `size-report ELF --ops --save`; a saved report without one is an input error (exit 2). A budget with [models]
needs the ELF of an all-ops build: each model's firmware is predicted from its operator graph (one set question per
model, sizetool/operators/model_crosscheck.py). Its arena rules ({ flash = ..., arena = ... }) need the ELF too: each
model's tensor arena is estimated for the build's kernel set (detected, or --kernels) and pointer size
(sizetool/fit/model_fit.py). A budget with [stack] needs the ELF: each root's worst-case stack depth
(sizetool/stack/stack_depth.py); an unknown root function is an input error naming the budget file.
"""

from __future__ import annotations

import os
import sys
from typing import Optional

from sizetool.commands.arguments import OneLineParser
from sizetool.errors import SizeToolError
from tflm_facts.kernel_memory import KERNEL_SETS

FORMATS = ("tree", "json", "markdown")


def build_parser(prog: str = "size-report check"):
    parser = OneLineParser(prog=prog, description="Budget and baseline gates for CI.",
                           epilog="Exit status: 0 every rule passes, 1 a rule failed, 2 usage or input error.")
    parser.add_argument("build", metavar="BUILD", help="The new build: an ELF or a saved report.")
    parser.add_argument("--budget", dest="budget_file", metavar="FILE.toml",
                        help="The TOML budget file (size-budget.toml); optional with --embedded-model or --header.")
    parser.add_argument("--embedded-model", dest="embedded_models", action="append", metavar="MODEL",
                        help="Fail unless this model (.tflite, or a C array: FILE[:NAME]) is byte for byte one linked "
                             "into the firmware (repeatable; the failure names both SHA-256 digests).")
    parser.add_argument("--header", metavar="OPS.h",
                        help="Fail unless this committed gen-resolver header is what gen-resolver writes for the "
                             "models linked into the firmware (comment lines aside).")
    parser.add_argument("--header-args", metavar="ARGS", default="",
                        help="The gen-resolver options the header was made with, as one string (e.g. \"--name person "
                             "--reduce-types\").")
    parser.add_argument("--baseline", metavar="REPORT|ELF|db:DB@BRANCH",
                        help="The baseline for growth rules: a saved report, an ELF, or db:DB@BRANCH (the branch's "
                             "build in the size history).")
    parser.add_argument("--map", dest="map_file", metavar="FILE.map",
                        help="The ELF's linker map (GNU ld, armlink or IAR ILINK; for [regions]).")
    parser.add_argument("--flash-size", metavar="SIZE", help="Flash size when there is no map.")
    parser.add_argument("--ram-size", metavar="SIZE", help="RAM size when there is no map.")
    parser.add_argument("-f", "--format", dest="output_format", default="tree", metavar="FORMAT",
                        help="tree, json or markdown.")
    parser.add_argument("--junit", metavar="FILE.xml", help="Also write a JUnit XML report (GitLab, Jenkins).")
    parser.add_argument("--save", metavar="REPORT.json", help="Also save the build's report as JSON.")
    parser.add_argument("--kernels", metavar="reference|cmsis_nn|esp_nn",
                        help="The kernel set for [models] arena rules (default: detected from the ELF).")
    parser.add_argument("--summary", metavar="FILE.md",
                        help="Also write a markdown summary: verdict, ROM/RAM totals and deltas against --baseline, "
                             "one line per failed rule, the rules (a CI page, a PR comment, a report beside the "
                             "binary).")
    parser.add_argument("--summary-json", metavar="FILE.json",
                        help="Also write the summary as JSON: status, rom, ram, rom_delta, ram_delta, failures, "
                             "rules.")
    parser.add_argument("--github-output", metavar="FILE",
                        help="Append rom, ram, rom-delta, ram-delta and status as name=value lines to FILE (a GitHub "
                             "Actions step's $GITHUB_OUTPUT).")
    parser.add_argument("--reasons", action="store_true",
                        help="Print one line per failed rule on stderr ('size-report check: FAIL rom.total: ...'), "
                             "for build systems that show a failed command's stderr.")
    return parser


def main(args: list[str], prog: str = "size-report check") -> int:
    return check(**vars(build_parser(prog).parse_intermixed_args(args)))


def check(build: str, budget_file: Optional[str] = None, baseline: Optional[str] = None, map_file: Optional[str] = None,
          flash_size: Optional[str] = None, ram_size: Optional[str] = None, output_format: str = "tree",
          junit: Optional[str] = None, save: Optional[str] = None, kernels: Optional[str] = None,
          summary: Optional[str] = None, summary_json: Optional[str] = None, github_output: Optional[str] = None,
          reasons: bool = False, embedded_models: Optional[list[str]] = None, header: Optional[str] = None,
          header_args: str = "") -> int:
    from sizetool.ci.budget import check_budget, read_budget
    from sizetool.ci.ci_output import (
        BuildTotals,
        failure_reason,
        github_annotations,
        junit_xml,
        render_results_json,
        render_results_markdown,
        render_results_text,
    )
    from sizetool.inputs.input_files import is_elf_file
    from sizetool.report.report_builder import build_report
    from sizetool.report.report_model import load_report, save_report, write_text_atomically
    from sizetool.sizes import parse_size

    if output_format not in FORMATS:
        raise SizeToolError(f"unknown --format {output_format!r} (choose from {', '.join(FORMATS)})")
    if kernels is not None and kernels not in KERNEL_SETS:
        raise SizeToolError(f"unknown --kernels {kernels!r} (choose from {', '.join(KERNEL_SETS)})")
    if not (budget_file or embedded_models or header):
        raise SizeToolError("give --budget FILE.toml, --embedded-model MODEL or --header OPS.h (nothing to check)")
    if header_args and not header:
        raise SizeToolError("--header-args go with --header")
    from sizetool.ci.budget import Budget

    budget = read_budget(budget_file) if budget_file else Budget(path="", rules=[])
    if is_elf_file(build):
        report = build_report(
            build,
            map_path=map_file,
            flash_size=parse_size(flash_size, "--flash-size") if flash_size else None,
            ram_size=parse_size(ram_size, "--ram-size") if ram_size else None,
            use_cache=True,
        )
    else:
        report = load_report(build)
    models = None
    if is_elf_file(build) and (budget.needs_operators or budget.models):
        from sizetool.operators.graph_cache import load_operator_graph
        from sizetool.operators.operator_cost import operator_table_for_graph

        operator_graph = load_operator_graph(build, map_file)
        if budget.needs_operators or save:
            report.operators = operator_table_for_graph(operator_graph, report, build)
        if budget.models:
            from sizetool.ci.budget import ModelFirmware
            from sizetool.operators.model_crosscheck import model_firmware

            models = {}
            for path in budget.models:
                source = _model_source(path, build, report, budget_file)
                predicted, registrations, missing = model_firmware(operator_graph, report.rom_total, source)
                models[path] = ModelFirmware(predicted, len(registrations), missing)
    stack = None
    if budget.stack_roots and is_elf_file(build):
        from sizetool.ci.budget import StackDepth
        from sizetool.inputs.elf_reader import read_elf
        from sizetool.stack.stack_depth import analyse_stack

        try:
            stack_report = analyse_stack(read_elf(build), budget.stack_roots)
        except SizeToolError as error:
            raise SizeToolError(f"{budget_file}: [stack]: {error}") from None
        stack = {root: StackDepth(result.depth, len(result.warnings))
                 for root, result in zip(budget.stack_roots, stack_report.roots)}
    arenas = None
    if is_elf_file(build) and budget.arena_models:
        from sizetool.ci.budget import ModelArena
        from sizetool.inputs.elf_reader import arm_short_enums, read_elf
        from sizetool.fit.model_fit import detect_kernels, estimate, pointer_bytes

        image = read_elf(build)
        choice = detect_kernels(image, kernels)
        pointer = pointer_bytes(image)
        short_enums = pointer == 4 and arm_short_enums(build)
        arenas = {}
        for path in dict.fromkeys(budget.arena_models):
            found = estimate([_model_source(path, build, report, budget_file)], choice.kernels, pointer, short_enums)
            arenas[path] = ModelArena(found.total_bytes, found.exact, choice.kernels, pointer, short_enums)
    base = None
    if baseline:
        from sizetool.history.baseline import is_history_baseline, load_history_baseline

        if is_history_baseline(baseline):  # db:DB@BRANCH: the branch's build from the size history
            base = load_history_baseline(baseline)
        else:
            base = build_report(baseline, use_cache=True) if is_elf_file(baseline) else load_report(baseline)
    results = check_budget(budget, report, base, models, stack, arenas)
    results += _model_ties(build, report, embedded_models or [], header, header_args)

    if output_format == "json":
        sys.stdout.write(render_results_json(results))
    elif output_format == "markdown":
        sys.stdout.write(render_results_markdown(results))
    else:
        sys.stdout.write(render_results_text(results))
    if os.environ.get("GITHUB_ACTIONS") == "true":
        sys.stdout.write(github_annotations(results, budget_file))
    if junit:
        write_text_atomically(junit, junit_xml(results))
    if summary or summary_json or github_output:
        _write_summaries(results, BuildTotals(report.rom_total, report.ram_total, base and base.rom_total,
                                              base and base.ram_total), summary, summary_json, github_output)
    if reasons:
        sys.stderr.writelines(f"size-report check: FAIL {failure_reason(r)}\n" for r in results if not r.passed)
    if save:
        save_report(report, save)
    return 0 if all(r.passed for r in results) else 1


def _model_source(path: str, build: str, report, budget_file: Optional[str]):
    """A [models] key's model: a .tflite path, or "firmware:SYMBOL", a model linked into the build."""
    from sizetool.ci.budget import FIRMWARE_MODEL

    if not path.startswith(FIRMWARE_MODEL):
        return path
    symbol = path[len(FIRMWARE_MODEL):]
    from sizetool.inputs.elf_reader import read_elf
    from sizetool.inputs.firmware_models import embedded_models

    linked = embedded_models(read_elf(build)) if report.models else []
    for model in linked:
        if model.symbol == symbol:
            return model.source(build)
    held = ", ".join(m.symbol for m in linked) or "none"
    raise SizeToolError(f"{budget_file}: [models] {path!r}: no model linked into {build} is held by {symbol!r} "
                        f"(models linked in: {held})")


def _model_ties(build: str, report, embedded_models: list[str], header: Optional[str], header_args: str) -> list:
    """--embedded-model and --header (sizetool/ci/model_ties.py): the firmware's models against the given ones."""
    from sizetool.ci.model_ties import embedded_model_results, header_result

    results = embedded_model_results(embedded_models, report.models)
    if header:
        import shlex

        from sizetool.inputs.input_files import is_elf_file

        if not is_elf_file(build):
            raise SizeToolError(f"{build}: --header needs the ELF (the models' bytes), not a saved report")
        from sizetool.inputs.elf_reader import read_elf
        from sizetool.inputs.firmware_models import embedded_models as linked

        models = linked(read_elf(build)) if report.models else []
        try:
            options = shlex.split(header_args)
        except ValueError as error:
            raise SizeToolError(f"--header-args {header_args!r}: {error}") from None
        results.append(header_result(header, [m.source(build) for m in models], [m.symbol for m in models], options))
    return results


def _write_summaries(results, totals, summary: Optional[str], summary_json: Optional[str],
                     github_output: Optional[str]) -> None:
    from sizetool.ci.ci_output import github_step_outputs, render_summary_json, render_summary_markdown
    from sizetool.report.report_model import write_text_atomically

    if summary:
        write_text_atomically(summary, render_summary_markdown(results, totals))
    if summary_json:
        write_text_atomically(summary_json, render_summary_json(results, totals))
    if github_output:  # appended, as GitHub expects: the file may hold other outputs of the step
        try:
            with open(github_output, "a", encoding="utf-8") as stream:
                stream.write(github_step_outputs(results, totals))
        except OSError as error:
            raise SizeToolError(f"{github_output}: cannot write ({error.strerror or error})") from None

