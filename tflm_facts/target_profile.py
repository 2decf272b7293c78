"""A target profile: one target's measured TFLM costs, carried without its firmware.

`size-report profile allops.elf` writes one from an all-ops build (every `AddXxx()` registered); `gen-resolver
model.tflite --fit PROFILE` reads it to answer "will it fit" before any firmware exists. The file is versioned JSON,
written deterministically (sorted keys, no whitespace), and holds:

- `build`: the build facts (TFLM commit, compiler and version, flags, CPU/FPU, kernel set, pointer size, enum size)
  and, from version 2, which distribution of TFLM it is (pico-tflmicro, TFLM's Makefile, ...), that distribution's
  revision, build system, optimisation level and C library;
- `flash`: the all-ops firmware's ROM total, the bytes every TFLM app keeps whatever it registers (the runtime:
  interpreter, allocator, flatbuffers, libc/libgcc, start-up) and the all-ops app's own embedded model bytes;
- `graph`: the part of the all-ops build's reference graph that depends on which registrations stay, reduced so that
  a set of registrations combines exactly as `size-report ELF --keep OPS` combines it (shared code counted once):
  per node its flash and RAM bytes and the nodes it refers to; the runtime nodes that refer into it (always reached);
  the functions and objects no root reaches (their walk bounds the answer); the AddXxx() call sites, the literal-pool
  words and what each caller keeps, which the set question uses for the calls' bytes and the inlining bound. Nodes
  always kept are summed into `flash.runtime_bytes`; a node reached only through one other is merged into it;
- `registrations`: per `Register_<OP>()` its function, `Add<Op>()` method, root nodes and worst stack path from
  `Invoke()`; `shared_roots`: the roots several registrations share (`AddConv2D`, `ParsePool`);
- `ram`: TFLM's static RAM (`.data` + `.bss`, the arena array left out), the arena array found, and the bytes of
  the all-ops resolver object (`MicroMutableOpResolver<N>` grows by 36 bytes an op on 32-bit targets), which a fit
  answer replaces with the user's resolver;
- `stack`: the root walked (`tflite::MicroInterpreter::Invoke()`), its depth with no kernel, and the function names
  the stack paths use.

Shipped profiles live in `tflm_facts/profiles/NAME.json.xz` (xz-compressed: a profile file may be plain, xz or
gzip). load_profile() takes a shipped name or a path; every
problem is a ProfileError with one line naming the file: unknown profile, damaged file, another format version.
Nothing here imports either tool.
"""

from __future__ import annotations

import gzip
import json
import lzma
import os
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from tflm_facts.kernel_memory import KERNEL_SETS

FORMAT = "tflm-target-profile"
FORMAT_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)  # version 1 has no distribution facts: they read as ""; before 3 no call is inlined
SUFFIX = ".json"
COMPRESSED_SUFFIX = ".json.xz"  # how the package ships them (xz: a profile's JSON compresses about 8:1)
_XZ_MAGIC = b"\xfd7zXZ\x00"
_GZIP_MAGIC = b"\x1f\x8b"


class ProfileError(Exception):
    """A user-facing error about a target profile: str(error) is the one line printed."""


@dataclass(frozen=True)
class BuildFacts:
    """How the profiled firmware was built, as far as the ELF (and the exporter's options) tell."""

    arch: str  # "arm", "riscv", "xtensa", "x86_64"
    cpu: str  # Arm Tag_CPU_name ("cortex-m4"), or the ELF's machine for other architectures
    fpu: str  # Arm Tag_FP_arch ("VFPv4-D16"), "" when none
    kernels: str  # "reference", "cmsis_nn" or "esp_nn", as size-report detects it
    pointer_bytes: int
    short_enums: bool  # Arm Tag_ABI_enum_size small: TFLM's structs shrink
    compiler: str  # the .comment string ("GCC: (15:12.2.rel1-1) 12.2.1 20221205")
    flags: str  # DW_AT_producer of the first compile unit, when the build has DWARF
    tflm_commit: str  # as given to the exporter ("" when not given)
    source: str  # the ELF's file name
    # Which TFLM the user has: the distribution that ships it and how it builds it (version 2; "" when not given).
    distribution: str = ""  # "pico-tflmicro", "TFLM Makefile", "Arduino tflite-micro", ...
    distribution_revision: str = ""  # the distribution's own revision (its git commit), when it is not TFLM's
    build_system: str = ""  # "pico-sdk 2.1.0 CMake, Release"
    opt_level: str = ""  # the optimisation the distribution builds TFLM with ("-O3", "-Os core, -O2 kernels")
    c_library: str = ""  # "newlib (nosys.specs)", "picolibc 1.8", "newlib-nano + RP2040 boot ROM float"

    @property
    def abi(self) -> str:
        """tflm_facts.kernel_memory's ABI name for the arena estimate."""
        if self.pointer_bytes == 8:
            return "lp64"
        return "eabi" if self.short_enums else "ilp32"


