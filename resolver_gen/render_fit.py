"""`gen-resolver --fit`: the fit answer (tflm_model/target_fit.py) as text, JSON or markdown (the shipped profiles' list
and one profile in full: render_profiles.py)."""

from __future__ import annotations

import json
import re

from sizetool.render.path_summary import LeftOut, summarised
from sizetool.text_escaping import markdown_text
from tflm_facts.target_profile import BuildFacts, TargetProfile
from tflm_model.target_fit import FitAnswer, FitReport

FIT_FORMATS = ("text", "json", "markdown")


def describe_build(build: BuildFacts) -> str:
    """Which TFLM and how it was built: the distribution, its revision and flags first (what the answer holds for),
    then the CPU, kernel set, ABI and compiler."""
    cpu = build.cpu + (f" {build.fpu}" if build.fpu else "")
    enums = ", short enums" if build.short_enums else ""
    compiler = compilers(build)
    return f"{describe_distribution(build)}; {cpu}, {build.kernels} kernels, {build.pointer_bytes * 8}-bit pointers{enums}, {compiler}"


def describe_distribution(build: BuildFacts) -> str:
    """"pico-tflmicro dfea53b (TFLM sync of 2025-01), pico-sdk 2.1.0 CMake, Release, -O3, newlib ..."; a profile
    of format version 1 has none of it recorded but the TFLM commit."""
    name = build.distribution or "distribution not recorded"
    if build.distribution_revision:
        name += f" {revision_text(build.distribution_revision)}"
    facts = [f"TFLM {revision_text(build.tflm_commit)}" if build.tflm_commit else "TFLM revision not recorded"]
    facts += [fact for fact in (build.build_system, build.opt_level, build.c_library, build.flags) if fact]
    return f"{name}: {', '.join(facts)}"


def revision_text(text: str) -> str:
    """A git commit shortened to 7 digits; any other revision ("sync of 2024-12-26") as it is."""
    return text[:7] if re.fullmatch(r"[0-9a-f]{7,40}", text) else text


def compilers(build: BuildFacts) -> str:
    """Every compiler the build's .comment names: a C library built by another one (picolibc by GCC 12.1 beside
    TFLM by GCC 12.2 on RV32) is named too, since which one built TFLM the ELF does not say."""
    return " + ".join(part.strip() for part in build.compiler.split(";") if part.strip())


def render_fit(report: FitReport, output_format: str, verbose: bool = False) -> str:
    """The stack path in text and markdown: its first frames, the largest, the deepest and the total (every step
    with `verbose`; JSON always has them all)."""
    if output_format == "json":
        return _json(report)
    if output_format == "markdown":
        return _markdown(report, verbose)
    return _text(report, verbose)


def _path_items(answer: FitAnswer, verbose: bool) -> list:
    return [item if isinstance(item, LeftOut) else answer.stack_path[item]
            for item in summarised([step.frame for step in answer.stack_path], verbose)]


# -- text ---------------------------------------------------------------------------------------------------------

def _limit_text(value: int, limit: int | None) -> str:
    if limit is None:
        return ""
    if value > limit:
        return f"  OVER the limit of {limit:,} by {value - limit:,}"
    return f"  fits the limit of {limit:,} ({limit - value:,} to spare)"


def headline(answer: FitAnswer) -> str:
    """The verdict and its numbers on one line: what a person reads first (text) or sees as the heading (markdown)."""
    figures = [f"flash {answer.flash:,} B{_against(answer.flash, answer.flash_limit)}",
               f"RAM {answer.ram:,} B{_against(answer.ram, answer.ram_limit)}"]
    if answer.stack is not None:
        figures.append(f"stack {answer.stack:,} B")
    scope = "" if _application_counted(answer) else "TFLM and the models only"
    if answer.passed and answer.flash_limit is None and answer.ram_limit is None:
        scope = "; ".join(part for part in (scope, "no --flash or --ram limit given") if part)
        return f"needs {', '.join(figures)} on {answer.profile.name} ({scope})"
    if answer.missing:
        figures.append(f"{len(answer.missing)} op(s) the profile has no kernel for")
    word = "fits" if answer.passed else "does not fit"
    return f"{word}{f' ({scope})' if scope else ''}: {', '.join(figures)} on {answer.profile.name}"


