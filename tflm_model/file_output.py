"""Writing a whole file or nothing, for every file the two commands write (gen-resolver's headers, size-report's
reports, pages and models): a temp file in the same directory renamed over the target, with the mode a plain open()
would give. A path that is not a regular file (/dev/stdout, /dev/null, a pipe) is written in place: renaming over it
would put a regular file where the device was (as root it does). Errors are OSError; each command turns them into its
own one-line error."""

from __future__ import annotations

import os
import stat


def replace_file(path: str | os.PathLike, data: bytes) -> None:
    path = os.fspath(path)
    try:
        special = not stat.S_ISREG(os.stat(path).st_mode) and not os.path.isdir(path)
    except OSError:
        special = False
    if special:
        with open(path, "wb") as stream:
            stream.write(data)
        return
    import tempfile

    handle, temp_path = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temp_path, _new_file_mode(path))  # mkstemp makes 0600; a header, report or page is for sharing
        os.replace(temp_path, path)
    except BaseException:
        try:
            os.unlink(temp_path)
        except OSError:
            pass
        raise


def _new_file_mode(path: str) -> int:
    """The mode the file would get from a plain open(): the old file's mode, else 0666 less the umask."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
