"""Will the models fit in RAM: the tensor arena they need against the arena the firmware links, and the free RAM.

`size-report firmware.elf --model m.tflite` answers flash (model_crosscheck.py); this module adds RAM:
- the arena the models need, estimated from the .tflite files alone (tflm_model.arena_estimate: TFLM's planner,
  persistent allocations and scratch buffers), for the firmware's kernel set and pointer size. Several models are one
  arena, as TFLM shares it;
- the kernel set is detected from the firmware: CMSIS-NN's kernels (arm_convolve_s8, arm_fully_connected_s8, ...)
  linked means cmsis_nn, esp-nn's (esp_nn_conv_s8_opt, ...) esp_nn, else reference (`--kernels` overrides); the
  pointer size is the ELF class's, and short enums (Tag_ABI_enum_size in an Arm ELF's build attributes:
  arm-none-eabi GCC's default) shrink TFLM's structs;
- the arena the firmware links (arena_finder.py): the RAM object passed to the interpreter's constructor, an
  arena-named object, or `--arena-symbol NAME`;
- the free RAM of the arena's region (report/ram_use.py): whether a too-small arena could grow in place.

The answer fails (exit 1) when the linked arena is smaller than the models need, or, with no arena found, when the
models need more than the free RAM. A model the estimate refuses (a dynamic-shape tensor, a kernel without the tensors
it needs) leaves the RAM answer unanswered with the reason; the flash answer and its gate stand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from tflm_model.arena_estimate import ArenaEstimate, estimate_arena
from tflm_model.errors import ModelError
from tflm_model.model_source import ModelData, source_bytes
from tflm_model.operator_uses import read_model_uses
from tflm_facts import TFLM_REVISION
from tflm_facts.allocator_generations import CURRENT, Generation, from_symbols
from tflm_facts.build_sizes import BuildSizes, differences
from tflm_facts.kernel_memory import KERNEL_SETS
from tflm_facts.linked_types import beyond_today, linked_kernel_types
from sizetool.errors import SizeToolError
from sizetool.inputs.elf_reader import ElfImage, arm_short_enums
from sizetool.fit.arena_finder import (
    FOUND_BY_HEAP, LinkedArena, arena_by_symbol, arena_for_models, find_arenas, model_location,
)
from sizetool.fit.dwarf_facts import DwarfFacts, dwarf_facts
from sizetool.fit.dwarf_types_cache import load_dwarf_types
from sizetool.fit.heap_arena import complete_heap_arena, heap_arena_pointers
from sizetool.report.ram_use import ram_use
from sizetool.report.report_model import SizeReport

if TYPE_CHECKING:
    from sizetool.code_graph.reference_graph import ReferenceGraph

# CMSIS-NN's kernel functions (CMSIS-NN's arm_nnfunctions.h): linked only when TFLM is built with
# OPTIMIZED_KERNEL_DIR=cmsis_nn.
_CMSIS_NN_FUNCTION = re.compile(
    r"^arm_(convolve|depthwise_conv|fully_connected|batch_matmul|elementwise|softmax|avgpool|max_pool|svdf|lstm"
    r"|transpose_conv|nn_)\w*$")
# esp-nn's functions (esp_nn_conv_s8_opt, esp_nn_softmax_s8_opt, esp_nn_add_elementwise_s8_ansi, ...): linked by
# esp-tflite-micro's esp_nn kernels (Espressif's TFLM, built with ESP_NN).
_ESP_NN_FUNCTION = re.compile(r"^esp_nn_\w+$")
# esp-nn's own functions for the ESP32-S3 and ESP32-P4 (esp_nn_conv_s8_esp32s3, ...): other scratch rules than the
# generic C ones tflm_facts models for every other chip.
_ESP_NN_CHIP_FUNCTION = re.compile(r"^esp_nn_\w+_(esp32s3|esp32p4)$")
ESP_NN_CHIPS = {"esp32s3": "ESP32-S3", "esp32p4": "ESP32-P4"}


@dataclass(frozen=True)
class KernelChoice:
    kernels: str  # "reference", "cmsis_nn" or "esp_nn"
    how: str  # why: "--kernels", "detected: arm_convolve_s8 linked", "detected: no CMSIS-NN kernel linked"


@dataclass(frozen=True)
class ArenaFit:
    """The models' arena against the linked one and the free RAM."""

    models: tuple[str, ...]
    kernels: KernelChoice
    pointer_bytes: int
    needed: int | None  # bytes of arena the models need (the estimate); None when it could not be estimated
    exact: bool  # False: the estimate is a safe upper bound
    parts: tuple[tuple[str, int], ...]  # the estimate's breakdown
    arena: LinkedArena | None  # the arena the firmware links, if found
    free_ram: int | None  # free RAM of the arena's region (or the largest RAM region), when region sizes are known
    free_region: str = ""
    notes: tuple[str, ...] = field(default=())
    short_enums: bool = False  # the target's enums are 1 byte where they fit (Arm EABI bare metal)
    error: str = ""  # why the arena could not be estimated
    facts: DwarfFacts | None = None  # struct sizes the ELF's DWARF gave the estimate (None: no DWARF, all defaults)
    facts_differ: tuple[str, ...] = ()  # where they differ from tflm_facts ("TfLiteTensor 32 -> 36")
    revision: str = ""  # the TFLM allocator generation the figure holds for, and how it was told
    heap: tuple[str, int] | None = None  # the heap section the linker script reserves (".heap", bytes), if any
    guessed_ops: tuple[str, ...] = ()  # ops no rule models: their share of `needed` is a guess (UNKNOWN_OP_BOUND)
    without_guessed: int | None = None  # `needed` without those ops' own allocations

    @property
    def heap_too_small(self) -> bool:
        """A heap arena the firmware states no size for, when the models need more than the whole heap section: no
        allocation can give it (a fact of the linker script, not a guess about the size)."""
        return (self.arena is not None and self.arena.on_heap and not self.arena.size_known and self.heap is not None
                and self.needed is not None and self.needed > self.heap[1])

    @property
    def only_the_guess_is_short(self) -> bool:
        """The linked arena holds everything but the allocations of ops no rule models (a custom op: NXP's
        NeutronGraph), and only their guessed bound makes it short: not checked, never failed on a guess."""
        return (self.spare is not None and self.spare < 0 and self.without_guessed is not None
                and self.arena.usable_bytes >= self.without_guessed)

    @property
    def guess_text(self) -> str:
        """Which ops' allocations the figure only guesses, and how much of it that guess is."""
        return (f"{', '.join(self.guessed_ops)}'s own allocations are not modelled (guessed at "
                f"{self.needed - self.without_guessed:,} B, no rule)")

    @property
    def linked(self) -> int | None:
        return None if self.arena is None else self.arena.usable_bytes

    @property
    def spare(self) -> int | None:
        """Linked arena minus what the models need (negative: too small)."""
        if self.arena is None or self.needed is None or not self.arena.size_known:
            return None
        return self.arena.usable_bytes - self.needed

    @property
    def grows_into_free_ram(self) -> bool | None:
        """Whether the shortfall (or, with no arena, the whole arena) fits in the free RAM."""
        if self.free_ram is None or self.needed is None:
            return None
        if self.arena is not None and self.arena.on_heap:
            return None  # the heap's free bytes are not the static RAM's
        shortfall = self.needed if self.arena is None else max(0, -self.spare)
        return shortfall <= self.free_ram

    @property
    def passed(self) -> bool:
        if self.needed is None:
            return True  # not answered: the flash answer decides
        if self.arena is not None and self.arena.on_heap and not self.arena.size_known:
            return not self.heap_too_small  # no size stated: only the whole heap bounds it, never a guess
        if self.arena is not None:
            return self.spare >= 0 or self.only_the_guess_is_short
        return self.grows_into_free_ram is not False


