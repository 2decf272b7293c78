"""dwarf_resolver_api.py's answer (the resolver methods and registrations an ELF's DWARF shows) read by the project's
own DWARF decoder (dwarf_type_scan.TypeScan's units, plans and values) instead of pyelftools' generic DIE parser: the
same walk (units' top level, namespace tflite and those nested in it to depth 4, the MicroMutableOpResolver classes'
member functions and their parameters, stopping after the first unit holding a resolver class), about thirty times
faster. What it leaves to pyelftools raises dwarf_type_scan.NotHandled, and the caller reads the ELF through
pyelftools instead.
"""

from __future__ import annotations

from sizetool.inputs.dwarf_format import AT_NAME, F_STRP, Unit, read_uleb
from sizetool.inputs.dwarf_type_scan import AT_ARTIFICIAL, NotHandled, TypeScan, _Plan

TAG_NAMESPACE, TAG_SUBPROGRAM, TAG_CLASS, TAG_STRUCTURE, TAG_PARAMETER = 0x39, 0x2E, 0x02, 0x13, 0x05
AT_TYPE = 0x49
RESOLVER_CLASS = "MicroMutableOpResolver<"
_RESOLVER_BYTES = RESOLVER_CLASS.encode()
_READ_TAGS = frozenset({TAG_NAMESPACE, TAG_SUBPROGRAM, TAG_CLASS, TAG_STRUCTURE})  # the DIEs _children reads


