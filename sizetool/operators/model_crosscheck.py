"""Check a firmware's operator registrations against the .tflite models it is meant to run.

Questions answered from the operator table (sizetool.operators.operator_cost), the operator graph (set questions,
operator_sets.py) and the models' operator codes (tflm_model, the reader gen-resolver uses, so both tools name and
map ops alike):
- which registered operators no given model uses; what removing each alone saves (its exclusive bytes) and what
  removing all of them together saves (the set retained size, plus their AddXxx() calls);
- how large the firmware would be with exactly the models' ops (the ROM total minus that saving); with several
  models, each model's own cost on top of the runtime and what it adds to the others (the ops only it needs);
- which ops a model needs that the firmware does not register: TFLM's interpreter would stop at start-up with
  "Didn't find op for builtin opcode ..." (or "... custom opcode ..."). A predicted size then leaves them out;
- which operators' tensor types TFLM's kernels refuse (hybrid float32×int8, legacy uint8, ...: gen-resolver's rule,
  tflm_model.type_support), and which uses a registered type-reduced kernel (CONV_2D_INT8 without CONV_2D) cannot
  run: the model would fail on the device, so the check fails as for a missing op;
- which generic registrations (CONV_2D) could be a type-reduced one (CONV_2D_INT8) because every model allows it.

Each suggestion (the Add<Op>() of a missing op, a type-reduced registration) is judged against what the linked TFLM
offers (tflm_offer.py: --tflm DIR, else the ELF): one it lacks is not suggested, one it cannot tell says so.

How a model op maps to the firmware's registrations (Register_X, its typed variants, TFLM's named custom ops) is
tflm_facts.registrations.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sizetool.errors import SizeToolError
from sizetool.operators.operator_graph import OperatorGraph
from sizetool.operators.operator_sets import SetCost, keep_only, set_cost
from sizetool.operators.tflm_offer import NO, Judgement, TflmOffer, judge_method, judge_variant
from sizetool.report.operator_records import OperatorTable
from tflm_facts.registrations import REGISTER_PREFIX, ModelOp, model_op
from tflm_facts.type_rules import KERNEL_VARIANTS
from tflm_facts.linked_types import linked_kernel_types


@dataclass(frozen=True)
class UnusedOperator:
    """A registered operator that none of the models uses: removing its AddXxx() saves exclusive_bytes."""

    op: str
    registration: str
    exclusive_bytes: int


@dataclass(frozen=True)
class MissingOperator:
    """An op some model needs that the firmware does not register."""

    op: ModelOp
    models: tuple[str, ...]
    judgement: Judgement | None = None  # whether the linked TFLM has op.method (None: not judged)


@dataclass(frozen=True)
class UsedOperator:
    op: str  # firmware op name, e.g. "CONV_2D_INT8"
    registration: str
    models: tuple[str, ...]


@dataclass(frozen=True)
class ModelCost:
    """One model's share of an all-ops firmware, predicted from it."""

    model: str
    registrations: tuple[str, ...]  # the firmware's registrations serving its ops
    firmware_bytes: int  # predicted ROM with exactly these registrations
    on_top_of_runtime: int  # firmware_bytes minus the predicted ROM with no operator registered
    only_ops: tuple[str, ...]  # registrations no other given model needs
    adds_to_others: int  # predicted ROM for all the models minus that for all the others
    missing: tuple[str, ...] = ()  # ops it needs that the firmware lacks: the prediction has no code for them
    may_be_high_by: int = 0  # firmware_bytes may be up to this much too high (operator_sets.SetCost.may_be_high_by)
    may_be_low_by: int = 0  # and this much too low (SetCost.may_be_low_by: inlining folds less than counted)
    inline_bytes: int = 0  # registration machinery left with one call, which inlining can remove (SetCost.inline_bytes)
    inlined: tuple[str, ...] = ()  # the names of those functions


@dataclass(frozen=True)
class ModelSets:
    """The set answers for the models together."""

    unused: SetCost  # dropping every registration no model uses
    rom: int  # the ROM total now (from the report)
    no_operators_rom: int  # predicted ROM with no operator registered: the runtime
    models: tuple[ModelCost, ...]
    ram_image: bool = False  # the image loads whole into RAM: `rom` is what it stores, it has no ROM

    @property
    def predicted_rom(self) -> int:
        """Firmware with exactly the ops the models use."""
        return self.rom - self.unused.saving