def detect_kernels(image: ElfImage, override: str | None = None) -> KernelChoice:
    """The kernel set of a firmware: --kernels when given, else CMSIS-NN or esp-nn when their kernels are linked."""
    if override is not None:
        if override not in KERNEL_SETS:
            raise SizeToolError(f"unknown --kernels {override!r} (choose from {', '.join(KERNEL_SETS)})")
        return KernelChoice(override, "--kernels")
    # Shortest names first: the kernels themselves (arm_convolve_s8) before their helpers.
    linked = sorted({s.name for s in image.symbols if s.kind == "func" and _CMSIS_NN_FUNCTION.match(s.name)},
                    key=lambda name: (len(name), name))
    if linked:
        return KernelChoice("cmsis_nn", f"detected: {linked[0]} and {len(linked) - 1} more CMSIS-NN functions linked"
                            if len(linked) > 1 else f"detected: {linked[0]} linked")
    esp_nn = sorted({s.name for s in image.symbols if s.kind == "func" and _ESP_NN_FUNCTION.match(s.name)},
                    key=lambda name: (len(name), name))
    if esp_nn:
        return KernelChoice("esp_nn", f"detected: {esp_nn[0]} and {len(esp_nn) - 1} more esp-nn functions linked"
                            if len(esp_nn) > 1 else f"detected: {esp_nn[0]} linked")
    return KernelChoice("reference", "detected: no CMSIS-NN kernel linked")


