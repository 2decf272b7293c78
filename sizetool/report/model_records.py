"""The models linked into a firmware, in the report: one record per model, and the model's symbol broken down.

A symbol that holds a model (tflm_model.embedded_models) stops being one opaque leaf: its entry is replaced by one
entry per part of the model (tflm_model.model_layout: the weights per operator and tensor, tensor metadata and names,
operators, operator codes, signatures, metadata, the FlatBuffer's overhead), under a node named by the symbol, so the
tree, JSON, CSV, markdown and the HTML treemap all show them and the entries still add up to the symbol's size. A
symbol larger than its model (a string literal's NUL, a struct around it) keeps the rest as "(rest of the symbol)".

Each record carries what `--format json` lists (symbol, address, size, sha256, operators) and what stripping names
and metadata would save, measured by writing the model again without them (model_layout.rewrite).
"""

from __future__ import annotations

from dataclasses import replace

from tflm_model.embedded_models import EmbeddedModel
from tflm_model.errors import ModelError

from sizetool.report.report_model import EmbeddedModelRecord, SizeEntry

REST = "(rest of the symbol)"


def model_record(model: EmbeddedModel, firmware: str) -> EmbeddedModelRecord:
    from tflm_model.model_layout import strip_saving
    from tflm_model.operator_uses import read_model_uses

    source = model.source(firmware)
    try:
        operators = tuple(use.name for use in read_model_uses(source, hash_in_background=False).ops)
    except ModelError:  # an op code newer than our table: the model is still the model, its ops unnamed
        operators = ()
    try:
        saving = strip_saving(source)
        rewritten, stripped = saving.rewritten, saving.stripped
    except ModelError:  # an option table this writer does not know: no measured saving
        rewritten = stripped = None
    return EmbeddedModelRecord(model.symbol, model.section, model.address, model.size, model.sha256, operators,
                               model.sized_by, rewritten, stripped, model.writable)


def expand_model_entries(entries: list[SizeEntry], models: list[EmbeddedModel], firmware: str) -> list[SizeEntry]:
    """The ROM entries with each model's holding entry replaced by the model's parts (and the RAM entry too, for a
    model in writable data)."""
    from tflm_model.model_layout import layout

    by_address: dict[tuple[str, int], int] = {}
    for index, entry in enumerate(entries):
        if not entry.pieces:
            by_address.setdefault((entry.memory, entry.address), index)
    replaced: dict[int, list[SizeEntry]] = {}
    holders = [(model, memory) for model in models for memory in (("rom", "ram") if model.writable else ("rom",))]
    for model, memory in holders:
        start = model.address - model.offset_in_symbol
        index = by_address.get((memory, start))
        if index is None:
            continue
        entry = entries[index]
        if entry.size < model.offset_in_symbol + model.size:
            continue
        source = model.source(firmware)
        try:
            parts = layout(source, op_names=_op_names(source)).parts
        except ModelError:  # a field the breakdown cannot follow: the symbol stays one leaf
            continue
        base = entry.path + (entry.symbol,)
        new = []
        for part in parts:
            runs = tuple((model.address + offset, length) for offset, length in part.runs)
            new.append(replace(entry, path=base + part.path[:-1], symbol=part.path[-1], address=runs[0][0],
                               size=part.size, mangled="", aliases=(), pieces=runs if len(runs) > 1 else ()))
        rest = entry.size - model.size
        if rest:
            runs = tuple(run for run in ((entry.address, model.offset_in_symbol),
                                         (model.address + model.size, entry.size - model.offset_in_symbol - model.size))
                         if run[1])
            new.append(replace(entry, path=base, symbol=REST, address=runs[0][0], size=rest, mangled="", aliases=(),
                               pieces=runs if len(runs) > 1 else ()))
        replaced[index] = new
    if not replaced:
        return entries
    out: list[SizeEntry] = []
    for index, entry in enumerate(entries):
        out.extend(replaced.get(index, (entry,)))
    return out


def _op_names(source) -> list[str]:
    """Each operator_codes entry's op name (an unknown code as "opcode N")."""
    from tflm_model.operator_uses import op_key
    from tflm_model.tflite_reader import read_operator_table

    names = []
    for index, code in enumerate(read_operator_table(source).operator_codes):
        try:
            names.append(op_key(code, str(source), index)[0].name)
        except ModelError:
            names.append(f"opcode {index}")
    return names
