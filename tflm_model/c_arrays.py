"""Byte arrays in C/C++ source: how TFLM applications hold their model (`xxd -i`, TFLM's generate_cc_arrays.py,
`alignas(16) const unsigned char g_model[] = {...}` by hand, string literals with `\\x` escapes).

What is read, as a compiler would read it:
- comments and preprocessor lines are skipped (a `#define` of the array's size or alignment is not evaluated);
- a declaration `[qualifiers] TYPE NAME[size] [attributes] = INITIALIZER;` with TYPE `char`, `signed char`,
  `unsigned char`, `uint8_t` or `int8_t` (`std::` allowed), qualifiers `static`, `const`, `constexpr`, `extern`,
  `volatile`, and alignment or placement anywhere before the `=`: `alignas(16)`, `__attribute__((aligned(16)))`,
  `__declspec(...)`, and upper-case macros such as `DATA_ALIGN_ATTRIBUTE`, `ALIGN(16)` or `PROGMEM`;
- the initializer: `{...}` of integer literals (hex, decimal, octal, binary; `u`/`l` suffixes; a leading sign;
  casts such as `(uint8_t)`) and character literals, with or without a trailing comma; or one or more adjacent
  string literals (`"\\x1c\\x00" "TFL3"`, also inside braces) with C's escapes: `\\x` takes every hex digit that
  follows, `\\123` up to three octal digits, plain characters are their UTF-8 bytes. A string's terminating NUL is
  not part of the array's bytes here: the model is what the literals spell.
- the array's bytes are its initializer's. An explicit size is checked when it is a number (fewer elements than
  initializers is an error); the zeros C pads a larger array with are not counted.
Other arrays (of int, float, pointers) and other declarations (`g_model_len`) are ignored. An array of a byte type
whose initializer cannot be read (a macro in it, a value over 255) is reported with the reason, not guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import repeat

# Where a comment, literal or preprocessor line may start; each is then matched at that position.
_INTERESTING = re.compile(r"[\"'/#]")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.|\\\n)*"', re.DOTALL)
_CHAR = re.compile(r"'(?:[^'\\\n]|\\.)+'")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?(?:\*/|\Z)", re.DOTALL)
_DIRECTIVE = re.compile(r"\#(?:[^\n\\]|\\.|\\\n)*", re.DOTALL)
_NAME_BEFORE = re.compile(r"([A-Za-z_]\w*)\s*$")
# After an array's `[`: the size, what stands between `]` and `=` (attributes), and the initializer's opening (or `;`).
_DECLARATOR_REST = re.compile(r"\[([^\[\]{};=]*)\]\s*((?:[^=;{}\[\]\"',]|\([^;{}]*\))*?)(=\s*(?:u8|[uUL])?[{\"]|;)")
_ATTRIBUTES = re.compile(r"\b(?:alignas|__attribute__|__declspec|_Alignas|__align|[A-Z][A-Z0-9_]*)\s*\(")
_WORDS = re.compile(r"[A-Za-z_]\w*|::|[*&\[\](),<>]|\S")
_QUALIFIERS = {"const", "constexpr", "static", "extern", "volatile", "inline", "register", "thread_local",
               "_Thread_local", "__restrict", "std", "::", "__flash", "__ro_placement"}
_BYTE_TYPES = {("char",), ("signed", "char"), ("unsigned", "char"), ("char", "signed"), ("char", "unsigned"),
               ("uint8_t",), ("int8_t",), ("__uint8_t",), ("__int8_t",), ("u8",), ("s8",)}
_HEX_ONLY = re.compile(r"[^0-9a-fA-FxX,\s]")
_ONE_HEX_DIGIT = re.compile(r"0[xX]([0-9a-fA-F])\b")
_DECIMAL_ONLY = re.compile(r"[^0-9,\s]")
_OCTAL = re.compile(r"(?<![0-9])0[0-9]")
_ELEMENT = re.compile(
    r"\s*(?:\(\s*(?:const\s+)?(?:(?:unsigned|signed)\s+)?(?:char|(?:std::)?u?int8_t)\s*\)\s*)?([-+]?)\s*"
    r"(?:(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)[uUlL]*|((?:u8)?'(?:[^'\\\n]|\\.)+'))\s*(?:,|$)")
_STRING_PIECES = re.compile(r"((?:\\x[0-9a-fA-F]{2}(?![0-9a-fA-F]))+)|\\x([0-9a-fA-F]+)|\\([0-7]{1,3})|\\(.)|([^\\]+)",
                            re.DOTALL)
_SIMPLE_ESCAPES = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92, "'": 39, '"': 34, "?": 63,
                   "\n": None}


@dataclass(frozen=True)
class CArray:
    """One byte array with an initializer: its name, the line it is declared on, its bytes."""

    name: str
    line: int
    data: bytes


@dataclass(frozen=True)
class UnreadableArray:
    """A byte array whose initializer is not a list of literals: its name, line and why."""

    name: str
    line: int
    reason: str


@dataclass(frozen=True)
class CArrays:
    """What a C/C++ file holds: byte arrays with their bytes, those that could not be read, and byte arrays only
    declared (`extern const unsigned char g_model[];`, the header of a generated .cc/.h pair)."""

    arrays: tuple[CArray, ...]
    unreadable: tuple[UnreadableArray, ...]
    declared: tuple[str, ...]


class _Unreadable(Exception):
    pass


def _blank(text: str) -> str:
    """The same length with every character but newlines turned into spaces (positions and line numbers stay)."""
    return re.sub(r"[^\n]", " ", text)


def code_of(text: str) -> str:
    """The text with comments and preprocessor lines blanked out; string and character literals kept."""
    pieces = []
    last = position = 0
    while True:
        found = _INTERESTING.search(text, position)
        if found is None:
            break
        position = found.start()
        first = text[position]
        if first == '"' or first == "'":
            literal = (_STRING if first == '"' else _CHAR).match(text, position)
            position = literal.end() if literal else position + 1  # a lone quote (a digit separator: 1'000)
            continue
        if first == "/":
            skipped = _COMMENT.match(text, position)
        else:
            line_start = text.rfind("\n", 0, position) + 1
            skipped = _DIRECTIVE.match(text, position) if not text[line_start:position].strip() else None
        if skipped is None:
            position += 1
            continue
        pieces.append(text[last:position])
        pieces.append(_blank(skipped.group()))
        last = position = skipped.end()
    pieces.append(text[last:])
    return "".join(pieces)


def _declaration_start(code: str, position: int) -> int:
    """Where the declaration holding the declarator at `position` starts: after the previous `;`, `{` or `}`."""
    return max(code.rfind(";", 0, position), code.rfind("{", 0, position), code.rfind("}", 0, position)) + 1


def _strip_calls(text: str) -> str:
    """`text` without attribute and macro calls (`alignas(16)`, `__attribute__((aligned(16)))`, `ALIGN(8)`)."""
    while True:
        match = _ATTRIBUTES.search(text)
        if match is None:
            return text
        depth, end = 1, match.end()
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        text = text[:match.start()] + " " + text[end:]


def is_byte_type(prefix: str) -> bool:
    """Whether the words before an array's name declare an array of bytes (not of pointers, ints or floats)."""
    prefix = re.sub(r'"(?:[^"\\]|\\.)*"', " ", prefix)  # extern "C"
    words = [w for w in _WORDS.findall(_strip_calls(prefix))
             if w not in _QUALIFIERS and not re.fullmatch(r"[A-Z][A-Z0-9_]*", w)]
    return tuple(words) in _BYTE_TYPES