def _application_counted(answer: FitAnswer) -> bool:
    return answer.application.flash is not None and answer.application.ram is not None


def _against(value: int, limit: int | None) -> str:
    if limit is None:
        return ""
    return f" of {limit:,} ({format(value - limit, ',') + ' over' if value > limit else format(limit - value, ',') + ' spare'})"


def leaves_out(answer: FitAnswer) -> str:
    """What the answer counts and what it leaves out: it is TFLM and the models in a minimal application (the kernels
    of custom ops TFLM does not ship are the application's)."""
    application = answer.application
    kernels = _application_kernels(answer)
    if _application_counted(answer):
        return ("counts your application as you gave it (--app-flash, --app-ram) beside TFLM and the models"
                + (f"; {kernels} {_belong(answer)} in it" if kernels else ""))
    if application.given:
        missing = "ram" if application.flash is not None else "flash"
        return (f"leaves out your application's {missing.upper() if missing == 'ram' else missing}: --app-{missing} "
                "adds it" + (f"; {kernels} {_belong(answer)} in --app-flash" if kernels else ""))
    return (f"leaves out your application's code and data (drivers, DSP, USB, printf{', ' + kernels if kernels else ''})"
            ": --app-flash/--app-ram add them; size-report fit FIRMWARE.elf MODEL answers on your firmware")


def _belong(answer: FitAnswer) -> str:
    return "belong" if len(answer.application_kernels) > 1 else "belongs"


def _application_kernels(answer: FitAnswer) -> str:
    """"your kernels for the custom ops X, Y" (the application links them), or "" when the models have none."""
    names = [kernel.op for kernel in answer.application_kernels]
    return f"your kernel{'s' if len(names) > 1 else ''} for the custom op{'s' if len(names) > 1 else ''} " \
           f"{', '.join(names)}" if names else ""


def _text(report: FitReport, verbose: bool = False) -> str:
    answer = report.main
    profile = answer.profile
    options = (" with --reduce-types" if answer.reduce_types else "") + (" with --app-statics" if answer.app_statics
                                                                         else "")
    lines = [headline(answer), leaves_out(answer),
             f"{len(answer.models)} model(s){options} on {profile.name}: {_short_build(profile.build)} "
             f"(gen-resolver --fit show {profile.name}: its build in full)"]
    if verbose:
        lines.append(f"build: {describe_build(profile.build)}")
    lines += [f"registrations: {', '.join(answer.registrations) or 'none'}", ""]
    lines.append(f"flash  {answer.flash:>10,} B{_limit_text(answer.flash, answer.flash_limit)}")
    lines += [f"       {part.bytes:>10,}  {part.label}" for part in answer.flash_parts]
    if answer.flash_may_be_high_by or answer.flash_may_be_low_by:
        lines.append(f"       may be up to {answer.flash_may_be_high_by:,} B too high or "
                     f"{answer.flash_may_be_low_by:,} B too low (the compiler's inlining, see the notes)")
    lines.append(f"RAM    {answer.ram:>10,} B{_limit_text(answer.ram, answer.ram_limit)}")
    lines += [f"       {part.bytes:>10,}  {part.label}" for part in answer.ram_parts]
    if answer.stack is None:
        lines.append("stack  not in this profile")
    else:
        deepest = f" (deepest kernel: {answer.stack_kernel})" if answer.stack_kernel else ""
        lines.append(f"stack  {answer.stack:>10,} B  worst path from {profile.stack_root}{deepest}")
        lines += [f"       {'':>10}  {item.text()}" if isinstance(item, LeftOut) else
                  f"       {item.frame:>10,}  {item.function}" for item in _path_items(answer, verbose)]
    for missing in answer.missing:
        lines.append(f"missing: {missing.op} (in {', '.join(missing.models)}): {missing.reason}")
    for kernel in answer.application_kernels:
        lines.append(f"yours: {kernel.op} (in {', '.join(kernel.models)}): {kernel.reason}")
    rows = _alternatives(report)
    width = max([42] + [len(label) + 2 for label, _ in rows])  # long profile names keep the columns aligned
    lines += ["", "Beside it:", f"{'':<{width}}{'flash':>10}{'RAM':>10}{'stack':>8}"]
    for label, other in rows:
        stack = "-" if other.stack is None else f"{other.stack:,}"
        lines.append(f"{label:<{width}}{other.flash:>10,}{other.ram:>10,}{stack:>8}")
    notes = list(dict.fromkeys(answer.notes + list(answer.arena.notes)))
    if notes:
        lines.append("")
        lines += [f"note: {note}" for note in notes]
    lines.append("")
    lines.append("verdict: " + _verdict(answer) + _verdict_scope(answer))
    return "\n".join(lines) + "\n"