def esp_nn_chip(image: ElfImage) -> str | None:
    """"esp32s3" or "esp32p4" when esp-nn's functions for that chip are linked (their scratch rules are not modelled)."""
    for symbol in image.symbols:
        found = _ESP_NN_CHIP_FUNCTION.match(symbol.name) if symbol.kind == "func" else None
        if found:
            return found.group(1)
    return None


def pointer_bytes(image: ElfImage) -> int:
    return image.elf_class // 8


def estimate(model_paths: list[str], kernels: str, pointer: int, short_enums: bool = False,
             sizes: BuildSizes | None = None, generation: Generation | None = CURRENT, why: str = "",
             linked_types: dict | None = None) -> ArenaEstimate:
    """tflm_model's arena estimate, its error as this package's one-line error."""
    try:
        # without the build's sizes its revision is not the tables' own: say so
        return estimate_arena([p if isinstance(p, ModelData) else Path(p) for p in model_paths], kernels=kernels,
                              pointer_bytes=pointer, short_enums=short_enums, sizes=sizes, linked_types=linked_types,
                              generation=generation, why=why,
                              revision="" if sizes is not None else "the linked TFLM (no DWARF sizes)")
    except ModelError as error:
        raise SizeToolError(str(error)) from None


def linked_arena(image: ElfImage, graph: ReferenceGraph | None, model_paths: list[str],
                 arena_symbol: str | None = None) -> tuple[LinkedArena | None, list[str]]:
    """The arena the models' interpreter uses, and notes on how it was chosen."""
    if arena_symbol:
        named = arena_by_symbol(image, arena_symbol)
        if named.size <= pointer_bytes(image):  # `uint8_t* tensor_arena`: the pointer to a heap arena, if the code
            heap = complete_heap_arena(image, graph, replace(named, size=0, section="heap", found_by=FOUND_BY_HEAP))
            if heap.allocation:  # stores an allocation into it; otherwise the object named is taken as it is
                return heap, []
        return named, []
    arenas = find_arenas(image, graph) or heap_arena_pointers(image)
    arenas = [complete_heap_arena(image, graph, a) if a.on_heap else a for a in arenas]
    locations = []
    if len(arenas) > 1:
        for path in model_paths:
            try:
                location = model_location(image, source_bytes(path))
            except (OSError, ModelError):
                location = None
            if location:
                locations.append(location)
    chosen, notes = arena_for_models(arenas, locations)
    if chosen is None:
        notes.append("no tensor arena found (no constant address passed to a MicroInterpreter constructor, no RAM "
                     "object named like *arena*): name it with --arena-symbol")
    return chosen, notes


