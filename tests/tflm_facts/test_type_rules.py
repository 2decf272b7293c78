"""TFLM's type facts: the pattern notation, the consistency of the tables, and the variant table against TFLM's own
kernel headers (when a TFLM checkout is beside the repo, or named by $TFLM_DIR)."""

import itertools
import os
import re
from pathlib import Path

import pytest

from tflm_facts.registry import BUILTIN_OPS, TFLM_CUSTOM_OPS
from tflm_facts.type_rules import (
    ABSENT, CUSTOM_OP_TYPES, KERNEL_VARIANTS, OP_TYPES, TENSOR_TYPE_CODES, VARIANTS_BY_OP, TypePattern, type_name,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
TFLM_DIR = Path(os.environ.get("TFLM_DIR", REPO_ROOT.parent / "ext" / "tflm"))
T = TENSOR_TYPE_CODES


def codes(*names):
    return tuple(ABSENT if n == "-" else T[n] for n in names)


@pytest.mark.parametrize("pattern, inputs, outputs, expected", [
    ("int8 int8|int4 -> int8", ("int8", "int4"), ("int8",), True),
    ("int8 int8|int4 -> int8", ("int8", "int16"), ("int8",), False),
    ("int8 int8|int4 -> int8", ("int8", "int8"), ("int16",), False),
    ("int8 int8 -> int8", ("int8", "int8", "int32"), ("int8",), True),  # tensors past the tokens are not checked
    ("int8 int8 -> int8", ("int8",), ("int8",), False),  # a required input is missing
    ("int16 int8 int32|int64|- -> int16", ("int16", "int8"), ("int16",), True),  # "-": an omitted optional input
    ("int16 int8 int32|int64|- -> int16", ("int16", "int8", "-"), ("int16",), True),
    ("int16 int8 int32|int64|- -> int16", ("int16", "int8", "int8"), ("int16",), False),
    ("* * -> float32", ("uint8", "-"), ("float32",), True),
    ("T * -> T", ("uint8", "int32"), ("uint8",), True),  # a variable: any type, the same everywhere
    ("T * -> T", ("uint8", "int32"), ("int8",), False),
    ("T * -> T", ("-", "int32"), ("int8",), False),
    ("int8... -> int8", ("int8", "int8", "int8"), ("int8",), True),  # repeated over the remaining tensors
    ("int8... -> int8", ("int8", "int8", "int16"), ("int8",), False),
    ("bool", ("bool", "float32"), ("int64",), True),  # no arrow: outputs unchecked
    ("bool", ("int8",), (), False),
])
def test_pattern_notation(pattern, inputs, outputs, expected):
    assert TypePattern(pattern).matches(codes(*inputs), codes(*outputs)) is expected


@pytest.mark.parametrize("pattern, problem", [
    ("int9 -> int8", "unknown type 'int9'"), ("int8... int8 -> int8", "only the last token may repeat"),
    ("int8 | int8", "bad token"), ("Tx -> int8", "bad token"),
])
def test_bad_patterns_are_refused(pattern, problem):
    with pytest.raises(ValueError, match=re.escape(problem)):
        TypePattern(pattern).matches((), ())


def test_display_shows_the_dispatch_inputs():
    assert TypePattern("int16 int8 int32|int64|- -> int16").display((0, 1)) == "int16×int8→int16"
    assert TypePattern("* float32 float32 -> float32").display((2, 1)) == "float32×float32→float32"
    assert TypePattern("int8... -> int8").display() == "int8…→int8"
    assert TypePattern("* * -> int8").display() == "any×any→int8"
    assert type_name(T["int4"]) == "int4" and type_name(ABSENT) == "-" and type_name(99) == "type 99"


def test_every_op_tflm_runs_has_a_type_rule_and_no_other_op_does():
    with_kernel = {name for name, (_code, method) in BUILTIN_OPS.items() if method}
    assert set(OP_TYPES) == with_kernel
    assert set(CUSTOM_OP_TYPES) <= set(TFLM_CUSTOM_OPS)
    for rule in list(OP_TYPES.values()) + list(CUSTOM_OP_TYPES.values()):
        for pattern in rule.accepts or ():
            pattern.matches((), ())  # parses


def _examples(pattern: TypePattern):
    """Concrete (inputs, outputs) the pattern matches: every combination of its listed types ("*" and variables
    stand for int32, or absent)."""
    sides = []
    for side in pattern.text.partition("->")[::2]:
        choices = []
        for word in side.split():
            word = word.removesuffix("...")
            if word == "*" or (len(word) == 1 and word.isupper()):
                choices.append((T["int32"],) if word != "*" else (T["int32"], ABSENT))
            else:
                choices.append(tuple(ABSENT if n == "-" else T[n] for n in word.split("|")))
        sides.append(list(itertools.product(*choices)))
    return [(i, o) for i in sides[0] for o in sides[1]]


@pytest.mark.parametrize("variant", KERNEL_VARIANTS, ids=lambda v: v.name)
def test_each_variant_runs_only_what_its_op_accepts(variant):
    rule = (OP_TYPES if variant.kind == "builtin" else CUSTOM_OP_TYPES)[variant.op]
    examples = _examples(variant.accepts)
    assert examples
    for inputs, outputs in examples:
        assert any(p.matches(inputs, outputs) for p in rule.accepts), (inputs, outputs)


def test_automatic_variants_of_an_op_never_overlap():
    for (kind, op), variants in VARIANTS_BY_OP.items():
        automatic = [v for v in variants if v.automatic]
        for a, b in itertools.combinations(automatic, 2):
            assert not any(b.accepts.matches(i, o) for i, o in _examples(a.accepts)), (a.name, b.name)


def test_variant_table_shape():
    names = [v.name for v in KERNEL_VARIANTS]
    assert len(names) == len(set(names)) == 36
    assert [v.name for v in KERNEL_VARIANTS if not v.automatic] == ["CONV_2D_INT8REF"]
    for variant in KERNEL_VARIANTS:
        assert variant.name.startswith(variant.op if variant.kind == "builtin" else variant.name.split("_")[0])
        method = BUILTIN_OPS[variant.op][1] if variant.kind == "builtin" else TFLM_CUSTOM_OPS[variant.op]
        assert method, variant.name
    conv = next(v for v in KERNEL_VARIANTS if v.name == "CONV_2D_INT8")
    assert conv.function == "tflite::Register_CONV_2D_INT8" and not conv.everywhere
    rfft = next(v for v in KERNEL_VARIANTS if v.name == "RFFT_INT16")
    assert rfft.function == "tflite::tflm_signal::Register_RFFT_INT16" and rfft.pointer and rfft.everywhere


# --- against TFLM's sources ---------------------------------------------------------------------------------------

_DECLARATION = re.compile(r"^\s*(inline\s+)?TFLMRegistration(\*?)\s+(Register_\w+)\(\)")
_VARIANT_NAME = re.compile(r"Register_(\w+?)((?:_(?:INT\d+REF|INT\d+|FLOAT))+)$")


def _declared_variants(header: Path) -> dict[str, tuple[tuple[str, ...], bool]]:
    """Register_<OP>_<TYPES>() declared in one header: name -> (kernel sets whose #if declares it, returns a
    pointer). Declared outside any #if defined(...): ("all",)."""
    found: dict[str, tuple[tuple[str, ...], bool]] = {}
    stack: list[tuple[tuple[str, ...] | None, bool]] = []  # (defined(...) names or None, in the #else branch)
    for line in header.read_text().splitlines():
        directive = line.strip()
        if directive.startswith("#if"):
            names = tuple(sorted(n.lower() for n in re.findall(r"defined\((\w+)\)", directive)))
            if directive.startswith("#ifdef"):
                names = (directive.split()[1].lower(),)
            if directive.startswith("#ifndef"):
                names = None  # include guards
            stack.append((names or None, False))
        elif directive.startswith("#else") and stack:
            stack[-1] = (stack[-1][0], True)
        elif directive.startswith("#endif") and stack:
            stack.pop()
        match = _DECLARATION.match(line)
        if not match or not _VARIANT_NAME.match(match.group(3)) or match.group(1):
            continue  # inline fallbacks are the #else branch of a declaration
        guards = [names for names, in_else in stack if names and not in_else]
        found[match.group(3)[len("Register_"):]] = (guards[-1] if guards else ("all",), bool(match.group(2)))
    return found


@pytest.fixture
def tflm_dir():
    if not (TFLM_DIR / "tensorflow" / "lite" / "micro" / "kernels").is_dir():
        pytest.skip(f"{TFLM_DIR} is not a tflite-micro checkout (set TFLM_DIR to check the tables against one)")
    return TFLM_DIR


def test_variant_table_matches_tflm_kernel_headers(tflm_dir):
    declared = {}
    for folder in ("tensorflow/lite/micro/kernels", "signal/micro/kernels"):
        for header in sorted((tflm_dir / folder).glob("*.h")):
            for name, (kernel_sets, pointer) in _declared_variants(header).items():
                declared[name] = (str(header.relative_to(tflm_dir)), kernel_sets, pointer)
    ours = {v.name: (v.header, v.implemented_by, v.pointer) for v in KERNEL_VARIANTS}
    assert ours == declared


def test_every_variant_goes_through_its_ops_add_method(tflm_dir):
    """Each Add<Op>() takes a registration whose default is the op's generic one: a variant is passed the same way
    (by reference, or by pointer for the Signal library)."""
    resolver = (tflm_dir / "tensorflow/lite/micro/micro_mutable_op_resolver.h").read_text()
    for variant in KERNEL_VARIANTS:
        method = BUILTIN_OPS[variant.op][1] if variant.kind == "builtin" else TFLM_CUSTOM_OPS[variant.op]
        generic = variant.name.split("_INT")[0].split("_FLOAT")[0]
        reference = "*" if variant.pointer else "&"
        signature = re.search(rf"TfLiteStatus {method}\(\s*const TFLMRegistration(\*|&) registration\s*=\s*"
                              rf"(?:[\w:]+::)?Register_(\w+)\(\)", resolver)
        assert signature, method
        assert signature.group(1) == reference and signature.group(2) == generic, variant.name


# --- docs/gen-resolver.md shows these tables as they are --------------------------------------------------------------

def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def accepted_types_table() -> str:
    from tflm_model.operator_uses import OpKey
    from tflm_model.type_support import accepted_signatures

    rows = ["| op | TFLM's reference kernel takes |", "|---|---|"]
    for kind, table in (("builtin", OP_TYPES), ("custom", CUSTOM_OP_TYPES)):
        for name in sorted(table):
            rule = table[name]
            takes = ", ".join(accepted_signatures(OpKey(kind, name))) or "(checks no type)"
            if rule.cmsis_nn:
                takes += f" (CMSIS-NN {rule.cmsis_nn})"
            rows.append(f"| {name} | {_cell(takes)} |")
    return "\n".join(rows) + "\n"


def variants_table() -> str:
    rows = ["| registration | runs | own code with | header |", "|---|---|---|---|"]
    for variant in sorted(KERNEL_VARIANTS, key=lambda v: v.name):
        rule = (OP_TYPES if variant.kind == "builtin" else CUSTOM_OP_TYPES)[variant.op]
        runs = variant.accepts.display(rule.shown_inputs)
        where = "every build" if variant.everywhere else ", ".join(variant.implemented_by)
        note = "" if variant.automatic else " (never chosen)"
        rows.append(f"| `{variant.function}()`{note} | {_cell(runs)} | {where} | `{variant.header}` |")
    return "\n".join(rows) + "\n"


def test_docs_show_the_tables_as_they_are():
    docs = (REPO_ROOT / "docs" / "gen-resolver.md").read_text()
    assert accepted_types_table() in docs
    assert variants_table() in docs
