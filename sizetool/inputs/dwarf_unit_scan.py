"""Two small DWARF answers read by the project's own decoder (dwarf_type_scan.TypeScan's units, plans and values)
instead of pyelftools' generic DIE parser, which cost a cold `fit` ~50 ms and loaded pyelftools for them alone:

- each compile unit's name and DW_AT_producer, in unit order (build_facts.producer_of);
- the integer constants (DW_TAG_variable with DW_AT_const_value) named like a pattern, at a unit's top level and in
  its namespaces, every other subtree passed over through DW_AT_sibling (dwarf_constants.read_dwarf_constants).

The walk is pyelftools': the same units, the same children in the same order, the same values (DW_FORM_data<n> read
unsigned, as pyelftools does). Whatever this reader does not handle the way pyelftools does (a name or a constant in a
form it leaves alone, a unit that does not end where the next begins) raises NotHandled, and the caller reads the ELF
through pyelftools instead: the answer is the same either way, only its speed differs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sizetool.inputs.dwarf_format import (
    AT_NAME, AT_PRODUCER, F_DATA1, F_DATA2, F_DATA4, F_DATA8, F_IMPLICIT_CONST, F_SDATA, F_UDATA, F_BLOCK, F_BLOCK1,
    F_BLOCK2, F_BLOCK4, F_DATA16, F_EXPRLOC, F_LINE_STRP, F_STRING, F_STRP, STRX_FORMS, Unit, read_uleb,
)
from sizetool.inputs.dwarf_type_scan import _WANTED, NotHandled, TypeScan

TAG_VARIABLE, TAG_NAMESPACE = 0x34, 0x39
AT_CONST_VALUE = 0x1C
# DW_AT_const_value forms pyelftools gives as an int (the constants listed), and those it gives as text or bytes
# (passed over); any other form (a flag, a reference: never seen on a constant) is left to pyelftools
_INTEGER_FORMS = frozenset({F_DATA1, F_DATA2, F_DATA4, F_DATA8, F_SDATA, F_UDATA, F_IMPLICIT_CONST})
_OTHER_VALUE_FORMS = frozenset({F_STRING, F_STRP, F_LINE_STRP, *STRX_FORMS, F_BLOCK, F_BLOCK1, F_BLOCK2, F_BLOCK4,
                                F_EXPRLOC, F_DATA16})


class UnitScan(TypeScan):
    """One ELF's .debug_info: its units' producers (producers()) and its named constants (constants())."""

    wanted = _WANTED | {AT_PRODUCER, AT_CONST_VALUE}

    def __init__(self, sections: dict[str, bytes], little_endian: bool) -> None:
        super().__init__(sections, little_endian, None, frozenset())

    def producers(self) -> Iterator[tuple[str, str | None]]:
        """(unit name, DW_AT_producer or None) of each unit, in unit order."""
        for unit in self._iter_units(whole=True):
            found = self._unit_top(unit)
            if found is None:  # a unit without a top DIE: left to pyelftools
                raise NotHandled("a unit without a top DIE")
            _top, values, _pos = found
            yield self._text(unit, values.get(AT_NAME)) or "", self._text(unit, values.get(AT_PRODUCER))

    def constants(self, pattern: re.Pattern) -> list[tuple[str, str, int]]:
        """(unit name, qualified name, value) of every integer constant whose name `pattern` finds."""
        out: list[tuple[str, str, int]] = []
        for unit in list(self._iter_units(whole=True)):
            found = self._unit_top(unit)
            if found is None:
                raise NotHandled("a unit without a top DIE")
            top, values, pos = found
            if top.has_children:
                self._children(unit, pos, [], self._text(unit, values.get(AT_NAME)) or "", pattern, out)
        return out

    def _children(self, unit: Unit, pos: int, scope: list[str], unit_name: str, pattern: re.Pattern,
                  out: list) -> int:
        """dwarf_constants._walk over the children from pos; the position after their null."""
        data, end = self.info, unit.end
        while pos < end:
            code, pos = read_uleb(data, pos)
            if code == 0:
                return pos
            plan = self._plan(unit, code)
            tag = plan.tag
            if tag != TAG_VARIABLE and tag != TAG_NAMESPACE and plan.fixed_size >= 0 and not plan.has_children:
                pos += plan.fixed_size
                continue
            values, pos = self._values(unit, plan, pos)
            if tag == TAG_NAMESPACE:
                if plan.has_children:
                    name = self._text(unit, values.get(AT_NAME)) or "(anonymous)"
                    pos = self._children(unit, pos, scope + [name], unit_name, pattern, out)
                continue
            if tag == TAG_VARIABLE:
                name = self._text(unit, values.get(AT_NAME))
                value = values.get(AT_CONST_VALUE)
                if name is not None and value is not None and pattern.search(name):
                    if value[0] in _INTEGER_FORMS:
                        out.append((unit_name, "::".join(scope + [name]), value[1]))
                    elif value[0] not in _OTHER_VALUE_FORMS:
                        raise NotHandled(f"a constant in form {value[0]:#x}")
            if plan.has_children:
                pos = self._after_children(unit, values, pos)
        raise NotHandled("a unit's DIEs run past its end")
