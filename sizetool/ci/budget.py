"""Flash/RAM budgets: parse a size-budget.toml and check a report (and optionally a baseline) against it.

    [rom]
    total = "192K"            # or bytes: 196608
    max_growth = "1K"         # against --baseline; also "0.5%" of the baseline total
    [rom.paths]
    "kernels/**" = "40K"      # bytes under the matching paths of the tree
    [rom.path_growth]
    "kernels/**" = "512"      # growth of those paths against --baseline
    [rom.operators]
    CONV_2D = "8K"            # the operator's exclusive bytes (what removing its AddXxx() saves)
    [ram]
    total = "64K"             # ld's use of the RAM regions (with a CMSIS layout: the whole RAM)
    occupied = "48K"          # static data + reserved (heap, stack): RAM less its free bytes
    [regions]                 # with --map: a region's use, in bytes or % of its length
    FLASH = "95%"
    [models]                  # on an all-ops build: the firmware with exactly this model's ops, predicted
    "person_detect.tflite" = "96K"
    "keyword.tflite" = { flash = "96K", arena = "64K" }   # and the tensor arena it needs, estimated
    "firmware:g_model" = { arena = "64K" }                 # a model linked into the build, by its symbol
    [model]                   # the TFLite models linked into the firmware (found by size-report), all together
    flash = "320K"
    [stack]                   # worst-case stack depth from a root function (size-report ELF --stack ROOT)
    "main" = "4K"
    "tflite::MicroInterpreter::Invoke()" = "2K"

Unknown tables and keys are errors (a typo must not silently pass); every error names the file and line.
An operator named in [rom.operators] that the firmware does not register passes with actual 0 and a note saying so
(a misspelt op name shows up there). Operator rules need the report's operator table (operator_records.OperatorTable).
Model paths are relative to the budget file; model rules need each model's predicted firmware (ModelFirmware), which
the caller computes from the ELF (sizetool.operators.model_crosscheck.model_firmware). A model needing an op the build
does not register fails: its firmware cannot be predicted from that build. A model's table form may give `flash`,
`arena` or both; an arena rule needs the model's estimated tensor arena (ModelArena, for the build's kernel set and
pointer size: sizetool.fit.model_fit). Stack rules need each root's worst-case
depth (StackDepth), computed from the ELF (sizetool.stack.stack_depth); a depth that is only a lower bound (an
unresolved indirect call, recursion, a dynamic frame) passes or fails on its figure, with a note saying so.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import dataclass

from sizetool.errors import SizeToolError
from sizetool.inputs.input_files import read_input
from sizetool.report.ram_use import ram_use
from sizetool.report.report_model import SizeReport
from sizetool.sizes import parse_size

MEMORY_KEYS = {"total", "max_growth", "paths", "path_growth", "operators", "occupied"}
MODEL_KEYS = ("flash", "arena")
FIRMWARE_MODEL = "firmware:"  # a [models] key naming a model linked into the build by its symbol
RAM_OPERATORS = "per-operator budgets are flash budgets: put them in [rom.operators]"


@dataclass(frozen=True)
class Limit:
    """A limit as written: bytes, or a percentage of some reference (the baseline total, a region's length)."""

    text: str
    bytes: int | None = None
    percent: float | None = None

    def resolve(self, reference: int) -> int:
        return self.bytes if self.bytes is not None else int(reference * self.percent / 100.0)


@dataclass(frozen=True)
class Rule:
    name: str  # e.g. "rom.total", "rom.paths[kernels/**]", "regions.FLASH"
    memory: str
    kind: str  # "total", "growth", "path", "path_growth", "region", "operator"
    limit: Limit
    pattern: str = ""
    line: int = 0


@dataclass(frozen=True)
class RuleResult:
    rule: Rule
    limit: int
    actual: int
    note: str = ""  # e.g. why an operator rule passes with 0 bytes
    fails: bool = False  # fails whatever the figures say (a model needs ops the build lacks)
    reason: str = ""  # why it failed, for a rule whose answer is not a byte count (sizetool/ci/model_ties.py)

    @property
    def headroom(self) -> int:
        return self.limit - self.actual

    @property
    def passed(self) -> bool:
        return not self.fails and self.actual <= self.limit


@dataclass(frozen=True)
class ModelFirmware:
    """A model's firmware predicted from an all-ops build: the build with exactly the registrations it needs."""

    predicted_rom: int
    registrations: int  # how many of the build's registrations serve its ops
    missing: tuple[str, ...] = ()  # ops it needs that the build does not register


@dataclass(frozen=True)
class StackDepth:
    """A root's worst-case stack depth, as the stack walk found it."""

    depth: int
    warnings: int = 0  # when > 0 the depth is a lower bound


@dataclass(frozen=True)
class ModelArena:
    """The tensor arena a model needs, estimated from the .tflite for the build's kernel set and pointer size."""

    needed: int
    exact: bool
    kernels: str
    pointer_bytes: int
    short_enums: bool = False


@dataclass
class Budget:
    path: str
    rules: list[Rule]

    @property
    def needs_baseline(self) -> bool:
        return any(rule.kind in ("growth", "path_growth") for rule in self.rules)

    @property
    def needs_operators(self) -> bool:
        return any(rule.kind == "operator" for rule in self.rules)

    @property
    def stack_roots(self) -> list[str]:
        """The root functions of the [stack] rules."""
        return [rule.pattern for rule in self.rules if rule.kind == "stack"]

    @property
    def models(self) -> list[str]:
        """The model files of the [models] flash rules (paths resolved against the budget file's folder)."""
        return [rule.pattern for rule in self.rules if rule.kind == "model"]

    @property
    def arena_models(self) -> list[str]:
        """The model files of the [models] arena rules."""
        return [rule.pattern for rule in self.rules if rule.kind == "model_arena"]


def read_budget(path: str) -> Budget:
    raw = read_input(path, "a budget file")
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError:
        raise SizeToolError(f"{path}: not a TOML budget file (not UTF-8 text)") from None
    except tomllib.TOMLDecodeError as error:
        raise SizeToolError(f"{path}: {error}") from None  # tomllib's message carries the line and column
    return Budget(path=path, rules=_rules(data, text, path))


def _line_of(text: str, key: str, table: str | None = None, within: str | None = None) -> int:
    """The line a key (or [table] header) is written on, for error messages and reports. With `within`, the key is
    looked for under that table's header first (`total` of [ram] is not `total` of [rom])."""
    if table is not None:
        pattern = re.compile(r"^[ \t]*\[[ \t]*" + re.escape(table) + r"[ \t]*\]", re.MULTILINE)
    else:
        pattern = re.compile(r'^[ \t]*(?:"' + re.escape(key) + r'"|' + re.escape(key) + r")[ \t]*=", re.MULTILINE)
    start, end = 0, len(text)
    if within is not None and table is None:
        header = re.compile(r"^[ \t]*\[[ \t]*" + re.escape(within) + r"[ \t]*\]", re.MULTILINE).search(text)
        if header:
            following = re.compile(r"^[ \t]*\[", re.MULTILINE).search(text, header.end())
            start, end = header.end(), following.start() if following else len(text)
    match = pattern.search(text, start, end) or pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else 0


def _error(path: str, line: int, reason: str) -> SizeToolError:
    return SizeToolError(f"{path}:{line}: {reason}" if line else f"{path}: {reason}")


def _limit(value, path: str, line: int, where: str, percent_allowed: bool) -> Limit:
    if isinstance(value, str) and value.strip().endswith("%"):
        if not percent_allowed:
            return _fail(path, line, f"{where}: a percentage is not allowed here (give bytes, e.g. '40K')")
        try:
            percent = float(value.strip()[:-1])
        except ValueError:
            return _fail(path, line, f"{where}: {value!r} is not a percentage")
        if not math.isfinite(percent):
            return _fail(path, line, f"{where}: {value!r} is not a finite percentage")
        if percent < 0:
            return _fail(path, line, f"{where}: a percentage cannot be negative")
        return Limit(text=value, percent=percent)
    try:
        return Limit(text=str(value), bytes=parse_size(value, where))
    except SizeToolError as error:
        raise _error(path, line, str(error)) from None


def _fail(path: str, line: int, reason: str):
    raise _error(path, line, reason)


def _rules(data: dict, text: str, path: str) -> list[Rule]:
    rules: list[Rule] = []
    for table, value in data.items():
        if table not in ("rom", "ram", "regions", "models", "model", "stack"):
            _fail(path, _line_of(text, table, table),
                  f"unknown table [{table}] (expected [rom], [ram], [regions], [models], [model] or [stack])")
        if not isinstance(value, dict):
            _fail(path, _line_of(text, table), f"'{table}' must be a table such as [{table}]")
    for memory in ("rom", "ram"):
        section = data.get(memory, {})
        for key, value in section.items():
            if key not in MEMORY_KEYS:
                _fail(path, _line_of(text, key, within=memory), f"unknown key '{key}' in [{memory}] (expected one of: "
                      f"{', '.join(sorted(MEMORY_KEYS))})")
            if key == "operators":
                rules.extend(_operator_rules(memory, value, text, path))
                continue
            line = _line_of(text, key, within=memory)
            if key == "occupied":
                if memory != "ram":
                    _fail(path, line, "occupied is a RAM rule (static data + reserved): put it in [ram]")
                if isinstance(value, dict):
                    _fail(path, line, "[ram] occupied must be a size, not a table")
                rules.append(Rule("ram.occupied", "ram", "occupied",
                                  _limit(value, path, line, "[ram] occupied", percent_allowed=False), line=line))
                continue
            if key in ("total", "max_growth"):
                if isinstance(value, dict):
                    _fail(path, line, f"[{memory}] {key} must be a size, not a table")
                kind = "total" if key == "total" else "growth"
                rules.append(Rule(f"{memory}.{key}", memory, kind,
                                  _limit(value, path, line, f"[{memory}] {key}", percent_allowed=kind == "growth"),
                                  line=line))
            else:
                if not isinstance(value, dict):
                    _fail(path, line, f"[{memory}.{key}] must be a table of \"glob\" = size")
                kind = "path" if key == "paths" else "path_growth"
                for pattern, limit in value.items():
                    pattern_line = _line_of(text, pattern, within=f"{memory}.{key}")
                    rules.append(Rule(f"{memory}.{key}[{pattern}]", memory, kind,
                                      _limit(limit, path, pattern_line, f"[{memory}.{key}] {pattern!r}",
                                             percent_allowed=kind == "path_growth"),
                                      pattern=pattern, line=pattern_line))
    folder = os.path.dirname(path)
    for model, limit in data.get("models", {}).items():
        line = _line_of(text, model, within="models")
        # "firmware:SYMBOL" names a model linked into the build (sizetool/commands/check.py finds it)
        model_path = model if model.startswith(FIRMWARE_MODEL) else os.path.join(folder, model)
        if not isinstance(limit, dict):
            rules.append(Rule(f"models[{model}]", "rom", "model",
                              _limit(limit, path, line, f"[models] {model!r}", percent_allowed=False),
                              pattern=model_path, line=line))
            continue
        unknown = sorted(set(limit) - set(MODEL_KEYS))
        if unknown or not limit:
            _fail(path, line, f"[models] {model!r}: " + (f"unknown key '{unknown[0]}'" if unknown else "empty table")
                  + ' (give flash, arena or both, e.g. { flash = "96K", arena = "64K" })')
        for key in MODEL_KEYS:
            if key not in limit:
                continue
            if isinstance(limit[key], (dict, list)):
                _fail(path, line, f"[models] {model!r} {key}: must be a size")
            rules.append(Rule(f"models[{model}].{key}", "rom" if key == "flash" else "ram",
                              "model" if key == "flash" else "model_arena",
                              _limit(limit[key], path, line, f"[models] {model!r} {key}", percent_allowed=False),
                              pattern=model_path, line=line))
    for key, limit in data.get("model", {}).items():
        line = _line_of(text, key, within="model")
        if key != "flash":
            _fail(path, line, f"unknown key '{key}' in [model] (expected flash, the bytes of the TFLite models linked "
                  "into the firmware; per-model rules go in [models])")
        if isinstance(limit, (dict, list)):
            _fail(path, line, "[model] flash must be a size, not a table")
        rules.append(Rule("model.flash", "rom", "model_bytes",
                          _limit(limit, path, line, "[model] flash", percent_allowed=True), line=line))
    for root, limit in data.get("stack", {}).items():
        line = _line_of(text, root, within="stack")
        if isinstance(limit, dict):
            _fail(path, line, f"[stack] {root!r}: must be a size, not a table")
        rules.append(Rule(f"stack[{root}]", "stack", "stack",
                          _limit(limit, path, line, f"[stack] {root!r}", percent_allowed=False),
                          pattern=root, line=line))
    for region, limit in data.get("regions", {}).items():
        line = _line_of(text, region, within="regions")
        rules.append(Rule(f"regions.{region}", "", "region",
                          _limit(limit, path, line, f"[regions] {region}", percent_allowed=True), pattern=region,
                          line=line))
    return rules


def _operator_rules(memory: str, table, text: str, path: str) -> list[Rule]:
    """[rom.operators]: OP = size, a limit on that operator's exclusive bytes (OP as in the --ops table)."""
    header_line = _line_of(text, memory + ".operators", memory + ".operators")
    if memory != "rom":
        _fail(path, header_line, RAM_OPERATORS)
    if not isinstance(table, dict):
        _fail(path, _line_of(text, "operators"), '[rom.operators] must be a table of OP = size, e.g. CONV_2D = "8K"')
    rules = []
    for op, limit in table.items():
        line = _line_of(text, op, within=memory + ".operators")
        if isinstance(limit, dict):
            _fail(path, line, f"[rom.operators] {op}: must be a size, not a table")
        rules.append(Rule(f"rom.operators[{op}]", "rom", "operator",
                          _limit(limit, path, line, f"[rom.operators] {op}", percent_allowed=False),
                          pattern=op, line=line))
    return rules


def glob_to_regex(pattern: str) -> re.Pattern:
    """Path globs: '**' spans directories, '*' and '?' stay within one path segment."""
    out = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")  # zero or more whole directories
            index += 3
        elif pattern.startswith("**", index):
            out.append(".*")
            index += 2
        elif pattern[index] == "*":
            out.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(pattern[index]))
            index += 1
    return re.compile("^" + "".join(out) + "$")


