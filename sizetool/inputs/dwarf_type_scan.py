"""The named structs, typedefs and enums of an ELF's DWARF (dwarf_structs.py's answer), read by the project's own
abbreviation-driven decoder instead of pyelftools' generic DIE parser: about twenty times faster, for the same list.

The walk is dwarf_structs.py's: each unit's top level and the namespaces tflite and anonymous (with every namespace
nested in them); a struct, class, typedef or enum there is listed with its size (a typedef's is the size of the type
it names, through typedefs and const/volatile), and a struct named in members_of with its data members' names.
Everything else is passed over without decoding: a DIE with no children by its abbreviation's fixed size, a subtree
(function bodies, class members, namespaces std or flatbuffers) through DW_AT_sibling. Only the attributes read are
decoded (name, size, declaration, type, sibling). With `names`, only types whose last name part is one of them are
listed (the arena's few dozen: nothing else is looked up), and a typedef of any other name is not followed.

Whatever this reader does not handle the way pyelftools does (DW_FORM_indirect, references into type units or a
supplementary file, an unknown form, a reference outside the section) raises NotHandled, and the caller reads the ELF
through pyelftools instead: the answer is the same either way, only its speed differs.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from itertools import accumulate

from sizetool.inputs.dwarf_abbreviations import body_of, shared_tables, unit_header
from sizetool.inputs.dwarf_format import (
    AT_NAME, AT_SIBLING, AT_STR_OFFSETS_BASE, CU_REF_FORMS, F_BLOCK, F_BLOCK1, F_BLOCK2, F_BLOCK4, F_EXPRLOC, F_FLAG_PRESENT,
    F_IMPLICIT_CONST, F_LINE_STRP, F_REF_ADDR, F_SDATA, F_STRING, F_STRP, LEB_FORMS, STRX_FORMS, CorruptDwarf,
    Unit, read_cstring, read_sleb, read_uleb,
)

TAG_NAMESPACE, TAG_STRUCTURE, TAG_CLASS, TAG_TYPEDEF, TAG_ENUMERATION, TAG_MEMBER = 0x39, 0x13, 0x02, 0x16, 0x04, 0x0D
TAG_CONST, TAG_VOLATILE = 0x26, 0x35
AT_BYTE_SIZE, AT_DECLARATION, AT_TYPE, AT_ARTIFICIAL = 0x0B, 0x3C, 0x49, 0x34
_WANTED = frozenset({AT_NAME, AT_BYTE_SIZE, AT_DECLARATION, AT_TYPE, AT_SIBLING, AT_STR_OFFSETS_BASE,
                     AT_ARTIFICIAL})  # (DW_AT_artificial: dwarf_resolver_scan's)
# What a DIE is to the walk: passed over, a namespace (walked when in scope), a type that may be listed, a member
_OTHER, _NAMESPACE, _RECORD, _TYPEDEF, _ENUM = 0, 1, 2, 3, 4
_KINDS = {TAG_NAMESPACE: _NAMESPACE, TAG_STRUCTURE: _RECORD, TAG_CLASS: _RECORD, TAG_TYPEDEF: _TYPEDEF,
          TAG_ENUMERATION: _ENUM}
_KIND_NAMES = {_RECORD: "struct", _TYPEDEF: "typedef", _ENUM: "enum"}
_TOP_NAMESPACES = ("tflite", "(anonymous)")
# Forms whose value pyelftools gives as an integer (so DW_AT_byte_size in them is a size): constants, flags,
# references, addresses and section offsets; strings and blocks are not
_BLOCK_FORMS = frozenset({F_BLOCK, F_BLOCK1, F_BLOCK2, F_BLOCK4, F_EXPRLOC})
_STRING_FORMS = frozenset({F_STRING, F_STRP, F_LINE_STRP, *STRX_FORMS})
_REF_ADDR_FORMS = frozenset({F_REF_ADDR})


class NotHandled(Exception):
    """A DWARF construct this reader leaves to pyelftools."""


class _Plan:
    """What the walk needs of one abbreviation: its kind, its attributes, and whether it can be passed over by size."""

    __slots__ = ("kind", "tag", "has_children", "specs", "fixed_size", "sibling_at", "sibling_size", "strp_name_at",
                 "offset_size", "entry")

    def __init__(self, tag: int, has_children: bool, specs: tuple, offset_size: int) -> None:
        self.tag, self.has_children, self.kind = tag, has_children, _KINDS.get(tag, _OTHER)
        self.specs = tuple((attribute, form, implicit, size) for attribute, form, implicit, _, size in specs)
        self.offset_size = offset_size
        # A type's DW_AT_name in DW_FORM_strp at a fixed place in the DIE: its .debug_str offset tells a name that is
        # not looked up without decoding the DIE (-1: decode it)
        self.strp_name_at, offset = -1, 0
        for attribute, form, _, size in self.specs:
            if attribute == AT_NAME and form == F_STRP and self.kind in (_RECORD, _TYPEDEF, _ENUM):
                self.strp_name_at = offset
            if size < 0:
                break
            offset += size
        sizes = [size for _, _, _, size in self.specs]
        self.fixed_size = sum(sizes) if all(size >= 0 for size in sizes) else -1
        self.sibling_at, self.sibling_size = -1, 0
        if self.fixed_size >= 0:
            offset = 0
            for attribute, form, _, size in self.specs:
                if attribute == AT_SIBLING and form in CU_REF_FORMS:
                    self.sibling_at, self.sibling_size = offset, size
                    break
                offset += size
        # What a unit's list holds for the code, for the DIEs the walk only passes over (nothing read): an int, the
        # DIE's size (no children, a fixed size); a tuple (where DW_AT_sibling is, its size, the DIE's size) for one
        # with children; else this plan
        self.entry = self
        if self.kind == _OTHER and self.fixed_size >= 0:
            if not has_children:
                self.entry = self.fixed_size
            elif self.sibling_at >= 0:
                self.entry = (self.sibling_at, self.sibling_size, self.fixed_size)


class TypeScan:
    """One ELF's .debug_info walked for its named types (scan() lists them as dwarf_structs.DwarfType fields)."""

    wanted = _WANTED  # the attributes _values decodes (a subclass that reads others widens it)

    def __init__(self, sections: dict[str, bytes], little_endian: bool, names: frozenset[str] | None,
                 members_of: frozenset[str]) -> None:
        self.info = sections[".debug_info"]
        self.sections = sections
        self.endian = "little" if little_endian else "big"
        self.names, self.members_of = names, members_of
        self.abbreviations = shared_tables(sections.get(".debug_abbrev", b""))
        self.plans: dict[int, list] = {}  # id(unit's abbreviation dict) -> plan by code (None: not made yet)
        self.entry_by_body: dict[tuple, dict[bytes, int | _Plan]] = {}  # (sizes, version) -> encoded entry -> entry
        self.plan_by_abbrev: dict[int, _Plan] = {}
        self.abbrevs_kept: list = []
        self.units: list[Unit] = []
        self.unit_starts: list[int] = []
        # The .debug_str offsets where a looked-up name starts (the linker merges strings: one name may be another
        # string's tail, and every place counts)
        self.wanted_offsets = set() if names is None else name_offsets(sections.get(".debug_str", b""), names)

    # -- units -------------------------------------------------------------------------------------------------
    def _iter_units(self, whole: bool = False) -> Iterator[Unit]:
        """The units in section order (pyelftools' iter_CUs), each read and recorded (units, unit_starts) as it is
        reached; with `whole`, NotHandled when they do not end at the section's end (padding or a truncated header:
        how pyelftools reads on is left to it)."""
        info, pos = self.info, 0
        while pos + 11 <= len(info):
            unit = unit_header(info, pos, self.endian, self.abbreviations, self.sections.get(".debug_abbrev", b""))
            if unit is None:
                break
            self.units.append(unit)
            self.unit_starts.append(unit.offset)
            yield unit
            pos = unit.end
        if whole and pos != len(info):
            raise NotHandled("the units do not end at the section's end")

    def scan(self) -> list[tuple[str, str, str, int, tuple[str, ...]]]:
        """(unit, qualified name, kind, byte size, members) of every type listed, in pyelftools' walk order."""
        out: list = []
        for unit in list(self._iter_units()):  # every unit's start known before any is walked
            self._scan_unit(unit, out)
        return out

    def _plans(self, unit: Unit) -> list:
        """The unit's entries by code (a plan's entry: an int, the size of a DIE passed over, or the plan; None: not
        made yet): filled (in C) with the entries of the encoded abbreviations other units met, the same bytes under
        any code (most units repeat the same few hundred)."""
        plans = self.plans.get(id(unit.abbrevs))
        if plans is None:
            bodies = unit.bodies
            known = self.entry_by_body.setdefault((unit.address_size, unit.offset_size, unit.version), {})
            plans = self.plans[id(unit.abbrevs)] = [*map(known.get, bodies)] if bodies.__class__ is list else []
        return plans

    def _plan(self, unit: Unit, code: int) -> _Plan:
        plans = self._plans(unit)
        if 0 < code < len(plans) and plans[code].__class__ is _Plan:
            return plans[code]  # (an int or tuple entry: its plan from the abbreviation, below)
        abbrev = self.abbreviations.abbrev(unit, code)
        if abbrev is None:
            raise CorruptDwarf(f"unknown abbreviation {code} in unit at .debug_info offset {unit.offset:#x}")
        plan = self.plan_by_abbrev.get(id(abbrev))
        if plan is None:
            plan = self.plan_by_abbrev[id(abbrev)] = _Plan(abbrev.tag, abbrev.has_children, abbrev.specs,
                                                           unit.offset_size)
            self.abbrevs_kept.append(abbrev)  # its id stays its own while the scan runs
        body = body_of(unit.bodies, code)
        if body is not None:
            self.entry_by_body[(unit.address_size, unit.offset_size, unit.version)][body] = plan.entry
        if code < 4096:
            plans.extend([None] * (code + 1 - len(plans)))
            plans[code] = plan.entry
        return plan

    def _unit_top(self, unit: Unit):
        """The unit's top DIE read (its str_offsets base set): (its plan, its values, the position after it), or None
        for a unit without one."""
        pos = unit.first_die
        if pos >= unit.end:
            return None
        code, pos = read_uleb(self.info, pos)
        if code == 0:
            return None
        top = self._plan(unit, code)
        values, pos = self._values(unit, top, pos)
        unit.str_offsets_base = values.get(AT_STR_OFFSETS_BASE, (0, 8))[1]
        return top, values, pos

    def _scan_unit(self, unit: Unit, out: list) -> None:
        found = self._unit_top(unit)
        if found is None:
            return
        top, values, pos = found
        unit_name = self._text(unit, values.get(AT_NAME)) or ""
        if not top.has_children:
            return
        data, end = self.info, unit.end
        names, members_of, base, wanted_offsets = self.names, self.members_of, unit.offset, self.wanted_offsets
        endian, from_bytes = self.endian, int.from_bytes
        plans = self._plans(unit)
        scopes: list[list[str]] = []  # the enclosing namespaces' scopes, innermost last
        scope: list[str] = []
        while pos < end:
            code = data[pos]
            if code < 0x80:
                pos += 1
            else:
                code, pos = read_uleb(data, pos)
            try:
                plan = plans[code]  # (code 0's entry is None)
            except IndexError:  # a code past the list: made below
                plan = None
            if plan.__class__ is int:  # a DIE passed over by its size: most of them
                pos += plan
                continue
            if plan.__class__ is tuple:  # one passed over with its children: straight to its sibling
                at = pos + plan[0]
                target = base + from_bytes(data[at : at + plan[1]], endian)
                pos += plan[2]
                pos = target if pos < target <= end else self._skip_subtree(unit, pos)
                continue
            if code == 0:  # the end of a namespace's children, or of the unit's
                if not scopes:
                    return
                scope = scopes.pop()
                continue
            if plan is None:
                plan = self._plan(unit, code)
            kind = plan.kind
            if kind != _OTHER and plan.strp_name_at >= 0 and names is not None:
                at = pos + plan.strp_name_at
                if int.from_bytes(data[at : at + plan.offset_size], self.endian) not in wanted_offsets:
                    kind = _OTHER  # a type of another name: passed over
            if kind == _OTHER:  # passed over: most DIEs
                if plan.fixed_size >= 0:
                    if not plan.has_children:
                        pos += plan.fixed_size
                        continue
                    if plan.sibling_at >= 0:
                        at = pos + plan.sibling_at
                        target = base + int.from_bytes(data[at : at + plan.sibling_size], self.endian)
                        pos += plan.fixed_size
                        pos = target if pos < target <= end else self._skip_subtree(unit, pos)
                        continue
                values, pos = self._values(unit, plan, pos)
                if plan.has_children:
                    pos = self._after_children(unit, values, pos)
                continue
            values, pos = self._values(unit, plan, pos)
            if plan.kind == _NAMESPACE:
                name = self._text(unit, values.get(AT_NAME)) or "(anonymous)"
                if plan.has_children:
                    if scope or name in _TOP_NAMESPACES:
                        scopes.append(scope)
                        scope = scope + [name]
                    else:
                        pos = self._after_children(unit, values, pos)
                continue
            name = self._text(unit, values.get(AT_NAME)) if AT_NAME in values else None
            if name is None or AT_DECLARATION in values or (names is not None and name not in names):
                if plan.has_children:
                    pos = self._after_children(unit, values, pos)
                continue
            members: tuple[str, ...] = ()
            if plan.kind == _RECORD:
                size = _integer(values.get(AT_BYTE_SIZE))
                if size is not None and name in members_of and plan.has_children:
                    members, pos = self._members(unit, pos)
                elif plan.has_children:
                    pos = self._after_children(unit, values, pos)
            else:
                size = self._typedef_size(unit, values) if plan.kind == _TYPEDEF else _integer(
                    values.get(AT_BYTE_SIZE))
                if plan.has_children:
                    pos = self._after_children(unit, values, pos)
            if size is not None:
                out.append((unit_name, "::".join(scope + [name]), _KIND_NAMES[plan.kind], size, members))
        # a unit whose children run to its end without their closing null: pyelftools reads on, and fails
        if scopes or pos > end:
            raise NotHandled("a unit's DIEs run past its end")

    # -- subtrees ----------------------------------------------------------------------------------------------
    def _after_children(self, unit: Unit, values: dict, pos: int) -> int:
        """The position after the children of a DIE whose children start at pos: its DW_AT_sibling, else walked."""
        sibling = values.get(AT_SIBLING)
        if sibling is not None and sibling[0] in CU_REF_FORMS:
            target = unit.offset + sibling[1]
            if pos < target <= unit.end:
                return target
        return self._skip_subtree(unit, pos)

    def _skip_subtree(self, unit: Unit, pos: int) -> int:
        data, end, depth, plans = self.info, unit.end, 1, self._plans(unit)
        while pos < end:
            code = data[pos]
            if code < 0x80:
                pos += 1
            else:
                code, pos = read_uleb(data, pos)
            if code == 0:
                depth -= 1
                if depth == 0:
                    return pos
                continue
            plan = plans[code] if code < len(plans) else None
            if plan.__class__ is int:
                pos += plan
                continue
            plan = self._plan(unit, code)
            if plan.fixed_size >= 0 and not plan.has_children:
                pos += plan.fixed_size
                continue
            values, pos = self._values(unit, plan, pos)
            if plan.has_children:
                pos = self._after_children(unit, values, pos)
        raise NotHandled("a subtree runs past its unit's end")

    def _members(self, unit: Unit, pos: int) -> tuple[tuple[str, ...], int]:
        """The names of a struct's data members (its children from pos), and the position after its children."""
        data, end, names = self.info, unit.end, []
        while pos < end:
            code, pos = read_uleb(data, pos)
            if code == 0:
                return tuple(names), pos
            plan = self._plan(unit, code)
            values, pos = self._values(unit, plan, pos)
            if plan.tag == TAG_MEMBER:
                names.append(self._text(unit, values.get(AT_NAME)) or "")
            if plan.has_children:
                pos = self._after_children(unit, values, pos)
        raise NotHandled("a struct's members run past its unit's end")

    # -- values ------------------------------------------------------------------------------------------------
    def _values(self, unit: Unit, plan: _Plan, pos: int) -> tuple[dict, int]:
        """The DIE's attributes the walk reads, as attribute -> (form, value); the others skipped."""
        values = {}
        data, wanted = self.info, self.wanted
        for attribute, form, implicit, size in plan.specs:
            if size >= 0:
                if attribute in wanted:
                    if form == F_IMPLICIT_CONST:
                        value = implicit
                    elif form == F_FLAG_PRESENT:
                        value = 1
                    else:
                        value = int.from_bytes(data[pos : pos + size], self.endian)
                    values[attribute] = (form, value)
                pos += size
                continue
            if form in LEB_FORMS:
                value, pos = (read_sleb if form == F_SDATA else read_uleb)(data, pos)
            elif form == F_STRING:
                value, pos = read_cstring(data, pos)
            elif form in _BLOCK_FORMS:
                if form in (F_EXPRLOC, F_BLOCK):
                    length, pos = read_uleb(data, pos)
                else:
                    width = {F_BLOCK1: 1, F_BLOCK2: 2, F_BLOCK4: 4}[form]
                    length, pos = int.from_bytes(data[pos : pos + width], self.endian), pos + width
                value, pos = None, pos + length
            else:  # DW_FORM_indirect, or a form this reader does not know
                raise NotHandled(f"attribute form {form:#x}")
            if attribute in wanted:
                values[attribute] = (form, value)
        if pos > unit.end:
            raise CorruptDwarf(f"a DIE runs past the end of its unit at .debug_info offset {unit.offset:#x}")
        return values, pos

    def _text(self, unit: Unit, attribute) -> str | None:
        """A string attribute's text as pyelftools gives it (None: absent)."""
        if attribute is None:
            return None
        form, value = attribute
        if form == F_STRING:
            raw = value
        elif form in (F_STRP, F_LINE_STRP):
            section = self.sections.get(".debug_line_str" if form == F_LINE_STRP else ".debug_str", b"")
            if value >= len(section):
                raise NotHandled("a string offset outside its section")
            raw = read_cstring(section, value)[0]
        elif form in STRX_FORMS:
            offsets, section = self.sections.get(".debug_str_offsets", b""), self.sections.get(".debug_str", b"")
            at = unit.str_offsets_base + value * unit.offset_size
            if at + unit.offset_size > len(offsets):
                raise NotHandled("a string index outside .debug_str_offsets")
            offset = int.from_bytes(offsets[at : at + unit.offset_size], self.endian)
            if offset >= len(section):
                raise NotHandled("a string offset outside .debug_str")
            raw = read_cstring(section, offset)[0]
        else:
            raise NotHandled(f"a name in form {form:#x}")
        return raw.decode("utf-8", errors="replace")

    def _typedef_size(self, unit: Unit, values: dict) -> int | None:
        """The size of the type a typedef names, through typedef, const and volatile (8 steps at most)."""
        for _ in range(8):
            reference = values.get(AT_TYPE)
            if reference is None:
                return None
            unit, tag, values = self._die_at(unit, reference)
            size = _integer(values.get(AT_BYTE_SIZE))
            if size is not None and AT_DECLARATION not in values:
                return size
            if tag not in (TAG_TYPEDEF, TAG_CONST, TAG_VOLATILE):
                return None
        return None

    def _die_at(self, unit: Unit, reference: tuple[int, int]) -> tuple[Unit, int, dict]:
        """The unit, tag and attributes of the DIE a reference attribute names."""
        form, value = reference
        if form in CU_REF_FORMS:
            offset = unit.offset + value
        elif form in _REF_ADDR_FORMS:
            offset = value
            position = bisect.bisect_right(self.unit_starts, offset) - 1
            if position < 0:
                raise NotHandled("a reference before the first unit")
            unit = self.units[position]
        else:  # DW_FORM_ref_sig8 (type units), GNU_ref_alt (a supplementary file)
            raise NotHandled(f"a type reference in form {form:#x}")
        if not unit.first_die <= offset < unit.end:
            raise NotHandled("a type reference outside its unit")
        code, pos = read_uleb(self.info, offset)
        if code == 0:
            raise NotHandled("a type reference to a null entry")
        plan = self._plan(unit, code)
        return unit, plan.tag, self._values(unit, plan, pos)[0]


