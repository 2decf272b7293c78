"""gen-resolver's options: the parser every caller reads them with (the command line, and `size-report check
--header`'s header options), and the option values that need more than argparse (--custom, sizes).

Why argparse and not typer here: gen-resolver is one command without subcommands, and its whole run (start-up
included) has to stay near 0.2 s; importing typer (and click) costs about 45 ms, a quarter of that budget, for no gain
in this interface.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from resolver_gen import __version__
from resolver_gen.errors import ResolverGenError

PROG = "gen-resolver"
FORMATS = ("header", "lite", "json", "text", "markdown")  # text and markdown: --fit only


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, like every other bad input
        raise ResolverGenError(message)


def cmake_package_dir() -> Path:
    """The CMake package shipped in the wheel (TflmSizeToolkitConfig.cmake: tflm_op_resolver, tflm_size_check, ...)."""
    return Path(__file__).resolve().parent / "cmake"


class _PrintCMakeDir(argparse.Action):
    """--cmake-dir: print the CMake package's folder and exit, like --version (no model needed)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(cmake_package_dir())
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog=PROG, description="Write a minimal TFLM MicroMutableOpResolver header for one or more .tflite models.",
        epilog="Exit status: 0 ok, 1 unsupported op or tensor types / model without operators / --check stale, "
               "2 bad input.")
    parser.add_argument("models", nargs="*", metavar="MODEL",
                        help=".tflite file(s), or C/C++ files holding a model as a byte array (FILE:NAME picks one "
                             "array); several give one union resolver; a firmware ELF stands for the models linked "
                             "into it")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    parser.add_argument("--format", choices=FORMATS, default="header",
                        help="header: TFLM MicroMutableOpResolver (default); lite: TFLite MutableOpResolver "
                             "selective registration; json: ops, codes, versions, uses per model")
    parser.add_argument("--name", metavar="NAME",
                        help="prefix the generated names: NAME_kNumOps, NAME_OpResolver, NAME_RegisterOps")
    parser.add_argument("--namespace", metavar="NS", help="put the generated names in C++ namespace NS (a::b allowed)")
    parser.add_argument("--custom", action="append", default=[], metavar="NAME=FUNCTION",
                        help="register custom op NAME with tflite::FUNCTION() (repeatable)")
    parser.add_argument("--reduce-types", action="store_true",
                        help="register each op with TFLM's type-reduced kernel (e.g. Register_CONV_2D_INT8) when one "
                             "runs every use in every model; smaller with CMSIS-NN, the same as the generic one with "
                             "reference kernels")
    parser.add_argument("--allow-unsupported", action="store_true",
                        help="write the header even if TFLM has no kernel for some op or refuses some tensor types "
                             "(a comment lists them)")
    parser.add_argument("--check", metavar="FILE",
                        help="do not write: exit 1 (printing a diff) if FILE differs from what would be generated")
    parser.add_argument("--list", action="store_true", help="print a table of each model's ops instead of a header")
    parser.add_argument("--arena", action="store_true",
                        help="estimate the tensor arena TFLM needs (all models sharing one arena): the header gets "
                             "kTensorArenaSize and its breakdown, JSON an \"arena\" object, --list a table")
    parser.add_argument("--kernels", default="reference", metavar="SET",
                        help="kernel set the firmware links, for --arena: reference (default), cmsis_nn or esp_nn "
                             "(esp-tflite-micro's esp_nn kernels)")
    parser.add_argument("--pointer-size", type=int, default=4, metavar="BYTES",
                        help="the target's pointer size, for --arena: 4 (32-bit MCUs, default) or 8 (64-bit hosts)")
    parser.add_argument("--short-enums", action="store_true",
                        help="for --arena: TFLM is compiled with short enums, as arm-none-eabi GCC does for Cortex-M "
                             "by default (exact there; without it the figure is for int-sized enums, a few dozen "
                             "bytes more, safe for every 32-bit target)")
    parser.add_argument("--mve", action="store_true",
                        help="for --arena --kernels cmsis_nn: the core has MVE (Helium: Cortex-M55, M85), whose "
                             "CMSIS-NN kernels take other scratch buffers than on a DSP core (the default)")
    parser.add_argument("--tflm", metavar="DIR",
                        help="the TFLM tree the firmware builds (the folder holding tensorflow/, or a project with it "
                             "in src/): call only the Add<Op>() methods and type-reduced registrations it declares; "
                             "an op it lacks is exit 1. The header names the tree's revision")
    parser.add_argument("--tflm-revision", metavar="NAME",
                        help="for --arena: the TFLM allocator generation the firmware links, when --tflm cannot tell "
                             "it or is not given: 2019 (TensorFlow's micro to about 2020-06; alias tf2.2), 2020-06 "
                             "(TensorFlow 2.3's; alias tf2.3), 2020 (TensorFlow 2.4-2.5's micro, tflite-micro to "
                             "2021-05-12, Edge "
                             "Impulse's 2021 SDK; alias edge-impulse-2021), 2021 (tflite-micro 2021-05 to 2022-01-06; "
                             "exact for 606b7b2f0), 2022-01 (to 2022-04; not measured: an upper bound), 2022-04 (to "
                             "2022-07), 2022, current or 90b983c (since 2022-07: "
                             "exact for 90b983c). Without it or --tflm, the figure is the upper bound over every "
                             "measured generation")
    parser.add_argument("--cmake-dir", action=_PrintCMakeDir,
                        help="print the folder of the CMake package (find_package(TflmSizeToolkit): put it on "
                             "CMAKE_PREFIX_PATH) and exit")
    parser.add_argument("--fit", metavar="PROFILE",
                        help="will the models fit this target: flash, RAM and stack from a target profile (a shipped "
                             "profile's name or a .json path; 'list' names the shipped ones, 'show NAME' one in full); --format "
                             "text (default), json or markdown")
    parser.add_argument("--calibrate", metavar="FIRMWARE.elf",
                        help="with --fit PROFILE: answer on your own firmware: its runtime and linked operators from "
                             "the ELF, the operators it lacks from the profile, scaled on the firmware")
    parser.add_argument("--app-statics", action="store_true",
                        help="with --fit: your app has C++ function-local statics (TFLM's examples keep their "
                             "resolver and interpreter so): count the guard and exception runtime they link where the "
                             "build compiles thread-safe statics")
    parser.add_argument("--app-flash", metavar="SIZE",
                        help="with --fit: the flash your application adds around TFLM and the models (drivers, DSP, "
                             "USB, printf); counted in the answer, which otherwise leaves it out and says so")
    parser.add_argument("--app-ram", metavar="SIZE",
                        help="with --fit: the RAM your application adds (its .data, .bss, heap and stack reserve)")
    parser.add_argument("--flash", metavar="SIZE", help="with --fit: the flash available (e.g. 1M, 256K); over it is exit 1")
    parser.add_argument("--ram", metavar="SIZE", help="with --fit: the RAM available (e.g. 192K); over it is exit 1")
    parser.add_argument("--advise", action="store_true",
                        help="with --fit: the changes that save flash or RAM, ranked (given anyway over a limit)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="with --fit: every step of the stack path (by default its first frames, the largest, the "
                             "deepest and the total)")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    return parser


def parse_custom(values: list[str]) -> dict[str, str]:
    import re

    overrides: dict[str, str] = {}
    for value in values:
        name, sep, function = value.partition("=")
        if not sep or not name or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", function) or "__" in function:
            raise ResolverGenError(f"--custom {value!r}: expected NAME=FUNCTION with FUNCTION a C++ identifier")
        if name in overrides and overrides[name] != function:
            raise ResolverGenError(f"--custom {name}: given twice with different functions")
        overrides[name] = function
    return overrides


def parse_size(text: str, option: str) -> int:
    """'1M', '256K', '65536', '0x10000' -> bytes (K, M, G binary)."""
    import re

    match = re.fullmatch(r"\s*(0x[0-9a-fA-F]+|\d+)\s*([KMG]i?B?|B)?\s*", text or "", re.IGNORECASE)
    if not match:
        raise ResolverGenError(f"{option} {text!r}: expected a size in bytes such as 1M, 256K or 65536")
    value = int(match.group(1), 0)
    unit = (match.group(2) or "").upper()[:1]
    return value * {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(unit, 1)