def _int_value(sign: str, literal: str) -> int:
    if literal[:2] in ("0x", "0X"):
        value = int(literal[2:], 16)
    elif literal[:2] in ("0b", "0B"):
        value = int(literal[2:], 2)
    elif literal.startswith("0") and len(literal) > 1:
        value = int(literal[1:], 8)
    else:
        value = int(literal)
    return -value if sign == "-" else value


def _char_value(literal: str) -> int:
    body = literal[literal.index("'") + 1:-1]
    data = _string_bytes(body)
    if len(data) != 1:
        raise _Unreadable(f"character literal {literal} is not one byte")
    return data[0]


def _byte(value: int, shown: str) -> int:
    if not -128 <= value <= 255:
        raise _Unreadable(f"value {shown} does not fit in a byte")
    return value & 0xFF


def _list_bytes(content: str) -> bytes:
    """The bytes of a brace list of literals."""
    count = content.count(",") + (1 if content[content.rfind(",") + 1:].strip() else 0)
    if not _HEX_ONLY.search(content):  # xxd -i and generate_cc_arrays.py: the common case, read in bulk
        digits = _ONE_HEX_DIGIT.sub(r"0\1", content).replace("0x", "").replace("0X", "").replace(",", "")
        try:
            data = bytes.fromhex(digits)
        except ValueError:
            data = None
        # one "0x" and one byte per element, or the elements are not all 1-2 digit hex literals
        if data is not None and len(data) == count == content.count("0x") + content.count("0X"):
            return data
    elif not _DECIMAL_ONLY.search(content) and not _OCTAL.search(content):
        try:
            return bytes(map(int, content.split(",")[:count]))
        except ValueError:
            pass  # a value over 255, or an empty element: the general reader below names it
    values = bytearray()
    position, end = 0, len(content.rstrip())
    while position < end:
        match = _ELEMENT.match(content, position)
        if match is None or match.end() == position:
            shown = content[position:].strip().split(",")[0].strip()[:40]
            raise _Unreadable(f"element {shown!r} is not an integer or character literal")
        sign, number, char = match.groups()
        if number is not None:
            values.append(_byte(_int_value(sign, number), sign + number))
        else:
            values.append(_byte(-_char_value(char) if sign == "-" else _char_value(char), char))
        position = match.end()
        if content[position - 1] != "," and content[position:end].strip():
            raise _Unreadable(f"expected ',' after element {content[match.start():position].strip()!r}")
    return bytes(values)