def fit(models: list[str], kernels: KernelChoice, pointer: int, arena_estimate: ArenaEstimate | None,
        arena: LinkedArena | None, report: SizeReport, notes: list[str] | None = None) -> ArenaFit:
    """The fit answer from its parts (pure: the estimate, or None when there is none, and the arena are given)."""
    uses = ram_use(report)
    region = None
    if arena is not None:
        region = next((u for r, u in zip(_ram_regions(report), uses)
                       if r.origin <= arena.address < r.origin + r.length), None)
        if region is None and len(uses) == 1:
            region = uses[0]
    elif uses:
        region = max(uses, key=lambda u: u.free)
    all_notes = list(notes or [])
    if arena is not None and arena.on_heap and arena.passed_size is not None and arena.size \
            and arena.passed_size > arena.size:
        all_notes.append(f"the interpreter is told {arena.passed_size} bytes but the allocation is {arena.size}: "
                         "it may write past it")
    elif arena is not None and not arena.on_heap and arena.passed_size is not None and arena.passed_size > arena.size:
        all_notes.append(f"{arena.symbol} has {arena.size} bytes but the interpreter is told {arena.passed_size}: "
                         "it may write past the array")
    heap = heap_section(report)
    if arena is not None and arena.on_heap and arena.size_known and heap is not None \
            and arena.usable_bytes > heap[1]:
        all_notes.append(f"the heap arena asks for {arena.usable_bytes} bytes but the heap ({heap[0]}) has {heap[1]}: "
                         "the allocation would fail")
    if arena_estimate is not None:
        all_notes.extend(arena_estimate.notes)
    for model in report.models:
        if model.in_ram:
            all_notes.append(f"the model array {model.symbol} ({model.size} bytes) is in {model.section}: RAM, copied "
                             f"from flash at start-up, so it costs its size in both; declared const it stays in flash "
                             f"and gives back {model.const_saving} bytes of RAM")
    return ArenaFit(
        heap=heap,
        models=tuple(models), kernels=kernels, pointer_bytes=pointer,
        needed=None if arena_estimate is None else arena_estimate.total_bytes,
        exact=arena_estimate is not None and arena_estimate.exact,
        parts=() if arena_estimate is None else tuple((p.name, p.bytes) for p in arena_estimate.parts), arena=arena,
        free_ram=None if region is None else region.free, free_region="" if region is None else region.region,
        notes=tuple(all_notes),
        guessed_ops=() if arena_estimate is None else arena_estimate.guessed_ops,
        without_guessed=None if arena_estimate is None else arena_estimate.without_guessed,
    )


_HEAP_SECTION = re.compile(r"^\.?_*heap\d*$", re.IGNORECASE)


def heap_section(report: SizeReport) -> tuple[str, int] | None:
    """The heap the linker script reserves: a RAM section named .heap (mbed's, CMSIS's gcc.ld), as (name, bytes).
    STM32Cube's ._user_heap_stack is only a minimum checked at link time, not the heap, so it is not one."""
    sizes: dict[str, int] = {}
    for entry in report.entries_for("ram"):
        if _HEAP_SECTION.match(entry.section):
            sizes[entry.section] = sizes.get(entry.section, 0) + entry.size
    if not sizes:
        return None
    name = max(sizes, key=lambda n: (sizes[n], n))
    return name, sizes[name]


def _ram_regions(report: SizeReport):
    return [r for r in report.regions_of("ram") if r.length and r.used]


def model_fit(image: ElfImage, graph: ReferenceGraph | None, report: SizeReport, model_paths: list[str],
              kernels: str | None = None, arena_symbol: str | None = None, use_cache: bool = True,
              dwarf_types: list | None = None) -> ArenaFit:
    """The whole fit answer for a firmware and its models (use_cache: the DWARF types from the report cache;
    dwarf_types: those types when the caller has read them, else they are loaded here)."""
    choice = detect_kernels(image, kernels)
    pointer = pointer_bytes(image)
    build = build_facts(image, choice.kernels, model_paths, use_cache, dwarf_types)
    short_enums, facts, sizes, generation, how = build
    differ = tuple(differences(sizes, "eabi" if short_enums else "ilp32" if pointer == 4 else "lp64",
                               choice.kernels)) if sizes is not None else ()
    extra = dict(short_enums=short_enums, facts=facts, facts_differ=differ)
    arena, notes = linked_arena(image, graph, model_paths, arena_symbol)
    chip = esp_nn_chip(image) if choice.kernels == "esp_nn" else None
    if chip is not None:
        error = (f"esp-nn's {ESP_NN_CHIPS[chip]} functions are linked, whose scratch buffers are not modelled (only "
                 "esp-nn's generic C: every chip but the ESP32-S3 and P4)")
    else:
        linked_types = linked_kernel_types(s.name for s in image.symbols if s.kind == "func")
        notes += linked_types_notes(linked_types)
        try:
            arena_estimate = estimate(model_paths, choice.kernels, pointer, short_enums, sizes, generation, how,
                                      **({"linked_types": linked_types} if linked_types else {}))
        except SizeToolError as estimate_error:
            error = str(estimate_error)
        else:
            revision = arena_estimate.revision + (f" ({how})" if generation is not None else "")
            return replace(fit(model_paths, choice, pointer, arena_estimate, arena, report, notes), revision=revision,
                           **extra)
    unanswered = fit(model_paths, choice, pointer, None, arena, report, notes)
    return replace(unanswered, error=error, **extra)


