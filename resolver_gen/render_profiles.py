"""`gen-resolver --fit list` and `--fit show NAME`: the shipped target profiles as one table a person scans for their
board (within 120 columns), and one profile in full: its build, the compile flags its ELF records, and how closely it
was measured against real builds (tflm_facts/profile_accuracy.py)."""

from __future__ import annotations

import json
import re
import textwrap

from resolver_gen.render_fit import build_json, compilers, revision_text
from sizetool.text_escaping import markdown_text
from tflm_facts.profile_accuracy import accuracy_of, describe_accuracy
from tflm_facts.target_profile import BuildFacts, TargetProfile

TEXT_WIDTH = 120
COLUMNS = ("profile", "distribution", "TFLM", "CPU", "kernels", "-O", "C library")
ARCHITECTURES = {"6s-m": "Armv6-M", "7e-m": "Armv7E-M", "8-m.main": "Armv8-M", "cortex-m55": "Armv8.1-M",
                 "riscv": "RV32"}


def render_profile_list(profiles: list[TargetProfile], output_format: str) -> str:
    if output_format == "json":
        rows = [{"name": p.name, "distribution": p.build.distribution, "build": build_json(p.build),
                 "registrations": len(p.registrations), "rom_total": p.rom_total, "stack_root": p.stack_root}
                for p in profiles]
        return json.dumps({"profiles": rows}, indent=2, sort_keys=True) + "\n"
    if not profiles:
        return "No target profiles are shipped.\n"
    rows = [profile_row(p) for p in sorted(profiles, key=lambda p: (distribution_name(p.build), p.name))]
    if output_format == "markdown":
        lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
        lines += ["| " + " | ".join(markdown_text(cell) for cell in row) + " |" for row in rows]
        return "\n".join(lines) + "\n"
    widths = [max(len(row[column]) for row in [COLUMNS, *rows]) for column in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in [COLUMNS, *rows]]
    lines.append("")
    lines.append("gen-resolver --fit show NAME: one in full, with how closely it was measured")
    return "\n".join(lines) + "\n"


def profile_row(profile: TargetProfile) -> tuple[str, ...]:
    build = profile.build
    return (profile.name, distribution_name(build), tflm_revision(build), cpu_name(build, profile.name), build.kernels,
            optimisation(build), c_library_name(build))


def distribution_name(build: BuildFacts) -> str:
    name = build.distribution or "not recorded"
    return "upstream" if name.endswith("(upstream)") else name


def tflm_revision(build: BuildFacts) -> str:
    """The TFLM revision short: a commit's 7 digits, or a sync's date."""
    date = re.search(r"\d{4}-\d{2}-\d{2}", build.tflm_commit or "")
    return date.group(0) if date else revision_text(build.tflm_commit) or "-"


def cpu_name(build: BuildFacts, profile_name: str = "") -> str:
    """The core as people name their board's: Cortex-M0+, Cortex-M4F, RV32IMC (from the compile flags, or the
    profile's name where the profile records no flags), else the architecture the ELF states."""
    cpu = re.search(r"-mcpu=cortex-(m\d+)(plus)?", build.flags or "") \
        or re.search(r"cortex-(m\d+)(plus)?", profile_name)
    if cpu:
        core = cpu.group(1).upper() + ("+" if cpu.group(2) else "")
        with_fpu = build.fpu and core in ("M4", "M7")  # the M33 and M55 are named without an F
        return f"Cortex-{core}{'F' if with_fpu else ''}"
    march = re.search(r"-march=(rv\d+[a-z]*)", build.flags or "")
    if march:
        return march.group(1).upper()
    return ARCHITECTURES.get(build.cpu, build.cpu) + ("+FP" if build.fpu else "")


def optimisation(build: BuildFacts) -> str:
    """The -O levels the build states, in its order, each once ("-Os/-O2" for a core at -Os and kernels at -O2)."""
    stated = re.sub(r"\([^)]*\)", "", build.opt_level or "")  # "-O3 (CMake Release: -g -O3 ...)": the -O3
    levels = list(dict.fromkeys(re.findall(r"-O(?:fast|[0-3sgz])", stated)))
    return "/".join(levels[:2]) or "-"


def c_library_name(build: BuildFacts) -> str:
    match = re.match(r"[A-Za-z][\w-]*", build.c_library or "")
    return match.group(0) if match else "-"


def render_profile(profile: TargetProfile, output_format: str) -> str:
    """One profile in full (`--fit show NAME`)."""
    build = profile.build
    accuracy = accuracy_of(profile.name)
    if output_format == "json":
        data = {"name": profile.name, "build": build_json(build), "registrations": [r.function for r in profile.registrations],
                "rom_total": profile.rom_total, "stack_root": profile.stack_root,
                "measured": None if accuracy is None else {
                    "builds": accuracy.builds, "flash_low_percent": accuracy.flash_low_percent,
                    "flash_high_percent": accuracy.flash_high_percent,
                    "static_ram_within": accuracy.static_ram_within, "stack_within": accuracy.stack_within}}
        return json.dumps(data, indent=2, sort_keys=True) + "\n"
    fields = [
        ("profile", profile.name),
        ("measured", describe_accuracy(accuracy)),
        ("distribution", f"{build.distribution or 'not recorded'}"
                         + (f" {build.distribution_revision}" if build.distribution_revision else "")),
        ("TFLM", build.tflm_commit or "not recorded"),
        ("build system", build.build_system or "-"),
        ("optimisation", build.opt_level or "-"),
        ("C library", build.c_library or "-"),
        ("CPU", f"{cpu_name(build, profile.name)} ({build.cpu}{' ' + build.fpu if build.fpu else ''}), {build.kernels} kernels, "
                f"{build.pointer_bytes * 8}-bit pointers{', short enums' if build.short_enums else ''}"),
        ("compiler", compilers(build) or "-"),
        ("registrations", f"{len(profile.registrations)} (its all-ops build: {profile.rom_total:,} B of flash)"),
    ]
    fields += [("flags" if index == 0 else "", line) for index, line in enumerate(compile_lines(build.flags))]
    if output_format == "markdown":
        lines = [f"### {markdown_text(profile.name)}", "", "| | |", "|---|---|"]
        lines += [f"| {markdown_text(name)} | {markdown_text(value)} |" for name, value in fields]
        return "\n".join(lines) + "\n"
    width = max(len(name) for name, _ in fields)
    lines = []
    for name, value in fields:
        wrapped = textwrap.wrap(value, TEXT_WIDTH - width - 2, break_on_hyphens=False) or ["-"]
        lines += [f"{name if index == 0 else '':<{width}}  {part}" for index, part in enumerate(wrapped)]
    return "\n".join(lines) + "\n"


def compile_lines(flags: str) -> list[str]:
    """The compile lines the ELF's DWARF records (one per distinct producer), each flag once: a build that sets -O
    or -std several times shows each value once, in order, the last being the one the compiler used."""
    lines = []
    for producer in (part.strip() for part in (flags or "").split(";")):
        if producer:
            lines.append(" ".join(dict.fromkeys(reversed(producer.split())).__reversed__()))
    return list(dict.fromkeys(lines)) or ["-"]
