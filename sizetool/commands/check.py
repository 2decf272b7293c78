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
from dataclasses import dataclass
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


@dataclass(frozen=True)
class CheckOutputs:
    """What the check writes besides its answer on stdout."""

    output_format: str = "tree"
    junit: Optional[str] = None
    save: Optional[str] = None
    summary: Optional[str] = None
    summary_json: Optional[str] = None
    github_output: Optional[str] = None
    reasons: bool = False


@dataclass(frozen=True)
class CheckOptions:
    build: str
    budget_file: Optional[str] = None
    baseline: Optional[str] = None
    map_file: Optional[str] = None
    flash_size: Optional[int] = None
    ram_size: Optional[int] = None
    kernels: Optional[str] = None
    embedded_models: tuple[str, ...] = ()
    header: Optional[str] = None
    header_args: str = ""
    outputs: CheckOutputs = CheckOutputs()


def check_options(values: dict) -> CheckOptions:
    """CheckOptions from parsed arguments, checked: a usage error is a SizeToolError."""
    from sizetool.sizes import parse_size

    outputs = CheckOutputs(**{name: values.pop(name) for name in CheckOutputs.__dataclass_fields__})
    if outputs.output_format not in FORMATS:
        raise SizeToolError(f"unknown --format {outputs.output_format!r} (choose from {', '.join(FORMATS)})")
    if values["kernels"] is not None and values["kernels"] not in KERNEL_SETS:
        raise SizeToolError(f"unknown --kernels {values['kernels']!r} (choose from {', '.join(KERNEL_SETS)})")
    if not (values["budget_file"] or values["embedded_models"] or values["header"]):
        raise SizeToolError("give --budget FILE.toml, --embedded-model MODEL or --header OPS.h (nothing to check)")
    if values["header_args"] and not values["header"]:
        raise SizeToolError("--header-args go with --header")
    flash_size, ram_size = values.pop("flash_size"), values.pop("ram_size")
    return CheckOptions(
        build=values["build"], budget_file=values["budget_file"], baseline=values["baseline"],
        map_file=values["map_file"], kernels=values["kernels"], embedded_models=tuple(values["embedded_models"] or ()),
        header=values["header"], header_args=values["header_args"], outputs=outputs,
        flash_size=parse_size(flash_size, "--flash-size") if flash_size else None,
        ram_size=parse_size(ram_size, "--ram-size") if ram_size else None)


def main(args: list[str], prog: str = "size-report check") -> int:
    return check(check_options(vars(build_parser(prog).parse_intermixed_args(args))))


def check(options: CheckOptions) -> int:
    """Every rule of the budget and every tie to the models, against the build: 0 all pass, 1 a rule failed."""
    from sizetool.ci.budget import Budget, check_budget, read_budget

    budget = read_budget(options.budget_file) if options.budget_file else Budget(path="", rules=[])
    report = _load_build(options)
    is_elf = _is_elf(options.build)
    models = _model_firmware(options, budget, report) if is_elf and (budget.needs_operators or budget.models) \
        else None
    stack = _stack_depths(options, budget) if is_elf and budget.stack_roots else None
    arenas = _model_arenas(options, budget, report) if is_elf and budget.arena_models else None
    base = _load_baseline(options.baseline) if options.baseline else None
    results = check_budget(budget, report, base, models, stack, arenas)
    results += _model_ties(options.build, report, list(options.embedded_models), options.header, options.header_args)
    advice = ("", [])
    if is_elf and not all(r.passed for r in results):
        from sizetool.commands.advise import check_advice

        advice = check_advice(options, report, results)
    _write_outputs(results, report, base, options, advice)
    return 0 if all(r.passed for r in results) else 1


def _is_elf(path: str) -> bool:
    from sizetool.inputs.input_files import is_elf_file

    return is_elf_file(path)


def _load_build(options: CheckOptions):
    """The new build's report: from the ELF (cached), or a saved report."""
    from sizetool.report.report_builder import build_report
    from sizetool.report.report_model import load_report

    if not _is_elf(options.build):
        return load_report(options.build)
    return build_report(options.build, map_path=options.map_file, flash_size=options.flash_size,
                        ram_size=options.ram_size, use_cache=True)


