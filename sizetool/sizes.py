"""Byte sizes as people write them: 196608, "192K", "1.5M", "64KiB"."""

from __future__ import annotations

import re

from sizetool.errors import SizeToolError

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMG]?)(?:i?B)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}


def parse_size(text: str | int, what: str = "size") -> int:
    """Bytes from an int or a string with an optional K/M/G (binary) suffix; SizeToolError when malformed."""
    if isinstance(text, bool):
        raise SizeToolError(f"{what}: expected a size such as 196608 or '192K', got {text!r}")
    if isinstance(text, int):
        if text < 0:
            raise SizeToolError(f"{what}: a size cannot be negative ({text})")
        return text
    match = _SIZE.match(str(text))
    if not match:
        raise SizeToolError(f"{what}: expected a size such as 196608 or '192K', got {text!r}")
    value = float(match.group(1)) * _UNITS[match.group(2).upper()]
    if value != int(value):
        raise SizeToolError(f"{what}: {text!r} is not a whole number of bytes")
    return int(value)
