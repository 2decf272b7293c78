"""A cache of printed reports: the exact text a `size-report ELF [--map MAP] [-f FORMAT] ...` run wrote, keyed by the
content of the ELF and map, the arguments, the working directory and the tool's own code. A repeated run on an
unchanged build replays it, loading nothing but this module: no option parser, no report model, no renderer (on a
symbol-only ELF those imports cost several times what the C++ peers take for the whole run).

Only plain report runs are kept, whose text depends on nothing else: tree, json, csv or markdown, with the options in
ARGUMENT_OPTIONS and FLAG_OPTIONS written as separate words, stdout not a terminal (no colour, no terminal width),
exit status 0. Anything else (--ops and the operator questions, whose tables rich lays out; html, whose page comes
from a template; --save, -o, --no-cache, `--option=value` spellings) runs as usual, through the report cache
(report_cache.py). Entries live beside the report cache and are switched off the same way (cache_files.py).
"""

from __future__ import annotations

import marshal
import os
import sys

from sizetool import __version__
from sizetool.report.cache_files import (
    answer_fingerprint, blake2b, cache_dir, cache_enabled, file_digest, tool_fingerprint, write_entry,
)

SUFFIX = ".output"
MAX_ENTRIES = 64
_FORMAT = 1
FORMATS = ("tree", "json", "csv", "markdown")
ARGUMENT_OPTIONS = {"-f", "--format", "--depth", "--group-by", "--workspace", "--map", "--flash-size", "--ram-size"}
FLAG_OPTIONS = {"--ram", "--all", "--mangled"}


def output_key(args: list[str]) -> str | None:
    """The cache key of a report run with these arguments, or None when its output is not cached (see the module
    docstring) or an input cannot be read (the run itself then words the error)."""
    if not cache_enabled() or _is_terminal(sys.stdout):
        return None
    files: list[str] = []
    elf = None
    position = 0
    while position < len(args):
        word = args[position]
        if word in FLAG_OPTIONS:
            position += 1
            continue
        if word in ARGUMENT_OPTIONS and position + 1 < len(args):
            value = args[position + 1]
            if value.startswith("-") or (word in ("-f", "--format") and value not in FORMATS):
                return None
            if word == "--map":
                files.append(value)
            position += 2
            continue
        if word.startswith("-") or elf is not None:
            return None
        elf = word
        position += 1
    if elf is None:
        return None
    digest = blake2b(f"size-report output {_FORMAT} {__version__} {tool_fingerprint()}".encode(), digest_size=32)
    digest.update(marshal.dumps((args, os.getcwd())))
    try:
        for path in [elf, *files]:
            digest.update(file_digest(path))
    except (OSError, ValueError):
        return None
    return digest.hexdigest()


# The answers of `size-report ops` and `fit` are kept too (their width is fixed when stdout is no terminal): keyed by
# every argument and the content of every file one names (the ELF, the map, models, a model inside a file as
# FILE:ARRAY, a --profile file), the working directory and the code and data that shape them (answer_fingerprint). A
# run that writes elsewhere or fills nothing (-o, --save, --no-cache) or asks for help runs as usual.
ANSWER_COMMANDS = ("ops", "fit")
_UNCACHED_ANSWER_OPTIONS = ("-o", "--output", "--save", "--no-cache", "-h", "--help")


def answer_key(command: str, args: list[str]) -> str | None:
    """The cache key of an `ops` or `fit` run with these arguments, or None when its output is not kept."""
    if command not in ANSWER_COMMANDS or not cache_enabled() or _is_terminal(sys.stdout):
        return None
    if any(word.split("=", 1)[0] in _UNCACHED_ANSWER_OPTIONS for word in args):
        return None
    digest = blake2b(f"size-report {command} answer {_FORMAT} {__version__} {answer_fingerprint()}".encode(),
                     digest_size=32)
    digest.update(marshal.dumps((args, os.getcwd())))
    try:
        for word in args:
            path = word if os.path.isfile(word) else word.rpartition(":")[0]
            if path and os.path.isfile(path):
                digest.update(marshal.dumps(word))
                digest.update(file_digest(path))
    except (OSError, ValueError):
        return None
    return digest.hexdigest()


def replay(key: str) -> int | None:
    """Write the stored output of the run with this key and return its exit status, or None when there is none."""
    try:
        with open(os.path.join(cache_dir(), key + SUFFIX), "rb") as stream:
            entry = marshal.load(stream)
        form, out, err, status = entry
        if form != _FORMAT or not (isinstance(out, str) and isinstance(err, str) and isinstance(status, int)):
            return None
    except (OSError, ValueError, EOFError, TypeError):
        return None
    sys.stdout.write(out)
    if err:
        sys.stderr.write(err)
    return status


def run_recorded(key: str, run, kept_statuses: tuple[int, ...] = (0,)) -> int:
    """`run()` (the report command: returns its exit status), with what it writes to stdout and stderr kept under
    `key` when its status is one of kept_statuses (the report: success; an answer: also 1, a gate that failed)."""
    out, err = _Tee(sys.stdout), _Tee(sys.stderr)
    sys.stdout, sys.stderr = out, err
    try:
        status = run()
    finally:
        sys.stdout, sys.stderr = out.stream, err.stream
    if status in kept_statuses:
        write_entry(key + SUFFIX, (_FORMAT, "".join(out.kept), "".join(err.kept), status), (SUFFIX,), MAX_ENTRIES)
    return status


class _Tee:
    """A text stream that writes through and keeps a copy."""

    def __init__(self, stream):
        self.stream = stream
        self.kept: list[str] = []

    def write(self, text: str) -> int:
        self.kept.append(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name):
        return getattr(self.stream, name)


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return True
