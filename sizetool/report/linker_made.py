"""Code the linker writes itself, grouped by kind: one tree node per kind under `(linker)`, not one entry per piece
under `(no debug info)` (a pico-sdk program has tens of long-branch veneers between flash and RAM functions).

The names are GNU ld's (bfd/elf32-arm.c, elfnn-aarch64.c, elf64-ppc.c) and LLVM lld's for the same stubs:
- long-branch veneers `__<target>_veneer` (ARM, Thumb, AArch64: a call beyond a BL's range, e.g. flash to RAM);
- ARM/Thumb interworking glue `__<target>_from_arm`, `__<target>_from_thumb`, `__<target>_change_to_arm`, and
  ARMv4 BX veneers `__bx_r<n>`;
- erratum workarounds `__vfp11_veneer_<n>`, `__stm32l4xx_veneer_<n>`, `__erratum_<n>_veneer_<n>`;
- PowerPC long-branch and PLT call stubs (`<hex>.long_branch.<target>`, `<hex>.plt_call.<target>`) and `<f>@plt`.
A veneer's bytes belong to no source file: the callers that need it are anywhere.
"""

from __future__ import annotations

import re

LINKER = "(linker)"
_KINDS = (
    (re.compile(r"^__(vfp11|stm32l4xx)_veneer_\w+$|^__erratum_\w+_veneer\w*$"), "erratum veneers"),
    (re.compile(r"^__.+_veneer$"), "veneers"),
    (re.compile(r"^__.+_(from_arm|from_thumb|change_to_arm)$|^__bx_r\d+$"), "interworking stubs"),
    (re.compile(r"^[0-9a-f]+\.(long_branch|plt_branch|plt_call)[._]|@plt$"), "call stubs"),
)


def linker_made_path(name: str) -> tuple[str, str] | None:
    """(LINKER, kind) for a symbol the linker wrote (its mangled or plain name), else None."""
    if not name.startswith("__") and "." not in name and "@" not in name:
        return None
    for pattern, kind in _KINDS:
        if pattern.search(name):
            return (LINKER, kind)
    return None