@dataclass(frozen=True)
class TypeProblem:
    """Operators of one model whose tensor types the firmware cannot run: TFLM's kernels refuse them, or the
    firmware registers only a type-reduced kernel that does not take them."""

    model: str
    op: str
    subgraph: int
    operators: tuple[int, ...]  # indices within the subgraph
    types: str  # e.g. "float32×int8→float32"
    reason: str
    message: str  # the whole one-line explanation (model, op, subgraph, operators, types, why)


@dataclass(frozen=True)
class VariantSuggestion:
    """A generic registration every model could do with a type-reduced one (AddConv2D(Register_CONV_2D_INT8()))."""

    op: str  # the registered generic op, e.g. "CONV_2D"
    method: str  # the resolver method both go through, e.g. "AddConv2D"
    variant: str  # e.g. "CONV_2D_INT8"
    function: str  # e.g. "tflite::Register_CONV_2D_INT8"
    header: str  # the TFLM header that declares it
    reason: str  # e.g. "every use is int8×int8→int8"
    implemented_by: tuple[str, ...]  # kernel sets with their own code for it; elsewhere it is the generic kernel
    saving: int | None = None  # when this firmware links the variant too: what dropping the generic one saves
    judgement: Judgement | None = None  # whether the linked TFLM has the method taking it and the variant

    @property
    def call(self) -> str:
        """The registration with the variant, e.g. AddConv2D(tflite::Register_CONV_2D_INT8())."""
        return f"{self.method}({self.function}())"


@dataclass
class ModelCrosscheck:
    models: list[str]  # the model paths as given
    used: list[UsedOperator]
    unused: list[UnusedOperator]  # largest saving first
    missing: list[MissingOperator]  # sorted by kind, then name
    sets: ModelSets | None = None  # set answers, when the operator graph was given
    type_problems: list[TypeProblem] = field(default_factory=list)  # uses the firmware's kernels cannot run
    variants: list[VariantSuggestion] = field(default_factory=list)  # generic registrations a variant could replace
    not_offered: list[VariantSuggestion] = field(default_factory=list)  # variants the linked TFLM lacks: not suggested

    @property
    def unused_bytes(self) -> int:
        """Sum of the unused operators' exclusive bytes: what removing each alone saves, added up. Code shared only
        among them is nobody's exclusive bytes, so dropping them together saves more (sets.unused)."""
        return sum(u.exclusive_bytes for u in self.unused)

    @property
    def passed(self) -> bool:
        return not self.missing and not self.type_problems


def model_references(arguments: list[str]) -> list[str]:
    """The models named on the command line as references the readers take: a .tflite stays as it is, a C/C++ file
    becomes one `file.cc:ARRAY` per model array in it (tflm_model.model_sources); SizeToolError when one has none."""
    from tflm_model.errors import ModelError
    from tflm_model.model_sources import expand_model_arguments

    try:
        return expand_model_arguments(arguments)
    except ModelError as error:
        raise SizeToolError(str(error)) from None


def read_model_ops(path: str) -> list[ModelOp]:
    """The ops one .tflite model uses (every subgraph), in gen-resolver's order; SizeToolError on a bad file."""
    from tflm_model.errors import ModelError
    from tflm_model.operator_uses import read_model_uses

    try:
        uses = read_model_uses(path, hash_in_background=False)
    except ModelError as error:
        raise SizeToolError(str(error)) from None
    return [model_op(use.key.kind, use.key.name) for use in uses.ops]