@dataclass(frozen=True)
class StackPath:
    """A worst path from the stack root: its depth and its steps as (name index, frame bytes)."""

    depth: int
    steps: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Registration:
    op: str  # "CONV_2D", "CONV_2D_INT8", "WINDOW"
    function: str  # "tflite::Register_CONV_2D()"
    method: str  # "AddConv2D", "" when TFLM's resolver has no method for it
    nodes: tuple[int, ...]  # its roots in the graph
    stack: StackPath | None = None  # worst path from the stack root with only its kernels followed


@dataclass(frozen=True)
class SharedRoot:
    node: int
    users: tuple[str, ...]  # the registrations (op names) that need it: it goes when all of them go


@dataclass(frozen=True)
class CallSite:
    op: str
    caller: int
    bytes: int
    targets: tuple[int, ...] = ()  # machinery the call goes through (AddBuiltin()), see sizetool's call_sites.py
    inlined: bool = False  # version 3: the compiler inlined the machinery into this call (-O3); `bytes` is its length


@dataclass(frozen=True)
class PoolWord:
    address: int
    caller: int
    target: int
    bytes: int


@dataclass(frozen=True)
class ProfileGraph:
    """The registration-dependent part of the all-ops reference graph (see the module docstring)."""

    flash: tuple[int, ...]  # per node
    ram: tuple[int, ...]  # per node: .data/.bss bytes
    edges: tuple[tuple[int, ...], ...]  # per node
    always: tuple[int, ...]  # nodes reached whatever is registered (runtime nodes that refer into the graph)
    roots: tuple[int, ...]  # runtime roots outside `always` (functions and objects no root reaches among them)
    unexplained: tuple[int, ...]  # roots only because no root reaches them: what keeps bytes only through them
    functions: tuple[int, ...]  # nodes that are functions (the call sites' machinery is inlined only if one)
    names: dict[int, str] = field(default_factory=dict)  # names of the machinery nodes (AddBuiltin())
    call_sites: tuple[CallSite, ...] = ()
    pool_words: tuple[PoolWord, ...] = ()
    kept_targets: dict[int, tuple[int, ...]] = field(default_factory=dict)  # caller -> refers to outside its calls
    shared_roots: tuple[SharedRoot, ...] = ()
    # What an application's own code may use that only some kernels link in the all-ops build: use -> the nodes it
    # roots (APP_STATICS: the C++ guard functions a function-local static calls).
    app_uses: dict[str, tuple[int, ...]] = field(default_factory=dict)


APP_STATICS = "function-local statics"  # the one app use profiles carry (ProfileGraph.app_uses)