def _string_bytes(body: str) -> bytes:
    """The bytes one literal's body spells, escapes decoded as C decodes them (before adjacent literals join)."""
    data = bytearray()
    for run, hex_digits, octal, escaped, plain in _STRING_PIECES.findall(body):
        if run:
            data += bytes.fromhex(run.replace("\\x", ""))
        elif hex_digits:
            data.append(_byte(int(hex_digits, 16), "\\x" + hex_digits))
        elif octal:
            data.append(_byte(int(octal, 8), "\\" + octal))
        elif escaped:
            value = _SIMPLE_ESCAPES.get(escaped, -1)
            if value == -1:
                raise _Unreadable(f"unknown escape \\{escaped}")
            if value is not None:  # a backslash-newline joins lines
                data.append(value)
        else:
            data += plain.encode("utf-8", "surrogateescape")
    return bytes(data)


_LITERAL = re.compile(r'\s*(u8)?"((?:[^"\\\n]|\\.|\\\n)*)"', re.DOTALL)


def _strings_bytes(code: str, position: int) -> tuple[bytes, int]:
    """Adjacent string literals from `position`: their bytes (no terminating NUL) and where they end."""
    data = bytearray()
    while True:
        match = _LITERAL.match(code, position)
        if match is None:
            return bytes(data), position
        data += _string_bytes(match.group(2))
        position = match.end()


def _initializer(code: str, start: int) -> bytes:
    """The bytes of the initializer starting at `start`: a `{` or a string literal."""
    if code[start] != "{":
        if code[start] in "uUL" and not code.startswith("u8", start):
            raise _Unreadable("a wide string literal")
        return _strings_bytes(code, start)[0]
    if re.match(r'\s*(?:u8)?"', code[start + 1:start + 64]):
        data, after = _strings_bytes(code, start + 1)
        if not re.match(r"\s*,?\s*}", code[after:after + 64]):
            raise _Unreadable("a string initializer in braces holds something after its literals")
        return data
    end = code.find("}", start)
    if end < 0:
        raise _Unreadable("the initializer has no closing '}'")
    content = code[start + 1:end]
    if "{" in content:
        raise _Unreadable("nested braces")
    return _list_bytes(content)


def read_c_arrays(text: str) -> CArrays:
    """Every byte array declared in C/C++ source text, with the bytes of those that have an initializer."""
    code = code_of(text)
    arrays: list[CArray] = []
    unreadable: list[UnreadableArray] = []
    declared: list[str] = []
    position = 0
    while (bracket := code.find("[", position)) >= 0:
        position = bracket + 1
        named = _NAME_BEFORE.search(code, max(0, bracket - 256), bracket)
        rest = _DECLARATOR_REST.match(code, bracket) if named else None
        if rest is None:
            continue
        name, (size, between, opening) = named.group(1), rest.groups()
        prefix = code[_declaration_start(code, named.start()):named.start()]
        if not is_byte_type(prefix) or not re.fullmatch(r"[A-Z0-9_\s]*", _strip_calls(between)):
            continue  # not an array of bytes, or something other than attributes between the declarator and '='
        if opening == ";":
            if re.search(r"\bextern\b", prefix):
                declared.append(name)
            continue
        line = code.count("\n", 0, named.start()) + 1
        try:
            literal_prefix = re.search(r"(?:u8|[uUL])?[{\"]$", opening).group()
            data = _initializer(code, rest.end() - len(literal_prefix))
            size = size.strip().rstrip("uUlL")
            if size.isdigit() and int(size) < len(data):
                raise _Unreadable(f"{len(data)} initializers for an array of {int(size)}")
        except _Unreadable as error:
            unreadable.append(UnreadableArray(name, line, str(error)))
            continue
        arrays.append(CArray(name, line, data))
    defined = {a.name for a in arrays} | {u.name for u in unreadable}
    return CArrays(tuple(arrays), tuple(unreadable), tuple(n for n in dict.fromkeys(declared) if n not in defined))