class ResolverScan(TypeScan):
    """The resolver API of one ELF's .debug_info: scan_api() gives (methods, registrations, classes, types)."""

    def __init__(self, sections: dict[str, bytes], little_endian: bool) -> None:
        super().__init__(sections, little_endian, None, frozenset())
        self.full_plans: dict[int, dict[int, _Plan]] = {}
        self.name_at: dict[_Plan, int] = {}
        self.strings = sections.get(".debug_str", b"")

    def scan_api(self) -> tuple[dict[str, bool], set[str], set[str], set[str]]:
        units = list(self._iter_units())
        methods: dict[str, bool] = {}
        registrations: set[str] = set()
        classes: set[str] = set()
        types: set[str] = set()
        for unit in units:
            found = self._unit_top(unit)
            if found is None:
                continue
            top, _values, pos = found
            if top.has_children:
                self._children(unit, pos, 0, (methods, registrations, classes, types))
            if classes:  # its methods are all there: the other units would only repeat them
                break
        return methods, registrations, classes, types

    def _children(self, unit: Unit, pos: int, depth: int, found: tuple) -> int:
        """Walk the children from pos (dwarf_resolver_api._walk at `depth`); the position after their null."""
        data, end = self.info, unit.end
        plans = self._plans(unit)
        full = self.full_plans.setdefault(id(unit.abbrevs), {})  # code -> plan, where plans holds a pass-over entry
        methods, registrations, classes, types = found
        while pos < end:
            code = data[pos]
            if code < 0x80:
                pos += 1
            else:
                code, pos = read_uleb(data, pos)
            if code == 0:
                return pos
            plan = plans[code] if code < len(plans) else None
            if depth == 0:  # a unit's top level: only namespace tflite is walked, the rest passed over
                if plan.__class__ is int:
                    pos += plan
                    continue
                if plan.__class__ is tuple:
                    at = pos + plan[0]
                    target = unit.offset + int.from_bytes(data[at : at + plan[1]], self.endian)
                    pos += plan[2]
                    pos = target if pos < target <= end else self._skip_subtree(unit, pos)
                    continue
            if plan.__class__ is not _Plan:  # (the struct scan's pass-over entries hide subprograms' names)
                plan = full.get(code)
                if plan is None:
                    plan = full[code] = self._plan(unit, code)
            tag = plan.tag
            if plan.fixed_size >= 0 and (tag not in _READ_TAGS or (tag != TAG_NAMESPACE and (
                    depth == 0 or not self._may_be_read(plan, data, pos)))):  # passed over by its size or sibling
                if not plan.has_children:
                    pos += plan.fixed_size
                    continue
                if plan.sibling_at >= 0:
                    at = pos + plan.sibling_at
                    target = unit.offset + int.from_bytes(data[at : at + plan.sibling_size], self.endian)
                    pos += plan.fixed_size
                    pos = target if pos < target <= end else self._skip_subtree(unit, pos)
                    continue
            values, pos = self._values(unit, plan, pos)
            if tag == TAG_NAMESPACE and depth < 4:
                name = self._text(unit, values.get(AT_NAME))
                if (depth > 0 or name == "tflite") and plan.has_children:
                    pos = self._children(unit, pos, depth + 1, found)
                    continue
            elif depth > 0 and tag == TAG_SUBPROGRAM:
                name = self._text(unit, values.get(AT_NAME)) or ""
                if name.startswith("Register_"):
                    registrations.add(name)
            elif depth > 0 and tag in (TAG_CLASS, TAG_STRUCTURE):
                name = self._text(unit, values.get(AT_NAME)) or ""
                if name.startswith(RESOLVER_CLASS):
                    classes.add(name)
                    if plan.has_children:
                        pos = self._class_members(unit, pos, methods, types)
                    continue
            if plan.has_children:
                pos = self._after_children(unit, values, pos)
        raise NotHandled("a unit's DIEs run past its end")

    def _may_be_read(self, plan: _Plan, data: bytes, pos: int) -> bool:
        """Whether a subprogram or class at pos may be one the walk records: False when its DW_AT_name (DW_FORM_strp,
        at a fixed place) does not start as a registration's or a resolver class's name does."""
        name_at = self.name_at.get(plan)
        if name_at is None:
            name_at = self.name_at[plan] = _strp_name_at(plan)
        if name_at < 0:
            return True
        at = pos + name_at
        offset = int.from_bytes(data[at : at + plan.offset_size], self.endian)
        if offset >= len(self.strings):
            return True  # (read, and refused, as before)
        return self.strings.startswith(b"Register_" if plan.tag == TAG_SUBPROGRAM else _RESOLVER_BYTES, offset)

    def _class_members(self, unit: Unit, pos: int, methods: dict[str, bool], types: set[str]) -> int:
        data, end = self.info, unit.end
        while pos < end:
            code, pos = read_uleb(data, pos)
            if code == 0:
                return pos
            plan = self._plan(unit, code)
            values, pos = self._values(unit, plan, pos)
            if plan.tag == TAG_SUBPROGRAM:
                name = self._text(unit, values.get(AT_NAME)) or ""
                if name.startswith("Add"):
                    kind, pos = self._registration_type(unit, plan, pos) if plan.has_children else (None, pos)
                    if kind and name not in ("AddCustom", "AddBuiltin"):
                        types.add(kind)
                    methods[name] = methods.get(name, False) or kind is not None
                    continue
            if plan.has_children:
                pos = self._after_children(unit, values, pos)
        raise NotHandled("a class's members run past its unit's end")

    def _registration_type(self, unit: Unit, method, pos: int) -> tuple[str | None, int]:
        """The type name of the first parameter whose type names a Registration, and the position after the method's
        children."""
        data, end, kind = self.info, unit.end, None
        while pos < end:
            code, pos = read_uleb(data, pos)
            if code == 0:
                return kind, pos
            plan = self._plan(unit, code)
            values, pos = self._values(unit, plan, pos)
            if kind is None and plan.tag == TAG_PARAMETER and AT_ARTIFICIAL not in values:
                name = self._type_name(unit, values)
                if "Registration" in name:
                    kind = name
            if plan.has_children:
                pos = self._after_children(unit, values, pos)
        raise NotHandled("a method's parameters run past its unit's end")

    def _type_name(self, unit: Unit, values: dict) -> str:
        for _ in range(8):
            if AT_TYPE not in values:
                return ""
            unit, _tag, values = self._die_at(unit, values[AT_TYPE])
            name = self._text(unit, values.get(AT_NAME))
            if name:
                return name
        return ""



def _strp_name_at(plan: _Plan) -> int:
    """Where a DIE of this plan holds its DW_AT_name in DW_FORM_strp, from its start (-1: elsewhere, or not at a fixed
    place)."""
    offset = 0
    for attribute, form, _, size in plan.specs:
        if attribute == AT_NAME:
            return offset if form == F_STRP else -1
        if size < 0:
            return -1
        offset += size
    return -1