@dataclass(frozen=True)
class TargetProfile:
    name: str
    build: BuildFacts
    rom_total: int  # the all-ops firmware's ROM, as size-report totals it
    runtime_bytes: int  # flash every TFLM app keeps (not in `graph`), the all-ops app's model bytes included
    model_bytes: int  # the all-ops app's embedded .tflite bytes (part of runtime_bytes)
    static_ram: int  # .data + .bss of the all-ops firmware, the arena array left out
    arena_symbol: str  # the arena array left out of static_ram ("" when none was found)
    arena_bytes: int
    resolver_ram: int  # bytes of the all-ops app's MicroMutableOpResolver<N> objects (part of static_ram)
    graph: ProfileGraph
    registrations: tuple[Registration, ...]
    stack_root: str = ""  # the function stack paths start at; "" when the build has none or stack is unsupported
    stack_base: StackPath | None = None  # the root's worst path with no kernel followed
    stack_names: tuple[str, ...] = ()  # function names the stack paths index
    notes: tuple[str, ...] = ()
    resolver_op_bytes: int = 0  # what MicroMutableOpResolver<N> grows by an op in this build (0: 90b983c's layout)

    def registration(self, op: str) -> Registration | None:
        return next((r for r in self.registrations if r.op == op), None)


RESOLVER_FIXED_BYTES_32 = 12  # a 32-bit MicroMutableOpResolver's vtable pointer and its two counts


