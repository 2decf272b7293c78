"""Which linker wrote a map file, told by its content (never by its name), and the reader for it.

GNU ld (and its Zephyr and ESP-IDF outputs) has "Memory Configuration"; ld.lld's opens with the heading
`VMA LMA Size Align Out In Symbol`; armlink (Arm Compiler 5 and 6)
starts with "Component: ... Tool: armlink" and has "Memory Map of the image" / "Image component sizes"; IAR ILINK
starts with "IAR ELF Linker" and has "*** PLACEMENT SUMMARY". Anything else is refused with one line naming the file.
"""

from __future__ import annotations

import functools
import os
import re

from sizetool.errors import SizeToolError
from sizetool.inputs.input_files import read_input
from sizetool.inputs.map_headings import ARMLINK_COMPONENT, IAR_LINKER
from sizetool.inputs.map_file import LinkerMap, read_map

_LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"  # where str.splitlines() breaks lines
FORMAT_NAMES = {"gnu": "GNU ld", "armlink": "armlink", "iar": "IAR ILINK", "lld": "ld.lld"}
# The compilers' own run-time libraries, which the maps name without a path: Arm's C, maths, floating-point, helper,
# microlib and C++ libraries (c_w.l, m_ws.l, fz_ws.l, h_p.l, mc_w.l, cpprt_w.l, vfpsupport.l), IAR's DLIB, run-time,
# maths and semihosting libraries (dl7M_tln.a, rt7M_tl.a, m7M_tls.a, shb_l.a).
_TOOLCHAIN_LIBRARY = re.compile(
    r"^(?:(?:c|m|f|fz|fj|g|h|mc|mf|cpp|cpprt|cxx)_\w+\.l|vfpsupport\.l"
    r"|(?:dl|rt|m|dlpp)\d\w*_\w+\.a|sh\w*_\w+\.a)$"
)




def looks_like_iar(text: str) -> bool:
    return bool(IAR_LINKER.search(text[:4096])) or "*** PLACEMENT SUMMARY" in text


def looks_like_armlink(text: str) -> bool:
    return (bool(ARMLINK_COMPONENT.search(text[:4096])) or "Memory Map of the image" in text
            or "Image component sizes" in text)


def detect_map_format(text: str) -> str | None:
    """"gnu", "armlink", "iar", or None for text no linker we read wrote."""
    if looks_like_iar(text):
        return "iar"
    if looks_like_armlink(text):
        return "armlink"
    if _has_line(text, "Memory Configuration"):
        return "gnu"
    from sizetool.inputs.lld_map import looks_like_lld

    if looks_like_lld(text):
        return "lld"
    return None


def read_linker_map(path: str) -> LinkerMap:
    """Read a GNU ld, armlink or IAR ILINK map, whichever it is. Read once per process while the file is unchanged
    (same size, modification and change times, inode): the report and the operator graph of one run share it."""
    try:
        status = os.stat(path)
    except OSError:
        return _read_linker_map(path)  # words the error
    return _read_unchanged_map(os.path.abspath(path), path, status.st_size, status.st_mtime_ns, status.st_ctime_ns,
                               status.st_ino)


@functools.lru_cache(maxsize=4)
def _read_unchanged_map(_absolute: str, path: str, _size: int, _mtime_ns: int, _ctime_ns: int, _inode: int) -> LinkerMap:
    return _read_linker_map(path)


def _read_linker_map(path: str) -> LinkerMap:
    data = read_input(path, "a map file")
    if b"\0" in data[:4096]:
        raise SizeToolError(f"{path}: not a linker map file (binary content)")
    text = data.decode("utf-8", "replace")
    kind = detect_map_format(text)
    if kind == "iar":
        from sizetool.inputs.iar_map import read_iar_map

        return read_iar_map(path, text)
    if kind == "armlink":
        from sizetool.inputs.armlink_map import read_armlink_map

        return read_armlink_map(path, text)
    if kind == "gnu":
        return read_map(path, text)
    if kind == "lld":
        from sizetool.inputs.lld_map import read_lld_map

        return read_lld_map(path, text)
    raise SizeToolError(f"{path}: not a linker map file (not GNU ld, ld.lld, armlink or IAR ILINK format)")


def _has_line(text: str, line: str) -> bool:
    """Whether `line` is one of text.splitlines(), found without splitting a 1.4 MB map into lines (read_map does)."""
    start = text.find(line)
    while start >= 0:
        end = start + len(line)
        if (start == 0 or text[start - 1] in _LINE_BREAKS) and (end == len(text) or text[end] in _LINE_BREAKS):
            return True
        start = text.find(line, start + 1)
    return False


def describe(linker_map: LinkerMap) -> str:
    """The format line a report shows, e.g. "armlink (Arm Compiler for Embedded 6.22)"."""
    name = FORMAT_NAMES.get(linker_map.format, linker_map.format)
    if linker_map.format == "gnu" or not linker_map.toolchain:
        return name
    return f"{name} ({linker_map.toolchain})"


def is_toolchain_library(name: str) -> bool:
    """Whether an archive a map names (`c_w.l`, `dl7M_tln.a`) is Arm's or IAR's own run-time library."""
    return bool(_TOOLCHAIN_LIBRARY.match(name.replace("\\", "/").rsplit("/", 1)[-1]))
