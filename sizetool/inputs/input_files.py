"""Reading the user's input files, with every OS-level failure turned into one SizeToolError line naming the file."""

from __future__ import annotations

from sizetool.errors import SizeToolError

ELF_MAGIC = b"\x7fELF"


def read_input(path: str, kind: str, limit: int = -1) -> bytes:
    """The bytes of an input file (at most `limit`); `kind` says what it should be, e.g. "a budget file"."""
    try:
        with open(path, "rb") as stream:
            return stream.read(limit)
    except FileNotFoundError:
        raise SizeToolError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise SizeToolError(f"{path}: is a directory, not {kind}") from None
    except OSError as error:
        raise SizeToolError(f"{path}: cannot read ({error.strerror or error})") from None


def is_elf_file(path: str) -> bool:
    """Whether an input is an ELF (by its magic bytes); anything else is taken to be a saved report."""
    return read_input(path, "an ELF or a saved report", limit=4) == ELF_MAGIC
