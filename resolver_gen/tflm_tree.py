"""The user's TFLM tree (gen-resolver --tflm DIR): which resolver methods and registrations it declares, and which
revision it is, so that the header calls only what that tree has.

Read with a small tolerant parser, not a C++ front end: comments are dropped, then
- tensorflow/lite/micro/micro_mutable_op_resolver.h: every `TfLiteStatus AddXxx(...)` method, and whether it takes a
  registration (`const TFLMRegistration& registration = Register_X()`; older trees: TfLiteRegistration), which a
  type-reduced call (`AddConv2D(Register_CONV_2D_INT8())`) needs;
- the registration declarations: tensorflow/lite/micro/kernels/micro_ops.h and every kernel header
  (tensorflow/lite/micro/kernels/*.h, signal/micro/kernels/*.h): each `Register_XXX(` with the header declaring it.
The tree's revision: `git describe` when DIR is in a git work tree, and the fingerprint of its headers looked up in
tflm_facts.tree_revisions (a vendored copy has no git). DIR may be the folder holding tensorflow/ or a project that
keeps it in src/ (pico-tflmicro, Arduino libraries).
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from dataclasses import dataclass, field, replace
from pathlib import Path

from resolver_gen.errors import ResolverGenError
from tflm_model.plan import ResolverPlan
from tflm_model.type_support import VariantChoice
from tflm_facts.allocator_generations import CURRENT, from_tree_files
from tflm_facts.tree_revisions import FINGERPRINT_FILES, KNOWN_REVISIONS, RESOLVER_HEADER

# Where a project keeps the folder holding tensorflow/ (tried in order under DIR).
_ROOTS = ("", "src", "tflite-micro", "components/tflite-lib", "third_party/tflite-micro")
_KERNEL_HEADER_DIRS = ("tensorflow/lite/micro/kernels", "signal/micro/kernels")
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_METHOD = re.compile(r"\bTfLiteStatus\s+(Add[A-Za-z0-9_]*)\s*\(")
_REGISTRATION = re.compile(r"\b(?:TFLMRegistration|TfLiteRegistration\w*)\s*\*?\s*&?\s*(Register_[A-Za-z0-9_]+)\s*\(")


@dataclass(frozen=True)
class TreeRevision:
    git: str | None  # `git describe --always --tags --dirty` of the work tree holding DIR
    known: str | None  # the known revision the fingerprint matches (tflm_facts.tree_revisions)
    fingerprint: str

    def describe(self) -> str:
        parts = []
        if self.known:
            parts.append(self.known)
        if self.git:
            parts.append(f"git {self.git}")
        if not parts:
            return f"unknown revision (fingerprint {self.fingerprint[:16]})"
        return ", ".join(parts)


@dataclass(frozen=True)
class TflmTree:
    """What one TFLM tree declares (paths relative to the folder holding tensorflow/)."""

    resolver_header: str
    methods: dict[str, bool]  # Add<Op> -> whether it takes a registration argument
    registrations: dict[str, tuple[str, ...]] = field(default_factory=dict)  # Register_X -> headers declaring it
    revision: TreeRevision = TreeRevision(None, None, "")
    location: str = ""  # the folder holding tensorflow/, relative to DIR ("" or "src/")
    generation: object = CURRENT  # its allocator generation (tflm_facts.allocator_generations); None: not told

    def declares(self, function: str, header: str) -> bool:
        """Whether `function` (Register_X, namespace dropped) is declared in `header` of this tree."""
        return header in self.registrations.get(function, ())


def _read(path: Path) -> str:
    try:
        return _COMMENTS.sub(" ", path.read_bytes().decode("utf-8", errors="replace"))
    except OSError as error:
        raise ResolverGenError(f"{path}: cannot read ({error.strerror or error})") from None


def _parameters(text: str, start: int) -> str:
    """The text between the parenthesis at start-1 and its match (default arguments hold parentheses too)."""
    depth, index = 1, start
    while index < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        index += 1
    return text[start:index - 1]


def parse_methods(text: str) -> dict[str, bool]:
    """Add<Op> methods of micro_mutable_op_resolver.h's text -> whether each takes a registration."""
    text = _COMMENTS.sub(" ", text)
    methods: dict[str, bool] = {}
    for match in _METHOD.finditer(text):
        parameters = _parameters(text, match.end())
        takes = bool(re.search(r"\b(?:TFLMRegistration|TfLiteRegistration\w*)\b", parameters))
        methods[match.group(1)] = methods.get(match.group(1), False) or takes
    return methods


