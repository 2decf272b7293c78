"""One named section's bytes and an Arm ELF's build attributes (.ARM.attributes), read without pyelftools: loading it
cost a cold `ops` or `fit` ~40 ms for these few bytes alone (Tag_ABI_enum_size for the arena's struct sizes; the CPU,
FPU and compiler for a profile's build record).

The attributes are read as pyelftools reads them (its ARMAttribute: which tags hold text, which a ULEB128), in the
common case: format 'A', each vendor subsection holding one file-scope sub-subsection whose attributes end where it
ends. Anything else (a section or symbol scope, Tag_also_compatible_with, a tag pyelftools does not know, text that is
not UTF-8, bytes left over) gives None, and the caller reads the ELF through pyelftools: the answer is the same either
way, only its speed differs.
"""

from __future__ import annotations

import os

from sizetool.inputs.elf_headers import read_headers

SHF_COMPRESSED = 0x800
TAG_CPU_RAW_NAME, TAG_CPU_NAME, TAG_FP_ARCH, TAG_ABI_ENUM_SIZE, TAG_COMPATIBILITY = 4, 5, 10, 26, 32
TAG_MVE_ARCH, TAG_CONFORMANCE = 48, 67
# The tags pyelftools names (elftools.elf.enums.ENUM_ATTR_TAG_ARM) that hold a ULEB128 (every one but the text ones,
# Tag_compatibility, the scopes 1-3 and Tag_also_compatible_with, 65)
_ULEB_TAGS = frozenset({*range(6, 32), 34, 36, 38, 42, 44, 46, 48, 50, 52, 64, 66, 68, 70, 72, 74, 76})
_TEXT_TAGS = frozenset({TAG_CPU_RAW_NAME, TAG_CPU_NAME, TAG_CONFORMANCE})


class NotCommon(Exception):
    """An ELF or a section this reader leaves to pyelftools."""


def named_section(path: str | os.PathLike, name: str) -> tuple[str, str | None, bytes | None, bool]:
    """(e_machine as pyelftools names it, the section's sh_type name, its bytes, whether the ELF is little-endian) of
    the ELF's section `name` (None, None when it has none). Raises NotCommon for an ELF whose headers elf_headers.py leaves to pyelftools, a name
    given twice, or a compressed or NOBITS section; OSError as open() does."""
    with open(path, "rb") as stream:
        headers = read_headers(stream, os.fstat(stream.fileno()).st_size)
        if headers is None:
            raise NotCommon("headers")
        found = [section for section in headers.sections if section["name"] == name]
        if not found:
            return headers.header["e_machine"], None, None, headers.little_endian
        if len(found) > 1 or found[0]["sh_flags"] & SHF_COMPRESSED or found[0]["sh_type"] == "SHT_NOBITS":
            raise NotCommon(name)
        stream.seek(found[0]["sh_offset"])
        data = stream.read(found[0]["sh_size"])
        if len(data) != found[0]["sh_size"]:
            raise NotCommon("a section past the end of the file")
        return headers.header["e_machine"], found[0]["sh_type"], data, headers.little_endian


def arm_attributes(data: bytes, little_endian: bool) -> list[tuple[int, int | str]]:
    """(tag, value) of every attribute of an .ARM.attributes section, in order, every vendor's: text for the text
    tags, the number for the others (Tag_compatibility: its flag). Raises NotCommon outside the common case."""
    endian = "little" if little_endian else "big"
    if not data or data[0] != ord("A"):
        raise NotCommon("format version")
    out: list[tuple[int, int | str]] = []
    pos = 1
    while pos != len(data):
        if pos + 4 > len(data):
            raise NotCommon("a subsection header past the end")
        length = int.from_bytes(data[pos : pos + 4], endian)
        end = pos + length
        if length < 5 or end > len(data):
            raise NotCommon("a subsection's length")
        _vendor, start = _text(data, pos + 4)
        tag, at = _uleb(data, start)
        if tag != 1 or at + 4 > len(data):  # only a file-scope sub-subsection is read here
            raise NotCommon("a sub-subsection not of the file")
        size = int.from_bytes(data[at : at + 4], endian)
        if start + size != end:  # one sub-subsection filling its subsection
            raise NotCommon("several sub-subsections")
        at += 4
        while at != end:
            if at > end:
                raise NotCommon("an attribute past its sub-subsection")
            tag, at = _uleb(data, at)
            if tag in _TEXT_TAGS:
                value, at = _text(data, at)
            elif tag in _ULEB_TAGS:
                value, at = _uleb(data, at)
            elif tag == TAG_COMPATIBILITY:
                value, at = _uleb(data, at)
                _vendor, at = _text(data, at)
            else:
                raise NotCommon(f"tag {tag}")
            out.append((tag, value))
        pos = end
    return out


def _uleb(data: bytes, pos: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        if pos >= len(data):
            raise NotCommon("a number past the end")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def _text(data: bytes, pos: int) -> tuple[str, int]:
    end = data.find(b"\0", pos)
    if end < 0:
        raise NotCommon("text past the end")
    try:
        return data[pos:end].decode("utf-8"), end + 1
    except UnicodeDecodeError:
        raise NotCommon("text not UTF-8") from None