def _short_build(build: BuildFacts) -> str:
    """The distribution, its revision, TFLM's, the -O level and C library: what the answer holds for, in one line."""
    name = build.distribution or "distribution not recorded"
    if build.distribution_revision:
        name += f" {revision_text(build.distribution_revision)}"
    facts = [f"TFLM {revision_text(build.tflm_commit)}" if build.tflm_commit else "TFLM revision not recorded"]
    facts += [fact.split(" (")[0] for fact in (build.opt_level, build.c_library) if fact]
    return f"{name}, {', '.join(facts)}, {build.kernels} kernels"


def _verdict_scope(answer: FitAnswer) -> str:
    if _application_counted(answer):
        return " (with your application as given)"
    kernels = _application_kernels(answer)
    return (" (TFLM and the models in a minimal app; your application's own code and data"
            + (f", {kernels}," if kernels else "") + " are not counted)")


def _alternatives(report: FitReport) -> list[tuple[str, FitAnswer]]:
    rows = [(f"this ({report.main.profile.name})", report.main)]
    if report.other_kernels is not None:
        other = report.other_kernels
        rows.append((f"{other.profile.build.kernels} kernels ({other.profile.name})", other))
    if report.reduced is not None:
        rows.append(("--reduce-types" if report.reduced.reduce_types else "without --reduce-types", report.reduced))
    return rows


def _verdict(answer: FitAnswer) -> str:
    problems = []
    if answer.missing:
        problems.append(f"{len(answer.missing)} op(s) the profile has no kernel for")
    if answer.over_flash:
        problems.append(f"flash over by {answer.flash - answer.flash_limit:,} B")
    if answer.over_ram:
        problems.append(f"RAM over by {answer.ram - answer.ram_limit:,} B")
    if problems:
        return "does not fit: " + "; ".join(problems)
    if answer.flash_limit is None and answer.ram_limit is None:
        return "no --flash or --ram limit given"
    return "fits"


# -- JSON ---------------------------------------------------------------------------------------------------------

def build_json(build: BuildFacts) -> dict:
    return {"arch": build.arch, "cpu": build.cpu, "fpu": build.fpu, "kernels": build.kernels,
            "pointer_bytes": build.pointer_bytes, "short_enums": build.short_enums, "compiler": build.compiler,
            "flags": build.flags, "tflm_commit": build.tflm_commit, "source": build.source,
            "distribution": build.distribution, "distribution_revision": build.distribution_revision,
            "build_system": build.build_system, "opt_level": build.opt_level, "c_library": build.c_library}