def build_facts(image: ElfImage, kernels: str, model_paths: list[str], use_cache: bool = True,
                dwarf_types: list | None = None) -> tuple:
    """What the firmware tells the arena estimate: (short enums, DWARF facts or None, their sizes or None, the
    allocator generation or None, how it was told). size-report fit and check both estimate from it, so one build
    and one model give one figure."""
    pointer = pointer_bytes(image)
    short_enums = pointer == 4 and arm_short_enums(image.path)
    facts = facts_from_dwarf(image, kernels, model_paths, use_cache, dwarf_types)
    if facts is not None and facts.sizes.enum_bytes is not None and pointer == 4:
        short_enums = facts.sizes.enum_bytes == 1
    generation, how = linked_generation(image, facts)
    return short_enums, facts, facts.sizes if facts is not None else None, generation, how


def build_estimate(image: ElfImage, kernels: str, model_paths: list[str],
                   use_cache: bool = True) -> tuple[ArenaEstimate, bool]:
    """The arena estimate for models on this firmware, as size-report fit computes it, and whether short enums."""
    short_enums, _facts, sizes, generation, how = build_facts(image, kernels, model_paths, use_cache)
    linked_types = linked_kernel_types(s.name for s in image.symbols if s.kind == "func")
    return estimate(model_paths, kernels, pointer_bytes(image), short_enums, sizes, generation, how,
                    **({"linked_types": linked_types} if linked_types else {})), short_enums


def linked_generation(image: ElfImage, facts: DwarfFacts | None) -> tuple[Generation | None, str]:
    """The TFLM allocator generation the firmware links, and how it was told (or why it was not)."""
    if facts is not None and facts.generation is not None:
        if facts.generation.tensor_array:  # which of the two: the allocator's functions tell (the classes are alike)
            named = from_symbols(symbol.name for symbol in image.symbols if symbol.kind == "func")
            if named is not None and named.tensor_array:
                return named, "told by its allocator classes in the DWARF and its allocator functions' names"
        return facts.generation, "told by its allocator classes in the DWARF"
    found = from_symbols(symbol.name for symbol in image.symbols if symbol.kind == "func")
    if found is not None:
        return found, "told by its allocator functions' names"
    return None, "the ELF names none of TFLM's allocator classes (SimpleMemoryAllocator, SingleArenaBufferAllocator)"


def facts_from_dwarf(image: ElfImage, kernels: str, model_paths: list[str], use_cache: bool = True,
                     types: list | None = None) -> DwarfFacts | None:
    """The struct sizes of the linked TFLM from the ELF's DWARF (None without DWARF or without a TFLM struct in it)."""
    if types is None:
        types = load_dwarf_types(image.path, use_cache)
    if not types:
        return None
    ops: list[str] = []
    for path in model_paths:
        try:
            ops += [use.key.name for use in read_model_uses(path, hash_in_background=False).ops
                    if use.key.kind == "builtin"]
        except ModelError:
            continue  # the estimate names the problem
    facts = dwarf_facts(types, kernels, ops, f"{Path(image.path).name} DWARF")
    return facts if facts.from_elf else None


def facts_lines(result: ArenaFit) -> list[str]:
    """Which arena facts came from the ELF and which are defaults, and one line when they differ from tflm_facts."""
    head = [f"TFLM allocator: {result.revision}"] if result.revision else []
    if result.facts is None:
        if result.revision and CURRENT.label not in result.revision and "not known" not in result.revision:
            return head + ["arena facts: that allocator generation's own table (tflm_facts/allocator_generations.py); "
                           "the ELF has no DWARF describing TFLM's structs"]
        return head + [f"arena facts: tflm_facts' defaults ({TFLM_REVISION}); the ELF has no DWARF describing TFLM's "
                       "structs"]
    lines = head + [f"arena facts from {result.facts.sizes.source}: {', '.join(result.facts.from_elf)}"]
    if result.facts.defaults:
        lines.append(f"arena facts not in the DWARF, tflm_facts' defaults ({TFLM_REVISION}): "
                     f"{', '.join(result.facts.defaults)}")
    if result.facts_differ:
        lines.append(f"the linked TFLM differs from tflm_facts ({TFLM_REVISION}): {', '.join(result.facts_differ)}")
    return lines


