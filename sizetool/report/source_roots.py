"""The top levels of the size tree: which directory each source file is shown under.

- One workspace (`--workspace DIR`, or the common directory of the compile units' sources): paths are relative to it,
  with no node of its own, as Zephyr's size_report roots its tree at the common prefix.
- Several source roots (a library built in one tree and the app in another, or `--workspace` given more than once):
  each root is a named top-level node, named after the root itself, never after the folder that holds them, so `/build/tflite-micro/kernels/add.cc` shows as `tflite-micro/kernels/add.cc`
  beside `keyword-app/src/main.cc`, not as `(outside workspace)/build/...`. When the sources share no meaningful root
  (the common directory is `/`, every tree below it is a deep subtree of its own, or one tree holds the build
  directory: the project, with an SDK checked out beside it in the same folder), each tree's root is the
  directory its units were compiled from when they share one that holds them (a checkout built with its Makefile),
  else the longest directory that holds all of its units.
- Zephyr builds (recognised by `CONFIG_*` symbols or a ZEPHYR_BASE layout among the units: `<base>/kernel/*.c` with
  `<base>/arch/...`) get Zephyr size_report's nodes: `ZEPHYR_BASE`, `OUTPUT_DIR` (the build directory), `WORKSPACE`
  (the west workspace holding ZEPHYR_BASE and the modules); other sources (an app outside the workspace) get the
  roots above.
- Everything else: `(toolchain)`, `(system headers)`, or `(outside workspace)/<full path>`.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from dataclasses import dataclass

from sizetool.inputs.dwarf_paths import SourceIndex, is_absolute

OUTSIDE_WORKSPACE = "(outside workspace)"
TOOLCHAIN = "(toolchain)"
SYSTEM_HEADERS = "(system headers)"
ZEPHYR_BASE, OUTPUT_DIR, WORKSPACE = "ZEPHYR_BASE", "OUTPUT_DIR", "WORKSPACE"

# Run-time libraries built by the toolchain vendor; their sources are shown from the library's own directory.
TOOLCHAIN_LIBRARIES = ("libgcc", "libstdc++-v3", "libsupc++", "newlib", "libgloss", "picolibc", "glibc", "musl",
                       "compiler-rt", "libatomic", "libquadmath")
_SYSTEM_INCLUDE = re.compile(
    r"^/usr/(local/)?include/|/include/c\+\+/|/lib/gcc(-cross)?/[^/]+/[^/]+/include(-fixed)?/|^/usr/lib/[^/]+/include/"
    r"|/(arm-none-eabi|riscv\d*-unknown-elf|[a-z0-9_]+-zephyr-elf|xtensa-[a-z0-9_]+-elf)/include/"
)
_TOOLCHAIN_DIR = re.compile(r"(^|/)(gcc|zephyr-sdk|toolchain)[^/]*(/|$)|-none-eabi|-unknown-elf|-zephyr-elf"
                            r"|xtensa-[a-z0-9_]+-elf|-esp-elf|^/usr/|^/opt/")
_ZEPHYR_KERNEL_UNIT = re.compile(r"^(.+)/kernel/(init|sched|thread|device|idle|timeout|mutex|sem)\.c$")
# Directory names that say little on their own: a root called "src" is shown with its parent ("app/src").
_GENERIC_NAMES = frozenset({"src", "source", "sources", "lib", "libs", "app", "build", "code", "firmware", "main",
                            "components"})


@dataclass(frozen=True)
class SourceRoot:
    """A directory whose files form one top-level node of the tree."""

    directory: str
    name: str = ""  # the top-level node; "" for the one unnamed workspace


def find_roots(index: SourceIndex, workspaces: list[str] | None = None, kconfig_symbols: int = 0) -> list[SourceRoot]:
    """The roots of the tree, longest directory first within each kind (so the deepest root that holds a file
    names it)."""
    if workspaces:
        if len(workspaces) == 1:
            return [SourceRoot(workspaces[0])]
        return _named(workspaces)
    units = project_units(index)
    if not units:
        workspace = index.workspace()
        return [SourceRoot(workspace)] if workspace else []
    zephyr = _zephyr_roots(index, units, kconfig_symbols)
    if zephyr:
        taken = [root.directory for root in zephyr]
        rest = [u for u in units if not any(_under(u, d) for d in taken)]
        others = [r.directory for r in _project_roots(index, rest)] if rest else []
        return zephyr + [r for r in _named(others, reserved={r.name for r in zephyr})]
    return _project_roots(index, units)


def project_units(index: SourceIndex) -> list[str]:
    """The compile units' sources that belong to the project (absolute, not the toolchain's own libraries)."""
    return sorted({f for f in index.unit_files if is_absolute(f) and outside_root(f) is None})


def _project_roots(index: SourceIndex, units: list[str]) -> list[SourceRoot]:
    directories = sorted({posixpath.dirname(u) for u in units})
    common = _commonpath(directories)
    groups: dict[str, list[str]] = {}
    for directory in directories:
        below = directory[len(common):].lstrip("/") if common else directory
        # With no common directory (Windows and POSIX paths mixed: a vendor library built on Windows linked into a
        # build on Linux), each POSIX tree is a group of its own (`/app`, `/home`), not one group rooted at `/`.
        first = "/" + _first_part(below[1:]) if below.startswith("/") else _first_part(below)
        groups.setdefault(first, []).append(directory)
    own_roots = {first: _commonpath(members) for first, members in groups.items()}
    shallow = common in ("", "/") or re.fullmatch(r"[A-Za-z]:/?", common) is not None
    every_tree_is_deep = len(groups) > 1 and all(
        root != posixpath.join(common, first) for first, root in own_roots.items()
    )
    beside = None if shallow or every_tree_is_deep else _project_beside_others(index, common, own_roots)
    if beside is not None:
        own_roots[beside[0]] = beside[1]
    elif not (shallow or every_tree_is_deep):
        return [SourceRoot(common)]
    roots = []
    for first, root in own_roots.items():
        compiled_in = {index.unit_comp_dirs.get(u) for u in units if _under(posixpath.dirname(u), root)}
        if len(compiled_in) == 1:
            comp_dir = next(iter(compiled_in))
            if comp_dir and _under(root, comp_dir) and _under(comp_dir, posixpath.join(common, first)):
                root = comp_dir  # the checkout the units were built from, e.g. TFLM's Makefile at its top directory
        roots.append(root)
    return _named(roots)


def _project_beside_others(index: SourceIndex, common: str, own_roots: dict[str, str]) -> tuple[str, str] | None:
    """When the trees are unrelated roots in a folder that merely holds them: (the project's tree, its root). That is
    so when the build directory (where most units were compiled: CMake compiles everything there) lies inside one
    tree, below the directory holding that tree's sources and the build (/home/dev/work/kws-app, holding src/ and
    build/): the others, such as an SDK checked out beside it (/home/dev/pico-sdk), are roots of their own, and the
    folder holding both (/home/dev, or its work/) names neither. A build directory that is itself that directory (a
    project whose generated sources sit in its build/) is one project."""
    if len(own_roots) < 2 or not index.comp_dirs:
        return None
    build = index.workspace()
    for first, root in own_roots.items():
        if not _under(build, posixpath.join(common, first)):
            continue
        project = _commonpath([root, build])
        if project != build and project != common and _under(project, posixpath.join(common, first)):
            return first, project
    return None


def _first_part(path: str) -> str:
    """The top directory of a path below the common root; a Windows drive (`C:`) alone is no directory of its own,
    so `C:/Espressif/...` and `C:/Users/...` are two trees, not one called `C:`."""
    parts = path.split("/", 2)
    if _DRIVE.fullmatch(parts[0]) and len(parts) > 1:
        return parts[0] + "/" + parts[1]
    return parts[0]


_DRIVE = re.compile(r"[A-Za-z]:")


def _zephyr_roots(index: SourceIndex, units: list[str], kconfig_symbols: int) -> list[SourceRoot]:
    bases = Counter(match.group(1) for u in units if (match := _ZEPHYR_KERNEL_UNIT.match(u)))
    base = next((b for b, _ in bases.most_common() if any(u.startswith(b + "/arch/") for u in units)), None)
    if base is None:
        return []
    if not kconfig_symbols and not any(u.startswith(base + "/include/") or u.startswith(base + "/lib/") or
                                       u.startswith(base + "/drivers/") or u.startswith(base + "/subsys/")
                                       for u in units):
        return []  # a kernel/ and an arch/ directory alone do not make a Zephyr tree
    roots = [SourceRoot(base, ZEPHYR_BASE)]
    # The build directory: where most units were compiled (Zephyr compiles everything from it).
    build = index.workspace()
    if build and not _under(build, base):
        roots.append(SourceRoot(build, OUTPUT_DIR))
    workspace = posixpath.dirname(base)
    if workspace not in ("", "/") and any(
        _under(u, workspace) and not _under(u, base) and not (build and _under(u, build)) for u in units
    ):
        roots.append(SourceRoot(workspace, WORKSPACE))
    return roots


def _named(directories: list[str], reserved: frozenset[str] | set[str] = frozenset()) -> list[SourceRoot]:
    """Each root named by the shortest tail of its path that no other root shares and that says something
    (`tflite-micro`, `keyword-app/src` rather than `src`)."""
    directories = sorted(set(directories), key=lambda d: (-len(d), d))
    parts_of = {d: [p for p in d.split("/") if p] for d in directories}
    roots = []
    for directory in directories:
        parts = parts_of[directory]
        name = "/".join(parts) or directory
        for length in range(1, len(parts) + 1):
            tail = parts[-length:]
            if length < len(parts) and tail[0].lower() in _GENERIC_NAMES:
                continue
            shared = any(other != directory and parts_of[other][-length:] == tail for other in directories)
            if not shared and "/".join(tail) not in reserved:
                name = "/".join(tail)
                break
        roots.append(SourceRoot(directory, name))
    return roots


def tree_path_finder(roots: list[SourceRoot]):
    """tree_path(source) for these roots, remembered per source file (thousands of symbols share a file)."""
    ordered = sorted(roots, key=lambda r: (-len(r.directory), r.directory))
    known: dict[str, tuple[str, ...]] = {}

    def tree_path(source: str) -> tuple[str, ...]:
        found = known.get(source)
        if found is None:
            found = known[source] = _tree_path(source, ordered)
        return found

    return tree_path


def _tree_path(source: str, roots: list[SourceRoot]) -> tuple[str, ...]:
    for root in roots:
        if root.directory and (source == root.directory or source.startswith(root.directory.rstrip("/") + "/")):
            relative = source[len(root.directory.rstrip("/")) + 1 :]
            parts = tuple(part for part in relative.split("/") if part) or (posixpath.basename(source),)
            return ((root.name,) + parts) if root.name else parts
    if not is_absolute(source):  # relative without a comp_dir: as DWARF gives it, unless it is a run-time library's
        return outside_root(source) or tuple(part for part in source.split("/") if part)
    return outside_root(source) or (OUTSIDE_WORKSPACE,) + tuple(part for part in source.split("/") if part)


def outside_root(source: str) -> tuple[str, ...] | None:
    """The top-level node of a file outside the workspace when it belongs to the toolchain or the system, else None."""
    parts = [part for part in source.split("/") if part]
    for position, part in enumerate(parts):
        if part in TOOLCHAIN_LIBRARIES:
            return (TOOLCHAIN,) + _as_library(parts[position:])
    if _SYSTEM_INCLUDE.search(source):
        start = parts.index("include") + 1 if "include" in parts else 0
        return (SYSTEM_HEADERS,) + tuple(parts[start:])
    if _TOOLCHAIN_DIR.search(source.lower() if ":" in source[:3] else source):
        # a file of the distribution's build tree (/build/gcc-arm-none-eabi-8GAN2q/.../build/...): from below it
        inside = len(parts) - 1 - parts[::-1].index("build") if "build" in parts[:-1] else -1
        return (TOOLCHAIN,) + tuple(parts[inside + 1:])
    return None


def _as_library(parts: list[str]) -> tuple[str, ...]:
    """A run-time library's source path named by the library it builds: newlib/libc/... -> libc/...,
    newlib/libm/... -> libm/..., libgloss/libnosys/... -> libnosys/..., libstdc++-v3/... -> libstdc++/...; newlib's
    installed headers (Debian's /usr/include/newlib/assert.h) -> libc/include/..."""
    first, rest = parts[0], parts[1:]
    if first in ("newlib", "libgloss") and len(rest) > 1 and rest[0].startswith("lib"):
        return tuple(rest)
    if first == "newlib" and rest and "." in rest[-1] and rest[-1].endswith(".h"):  # /usr/include/newlib/assert.h
        return ("libc", "include") + tuple(rest)
    if first == "libstdc++-v3":
        return ("libstdc++",) + tuple(rest)
    if first == "libsupc++":
        return ("libstdc++", first) + tuple(rest)
    return tuple(parts)


def _under(path: str, directory: str) -> bool:
    return bool(directory) and (path == directory or path.startswith(directory.rstrip("/") + "/"))


def _commonpath(paths: list[str]) -> str:
    if not paths:
        return ""
    try:
        return posixpath.commonpath(paths)
    except ValueError:  # absolute and relative mixed
        return ""
