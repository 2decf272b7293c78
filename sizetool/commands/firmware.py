"""The step every command that reads one firmware shares: its options (parsed and checked once, where they are
parsed), the report built or taken from the cache, the ELF image and the operator graph read once for all the
questions a command asks, and the output written whole.

The tree, `ops`, `fit` and the what-if questions each take a FirmwareOptions and call load_firmware(); `stack` reads
only the ELF. The functions here know nothing of a command's own answer.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field

from sizetool.errors import SizeToolError

MAP_HELP = "The ELF's linker map (GNU ld, armlink or IAR ILINK): memory regions, object attribution."
GROUPINGS = ("file", "cu")


@dataclass(frozen=True)
class FirmwareOptions:
    """How to read the firmware: the ELF, its map, sizes when there is no map, and how the report labels bytes."""

    elf: str
    map_file: str | None = None
    flash_size: int | None = None
    ram_size: int | None = None
    use_cache: bool = True
    group_by: str = "file"
    workspace: tuple[str, ...] = ()
    mangled: bool = False


@dataclass(frozen=True)
class OutputOptions:
    """Where the answer goes and in what format; colour and width only on a terminal."""

    output_format: str = "tree"
    output: str | None = None

    @property
    def color(self) -> bool:
        return self.output is None and sys.stdout.isatty()

    @property
    def width(self) -> int | None:
        return shutil.get_terminal_size((160, 24)).columns if self.color else None


@dataclass
class Firmware:
    """The loaded firmware: the report, and the ELF image and operator graph read at most once each."""

    options: FirmwareOptions
    report: object
    image: object | None = None
    _graph: object | None = field(default=None, repr=False)
    _answer_dwarf: object | None = field(default=None, repr=False)  # a BackgroundRead of answer_dwarf, or its result

    @contextmanager
    def answer_dwarf_beside(self):
        """While the block runs, the DWARF the answers about models read (the arena's struct types, the resolver's
        methods and registrations: ~0.13 s on a 12.5 MB -g ELF) is read in a second process, when the report was
        just built from an ELF of 1 MiB or more with DWARF (a cached report's ELF has its types cached too): the
        operator graph and table are built here meanwhile. Outside it, or where there is no second process, the
        answers read what they need themselves, as before."""
        from sizetool.report.report_builder import SECOND_PROCESS_FROM

        image = self.image
        try:
            large = os.path.getsize(self.options.elf) >= SECOND_PROCESS_FROM
        except OSError:
            large = False
        if image is None or not image.has_dwarf or not large:
            yield
            return
        from sizetool.inputs.background_read import BackgroundRead

        _import_answer_dwarf_readers()  # here, once: both processes would otherwise import them (~0.03 s each)
        with BackgroundRead(answer_dwarf, self.options.elf, self.options.use_cache) as read:
            self._answer_dwarf = read
            try:
                yield
            finally:
                self._answer_dwarf = None

    def _answer_dwarf_read(self) -> tuple | None:
        if self._answer_dwarf is not None and not isinstance(self._answer_dwarf, tuple):
            self._answer_dwarf = self._answer_dwarf.result()
        return self._answer_dwarf

    def dwarf_types(self) -> list | None:
        """The DWARF types the arena facts read, when answer_dwarf_beside read them (else None: read when needed)."""
        read = self._answer_dwarf_read()
        return read[0] if read is not None else None

    def resolver_api(self):
        """The resolver API the ELF's DWARF shows, when answer_dwarf_beside read it (else None: read when needed)."""
        read = self._answer_dwarf_read()
        return read[1] if read is not None else None

    def elf_image(self):
        if self.image is None:
            from sizetool.inputs.elf_reader import read_elf

            self.image = read_elf(self.options.elf)
        return self.image

    def operator_graph(self):
        if self._graph is None:
            from sizetool.operators.graph_cache import load_operator_graph

            self._graph = load_operator_graph(self.options.elf, self.options.map_file,
                                              use_cache=self.options.use_cache, image=self.image)
        return self._graph

    def operator_table(self):
        """The report's operator table (computed once, kept on the report for --save and the renderers)."""
        if self.report.operators is None:
            from sizetool.operators.graph_cache import load_operator_table

            labels = {"group_by": self.options.group_by, "workspace": list(self.options.workspace) or None,
                      "mangled": self.options.mangled}
            self.report.operators = load_operator_table(self.options.elf, self.options.map_file, self.report,
                                                        self.operator_graph(), labels,
                                                        use_cache=self.options.use_cache)
        return self.report.operators

    def embedded_models(self) -> list:
        """The models linked into the ELF (EmbeddedModel records; none when the report found none)."""
        if not self.report.models:
            return []
        from sizetool.inputs.firmware_models import embedded_models

        return embedded_models(self.elf_image())

    def embedded_model_sources(self) -> list:
        """The models linked into the ELF as model sources labelled ELF:SYMBOL (none when the report found none)."""
        if not self.report.models:
            return []
        from sizetool.inputs.firmware_models import embedded_models

        return [model.source(self.options.elf) for model in embedded_models(self.elf_image())]


def answer_dwarf(elf: str, use_cache: bool) -> tuple:
    """(the DWARF types the arena facts read, the resolver API the DWARF shows): what `ops` and `fit` read of the
    DWARF for their models (the types stored in the cache as load_dwarf_types stores them)."""
    from sizetool.fit.dwarf_types_cache import load_dwarf_types
    from sizetool.inputs.dwarf_resolver_api import read_resolver_api

    return load_dwarf_types(elf, use_cache), read_resolver_api(elf)


def _import_answer_dwarf_readers() -> None:
    """Import what answer_dwarf runs (the answers' own code imports the DWARF types' reader anyway)."""
    import sizetool.fit.dwarf_types_cache  # noqa: F401
    import sizetool.inputs.dwarf_resolver_scan  # noqa: F401
    import sizetool.inputs.dwarf_type_scan  # noqa: F401
    import sizetool.inputs.dwarf_resolver_api  # noqa: F401


def add_firmware_arguments(parser: argparse.ArgumentParser) -> None:
    """--map, the sizes without a map, the cache switch and how bytes are labelled."""
    parser.add_argument("--map", dest="map_file", metavar="FILE.map", help=MAP_HELP)
    parser.add_argument("--flash-size", metavar="SIZE", help="Flash size (e.g. 192K) when there is no map.")
    parser.add_argument("--ram-size", metavar="SIZE", help="RAM size (e.g. 64K) when there is no map.")
    parser.add_argument("--no-cache", action="store_true",
                        help="Do not use or fill the report cache (also SIZETOOL_NO_CACHE=1).")
    parser.add_argument("--group-by", default="file", metavar="file|cu",
                        help="file: declaring source file; cu: translation unit.")
    parser.add_argument("--workspace", action="append", metavar="DIR",
                        help="Show paths relative to this directory; give it several times for several source "
                             "roots (each then a named top-level node).")
    parser.add_argument("--mangled", action="store_true", help="Keep raw (mangled) C++ symbol names.")


def add_output_arguments(parser: argparse.ArgumentParser, formats: str) -> None:
    parser.add_argument("-f", "--format", dest="output_format", default="tree", metavar="FORMAT", help=f"{formats}.")
    parser.add_argument("-o", "--output", metavar="FILE", help="Write the output to this file (atomically).")


def firmware_options(values: dict) -> FirmwareOptions:
    """The firmware's options from parsed arguments (popped from `values`), checked."""
    from sizetool.sizes import parse_size

    group_by = values.pop("group_by", "file")
    if group_by not in GROUPINGS:
        raise SizeToolError(f"unknown --group-by {group_by!r} (choose file or cu)")
    flash_size, ram_size = values.pop("flash_size", None), values.pop("ram_size", None)
    return FirmwareOptions(
        elf=values.pop("elf"), map_file=values.pop("map_file", None),
        flash_size=parse_size(flash_size, "--flash-size") if flash_size else None,
        ram_size=parse_size(ram_size, "--ram-size") if ram_size else None,
        use_cache=not values.pop("no_cache", False), group_by=group_by,
        workspace=tuple(values.pop("workspace", None) or ()), mangled=values.pop("mangled", False))


def output_options(values: dict, formats: tuple[str, ...], command: str | None = None) -> OutputOptions:
    """The output's options (popped from `values`); a format the command does not print is a usage error."""
    output_format = values.pop("output_format", "tree")
    if output_format not in formats:
        if command:
            raise SizeToolError(f"{command} prints {', '.join(formats)}, not {output_format}")
        raise SizeToolError(f"unknown --format {output_format!r} (choose from {', '.join(formats)})")
    return OutputOptions(output_format, values.pop("output", None))


def load_firmware(options: FirmwareOptions) -> Firmware:
    """The report of the firmware (from the cache when it holds it) and the image read for it, if any."""
    from sizetool.report.report_builder import build_report_keeping_image

    report, image = build_report_keeping_image(
        options.elf, map_path=options.map_file, group_by=options.group_by, workspace=list(options.workspace),
        mangled=options.mangled, flash_size=options.flash_size, ram_size=options.ram_size,
        use_cache=options.use_cache)
    return Firmware(options, report, image)


def model_references(paths: list[str]) -> list:
    """Model arguments (.tflite, C/C++ files, FILE:ARRAY) as the references every model reader opens."""
    if not paths:
        return []
    from sizetool.operators.model_crosscheck import model_references as references

    return references(list(paths))


def write_output(text: str, output: OutputOptions) -> None:
    if output.output:
        from sizetool.report.report_model import write_text_atomically

        write_text_atomically(output.output, text)
    else:
        sys.stdout.write(text)


def print_warnings(report) -> None:
    for warning in report.warnings:
        print(f"size-report: warning: {warning}", file=sys.stderr)


@contextmanager
def without_cyclic_collector():
    """The report's data (symbols, entries, the operator graph) holds no reference cycles, and reference counting
    frees it: the cyclic collector would only re-scan it, ~10% of a cold `ops` run. Switched back on after, with every
    object still alive (caches, the answer) moved to the oldest generation (freeze, then unfreeze; not when the caller
    keeps frozen objects of its own): switched on as they were, the youngest generation's count (~37,000 after a cold
    tree of a 13 MB ELF) set off a collection of them all at the next allocation, ~12 ms of that run."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            ours = gc.get_freeze_count() == 0  # a caller's own frozen objects (fork-friendly servers) stay frozen
            if ours:
                gc.freeze()  # (which also zeroes the youngest generation's count)
            gc.enable()
            if ours:
                gc.unfreeze()
