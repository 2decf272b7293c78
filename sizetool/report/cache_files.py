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

try:  # hashlib.blake2b is this; imported directly, a cached run does not load OpenSSL (~3 ms) to build its key
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b

SIZETOOL_SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # every stage shapes a report or graph
TFLM_FACTS_SOURCE = os.path.join(os.path.dirname(SIZETOOL_SOURCE), "tflm_facts")  # names shape the operator graph
TFLM_MODEL_SOURCE = os.path.join(os.path.dirname(SIZETOOL_SOURCE), "tflm_model")  # the models found, their records


def cache_dir() -> str:
    explicit = os.environ.get("SIZETOOL_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "sizetool")


def cache_enabled() -> bool:
    return os.environ.get("SIZETOOL_NO_CACHE", "") in ("", "0")


def file_digest(path: str) -> bytes:
    """The SHA-256 of a file's content (OSError when it cannot be read).

    Read once per process however many caches key on it, and across runs only while the file changes: the digest is
    kept in the cache directory (DIGESTS) with the file's status, and reused while its size, modification and change
    times, inode and device are the same, as git trusts its index. The change time (ctime) cannot be set back by any
    tool, and a digest taken within RACY_NS of the file's last change (a timestamp granule a rewrite could share) is
    never reused: the file is read again."""
    status = os.stat(path)
    signature = (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino, status.st_dev)
    return _content_digest(os.path.abspath(path), signature)


def digest_remembered(path: str) -> bool:
    """Whether file_digest(path) would answer without reading the file (its digest kept for its unchanged status):
    where it would not, the file is new or changed since it was last read, and a report cached for it is unlikely."""
    try:
        status = os.stat(path)
    except OSError:
        return False
    signature = (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino, status.st_dev)
    entry = _known_digests(cache_dir()).get(os.path.abspath(path)) if cache_enabled() else None
    return entry is not None and entry[0] == signature and entry[2] - signature[2] >= RACY_NS


DIGESTS = "file-digests"
MAX_DIGESTS = 64
RACY_NS = 2_000_000_000


@functools.lru_cache(maxsize=16)
def _content_digest(path: str, signature: tuple) -> bytes:
    known = _known_digests(cache_dir()) if cache_enabled() else {}
    entry = known.get(path)
    if entry is not None and entry[0] == signature and entry[2] - signature[2] >= RACY_NS:
        return entry[1]
    import hashlib
    import time

    taken_at = time.time_ns()
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    if cache_enabled():
        known.pop(path, None)
        known[path] = (signature, digest.digest(), taken_at)
        while len(known) > MAX_DIGESTS:
            known.pop(next(iter(known)))
        write_entry(DIGESTS, known, (DIGESTS,), 1)
    return digest.digest()


@functools.lru_cache(maxsize=1)
def _known_digests(directory: str) -> dict:
    """path -> (status signature, digest, when the digest was taken), oldest first; {} when unreadable."""
    try:
        with open(os.path.join(directory, DIGESTS), "rb") as stream:
            known = marshal.load(stream)
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if not isinstance(known, dict) or not all(
            isinstance(path, str) and isinstance(entry, tuple) and len(entry) == 3 and isinstance(entry[0], tuple)
            and isinstance(entry[1], bytes) and isinstance(entry[2], int) for path, entry in known.items()):
        return {}
    return known


@functools.lru_cache(maxsize=1)
def tool_fingerprint() -> str:
    """A digest of all of sizetool's source and the TFLM facts and model readers it uses, so a report or graph cached by other code is
    never reused."""
    return (source_fingerprint(SIZETOOL_SOURCE) + source_fingerprint(TFLM_FACTS_SOURCE)
            + source_fingerprint(TFLM_MODEL_SOURCE))


@functools.lru_cache(maxsize=1)
def answer_fingerprint() -> str:
    """tool_fingerprint, and what else shapes an `ops` or `fit` answer: tflm_facts' data files (the shipped target
    profiles)."""
    return tool_fingerprint() + source_fingerprint(TFLM_FACTS_SOURCE, "")


def source_fingerprint(package: str, suffix: str = ".py") -> str:
    """A digest of every .py file below a directory (suffix "": every file): its name, size and modification time, as
    Python itself decides whether a .pyc is stale (reading every file's contents would cost a cached run more than the
    rest of its work)."""
    digest = blake2b(digest_size=16)
    pending = [("", package)]
    while pending:
        prefix, directory = pending.pop()
        with os.scandir(directory) as scanned:
            entries = {entry.name: entry for entry in scanned}
        for name in sorted(entries):
            entry = entries[name]
            if name.endswith(suffix) and name != "__pycache__" and entry.is_file():
                status = entry.stat()
                digest.update(f"{prefix}{name}\0{status.st_size}\0{status.st_mtime_ns}\0".encode())
            elif name != "__pycache__" and entry.is_dir():
                pending.append((f"{prefix}{name}/", entry.path))
    return digest.hexdigest()


def write_entry(name: str, payload, kinds: tuple[str, ...], max_entries: int) -> None:
    """Write one marshal'd cache entry atomically (temp file + rename), then keep only the newest `max_entries` files
    whose names end in one of `kinds`. A cache that cannot be written is skipped: it only ever saves time."""
    directory = cache_dir()
    try:
        os.makedirs(directory, exist_ok=True)
        handle, temp_path = _temporary_file(directory)
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


def _temporary_file(directory: str) -> tuple[int, str]:
    """A new file in `directory`, open for writing and readable by its owner alone (what tempfile.mkstemp makes:
    O_EXCL, mode 0600, a random name), without importing tempfile, which brings shutil, random and three compression
    modules with it (~4 ms of a cold report, which stores one cache entry or more)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        path = os.path.join(directory, f".tmp-{os.urandom(6).hex()}")
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {directory}")


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
