"""What an ELF's DWARF tells of the linked TFLM's resolver API: the Add<Op>() methods its MicroMutableOpResolver
declares, whether each takes a registration, and the Register_X() functions its compile units mention.

- A class template instantiation's DWARF entry (DW_TAG_class_type `MicroMutableOpResolver<6>` in namespace tflite)
  lists every member function the class declares, called or not (GCC and Clang both emit the declarations of a
  used class's members): so the methods are the whole API of that TFLM, and a method whose only formal parameter is
  the artificial `this` takes no registration (`AddSoftmax()` of 2021 forks) where TFLM's today takes
  `const TFLMRegistration& registration = Register_SOFTMAX()`.
- Register_X() functions appear where a unit defines or calls them: a DW_TAG_subprogram named Register_* in namespace
  tflite or one nested in it (tflite::ops::micro, tflite::tflm_signal). A registration that no unit defines or calls
  has no entry, so their absence proves nothing.

pyelftools walks only the units' top level, the namespaces and the resolver classes (function bodies and other
classes are skipped through DW_AT_sibling), and stops after the first unit holding a resolver class (its methods are
all there; the registrations of the units read so far come along, the symbol table gives the linked ones). On a
5.4 MB Edge Impulse 2021 build: 6.7 s to walk every unit, 0.7 s to its application's unit, which comes first.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sizetool.errors import SizeToolError

RESOLVER_CLASS = "MicroMutableOpResolver<"
_RECORDS = ("DW_TAG_class_type", "DW_TAG_structure_type")


@dataclass(frozen=True)
class ResolverApi:
    methods: dict[str, bool] | None  # Add<Op> -> takes a registration; None: no resolver class in the DWARF
    registrations: frozenset[str]  # Register_X names (namespace dropped) some unit defines or calls
    has_dwarf: bool = True
    registration_types: frozenset[str] = frozenset()  # the type a method's registration parameter names
                                                       # (TFLMRegistration since 2023, TfLiteRegistration before)


def _text(die, attribute: str) -> str | None:
    value = die.attributes.get(attribute)
    if value is None:
        return None
    raw = value.value
    return raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else str(raw)


def _type_name(die) -> str:
    """The name a parameter's type comes down to through references, const and typedefs."""
    for _ in range(8):
        if "DW_AT_type" not in die.attributes:
            return ""
        die = die.get_DIE_from_attribute("DW_AT_type")
        name = _text(die, "DW_AT_name")
        if name:
            return name
    return ""


def _registration_type(method) -> str | None:
    """The type of the method's registration parameter (None when it takes none)."""
    for parameter in method.iter_children():
        if parameter.tag == "DW_TAG_formal_parameter" and "DW_AT_artificial" not in parameter.attributes:
            name = _type_name(parameter)
            if "Registration" in name:
                return name
    return None


def _walk(die, methods: dict[str, bool], registrations: set[str], found: dict[str, set], depth: int) -> None:
    for child in die.iter_children():
        tag = child.tag
        if tag == "DW_TAG_namespace" and depth < 4:
            name = _text(child, "DW_AT_name")
            if depth == 0 and name != "tflite":
                continue
            _walk(child, methods, registrations, found, depth + 1)
        elif depth == 0:
            continue
        elif tag == "DW_TAG_subprogram":
            name = _text(child, "DW_AT_name") or ""
            if name.startswith("Register_"):
                registrations.add(name)
        elif tag in _RECORDS and (_text(child, "DW_AT_name") or "").startswith(RESOLVER_CLASS):
            found["classes"].add(_text(child, "DW_AT_name"))
            for member in child.iter_children():
                if member.tag == "DW_TAG_subprogram":
                    name = _text(member, "DW_AT_name") or ""
                    if name.startswith("Add"):
                        kind = _registration_type(member)
                        if kind and name not in ("AddCustom", "AddBuiltin"):
                            found["types"].add(kind)
                        methods[name] = methods.get(name, False) or kind is not None


def read_resolver_api(path: str | Path) -> ResolverApi:
    """The resolver methods and registrations the ELF's DWARF shows (ResolverApi(None, {}, False) without DWARF)."""
    from elftools.elf.elffile import ELFFile

    methods: dict[str, bool] = {}
    registrations: set[str] = set()
    found: dict[str, set] = {"classes": set(), "types": set()}
    try:
        with open(path, "rb") as handle:
            elf = ELFFile(handle)
            if elf.get_section_by_name(".debug_info") is None:
                return ResolverApi(None, frozenset(), has_dwarf=False)
            dwarf = elf.get_dwarf_info(relocate_dwarf_sections=False, follow_links=False)
            for unit in dwarf.iter_CUs():
                _walk(unit.get_top_DIE(), methods, registrations, found, 0)
                if found["classes"]:  # its methods are all there: the other units would only repeat them
                    break
    except OSError as error:
        raise SizeToolError(f"{path}: cannot read ({error.strerror or error})") from None
    except Exception as error:  # a malformed DWARF: pyelftools raises many types; one line, no traceback
        raise SizeToolError(f"{path}: cannot read its DWARF ({type(error).__name__}: {error})") from None
    return ResolverApi(methods if found["classes"] else None, frozenset(registrations),
                       registration_types=frozenset(found["types"]))