def bytes_under(report: SizeReport, memory: str, pattern: str) -> int:
    regex = glob_to_regex(pattern)
    return sum(e.size for e in report.entries_for(memory) if regex.match("/".join(e.path)))


def check_budget(budget: Budget, report: SizeReport, baseline: SizeReport | None = None,
                 models: dict[str, ModelFirmware] | None = None,
                 stack: dict[str, StackDepth] | None = None,
                 arenas: dict[str, ModelArena] | None = None) -> list[RuleResult]:
    """Every rule's result. `models` maps each of budget.models to its predicted firmware, `stack` each of
    budget.stack_roots to its worst-case depth, `arenas` each of budget.arena_models to its estimated arena."""
    if budget.stack_roots and stack is None:
        raise SizeToolError(f"{report.source}: the [stack] rules of {budget.path} need the ELF (the stack depth is "
                            "read from its code, which a saved report lacks)")
    if budget.models and models is None:
        raise SizeToolError(f"{report.source}: the [models] rules of {budget.path} need the ELF of an all-ops build "
                            "(a model's firmware is predicted from its reference graph, which a saved report lacks)")
    if budget.arena_models and arenas is None:
        raise SizeToolError(f"{report.source}: the [models] arena rules of {budget.path} need the ELF (its kernel set "
                            "and pointer size decide the arena), not a saved report")
    if budget.needs_baseline and baseline is None:
        raise SizeToolError(f"{budget.path}: growth rules (max_growth, path_growth) need --baseline REPORT.json")
    if budget.needs_operators and report.operators is None:
        raise SizeToolError(f"{report.source}: has no operator table for the [rom.operators] rules of {budget.path} "
                            "(give the ELF, or a report saved with 'size-report ELF --ops --save REPORT.json')")
    results = []
    for rule in budget.rules:
        if rule.kind == "total":
            results.append(RuleResult(rule, rule.limit.resolve(0), report.total(rule.memory)))
        elif rule.kind == "occupied":
            results.append(occupied_result(rule, report))
        elif rule.kind == "growth":
            old = baseline.total(rule.memory)
            results.append(RuleResult(rule, rule.limit.resolve(old), report.total(rule.memory) - old))
        elif rule.kind == "path":
            results.append(RuleResult(rule, rule.limit.resolve(0), bytes_under(report, rule.memory, rule.pattern)))
        elif rule.kind == "path_growth":
            old = bytes_under(baseline, rule.memory, rule.pattern)
            results.append(RuleResult(rule, rule.limit.resolve(old),
                                      bytes_under(report, rule.memory, rule.pattern) - old))
        elif rule.kind == "operator":
            results.append(operator_result(rule, report))
        elif rule.kind == "model":
            results.append(model_result(rule, models[rule.pattern]))
        elif rule.kind == "stack":
            depth = stack[rule.pattern]
            note = (f"a lower bound: {depth.warnings} warnings (indirect calls, recursion, dynamic frames; see "
                    f"size-report ELF --stack)") if depth.warnings else "worst case over every path"
            results.append(RuleResult(rule, rule.limit.resolve(0), depth.depth, note=note))
        elif rule.kind == "model_arena":
            results.append(arena_result(rule, arenas[rule.pattern]))
        elif rule.kind == "model_bytes":
            results.append(model_bytes_result(rule, report))
        else:
            region = next((r for r in report.regions if r.name == rule.pattern), None)
            if region is None:
                known = ", ".join(r.name for r in report.regions) or "none: pass --map or --flash-size/--ram-size"
                raise _error(budget.path, rule.line, f"[regions] {rule.pattern}: no such memory region ({known})")
            if rule.limit.percent is not None and not region.length:
                raise _error(budget.path, rule.line, f"[regions] {rule.pattern}: its size is not known (an ESP-IDF "
                             "flash type is bounded by the partition, not the map), so give a size, not a percentage")
            results.append(RuleResult(rule, rule.limit.resolve(region.length), region.used))
    return results