def verdict(result: ArenaFit) -> str:
    """One sentence: fits or not, naming both figures."""
    if result.needed is None:
        return f"tensor arena not estimated: {result.error}"
    bound = "" if result.exact else " at most"
    need = f"the models need{bound} {result.needed} bytes of tensor arena ({result.kernels.kernels} kernels)"
    if result.arena is not None and result.arena.on_heap:
        where = result.arena.symbol or result.arena.allocation
        if not result.arena.size_known and result.heap_too_small:
            return (f"does not fit: {need}; the arena is allocated on the heap ({where}), whose whole "
                    f"{result.heap[0]} section is {result.heap[1]} bytes")
        if not result.arena.size_known:
            text = f"{need}; the arena is allocated on the heap ({where}) and the firmware states no size: not checked"
            if result.heap is not None:
                text += (f" beyond the heap: the {result.heap[0]} section's {result.heap[1]} bytes could hold it "
                         "(other allocations share them)")
            return text
        if result.spare >= 0:
            return f"fits: {need}; the heap arena ({where}) is {result.linked} bytes ({result.spare} to spare)"
        if result.only_the_guess_is_short:
            return (f"{need}; the heap arena ({where}) is {result.linked} bytes: not checked: {result.guess_text}, "
                    f"and the rest needs {result.without_guessed} bytes, which it holds")
        return f"arena too small: {need}; the heap arena ({where}) is {result.linked} bytes ({-result.spare} short)"
    if result.arena is not None:
        linked = f"{result.arena.symbol} gives {result.linked}"
        if result.spare >= 0:
            return f"fits: {need}; {linked} ({result.spare} to spare)"
        if result.only_the_guess_is_short:
            return (f"{need}; {linked}: not checked: {result.guess_text}, and the rest needs "
                    f"{result.without_guessed} bytes, which it holds")
        text = f"arena too small: {need}; {linked} ({-result.spare} short)"
        if result.grows_into_free_ram:
            text += f"; growing it by {-result.spare} fits in the {result.free_ram} bytes of free RAM"
        elif result.grows_into_free_ram is False:
            text += f"; the {result.free_ram} bytes of free RAM are not enough to grow it"
        return text
    if result.free_ram is None:
        return f"{need}; no arena found and the free RAM is unknown (give --map or --ram-size)"
    if result.grows_into_free_ram:
        return f"{need}; no arena found; an arena that size fits in the {result.free_ram} bytes of free RAM"
    return f"does not fit: {need}; no arena found and only {result.free_ram} bytes of RAM are free"


def heap_arena_text(arena: LinkedArena) -> str:
    """"(anonymous namespace)::tensor_arena, set from ei_aligned_calloc(16, 20480) in AllocateArena()"."""
    parts = [arena.symbol] if arena.symbol else []
    if arena.allocation:
        parts.append(f"{'set from' if arena.symbol else 'allocated with'} {arena.allocation}")
    if arena.caller:
        parts.append(f"passed to the interpreter in {arena.caller}")
    return ", ".join(parts)


def heap_size_text(arena: LinkedArena) -> str:
    """Where a heap arena's size was read, or that the firmware states none."""
    if not arena.size_known:
        return ("not stated in the firmware (no constant passed to the interpreter or to the allocation, no kTensorArenaSize in "
                "the DWARF)")
    return f"{arena.usable_bytes} bytes, from {arena.size_from or 'the size passed to the interpreter'}"


def linked_types_notes(linked: dict) -> list[str]:
    """One note when the firmware's kernels take types today's TFLM refuses (an older TFLM's uint8 kernels)."""
    beyond = beyond_today(linked)
    if not beyond:
        return []
    ops = "; ".join(f"{op} on {', '.join(sorted(types))}" for op, types in sorted(beyond.items()))
    return [f"type rules of the linked TFLM: its kernels run {ops}, which {TFLM_REVISION} refuses; the models' uses of "
            "those types are not refused"]
