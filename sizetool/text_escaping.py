"""Escaping of untrusted text (symbol names, source paths, file names, map contents) for each text format the tools
write: GitHub-flavoured markdown, GitHub Actions workflow commands, and XML. Whoever opens a pull request controls
these names, so every renderer of these formats goes through this module and nowhere else.

- markdown_text: plain inline text and table cells. `&`, `<`, `>` become entities (no raw HTML element can form),
  and the characters that start markdown constructs are backslash-escaped: `\\`, backticks, `*`, `[`, `]`, `|` (a
  table cell's separator), `~`, `#` (a heading's closing sequence), and `_` where it could open or close emphasis
  (not between two letters or digits, so `Register_CONV_2D` stays as it is). With `[` and `]` escaped no link or
  image can form, so `(`, `)` and `!` are left alone. Line breaks become spaces (a row stays one row).
- markdown_code: an inline code span, where markdown and HTML are not interpreted: a fence of more backticks than
  the text holds in a row, spaces where the text starts or ends with a backtick, and `|` as `\\|` inside a table
  (GitHub splits table cells before it reads code spans, and reads `\\|` back as `|`).
- markdown_fence: a fenced code block's fence, longer than any backtick run in its text.
- workflow_message / workflow_property: GitHub's workflow-command escaping (`%` -> %25, CR -> %0D, LF -> %0A; in
  properties also `:` -> %3A and `,` -> %2C).
- xml_text: characters XML 1.0 cannot carry (control characters other than tab and line breaks, lone surrogates,
  U+FFFE/U+FFFF) become U+FFFD; ElementTree escapes the rest.
"""

from __future__ import annotations

import re

_MARKDOWN_SPECIAL = re.compile(r"[\\`*\[\]|~#]")
_LINE_BREAKS = re.compile(r"[\r\n\t\f\v]")
_LONE_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
_BACKTICK_RUNS = re.compile(r"`+")
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def markdown_text(text: str) -> str:
    """Text for a markdown paragraph, heading or table cell, shown as written."""
    text = _LINE_BREAKS.sub(" ", text)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MARKDOWN_SPECIAL.sub(lambda m: "\\" + m.group(0), text)
    return _LONE_UNDERSCORE.sub(r"\\_", text)


def markdown_code(text: str, in_table: bool = True) -> str:
    """An inline code span showing `text` as written: `name` for ordinary names."""
    text = _LINE_BREAKS.sub(" ", text)
    longest = max((len(run) for run in _BACKTICK_RUNS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ") and text.strip()):
        text = f" {text} "
    if in_table:
        text = text.replace("|", "\\|")
    return f"{fence}{text}{fence}"


def markdown_fence(text: str) -> str:
    """The fence for a fenced code block holding `text`: three backticks, or more than the longest run in it."""
    longest = max((len(run) for run in _BACKTICK_RUNS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


def workflow_message(text: str) -> str:
    """The message of a GitHub Actions workflow command (`::error ...::MESSAGE`)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def workflow_property(text: str) -> str:
    """A property value of a workflow command (`file=...,title=...`)."""
    return workflow_message(text).replace(":", "%3A").replace(",", "%2C")


def xml_text(text: str) -> str:
    """Text XML 1.0 can carry (ElementTree escapes `&`, `<`, `>` and quotes itself)."""
    return _NOT_XML.sub("\ufffd", text)
