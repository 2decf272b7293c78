"""gen-resolver on a firmware: an ELF given as a model stands for the TFLite models linked into it.

The ELF is told by its magic (\\x7fELF), read with pyelftools (stored, allocated sections, read-only or writable: an
`xxd -i` array without `const` is in .data; and the data symbols), and searched by tflm_model.embedded_models, which size-report's finder uses too; each model found is passed on
as bytes labelled FIRMWARE:SYMBOL (the symbol demangled), so the header names it by the array that holds it.
"""

from __future__ import annotations

from resolver_gen.errors import ResolverGenError

ELF_MAGIC = b"\x7fELF"


def is_elf(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == ELF_MAGIC
    except OSError:
        return False  # the model reader words the error


def expand_firmware(paths: list[str]) -> list:
    """The model arguments with each ELF replaced by the models linked into it (ResolverGenError when it has none)."""
    out: list = []
    for path in paths:
        if not is_elf(path):
            out.append(path)
            continue
        models = models_in_elf(path)
        if not models:
            reason = _no_model_reason(path)
            raise ResolverGenError(f"{path}: an ELF with no TFLite model in its stored data (a model is found by its "
                                   "FlatBuffer identifier TFL3)" + (f": {reason}" if reason else ""))
        kernel_types = linked_kernel_types(path)
        out.extend(model.source(path, kernel_types) for model in models)
    return out


def linked_kernel_types(path: str) -> dict:
    """The tensor types the firmware's own kernel functions take (tflm_facts.linked_types): its models are checked
    against them, so a 2020 firmware's uint8 model is not refused. Only the symbols naming TFLM's reference kernels
    are demangled."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    from tflm_facts import linked_types

    names = []
    try:
        with open(path, "rb") as handle:
            table = ELFFile(handle).get_section_by_name(".symtab")
            for symbol in table.iter_symbols() if table is not None else ():
                if symbol["st_info"]["type"] == "STT_FUNC" and "reference_" in symbol.name:
                    names.append(_demangled(symbol.name))
    except (ELFError, OSError, ValueError):
        return {}
    return linked_types.linked_kernel_types(names)


def models_in_elf(path: str):
    """The TFLite models in an ELF file (tflm_model.embedded_models.EmbeddedModel records, named demangled)."""
    from dataclasses import replace

    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    from tflm_model.embedded_models import DataSymbol, SectionBytes, find_embedded_models
    from tflm_model.tflite_reader import FILE_IDENTIFIER

    SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR, SHF_TLS = 0x1, 0x2, 0x4, 0x400
    try:
        with open(path, "rb") as handle:
            elf = ELFFile(handle)
            sections = []
            for section in elf.iter_sections():
                flags = section["sh_flags"]
                if flags & SHF_ALLOC and not flags & SHF_TLS and section["sh_type"] != "SHT_NOBITS":
                    data = section.data()
                    if FILE_IDENTIFIER in data:
                        writable = bool(flags & SHF_WRITE) and not flags & SHF_EXECINSTR
                        sections.append(SectionBytes(section.name, section["sh_addr"], data, writable))
            symbols = []
            table = elf.get_section_by_name(".symtab") if sections else None
            if table is not None:
                for symbol in table.iter_symbols():
                    if symbol["st_size"] >= 8 and symbol["st_info"]["type"] in ("STT_OBJECT", "STT_NOTYPE") \
                            and symbol["st_shndx"] not in ("SHN_UNDEF", "SHN_ABS", "SHN_COMMON"):
                        symbols.append(DataSymbol(symbol.name, symbol["st_value"], symbol["st_size"]))
    except (ELFError, OSError, ValueError) as error:
        raise ResolverGenError(f"{path}: cannot read the ELF ({error})") from None
    return [replace(model, symbol=_demangled(model.symbol)) for model in find_embedded_models(sections, symbols)]


def _no_model_reason(path: str) -> str:
    """Why the firmware stores no model, when its function symbols say (tflm_facts.eon): "" otherwise."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    from tflm_facts.eon import no_model_reason

    try:
        with open(path, "rb") as handle:
            table = ELFFile(handle).get_section_by_name(".symtab")
            names = [s.name for s in table.iter_symbols() if s["st_info"]["type"] == "STT_FUNC"] if table else []
    except (ELFError, OSError, ValueError):
        return ""
    return no_model_reason(names)


def _demangled(name: str) -> str:
    if not name.startswith("_Z"):
        return name
    import cxxfilt

    try:
        return cxxfilt.demangle(name)
    except cxxfilt.InvalidName:
        return name