def parse_registrations(text: str) -> list[str]:
    """The Register_X functions a header's text declares (or defines inline)."""
    return list(dict.fromkeys(m.group(1) for m in _REGISTRATION.finditer(_COMMENTS.sub(" ", text))))


def find_root(directory: Path) -> Path:
    if not directory.is_dir():
        raise ResolverGenError(f"--tflm {directory}: not a directory")
    for sub in _ROOTS:
        root = directory / sub if sub else directory
        if (root / RESOLVER_HEADER).is_file():
            return root
    raise ResolverGenError(f"--tflm {directory}: no {RESOLVER_HEADER} in it (nor under "
                           f"{', '.join(s + '/' for s in _ROOTS if s)})")


def fingerprint(root: Path) -> str:
    lines = []
    for relative in sorted(FINGERPRINT_FILES):
        path = root / relative
        if path.is_file():
            data = path.read_bytes().replace(b"\r\n", b"\n")
            lines.append(f"{relative} {hashlib.sha256(data).hexdigest()}\n")
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def git_revision(directory: Path) -> str | None:
    """`git describe --always --tags --dirty` when directory is inside a git work tree (None otherwise or without
    git)."""
    try:
        result = subprocess.run(["git", "-C", str(directory), "describe", "--always", "--tags", "--dirty"],
                                capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    text = result.stdout.strip()
    return text if result.returncode == 0 and re.fullmatch(r"[\w.+/-]{1,200}", text) else None


def read_tflm_tree(directory: str | Path) -> TflmTree:
    """Read a TFLM tree's resolver methods, registration declarations and revision; ResolverGenError if DIR holds
    no TFLM or its resolver header declares no method."""
    root = find_root(Path(directory))
    methods = parse_methods(_read(root / RESOLVER_HEADER))
    if not methods:
        raise ResolverGenError(f"{root / RESOLVER_HEADER}: no TfLiteStatus Add...() method found: not a TFLM "
                               "MicroMutableOpResolver header")
    registrations: dict[str, tuple[str, ...]] = {}
    headers = [root / RESOLVER_HEADER]
    for sub in _KERNEL_HEADER_DIRS:
        if (root / sub).is_dir():
            headers += sorted((root / sub).glob("*.h"))
    for path in headers:
        relative = path.relative_to(root).as_posix()
        for function in parse_registrations(_read(path)):
            registrations[function] = registrations.get(function, ()) + (relative,)
    print_fingerprint = fingerprint(root)
    revision = TreeRevision(git_revision(root), KNOWN_REVISIONS.get(print_fingerprint), print_fingerprint)
    location = root.relative_to(Path(directory)).as_posix()
    micro = root / "tensorflow" / "lite" / "micro"
    generation = from_tree_files(lambda path: (micro / path).is_file(), _read_optional(micro / "micro_allocator.h"))
    return TflmTree(RESOLVER_HEADER, methods, registrations, revision, "" if location == "." else location + "/",
                    generation)


def _read_optional(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def restrict_to_tree(plan: ResolverPlan, tree: TflmTree) -> ResolverPlan:
    """The plan as this tree can build it: an op whose Add<Op>() method the tree lacks becomes unsupported (its
    reason names the method and the file), and a type-reduced registration the tree does not declare in the variant's
    header (or whose method takes no registration) falls back to the generic call, with the reason."""
    header = tree.location + tree.resolver_header
    ops = []
    for op in plan.ops:
        method = op.registration.method
        if op.registration.supported and method and method not in tree.methods:
            reason = f"this TFLM tree ({tree.revision.describe()}) has no {method}() in {header}"
            op = replace(op, registration=replace(op.registration, method=None, unsupported_reason=reason),
                         variant=None)
        elif op.variant is not None and op.variant.variant is not None:
            variant = op.variant.variant
            function = variant.function.rpartition("::")[2]
            if not tree.methods.get(method or "", False):
                why = f"{method}() in {header} takes no registration"
            elif not tree.declares(function, variant.header):
                why = f"this TFLM tree declares no {function}() in {tree.location + variant.header}"
            else:
                why = ""
            if why:
                op = replace(op, variant=VariantChoice(op.variant.op, None, f"{why} ({variant.name} not used)"))
        ops.append(op)
    return replace(plan, ops=ops)
