"""`size-report ELF --ops --drop OP[,OP...]` / `--keep ...`: what a firmware would be with a different set of ops.

The ops are named as the operator table names them (CONV_2D, CONV_2D_INT8, WINDOW) or given as models (.tflite, or a
C/C++ file holding model arrays, or FILE:ARRAY), which
stand for the registrations serving their ops (model_crosscheck's mapping: a model's CONV_2D is served by CONV_2D and
CONV_2D_INT8). `--drop` removes those registrations; `--keep` removes every other one. The answer is one set
question (operator_sets.py): the saving, the predicted ROM (the report's total minus the saving), and the files and
symbols that go.
"""

from __future__ import annotations

import difflib
import os
from collections import defaultdict
from dataclasses import dataclass, field

from sizetool.errors import SizeToolError
from sizetool.operators.operator_graph import OperatorGraph, image_total
from sizetool.operators.operator_sets import SetCost, set_cost
from sizetool.report.report_model import SizeReport


@dataclass(frozen=True)
class GoingFile:
    path: str
    bytes: int  # flash of this file that goes
    file_bytes: int  # the file's flash now (from the report)


@dataclass(frozen=True)
class GoingSymbol:
    name: str
    path: str
    section: str
    address: int
    bytes: int


@dataclass
class WhatIf:
    mode: str  # "drop" or "keep"
    asked: tuple[str, ...]  # the arguments as given (op names and model files)
    dropped: tuple[str, ...]  # the registrations removed
    kept: tuple[str, ...]  # the registrations that stay
    cost: SetCost
    rom: int  # the ROM total now
    files: list[GoingFile] = field(default_factory=list)  # most bytes first
    symbols: list[GoingSymbol] = field(default_factory=list)  # most bytes first
    notes: list[str] = field(default_factory=list)

    @property
    def predicted_rom(self) -> int:
        return self.rom - self.cost.saving


def split_names(values: list[str]) -> list[str]:
    """`--drop A,B --drop C` -> [A, B, C] (empty items ignored)."""
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


def what_if(operator_graph: OperatorGraph, report: SizeReport, mode: str, names: list[str]) -> WhatIf:
    """The set answer for `--drop names` or `--keep names` (op names or model files)."""
    from sizetool.operators.operator_cost import node_paths, stored_memory

    if not operator_graph.operators:
        raise SizeToolError(f"{report.source}: no TFLM operator registrations found (stripped, or not a TFLM "
                            f"firmware): nothing to --{mode}")
    registered = sorted(o.op for o in operator_graph.operators)
    chosen, notes = resolve(names, registered, mode)
    dropped = set(chosen) if mode == "drop" else set(registered) - set(chosen)
    cost = set_cost(operator_graph, dropped, relink_fill=True)
    result = WhatIf(mode, tuple(names), tuple(sorted(dropped)), tuple(sorted(set(registered) - dropped)), cost,
                    image_total(report.rom_total, operator_graph), notes=notes)
    graph = operator_graph.graph
    paths = node_paths(graph, report)
    going: dict[str, int] = defaultdict(int)
    for index in cost.gone:
        node = graph.nodes[index]
        if node.rom_bytes:
            going[paths[index]] += node.rom_bytes
            result.symbols.append(GoingSymbol(node.name, paths[index], node.section, node.address, node.rom_bytes))
    file_size: dict[str, int] = defaultdict(int)
    for entry in report.entries_for(stored_memory(report)):
        file_size["/".join(entry.path)] += entry.size
    result.files = sorted((GoingFile(path, size, file_size.get(path, size)) for path, size in going.items()),
                          key=lambda f: (-f.bytes, f.path))
    result.symbols.sort(key=lambda s: (-s.bytes, s.path, s.name, s.address))
    return result


def resolve(names: list[str], registered: list[str], mode: str) -> tuple[list[str], list[str]]:
    """The registrations named (op names, or the registrations serving a model's ops), and notes about model ops no
    registration serves. An unknown op name is an error naming the closest registered ones."""
    from sizetool.operators.model_crosscheck import model_references, serving_registrations
    from tflm_model.model_sources import is_model_argument

    if not names:
        raise SizeToolError(f"--{mode} needs at least one op name or model")
    chosen: list[str] = []
    notes: list[str] = []
    for name in names:
        if is_model_argument(name):  # a .tflite, a C/C++ file holding models, or FILE:ARRAY
            for model in model_references([name]):
                serving, missing = serving_registrations(model, registered)
                notes.extend(f"{os.path.basename(model)} needs {op}, which the firmware does not register: its code "
                             "is in no figure here" for op in missing)
                chosen.extend(serving)
        elif name in registered:
            chosen.append(name)
        else:
            close = difflib.get_close_matches(name, registered, n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else " (size-report ELF --ops lists them)"
            raise SizeToolError(f"--{mode} {name}: no such operator registration in this firmware{hint}")
    return list(dict.fromkeys(chosen)), notes
