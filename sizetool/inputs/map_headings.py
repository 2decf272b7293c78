"""The headings armlink and IAR ILINK write at the top of their maps: map_formats tells the linker by them, and each
map's reader takes the toolchain's name and version from them. Kept apart from the readers so that telling a GNU map
from the others loads neither reader."""

from __future__ import annotations

import re

ARMLINK_COMPONENT = re.compile(r"^Component:\s*(.*?)\s+Tool:\s*armlink", re.MULTILINE)  # group 1: the toolchain
IAR_LINKER = re.compile(r"IAR ELF Linker (V[\d.]+\S*)(?: for (\S+))?")  # group 1: the version, 2: the target
