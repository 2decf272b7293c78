"""The DWARF types the arena facts are read from (dwarf_structs.read_dwarf_types, kept to the names dwarf_facts looks
up), cached beside the reports and operator graphs: keyed like them by the ELF's content and sizetool's own code
(report_cache.cache_key), so a second `ops` or `fit` on an unchanged ELF does not walk its DWARF again.

Switched off the same way (SIZETOOL_NO_CACHE=1, use_cache=False); a cache that cannot be read or written is skipped.
Entries are marshal'd plain tuples: fast to load, and unable to run code.
"""

from __future__ import annotations

import marshal
import os

from sizetool.fit.dwarf_facts import MEMBERS_READ, looked_up_names
from sizetool.inputs.dwarf_structs import DwarfType, read_dwarf_types
from sizetool.report.report_cache import cache_dir, cache_enabled, cache_key, write_entry

SUFFIX = ".dwarftypes"
MAX_ENTRIES = 32
_FORMAT = 4  # 4: GraphAllocationInfo and MicroAllocator's members kept (they tell 2022-03 and 2021-05)


def load_dwarf_types(elf_path: str, use_cache: bool = True) -> list[DwarfType]:
    """The ELF's named types dwarf_facts can look up (with the members of dwarf_facts.MEMBERS_READ), from the cache
    when the ELF is unchanged, else read (and stored)."""
    use_cache = use_cache and cache_enabled()
    key = ""
    if use_cache:
        try:
            key = cache_key([elf_path], {"cache": "dwarf-types", "format": _FORMAT})
        except OSError:
            use_cache = False  # read_dwarf_types names the problem
    if use_cache:
        cached = _load(key)
        if cached is not None:
            return cached
    types = read_dwarf_types(elf_path, MEMBERS_READ, looked_up_names())
    if use_cache:
        write_entry(f"{key}{SUFFIX}", (_FORMAT, [(t.unit, t.name, t.kind, t.byte_size, t.members) for t in types]),
                    (SUFFIX,), MAX_ENTRIES)
    return types


def _load(key: str) -> list[DwarfType] | None:
    try:
        with open(os.path.join(cache_dir(), f"{key}{SUFFIX}"), "rb") as stream:
            data = marshal.load(stream)
        if data[0] != _FORMAT:
            return None
        types = [DwarfType(unit, name, kind, size, tuple(members)) for unit, name, kind, size, members in data[1]]
    except (OSError, ValueError, EOFError, TypeError, IndexError):
        return None
    if not all(isinstance(t.unit, str) and isinstance(t.name, str) and isinstance(t.kind, str)
               and isinstance(t.byte_size, int)
               and all(isinstance(member, str) for member in t.members) for t in types):
        return None
    return types