def crosscheck_models(table: OperatorTable, model_paths: list[str], firmware: str = "the firmware",
                      operator_graph: OperatorGraph | None = None, offer=None) -> ModelCrosscheck:
    """Registered operators no model uses, and model ops the firmware lacks. `firmware` names the ELF in errors.
    With the firmware's operator graph, also the set answers (ModelSets): one graph walk per question. With `offer`
    (a TflmOffer, or a function returning one, called only when there is something to suggest), each suggestion is
    judged against the linked TFLM (tflm_offer.py)."""
    if not model_paths:
        raise SizeToolError("no models given to check the firmware against")
    if not table.operators:
        raise SizeToolError(
            f"{firmware}: no TFLM operator registrations found (stripped, or not a TFLM firmware), so the models "
            "cannot be checked against it"
        )
    needed: dict[tuple[str, str], tuple[ModelOp, list[str]]] = {}
    for path in model_paths:
        for op in read_model_ops(path):
            entry = needed.setdefault((op.kind, op.name), (op, []))
            if path not in entry[1]:
                entry[1].append(path)

    users: dict[str, list[str]] = {o.op: [] for o in table.operators}
    missing = []
    for key in sorted(needed):
        op, models = needed[key]
        satisfied_by = [name for name in users if op.is_registered_by(name)]
        if not satisfied_by:
            missing.append(MissingOperator(op, tuple(models)))
        for name in satisfied_by:
            users[name].extend(models)

    def in_given_order(models: list[str]) -> tuple[str, ...]:
        return tuple(sorted(set(models), key=model_paths.index))

    used, unused = [], []
    for o in table.operators:
        if users[o.op]:
            used.append(UsedOperator(o.op, o.registration, in_given_order(users[o.op])))
        else:
            unused.append(UnusedOperator(o.op, o.registration, o.exclusive_bytes))
    used.sort(key=lambda u: (u.op, u.registration))
    unused.sort(key=lambda u: (-u.exclusive_bytes, u.op, u.registration))
    result = ModelCrosscheck(list(model_paths), used, unused, missing)
    linked = None
    if operator_graph is not None and operator_graph.graph.decoded:
        linked = linked_kernel_types(n.name for n in operator_graph.graph.nodes if n.kind == "func")
    result.type_problems = type_problems(list(users), model_paths, linked)
    result.variants = variant_suggestions(table, used, model_paths, operator_graph)
    if offer is not None and (result.variants or result.missing):
        judge_suggestions(result, offer() if callable(offer) else offer)
    if operator_graph is not None and operator_graph.graph.decoded:
        result.sets = model_sets(result, operator_graph, table.total_rom, table.ram_image)
    return result


def judge_suggestions(crosscheck: ModelCrosscheck, offer: TflmOffer) -> None:
    """Judge each suggestion against the linked TFLM: variants it lacks move to not_offered."""
    from dataclasses import replace

    crosscheck.missing = [replace(m, judgement=judge_method(offer, m.op.method)) for m in crosscheck.missing]
    judged = [replace(v, judgement=judge_variant(offer, v.method, v.function)) for v in crosscheck.variants]
    crosscheck.variants = [v for v in judged if v.judgement.availability != NO]
    crosscheck.not_offered = [v for v in judged if v.judgement.availability == NO]


def model_sets(crosscheck: ModelCrosscheck, operator_graph: OperatorGraph, rom: int, ram_image: bool = False) -> ModelSets:
    """What dropping the unused registrations saves together, and each model's share (several set questions)."""

    registered = {o.op for o in operator_graph.operators}
    unused = set_cost(operator_graph, {u.op for u in crosscheck.unused})
    no_operators = rom - set_cost(operator_graph, registered).saving
    serving = {path: {u.op for u in crosscheck.used if path in u.models} for path in crosscheck.models}
    all_models = rom - unused.saving
    costs = []
    for path in crosscheck.models:
        others = set().union(*(ops for other, ops in serving.items() if other != path))
        kept = keep_only(operator_graph, serving[path])
        firmware = rom - kept.saving
        without = rom - keep_only(operator_graph, others).saving
        costs.append(ModelCost(
            model=path,
            registrations=tuple(sorted(serving[path])),
            firmware_bytes=firmware,
            on_top_of_runtime=firmware - no_operators,
            only_ops=tuple(sorted(serving[path] - others)),
            adds_to_others=all_models - without,
            missing=tuple(m.op.name for m in crosscheck.missing if path in m.models),
            may_be_high_by=kept.may_be_high_by,
            may_be_low_by=kept.may_be_low_by,
            inline_bytes=kept.inline_bytes,
            inlined=kept.inlined,
        ))
    return ModelSets(unused, rom, no_operators, tuple(costs), ram_image)


