"""Writers of a model as a C array, in each style TFLM applications hold one (used by the tests that read them back).

Each writer returns the text of a C/C++ file defining `name` with the bytes given. They follow the formats as
documented by their tools (xxd's -i output, TFLM's generate_cc_arrays.py's .cc/.h pair) and C's rules for string
literals; tests/tflm_model/test_c_arrays.py also compiles them with the system compiler and compares the bytes the
compiler places with the reader's.
"""

from __future__ import annotations


def _rows(items: list[str], per_row: int, indent: str = "  ") -> str:
    return ",\n".join(indent + ", ".join(items[i:i + per_row]) for i in range(0, len(items), per_row))


def xxd_style(data: bytes, name: str) -> str:
    """`xxd -i model.tflite`: 12 bytes a row, two hex digits, no const, an unsigned int length."""
    return (f"unsigned char {name}[] = {{\n{_rows([f'0x{b:02x}' for b in data], 12)}\n}};\n"
            f"unsigned int {name}_len = {len(data)};\n")


def generate_cc_arrays_source(data: bytes, name: str, header: str) -> str:
    """The .cc of TFLM's generate_cc_arrays.py: one line of minimal hex literals (0x0, 0x1c), alignas(16)."""
    values = ",".join(hex(b) for b in data)
    return (f"#include <cstdint>\n\n#include \"{header}\"\n\n"
            f"const unsigned int {name}_size = {len(data)};\n"
            f"alignas(16) const unsigned char {name}[] = {{{values}}};\n")


def generate_cc_arrays_header(name: str) -> str:
    """The .h of that pair: declarations only."""
    return (f"#include <cstdint>\n\nextern const unsigned int {name}_size;\n"
            f"extern const unsigned char {name}[];\n")


def attribute_style(data: bytes, name: str) -> str:
    """Hand-written: uint8_t, GCC's aligned attribute after the declarator, upper-case hex, a trailing comma and
    comments that hold braces and a fake array."""
    return ("#include <stdint.h>\n/* model data { not code }: const unsigned char g_fake[] = {0x01}; */\n"
            f"// const unsigned char g_fake2[] = {{0x02}};\n"
            f"const uint8_t {name}[] __attribute__((aligned(16))) = {{  // the model\n"
            f"{_rows([f'0X{b:02X}' for b in data], 16, '    ')},\n}};\n"
            f"const int {name}_len = sizeof({name});\n")


def macro_aligned_style(data: bytes, name: str) -> str:
    """TFLM's DATA_ALIGN_ATTRIBUTE, defined on a continued preprocessor line, with an explicit size."""
    return ("#define DATA_ALIGN_ATTRIBUTE \\\n    __attribute__((aligned(4)))\n"
            f"static const unsigned char {name}[{len(data)}] DATA_ALIGN_ATTRIBUTE = {{\n"
            f"{_rows([f'0x{b:02x}' for b in data], 13)}}};\n")


def decimal_style(data: bytes, name: str) -> str:
    """Decimal signed bytes in an int8_t array behind alignas: values over 127 written negative."""
    values = [str(b - 256 if b > 127 else b) for b in data]
    return (f"#include <cstdint>\nalignas(8) extern const int8_t {name}[] = {{\n{_rows(values, 20)}\n}};\n")


def string_style(data: bytes, name: str, per_literal: int = 48) -> str:
    """Adjacent string literals: printable characters as themselves, other bytes alternately as octal and hex
    escapes; a literal is closed after a hex escape that a hex digit would follow (C's \\x takes every hex digit)."""
    literals = []
    for start in range(0, len(data), per_literal):
        text = []
        after_hex = False
        for index, byte in enumerate(data[start:start + per_literal], start):
            char = chr(byte)
            plain = 32 <= byte < 127 and char not in '"\\?'
            if plain and after_hex and char in "0123456789abcdefABCDEF":
                text.append('" "')  # end the literal: the digit would extend the escape
            if plain:
                text.append(char)
                after_hex = False
            elif index % 2:
                text.append(f"\\x{byte:02x}")
                after_hex = True
            else:
                text.append(f"\\{byte:03o}")
                after_hex = False
        literals.append('    "' + "".join(text) + '"')
    return f"alignas(16) const char {name}[] =\n" + "\n".join(literals) + ";\n"


def several_arrays(models: dict[str, bytes], other: bytes) -> str:
    """Two models and an array that is not one (an image), each with its _len, in one file."""
    parts = []
    names = list(models)
    parts.append(xxd_style(models[names[0]], names[0]))
    parts.append(f"const unsigned char g_image[] = {{{', '.join(str(b) for b in other)}}};\n")
    parts.append("const int g_image_len = sizeof(g_image);\n")
    for name in names[1:]:
        parts.append(generate_cc_arrays_source(models[name], name, "models.h").split("\n\n", 2)[2])
    return "\n".join(parts)
