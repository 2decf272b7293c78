"""Which ops a model uses: typed records built from the raw operator table of tflite_reader.

Rules (the TFLite schema's and TFLM's):
- builtin code = max(builtin_code, deprecated_builtin_code); codes from 127 live only in builtin_code, old converters
  wrote only deprecated_builtin_code.
- code CUSTOM (32) is a custom op named by custom_code. An entry that carries a custom_code while both code fields are
  0 is also read as custom: a zero there is an unwritten field, not an ADD.
- an op counts only if some operator of some subgraph uses it (WHILE/IF/CALL_ONCE bodies are subgraphs too);
  operator_codes entries that no operator uses are ignored.
- each use keeps the tensor types of its operators (TensorTypes), grouped by subgraph, with the operator indices.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tflm_model.errors import ModelError
from tflm_model.model_source import ModelData
from tflm_model.tflite_reader import OperatorCodeEntry, OperatorTable, TensorTypes, read_operator_table
from tflm_facts.registry import CUSTOM_BUILTIN_CODE, builtin_name

TYPE_CHECKING = False  # typing's constant, which type checkers read alike, without importing typing (~3 ms)
if TYPE_CHECKING:  # hashing (hashlib, threading) is imported only by the runs that hash: --format json
    from tflm_model.digest import BackgroundDigest


@dataclass(frozen=True, order=True)
class OpKey:
    """Identity of an op across models: a builtin by enum name, or a custom op by its custom_code."""

    kind: str  # "builtin" or "custom"
    name: str


@dataclass
class OperatorUse:
    """One op a model uses, with the versions and use counts of each subgraph that uses it."""

    key: OpKey
    builtin_code: int | None  # None for a custom op
    uses: dict[tuple[int, int], int] = field(default_factory=dict)  # (subgraph, version) -> operator count
    # (subgraph, tensor types) -> indices, within the subgraph, of the operators with those types (ascending)
    typed: dict[tuple[int, TensorTypes], list[int]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.key.name

    @property
    def is_custom(self) -> bool:
        return self.key.kind == "custom"

    @property
    def versions(self) -> list[int]:
        return sorted({version for _sub, version in self.uses})

    @property
    def uses_per_subgraph(self) -> dict[int, int]:
        counts: dict[int, int] = {}
        for (sub, _version), count in sorted(self.uses.items()):
            counts[sub] = counts.get(sub, 0) + count
        return counts

    @property
    def versions_per_subgraph(self) -> dict[int, list[int]]:
        versions: dict[int, list[int]] = {}
        for sub, version in sorted(self.uses):
            versions.setdefault(sub, []).append(version)
        return versions

    @property
    def total_uses(self) -> int:
        return sum(self.uses.values())

    @property
    def tensor_types(self) -> list[TensorTypes]:
        """The distinct type combinations of this op's operators, in order of first appearance."""
        return list(dict.fromkeys(types for _sub, types in self.typed))


@dataclass
class ModelUses:
    """Everything gen-resolver learns from one model file; ops sorted by (kind, name)."""

    path: Path
    subgraph_count: int
    ops: list[OperatorUse]
    digest: BackgroundDigest | None = None
    _sha256: str | None = None
    kernel_types: dict | None = None  # the firmware's own kernel types, for a model read from a firmware (ModelData)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def sha256(self) -> str:
        if self._sha256 is None:
            from tflm_model.digest import BackgroundDigest

            self._sha256 = self.digest.hexdigest() if self.digest else BackgroundDigest(self.path).hexdigest()
        return self._sha256


def op_key(entry: OperatorCodeEntry, label: str, index: int) -> tuple[OpKey, int | None]:
    """The op an operator_codes entry names, and its builtin code (None for custom)."""
    code = max(entry.builtin_code, entry.deprecated_builtin_code)
    if code == CUSTOM_BUILTIN_CODE or (code == 0 and entry.custom_code is not None):
        if not entry.custom_code:
            raise ModelError(f"{label}: operator code {index} is CUSTOM but has no custom_code name")
        return OpKey("custom", entry.custom_code), None
    name = builtin_name(code)
    if name is None:
        raise ModelError(f"{label}: builtin operator code {code} (operator code {index}) is unknown: "
                               "newer than gen-resolver's table or corrupt")
    return OpKey("builtin", name), code


def operator_uses(table: OperatorTable) -> list[OperatorUse]:
    """Merge the used operator_codes entries of one model into one OperatorUse per op."""
    label = str(table.path)
    merged: dict[OpKey, OperatorUse] = {}
    keys = {}
    for (sub, index, types), operators in sorted(table.operators.items(), key=lambda item: (item[0][0], item[1][0])):
        entry = table.operator_codes[index]
        if index not in keys:
            keys[index] = op_key(entry, label, index)
        key, code = keys[index]
        use = merged.setdefault(key, OperatorUse(key, code))
        slot = (sub, entry.version)
        use.uses[slot] = use.uses.get(slot, 0) + len(operators)
        use.typed.setdefault((sub, types), []).extend(operators)
    for use in merged.values():
        for indices in use.typed.values():
            indices.sort()
        use.uses = dict(sorted(use.uses.items()))
    return [merged[key] for key in sorted(merged)]


def read_model_uses(source, hash_in_background: bool = True) -> ModelUses:
    """Scan one model (a path or a ModelData); a file's SHA-256 is computed on a background thread and awaited when
    first read, a ModelData's at once (its bytes are in memory)."""
    if isinstance(source, ModelData):
        table = read_operator_table(source)
        return ModelUses(table.path, table.subgraph_count, operator_uses(table), _sha256=source.sha256,
                         kernel_types=source.kernel_types)
    path = Path(source)
    # Hashing is the long pole: start it before the scan (a file that fails the scan ends the run anyway).
    digest = None
    if hash_in_background and path.is_file():
        from tflm_model.digest import BackgroundDigest

        digest = BackgroundDigest(path)
    table = read_operator_table(path)
    return ModelUses(table.path, table.subgraph_count, operator_uses(table), digest)