def resolver_object_bytes(op_count: int, pointer_bytes: int, op_bytes: int = 0) -> int:
    """sizeof(MicroMutableOpResolver<op_count>): its vtable pointer, the registrations_[N], the count,
    BuiltinOperator builtin_codes_[N] (int32), builtin_parsers_[N] (pointers) and the builtin count. `op_bytes`:
    what one op adds in the build the profile was made from (read from its resolver object: 44 on 32-bit targets in
    TFLM syncs of early 2023, whose registration had more members); 0 takes 90b983c's layout (a TFLMRegistration of
    five function pointers, an int32 code and a name pointer: 36 on 32-bit targets)."""
    if pointer_bytes == 4:
        return RESOLVER_FIXED_BYTES_32 + (op_bytes or 36) * op_count
    size = 8 + 56 * op_count + 4 + 4 * op_count
    size = -(-size // 8) * 8 + 8 * op_count + 4
    return -(-size // 8) * 8


# -- writing ------------------------------------------------------------------------------------------------------

def profile_to_json(profile: TargetProfile) -> str:
    """The profile as deterministic, compact JSON text (one line, sorted keys, trailing newline)."""
    data = asdict(profile)
    graph = data["graph"]
    graph["names"] = {str(k): v for k, v in sorted(profile.graph.names.items())}
    graph["kept_targets"] = {str(k): list(v) for k, v in sorted(profile.graph.kept_targets.items())}
    graph["call_sites"] = [[c.op, c.caller, c.bytes, list(c.targets)] + ([True] if c.inlined else [])
                           for c in profile.graph.call_sites]
    graph["pool_words"] = [[w.address, w.caller, w.target, w.bytes] for w in profile.graph.pool_words]
    graph["shared_roots"] = [[s.node, list(s.users)] for s in profile.graph.shared_roots]
    graph["app_uses"] = {use: list(nodes) for use, nodes in sorted(profile.graph.app_uses.items())}
    data["registrations"] = [
        {"op": r.op, "function": r.function, "method": r.method, "nodes": list(r.nodes),
         "stack": _path_json(r.stack)} for r in profile.registrations]
    data["stack_base"] = _path_json(profile.stack_base)
    document = {"format": FORMAT, "version": FORMAT_VERSION, **data}
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n"


def _path_json(path: StackPath | None):
    return None if path is None else [path.depth, [list(step) for step in path.steps]]


# -- reading ------------------------------------------------------------------------------------------------------

def shipped_profiles() -> list[str]:
    """Names of the profiles shipped with the package, sorted."""
    folder = resources.files("tflm_facts") / "profiles"
    if not folder.is_dir():
        return []
    return sorted({_stem(entry.name) for entry in folder.iterdir() if _stem(entry.name)})


def _stem(file_name: str) -> str:
    for suffix in (COMPRESSED_SUFFIX, SUFFIX):
        if file_name.endswith(suffix):
            return file_name[: -len(suffix)]
    return ""


def profile_bytes(profile: TargetProfile, path: str | os.PathLike = "") -> bytes:
    """The profile's file content: its JSON text, xz-compressed when `path` ends in .xz (the shipped form)."""
    data = profile_to_json(profile).encode("utf-8")
    return lzma.compress(data, preset=9 | lzma.PRESET_EXTREME) if os.fspath(path).endswith(".xz") else data


def _decoded_text(data: bytes, where: str) -> str:
    """A profile file's text: plain, xz- or gzip-compressed."""
    try:
        if data.startswith(_XZ_MAGIC):
            data = lzma.decompress(data)
        elif data.startswith(_GZIP_MAGIC):
            data = gzip.decompress(data)
        return data.decode("utf-8")
    except (lzma.LZMAError, OSError, EOFError):
        raise ProfileError(f"{where}: damaged profile (a compressed file that does not decompress)") from None
    except UnicodeDecodeError:
        raise ProfileError(f"{where}: damaged profile (not UTF-8 text)") from None


def profile_text(name_or_path: str) -> tuple[str, str]:
    """(where, text) of a shipped profile's name or a path to a profile file."""
    looks_like_path = (name_or_path.endswith((SUFFIX, ".xz", ".gz")) or os.sep in name_or_path
                       or (os.altsep or os.sep) in name_or_path)
    if not looks_like_path and name_or_path in shipped_profiles():
        folder = resources.files("tflm_facts") / "profiles"
        resource = folder / (name_or_path + COMPRESSED_SUFFIX)
        if not resource.is_file():
            resource = folder / (name_or_path + SUFFIX)
        where = f"profile {name_or_path}"
        return where, _decoded_text(resource.read_bytes(), where)
    path = Path(name_or_path)
    if not looks_like_path and not path.is_file():
        known = ", ".join(shipped_profiles()) or "none shipped"
        raise ProfileError(f"unknown profile {name_or_path!r} (shipped: {known}; or give a path to a .json profile)")
    try:
        return str(path), _decoded_text(path.read_bytes(), str(path))
    except FileNotFoundError:
        raise ProfileError(f"{path}: no such profile file") from None
    except IsADirectoryError:
        raise ProfileError(f"{path}: is a directory, not a profile") from None
    except OSError as error:
        raise ProfileError(f"{path}: cannot read ({error.strerror or error})") from None


def load_profile(name_or_path: str) -> TargetProfile:
    """A shipped profile by name, or a profile file by path; ProfileError with one line on any problem."""
    where, text = profile_text(name_or_path)
    return parse_profile(text, where)


def parse_profile(text: str, where: str) -> TargetProfile:
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ProfileError(f"{where}: damaged profile (not JSON: {_first_line(error)})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ProfileError(f"{where}: not a TFLM target profile (no \"format\": \"{FORMAT}\")")
    version = data.get("version")
    if version not in READABLE_VERSIONS:
        raise ProfileError(f"{where}: a profile of format version {version!r}; this tool reads versions "
                           f"{', '.join(map(str, READABLE_VERSIONS))} (export it again with this version's "
                           "size-report profile)")
    try:
        profile = _decode(data)
        _check(profile)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        raise ProfileError(f"{where}: damaged profile ({_first_line(error) or type(error).__name__})") from None
    return profile


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else ""


def _ints(values) -> tuple[int, ...]:
    if not isinstance(values, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise ValueError("a list of integers expected")
    return tuple(values)


def _int(value) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"an integer expected, not {value!r}")
    return value


def _inlined(rest) -> bool:
    """A call site's optional fifth field (version 3): true when the machinery was inlined into it."""
    if rest and rest[0] is not True:
        raise ValueError(f"expected true, got {rest[0]!r}")
    return bool(rest)


def _str(value) -> str:
    if not isinstance(value, str):
        raise ValueError(f"a string expected, not {value!r}")
    return value


def _path(value) -> StackPath | None:
    if value is None:
        return None
    depth, steps = value
    return StackPath(_int(depth), tuple((_int(a), _int(b)) for a, b in steps))


_DISTRIBUTION_KEYS = ("distribution", "distribution_revision", "build_system", "opt_level", "c_library")


def _decode(data: dict) -> TargetProfile:
    b = data["build"]
    build = BuildFacts(_str(b["arch"]), _str(b["cpu"]), _str(b["fpu"]), _str(b["kernels"]), _int(b["pointer_bytes"]),
                       bool(b["short_enums"]), _str(b["compiler"]), _str(b["flags"]), _str(b["tflm_commit"]),
                       _str(b["source"]), *(_str(b.get(key, "")) for key in _DISTRIBUTION_KEYS))
    g = data["graph"]
    graph = ProfileGraph(
        flash=_ints(g["flash"]), ram=_ints(g["ram"]), edges=tuple(_ints(e) for e in g["edges"]),
        always=_ints(g["always"]), roots=_ints(g["roots"]), unexplained=_ints(g["unexplained"]),
        functions=_ints(g["functions"]), names={int(k): _str(v) for k, v in g["names"].items()},
        call_sites=tuple(CallSite(_str(site[0]), _int(site[1]), _int(site[2]), _ints(site[3]), _inlined(site[4:]))
                         for site in g["call_sites"]),
        pool_words=tuple(PoolWord(_int(a), _int(c), _int(t), _int(s)) for a, c, t, s in g["pool_words"]),
        kept_targets={int(k): _ints(v) for k, v in g["kept_targets"].items()},
        shared_roots=tuple(SharedRoot(_int(node), tuple(_str(u) for u in users)) for node, users in g["shared_roots"]),
        app_uses={_str(use): _ints(nodes) for use, nodes in g.get("app_uses", {}).items()},
    )
    registrations = tuple(Registration(_str(r["op"]), _str(r["function"]), _str(r["method"]), _ints(r["nodes"]),
                                       _path(r["stack"])) for r in data["registrations"])
    return TargetProfile(
        name=_str(data["name"]), build=build, rom_total=_int(data["rom_total"]),
        runtime_bytes=_int(data["runtime_bytes"]), model_bytes=_int(data["model_bytes"]),
        static_ram=_int(data["static_ram"]), arena_symbol=_str(data["arena_symbol"]),
        arena_bytes=_int(data["arena_bytes"]), resolver_ram=_int(data["resolver_ram"]), graph=graph, registrations=registrations,
        stack_root=_str(data["stack_root"]), stack_base=_path(data["stack_base"]),
        stack_names=tuple(_str(n) for n in data["stack_names"]), notes=tuple(_str(n) for n in data["notes"]),
        resolver_op_bytes=_int(data.get("resolver_op_bytes", 0)),
    )


def _check(profile: TargetProfile) -> None:
    """Every node index in range, per-node lists of one length, sizes not negative."""
    graph = profile.graph
    count = len(graph.flash)
    if len(graph.ram) != count or len(graph.edges) != count:
        raise ValueError("per-node lists differ in length")
    if any(v < 0 for v in graph.flash) or any(v < 0 for v in graph.ram):
        raise ValueError("a negative size")
    indices = [i for edges in graph.edges for i in edges]
    indices += [*graph.always, *graph.roots, *graph.unexplained, *graph.functions, *graph.names]
    indices += [i for site in graph.call_sites for i in (site.caller, *site.targets)]
    indices += [i for word in graph.pool_words for i in (word.caller, word.target)]
    indices += [i for caller, targets in graph.kept_targets.items() for i in (caller, *targets)]
    indices += [s.node for s in graph.shared_roots] + [i for r in profile.registrations for i in r.nodes]
    indices += [i for nodes in graph.app_uses.values() for i in nodes]
    if any(not 0 <= i < count for i in indices):
        raise ValueError("a node index out of range")
    names = len(profile.stack_names)
    paths = [r.stack for r in profile.registrations if r.stack] + ([profile.stack_base] if profile.stack_base else [])
    if any(not 0 <= name < names for path in paths for name, _ in path.steps):
        raise ValueError("a stack step names no function")
    if profile.build.kernels not in KERNEL_SETS or profile.build.pointer_bytes not in (4, 8):
        raise ValueError("unknown kernel set or pointer size")
    if len({r.op for r in profile.registrations}) != len(profile.registrations):
        raise ValueError("a registration listed twice")
