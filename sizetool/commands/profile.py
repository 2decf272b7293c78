"""`size-report profile ELF [--map MAP] -o target.json`: write a target profile (tflm_facts/target_profile.py) from
an all-ops firmware, for `gen-resolver model.tflite --fit target.json` (sizetool/profile/profile_export.py)."""

from __future__ import annotations

import os
import sys
from dataclasses import replace

from sizetool.commands.arguments import OneLineParser


def build_parser(prog: str = "size-report profile"):
    parser = OneLineParser(
        prog=prog, description="Write a target profile from an all-ops TFLM firmware (every AddXxx() registered), for "
                               "gen-resolver MODEL --fit PROFILE.",
        epilog="Exit status: 0 written, 2 usage or input error.")
    parser.add_argument("elf", metavar="ELF", help="The all-ops firmware.")
    parser.add_argument("--map", dest="map_file", metavar="FILE.map", help="Its linker map (more exact figures).")
    parser.add_argument("-o", "--output", metavar="FILE", help="Write the profile here (atomically; xz-compressed when "
                                                               "it ends in .xz); default stdout.")
    parser.add_argument("--name", metavar="NAME", help="The profile's name (default: the output's or ELF's stem).")
    parser.add_argument("--tflm-commit", default="", metavar="SHA", help="The TFLM commit the firmware was built from.")
    parser.add_argument("--distribution", default="", metavar="NAME",
                        help="Which TFLM distribution the firmware links (pico-tflmicro, Arduino tflite-micro, ...).")
    parser.add_argument("--distribution-revision", default="", metavar="REV",
                        help="That distribution's own revision (its git commit).")
    parser.add_argument("--build-system", default="", metavar="TEXT",
                        help="How the distribution builds TFLM (\"pico-sdk 2.1.0 CMake, Release\").")
    parser.add_argument("--opt-level", default="", metavar="FLAGS", help="The optimisation TFLM is built with (-O3).")
    parser.add_argument("--c-library", default="", metavar="NAME", help="The C library linked (newlib-nano, ...).")
    parser.add_argument("--no-stack", action="store_true", help="Leave the stack figures out.")
    parser.add_argument("--no-cache", action="store_true", help="Do not read or write the report cache.")
    return parser


def main(args: list[str], prog: str = "size-report profile") -> int:
    options = build_parser(prog).parse_args(args)
    from sizetool.inputs.elf_reader import read_elf
    from sizetool.operators.graph_cache import load_operator_graph
    from sizetool.profile.profile_export import export_profile
    from sizetool.report.report_builder import build_report_keeping_image
    from sizetool.report.report_model import write_bytes_atomically
    from tflm_facts.target_profile import profile_bytes, profile_to_json

    report, image = build_report_keeping_image(options.elf, map_path=options.map_file,
                                               use_cache=not options.no_cache)
    if image is None:
        image = read_elf(options.elf)
    operator_graph = load_operator_graph(options.elf, options.map_file, use_cache=not options.no_cache, image=image)
    base = os.path.basename(options.output or options.elf)
    name = options.name or os.path.splitext(base[:-3] if base.endswith((".xz", ".gz")) else base)[0]
    profile = export_profile(image, operator_graph, report.rom_total, name, options.tflm_commit,
                             stack=not options.no_stack)
    profile = replace(profile, build=replace(
        profile.build, distribution=options.distribution, distribution_revision=options.distribution_revision,
        build_system=options.build_system, opt_level=options.opt_level, c_library=options.c_library))
    if options.output:
        write_bytes_atomically(options.output, profile_bytes(profile, options.output))
    else:
        sys.stdout.write(profile_to_json(profile))
    for note in profile.notes:
        print(f"{prog}: note: {note}", file=sys.stderr)
    return 0