def name_offsets(strings: bytes, names: frozenset[str]) -> set[int]:
    """Every offset in a string section (.debug_str) where one of the names starts and runs to a NUL, a whole string
    or the tail of a longer one. Split at the NULs (in C), each string's last bytes looked up in a dict: a byte
    search per name would cost five times as long on a -g TFLM build's 1.2 MB."""
    encoded = [name.encode() for name in names if name]
    if not encoded or not strings:
        return set()
    width = min(map(len, encoded))
    by_tail: dict[bytes, list[bytes]] = {}
    for name in encoded:
        by_tail.setdefault(name[-width:], []).append(name)
    parts = strings.split(b"\0")
    hits = [index for index, part in enumerate(parts) if part[-width:] in by_tail]
    if not hits:
        return set()
    starts = list(accumulate(map(len, parts), initial=0))  # + index (the NULs before): where each part starts
    found = set()
    for index in hits:
        part = parts[index]
        for name in by_tail[part[-width:]]:
            if part.endswith(name):
                found.add(starts[index] + index + len(part) - len(name))
    return found


def _integer(attribute) -> int | None:
    """An attribute's value when pyelftools gives it as an integer (a size), else None."""
    if attribute is None:
        return None
    form, value = attribute
    if form in _STRING_FORMS or form in _BLOCK_FORMS:
        return None
    return value if isinstance(value, int) else None