def operator_result(rule: Rule, report: SizeReport) -> RuleResult:
    """An operator's exclusive bytes against its limit; an op the firmware does not register costs nothing."""
    costs = [o for o in report.operators.operators if o.op == rule.pattern]
    if not report.operators.operators:
        reason = "; ".join(report.operators.notes) or f"{report.source}: no TFLM operator registrations found"
        return RuleResult(rule, rule.limit.resolve(0), 0, note=f"no operator is registered ({reason})")
    if not costs:
        return RuleResult(rule, rule.limit.resolve(0), 0,
                          note=f"{rule.pattern} is not registered in {report.source} (check the spelling against "
                               "size-report --ops)")
    return RuleResult(rule, rule.limit.resolve(0), sum(o.exclusive_bytes for o in costs))


def model_result(rule: Rule, firmware: ModelFirmware) -> RuleResult:
    """A model's predicted firmware against its limit; a model the build cannot run fails."""
    limit = rule.limit.resolve(0)
    if firmware.missing:
        return RuleResult(rule, limit, firmware.predicted_rom, fails=True,
                          note=f"needs {', '.join(firmware.missing)}, which the build does not register: the "
                               "prediction has no code for them (gate on an all-ops build)")
    return RuleResult(rule, limit, firmware.predicted_rom,
                      note=f"predicted: the build with only the {firmware.registrations} registrations the model "
                           "needs")