def _answer_json(answer: FitAnswer) -> dict:
    return {
        "profile": answer.profile.name, "build": build_json(answer.profile.build), "models": list(answer.models),
        "reduce_types": answer.reduce_types, "app_statics": answer.app_statics,
        "registrations": list(answer.registrations),
        "missing": [{"op": m.op, "models": list(m.models), "reason": m.reason} for m in answer.missing],
        "application_kernels": [{"op": m.op, "models": list(m.models), "reason": m.reason}
                                for m in answer.application_kernels],
        "flash": {"bytes": answer.flash, "parts": [{"part": p.label, "bytes": p.bytes} for p in answer.flash_parts],
                  "may_be_high_by": answer.flash_may_be_high_by, "may_be_low_by": answer.flash_may_be_low_by,
                  "limit": answer.flash_limit, "over": answer.over_flash},
        "ram": {"bytes": answer.ram, "parts": [{"part": p.label, "bytes": p.bytes} for p in answer.ram_parts],
                "arena_bytes": answer.ram_parts[0].bytes, "arena_exact": answer.arena.exact,
                "static_bytes": answer.static_ram, "limit": answer.ram_limit, "over": answer.over_ram},
        "stack": None if answer.stack is None else {
            "bytes": answer.stack, "root": answer.profile.stack_root, "deepest_kernel": answer.stack_kernel,
            "path": [{"function": s.function, "frame": s.frame} for s in answer.stack_path]},
        "notes": list(dict.fromkeys(answer.notes + list(answer.arena.notes))),
        "fits": answer.passed,
        "counts": leaves_out(answer),
        "application": {"flash": answer.application.flash, "ram": answer.application.ram,
                        "counted": answer.application.flash is not None and answer.application.ram is not None},
    }


def _json(report: FitReport) -> str:
    data = _answer_json(report.main)
    data["other_kernels"] = _answer_json(report.other_kernels) if report.other_kernels else None
    data["reduced_types" if not report.main.reduce_types else "without_reduced_types"] = (
        _answer_json(report.reduced) if report.reduced else None)
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


# -- markdown -----------------------------------------------------------------------------------------------------

def _markdown(report: FitReport, verbose: bool = False) -> str:
    answer = report.main
    lines = [f"### {markdown_text(headline(answer))}", "", f"_{markdown_text(leaves_out(answer))}_", "",
             markdown_text(describe_build(answer.profile.build)), "", "| | bytes | parts |", "|---|---:|---|"]
    parts = lambda ps: "<br>".join(f"{p.bytes:,} {markdown_text(p.label)}" for p in ps)  # noqa: E731
    lines.append(f"| flash | {answer.flash:,} | {parts(answer.flash_parts)} |")
    lines.append(f"| RAM | {answer.ram:,} | {parts(answer.ram_parts)} |")
    if answer.stack is not None:
        path = " → ".join(markdown_text(f"... {item.steps} more" if isinstance(item, LeftOut) else item.function)
                          for item in _path_items(answer, verbose))
        lines.append(f"| stack | {answer.stack:,} | {path} |")
    lines += ["", "| answer | flash | RAM | stack |", "|---|---:|---:|---:|"]
    for label, other in _alternatives(report):
        stack = "-" if other.stack is None else f"{other.stack:,}"
        lines.append(f"| {markdown_text(label)} | {other.flash:,} | {other.ram:,} | {stack} |")
    for missing in answer.missing:
        lines.append(f"\n- missing: `{markdown_text(missing.op)}` ({markdown_text(', '.join(missing.models))}): {markdown_text(missing.reason)}")
    for kernel in answer.application_kernels:
        lines.append(f"\n- yours: `{markdown_text(kernel.op)}` ({markdown_text(', '.join(kernel.models))}): "
                     f"{markdown_text(kernel.reason)}")
    notes = list(dict.fromkeys(answer.notes + list(answer.arena.notes)))
    if notes:
        lines.append("")
        lines += [f"- {markdown_text(note)}" for note in notes]
    return "\n".join(lines) + "\n"
