"""C++ symbol names demangled by the C++ runtime's own `__cxa_demangle`, what cxxfilt calls.

cxxfilt looks the C and C++ runtime libraries up when it is imported (ctypes.util.find_library runs `ldconfig -p`):
~27 ms of every cold report, a seventh of one on a symbol-only ELF. Here they are loaded by their usual sonames
(libstdc++.so.6, libc.so.6), the libraries cxxfilt finds on a GNU/Linux system; where they do not load (macOS, musl,
Windows), cxxfilt does the work as before.
"""

from __future__ import annotations

import ctypes
import functools


class InvalidName(ValueError):
    """Not a name the C++ ABI's mangling rules produce (__cxa_demangle's status -2)."""


def demangle(mangled: str) -> str:
    """The demangled form of a mangled C++ name (InvalidName when it is not one), as cxxfilt.demangle(mangled,
    external_only=False) gives it."""
    runtime = _runtime()
    if runtime is None:
        return _cxxfilt_demangle(mangled)
    cxa_demangle, free = runtime
    status = ctypes.c_int()
    result = cxa_demangle(mangled.encode(), None, None, ctypes.byref(status))
    if result:
        # the NUL-terminated text read through a c_char_p: a third of the cost of ctypes.string_at's foreign call
        text = ctypes.c_char_p(result).value
        free(result)
        return text.decode()
    if status.value == 0:
        return ""
    if status.value == -2:
        raise InvalidName(mangled)
    return _cxxfilt_demangle(mangled)  # an allocation failure or bad argument: cxxfilt reports it as it always has


def _cxxfilt_demangle(mangled: str) -> str:
    import cxxfilt

    try:
        return cxxfilt.demangle(mangled, external_only=False)
    except cxxfilt.InvalidName:
        raise InvalidName(mangled) from None


@functools.lru_cache(maxsize=1)
def _runtime():
    """(__cxa_demangle, free) from the C++ and C runtimes, or None when they do not load by these names."""
    try:
        cxa_demangle = ctypes.CDLL("libstdc++.so.6").__cxa_demangle
        free = ctypes.CDLL("libc.so.6").free
    except (OSError, AttributeError):
        return None
    cxa_demangle.restype = ctypes.c_void_p
    cxa_demangle.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
    free.restype = None
    free.argtypes = [ctypes.c_void_p]
    return cxa_demangle, free
