"""The type check of a saved report's JSON: every field read back has the type the writer gives it.

A saved report comes from disk (a baseline, a CI artefact, a history database row), so it may be damaged or written
by hand. report_model reads it through these accessors; a wrong type, a negative size or a missing field raises
SchemaError naming where in the document it is (`rom.symbols.children[3].size: expected a non-negative integer, got
a float`), which report_model turns into one line naming the file. Accessors take `where` as a string or, on hot
paths (one call per tree node), a function that makes the string only when there is an error.
"""

from __future__ import annotations

from collections.abc import Callable

Where = str | Callable[[], str]  # (not typing.Union: importing typing is ~1.6 ms of a report's start-up)
MISSING = object()


class SchemaError(ValueError):
    """A field of the wrong type or value; str() is 'where: expected ..., got ...'. A ValueError, so the caches
    that read operator tables back treat a damaged entry as a miss."""


def type_name(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {int: "an integer", float: "a number", str: "a string", list: "a list", dict: "an object"}.get(
        type(value), type(value).__name__)


def fail(where: Where, expected: str, value=MISSING):
    place = where() if callable(where) else where
    got = "it is missing" if value is MISSING else f"got {type_name(value)}"
    if value is not MISSING and isinstance(value, (int, float)) and not isinstance(value, bool):
        got += f" ({value!r})"
    raise SchemaError(f"{place}: expected {expected}, {got}")


def need_count(value, where: Where) -> int:
    """A size, address or count: a non-negative integer (not a boolean, not a float)."""
    if type(value) is not int or value < 0:
        fail(where, "a non-negative integer", value)
    return value


def need_str(value, where: Where) -> str:
    if type(value) is not str:
        fail(where, "a string", value)
    return value


def need_list(value, where: Where) -> list:
    if type(value) is not list:
        fail(where, "a list", value)
    return value


def need_dict(value, where: Where) -> dict:
    if type(value) is not dict:
        fail(where, "an object", value)
    return value


def need_strings(value, where: Where) -> tuple[str, ...]:
    items = need_list(value, where)
    for index, item in enumerate(items):
        if type(item) is not str:
            fail(lambda: f"{where() if callable(where) else where}[{index}]", "a string", item)
    return tuple(items)


def member(data: dict, key: str, where: Where, default=MISSING):
    """data[key], or the default when it is absent (a required field has none)."""
    value = data.get(key, MISSING)
    if value is MISSING:
        if default is MISSING:
            fail(lambda: _join(where, key), "a value")
        return default
    return value


def _join(where: Where, key: str) -> str:
    place = where() if callable(where) else where
    return f"{place}.{key}" if place else key
