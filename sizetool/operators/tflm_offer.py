"""What the user's TFLM offers: the resolver methods and registrations a suggestion may name (issue 40).

`size-report ops`, `fit` and the CMake models report suggest registrations: `AddTranspose()` for an op a model needs,
`AddSoftmax(tflite::Register_SOFTMAX_INT8())` where every model allows the type-reduced kernel. A TFLM fork of 2021
(Edge Impulse's) has neither that Register_SOFTMAX_INT8 nor an AddSoftmax() taking an argument, so such a suggestion
would not compile. Each suggestion is therefore judged against what is known of the linked TFLM:

- `--tflm DIR` (the tree the firmware is built from): resolver_gen.tflm_tree reads its resolver methods, whether each
  takes a registration, and every registration its kernel headers declare, so the answer is yes or no;
- otherwise the ELF: its DWARF lists the methods of the MicroMutableOpResolver it instantiates and their parameters
  (sizetool.inputs.dwarf_resolver_api), and the registrations some unit defines or calls; its symbols the
  registrations it links. A method taking `TFLMRegistration` dates the TFLM (2023-05-26 or later), whose headers
  declare every variant older than that (tflm_facts.variant_history). A registration seen there exists; one not
  seen may still exist, so that answer is yes, no (the method is absent or takes no registration) or unknown.

An unknown suggestion is still shown, saying it is not verified and how to verify it; a "no" is not suggested.
"""

from __future__ import annotations

from dataclasses import dataclass

from sizetool.errors import SizeToolError

YES, NO, UNKNOWN = "yes", "no", "unknown"


@dataclass(frozen=True)
class TflmOffer:
    source: str  # how it is known, for the notes: "the TFLM tree DIR (revision)", "the ELF's DWARF"
    methods: dict[str, bool] | None  # Add<Op> -> whether it takes a registration; None: not known
    registrations: frozenset[str]  # Register_X names (namespace dropped) known to exist
    registrations_complete: bool = False  # a registration not listed does not exist (a tree's headers)

    def has_registration(self, function: str) -> bool | None:
        if function in self.registrations:
            return True
        return False if self.registrations_complete else None


@dataclass(frozen=True)
class Judgement:
    availability: str  # YES, NO or UNKNOWN
    reason: str = ""  # why not, or what is not verified ("AddSoftmax() in this TFLM takes no registration")
    source: str = ""  # what it was judged from (TflmOffer.source)

    @property
    def note(self) -> str:
        return f"{self.reason} ({self.source})" if self.source else self.reason


_VERIFY = "--tflm DIR checks"


def offer_from_tree(directory: str) -> TflmOffer:
    """The offer of a TFLM tree (--tflm DIR); SizeToolError when DIR holds no TFLM."""
    from resolver_gen.errors import ResolverGenError
    from resolver_gen.tflm_tree import read_tflm_tree

    try:
        tree = read_tflm_tree(directory)
    except ResolverGenError as error:
        raise SizeToolError(str(error)) from None
    return TflmOffer(f"the TFLM tree {directory}, {tree.revision.describe()}", dict(tree.methods),
                     frozenset(tree.registrations), registrations_complete=True)


def offer_from_elf(elf: str, linked_ops: set[str], api=None) -> TflmOffer:
    """The offer the ELF shows: its DWARF's resolver methods and registrations (`api`, when the caller has read
    them: read_resolver_api), and the registrations it links (op names as in the operator table: "SOFTMAX_INT8")."""
    from sizetool.inputs.dwarf_resolver_api import read_resolver_api

    from tflm_facts.variant_history import DECLARED_BY_TFLM_REGISTRATION_ERA, REGISTRATION_TYPE, REGISTRATION_TYPE_SINCE

    if api is None:
        api = read_resolver_api(elf)
    known = api.registrations | frozenset("Register_" + op for op in linked_ops)
    source = "the firmware's DWARF" if api.has_dwarf else "the firmware's symbols (no DWARF: built without -g)"
    if REGISTRATION_TYPE in api.registration_types:
        # Its resolver takes TFLMRegistration: a TFLM of 2023-05-26 or later, which declares every older variant.
        known |= frozenset("Register_" + name for name in DECLARED_BY_TFLM_REGISTRATION_ERA)
        source += f", a TFLM at or after {REGISTRATION_TYPE_SINCE}"
    return TflmOffer(source, api.methods, known)


def judge_method(offer: TflmOffer | None, method: str) -> Judgement:
    """Whether the linked TFLM has the resolver method `method` (AddTranspose) an op needs."""
    if not method or method == "AddCustom":
        return Judgement(YES)
    if offer is None or offer.methods is None:
        return Judgement(UNKNOWN, f"unverified: {method}() is not shown; {_VERIFY}",
                         "" if offer is None else offer.source)
    if method not in offer.methods:
        return Judgement(NO, f"this TFLM has no {method}()", offer.source)
    return Judgement(YES, "", offer.source)


def judge_variant(offer: TflmOffer | None, method: str, function: str) -> Judgement:
    """Whether `method(function())` (AddSoftmax(tflite::Register_SOFTMAX_INT8())) compiles with the linked TFLM."""
    name = function.rpartition("::")[2]
    if offer is None:
        return Judgement(UNKNOWN, f"unverified: your TFLM may lack {name}() or a {method}() taking it; {_VERIFY}")
    source = offer.source
    if offer.methods is not None:
        if method not in offer.methods:
            return Judgement(NO, f"this TFLM has no {method}()", source)
        if not offer.methods[method]:
            return Judgement(NO, f"{method}() in this TFLM takes no registration", source)
    present = offer.has_registration(name)
    if present is False:
        return Judgement(NO, f"this TFLM declares no {name}()", source)
    if present and offer.methods is not None:
        return Judgement(YES, "", source)
    if present:  # linked or called, so it exists; the method's parameter is not shown
        return Judgement(UNKNOWN, f"unverified: {method}() may take no registration; {_VERIFY}", source)
    return Judgement(UNKNOWN, f"unverified: your TFLM may lack {name}(), which this firmware does not link; "
                              f"{_VERIFY}", source)
