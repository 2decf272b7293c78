"""Where the caches live and what keys them, without importing any report code: the cache directory and its on/off
switch, the digest of the tool's own code, the content digest of an input file (computed once per process, shared by
every cache that keys on it), and writing one entry atomically while keeping the newest few.

Location: $SIZETOOL_CACHE_DIR, else $XDG_CACHE_HOME/sizetool, else ~/.cache/sizetool. SIZETOOL_NO_CACHE=1 turns every
cache off. A cache that cannot be read or written is skipped: it only ever saves time.
"""

from __future__ import annotations

import functools
import marshal
import os

SIZETOOL_SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # every stage shapes a report or graph
TFLM_FACTS_SOURCE = os.path.join(os.path.dirname(SIZETOOL_SOURCE), "tflm_facts")  # names shape the operator graph


def cache_dir() -> str:
    explicit = os.environ.get("SIZETOOL_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "sizetool")


def cache_enabled() -> bool:
    return os.environ.get("SIZETOOL_NO_CACHE", "") in ("", "0")


def file_digest(path: str) -> bytes:
    """The SHA-256 of a file's content (OSError when it cannot be read). Within one process a file whose size,
    modification time and inode are unchanged is read once, however many caches key on it."""
    status = os.stat(path)
    return _content_digest(path, status.st_size, status.st_mtime_ns, status.st_ino)


@functools.lru_cache(maxsize=16)
def _content_digest(path: str, _size: int, _mtime_ns: int, _inode: int) -> bytes:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.digest()


@functools.lru_cache(maxsize=1)
def tool_fingerprint() -> str:
    """A digest of all of sizetool's source and the TFLM facts it uses, so a report or graph cached by other code is
    never reused."""
    return source_fingerprint(SIZETOOL_SOURCE) + source_fingerprint(TFLM_FACTS_SOURCE)


def source_fingerprint(package: str) -> str:
    """A digest of every .py file below a directory: its name, size and modification time, as Python itself decides
    whether a .pyc is stale (reading every file's contents would cost a cached run more than the rest of its work)."""
    import hashlib

    digest = hashlib.sha256()
    pending = [("", package)]
    while pending:
        prefix, directory = pending.pop()
        with os.scandir(directory) as scanned:
            entries = {entry.name: entry for entry in scanned}
        for name in sorted(entries):
            entry = entries[name]
            if name.endswith(".py"):
                status = entry.stat()
                digest.update(f"{prefix}{name}\0{status.st_size}\0{status.st_mtime_ns}\0".encode())
            elif name != "__pycache__" and entry.is_dir():
                pending.append((f"{prefix}{name}/", entry.path))
    return digest.hexdigest()[:16]


def write_entry(name: str, payload, kinds: tuple[str, ...], max_entries: int) -> None:
    """Write one marshal'd cache entry atomically (temp file + rename), then keep only the newest `max_entries` files
    whose names end in one of `kinds`. A cache that cannot be written is skipped: it only ever saves time."""
    directory = cache_dir()
    try:
        os.makedirs(directory, exist_ok=True)
        import tempfile

        handle, temp_path = tempfile.mkstemp(prefix=".tmp-", dir=directory)
        try:
            with os.fdopen(handle, "wb") as stream:
                marshal.dump(payload, stream)
            os.replace(temp_path, os.path.join(directory, name))
        except BaseException:
            os.unlink(temp_path)
            raise
        _prune(directory, kinds, max_entries)
    except (OSError, ValueError):
        pass


def _prune(directory: str, kinds: tuple[str, ...], max_entries: int) -> None:
    entries = [e for e in os.scandir(directory) if e.name.endswith(kinds) and e.is_file()]
    if len(entries) <= max_entries:
        return
    entries.sort(key=lambda e: (e.stat().st_mtime, e.name))
    for entry in entries[: len(entries) - max_entries]:
        try:
            os.unlink(entry.path)
        except OSError:
            pass