def model_bytes_result(rule: Rule, report: SizeReport) -> RuleResult:
    """The bytes of the TFLite models linked into the firmware (the report's embedded models) against the limit,
    which may be a percentage of the ROM total."""
    held = sum(m.size for m in report.models)
    if not report.models:
        note = "no TFLite model found in the firmware's read-only data"
    else:
        note = ", ".join(f"{m.symbol} {m.size}" for m in report.models)
    return RuleResult(rule, rule.limit.resolve(report.rom_total), held, note=note)


def arena_result(rule: Rule, arena: ModelArena) -> RuleResult:
    """A model's estimated tensor arena against its limit."""
    how = "estimated" if arena.exact else "estimated upper bound"
    return RuleResult(rule, rule.limit.resolve(0), arena.needed,
                      note=f"{how}: tensor arena for {arena.kernels} kernels, {arena.pointer_bytes * 8}-bit pointers"
                           + (", short enums" if arena.short_enums else ""))


def occupied_result(rule: Rule, report: SizeReport) -> RuleResult:
    """Static data + reserved RAM (report/ram_use.py): ld's use less the free RAM inside it. Without region sizes
    (no map, no --ram-size) that is the whole RAM total, and a note says so."""
    uses = ram_use(report)
    if not uses:
        return RuleResult(rule, rule.limit.resolve(0), report.ram_total,
                          note="no RAM region sizes (pass --map or --ram-size): the whole RAM total counts")
    occupied = sum(u.static + u.reserved for u in uses)
    free = sum(u.free for u in uses)
    return RuleResult(rule, rule.limit.resolve(0), occupied, note=f"{free} bytes of RAM free")