def _model_firmware(options: CheckOptions, budget, report) -> Optional[dict]:
    """The build's operator table (kept on the report), and each [models] model's predicted firmware."""
    from sizetool.operators.graph_cache import load_operator_graph
    from sizetool.operators.operator_cost import operator_table_for_graph

    operator_graph = load_operator_graph(options.build, options.map_file)
    if budget.needs_operators or options.outputs.save:
        report.operators = operator_table_for_graph(operator_graph, report, options.build)
    if not budget.models:
        return None
    from sizetool.ci.budget import ModelFirmware
    from sizetool.operators.model_crosscheck import model_firmware

    models = {}
    for path in budget.models:
        source = _model_source(path, options.build, report, options.budget_file)
        predicted, registrations, missing = model_firmware(operator_graph, report.rom_total, source)
        models[path] = ModelFirmware(predicted, len(registrations), missing)
    return models


def _stack_depths(options: CheckOptions, budget) -> dict:
    from sizetool.ci.budget import StackDepth
    from sizetool.inputs.elf_reader import read_elf
    from sizetool.stack.stack_depth import analyse_stack

    try:
        stack_report = analyse_stack(read_elf(options.build), budget.stack_roots)
    except SizeToolError as error:
        raise SizeToolError(f"{options.budget_file}: [stack]: {error}") from None
    return {root: StackDepth(result.depth, len(result.warnings))
            for root, result in zip(budget.stack_roots, stack_report.roots)}


def _model_arenas(options: CheckOptions, budget, report) -> dict:
    """Each arena rule's model: the tensor arena it needs for the build's kernel set and pointer size."""
    from sizetool.ci.budget import ModelArena
    from sizetool.fit.model_fit import build_estimate, detect_kernels, pointer_bytes
    from sizetool.inputs.elf_reader import read_elf

    image = read_elf(options.build)
    choice = detect_kernels(image, options.kernels)
    pointer = pointer_bytes(image)
    arenas = {}
    for path in dict.fromkeys(budget.arena_models):
        source = _model_source(path, options.build, report, options.budget_file)
        # as size-report fit computes it: the build's DWARF sizes and allocator generation
        found, short_enums = build_estimate(image, choice.kernels, [source])
        arenas[path] = ModelArena(found.total_bytes, found.exact, choice.kernels, pointer, short_enums)
    return arenas


def _load_baseline(baseline: str):
    from sizetool.history.baseline import is_history_baseline, load_history_baseline
    from sizetool.report.report_builder import build_report
    from sizetool.report.report_model import load_report

    if is_history_baseline(baseline):  # db:DB@BRANCH: the branch's build from the size history
        return load_history_baseline(baseline)
    return build_report(baseline, use_cache=True) if _is_elf(baseline) else load_report(baseline)


def _write_outputs(results, report, base, options: CheckOptions, advice=("", [])) -> None:
    from sizetool.ci.ci_output import (BuildTotals, failure_reason, github_annotations, junit_xml,
                                       render_results_json, render_results_markdown, render_results_text)
    from sizetool.report.report_model import save_report, write_text_atomically

    outputs = options.outputs
    text, changes = advice
    if outputs.output_format == "json":
        import json

        data = json.loads(render_results_json(results))
        if text:
            data.update(json.loads(text))
        sys.stdout.write(json.dumps(data, indent=2, sort_keys=True) + "\n" if text else render_results_json(results))
    elif outputs.output_format == "markdown":
        sys.stdout.write(render_results_markdown(results) + text)
    else:
        sys.stdout.write(render_results_text(results) + text)
    if os.environ.get("GITHUB_ACTIONS") == "true":
        sys.stdout.write(github_annotations(results, options.budget_file))
    if outputs.junit:
        write_text_atomically(outputs.junit, junit_xml(results))
    if outputs.summary or outputs.summary_json or outputs.github_output:
        totals = BuildTotals(report.rom_total, report.ram_total, base and base.rom_total, base and base.ram_total)
        _write_summaries(results, totals, outputs)
    if outputs.reasons:
        sys.stderr.writelines(f"size-report check: FAIL {failure_reason(r)}\n" for r in results if not r.passed)
        if changes:
            from sizetool.ci.fit_reasons import top_change_reason

            from sizetool.commands.advise import over_from_results

            memories = tuple(over_from_results(results)) or ("flash", "ram")
            sys.stderr.write(f"size-report check: FAIL {top_change_reason(changes, memories)}\n")
    if outputs.save:
        save_report(report, outputs.save)


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


def _write_summaries(results, totals, outputs: CheckOutputs) -> None:
    from sizetool.ci.ci_output import github_step_outputs, render_summary_json, render_summary_markdown
    from sizetool.report.report_model import write_text_atomically

    summary, summary_json, github_output = outputs.summary, outputs.summary_json, outputs.github_output
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