def serving_registrations(model_path: str, registered: list[str]) -> tuple[list[str], list[str]]:
    """The registrations (op names as in the operator table) that serve a model's ops, and the ops none serves."""
    serving: set[str] = set()
    missing: list[str] = []
    for op in read_model_ops(model_path):
        providers = [name for name in registered if op.is_registered_by(name)]
        if not providers:
            missing.append(op.name)
        serving.update(providers)
    return sorted(serving), missing


def model_firmware(operator_graph: OperatorGraph, rom: int, model_path: str) -> tuple[int, tuple[str, ...],
                                                                                     tuple[str, ...]]:
    """(predicted ROM, registrations kept, ops missing) of the firmware with exactly a model's ops, from the
    operator graph of an all-ops build whose ROM total is `rom`."""

    registered = sorted(o.op for o in operator_graph.operators)
    serving, missing = serving_registrations(model_path, registered)
    return rom - keep_only(operator_graph, serving).saving, tuple(serving), tuple(missing)


def _model_call(function, *arguments):
    """A tflm_model API call with its error turned into this package's one-line error."""
    from tflm_model.errors import ModelError

    try:
        return function(*arguments)
    except ModelError as error:
        raise SizeToolError(str(error)) from None


def type_problems(registered: list[str], model_paths: list[str], linked: dict | None = None) -> list[TypeProblem]:
    """Uses whose tensor types TFLM refuses (gen-resolver's rule; `linked`: the types the firmware's own kernels
    take, tflm_facts.linked_types, which are not refused), then uses that a registered type-reduced kernel
    cannot run when the firmware does not also register the generic one for the op (TFLM finds only the variant)."""
    from tflm_model.type_support import type_rejections, variant_misfits

    rejections = list(_model_call(type_rejections, model_paths, linked))
    names = set(registered)
    for variant in KERNEL_VARIANTS:
        if variant.name in names and _firmware_name(variant.kind, variant.op) not in names:
            rejections += _model_call(variant_misfits, model_paths, variant.name)
    return [TypeProblem(r.model, r.op, r.subgraph, r.operators, r.types, r.reason, r.message()) for r in rejections]


def variant_suggestions(table: OperatorTable, used: list[UsedOperator], model_paths: list[str],
                        operator_graph: OperatorGraph | None) -> list[VariantSuggestion]:
    """For each registered generic op the models use: the type-reduced registration every model allows, if one does.
    When the firmware links that variant too, the saving is what dropping the generic registration saves, less its
    AddXxx() call, which stays (with the variant as its argument): within 6 B of four rebuilds where the call was
    counted too and the figures were 14 to 24 B high (tests/data/advice_truth.csv)."""
    from tflm_model.type_support import variant_choices

    used_ops = {u.op for u in used}
    registered = {o.op for o in table.operators}
    choices = _model_call(variant_choices, model_paths)
    suggestions = []
    for model_name, choice in sorted(choices.items()):
        op = choice.variant and _firmware_name(choice.variant.kind, model_name)
        if op is None or op not in used_ops:
            continue
        saving = None
        if choice.variant.name in registered and operator_graph is not None and operator_graph.graph.decoded:
            cost = set_cost(operator_graph, {op})
            saving = cost.saving - cost.call_site_bytes  # the AddXxx() call stays, naming the variant
        variant = choice.variant
        suggestions.append(VariantSuggestion(op, model_op(variant.kind, model_name).method, variant.name, variant.function, variant.header, choice.reason,
                                             variant.implemented_by, saving))
    return suggestions


def _firmware_name(kind: str, name: str) -> str:
    """The operator-table name of the generic registration of a model op: CONV_2D, or RFFT for SignalRfft."""
    return model_op(kind, name).registration[len(REGISTER_PREFIX):]


def variant_note(suggestion: VariantSuggestion) -> str:
    """What replacing the generic registration does in this firmware, as a sentence."""
    if suggestion.saving is not None:
        return f"saves {suggestion.saving} bytes here (the variant is already linked)"
    if suggestion.implemented_by == ("all",):
        return "saves flash with every kernel set"
    kernels = ", ".join(k for k in suggestion.implemented_by if k != "all")
    return f"saves flash with {kernels} kernels; with reference or esp_nn kernels it is the generic kernel"
