"""Escaping of untrusted names for markdown, GitHub workflow commands and XML, format by format."""

import xml.etree.ElementTree as ElementTree

from markdown_it import MarkdownIt

from sizetool.text_escaping import (markdown_code, markdown_fence, markdown_text, workflow_message,
                                    workflow_property, xml_text)


def rendered(text: str) -> str:
    return MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough").render(text)


def test_markdown_text_leaves_ordinary_names_alone():
    for name in ("tensorflow/lite/micro/kernels/conv.cc", "tflite::Register_CONV_2D()", "(no symbol) .rodata"):
        assert markdown_text(name) == name


def test_markdown_text_turns_html_into_entities_and_escapes_what_starts_markdown():
    assert markdown_text("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;"
    assert markdown_text("[x](javascript:alert(1))") == "\\[x\\](javascript:alert(1))"
    assert markdown_text("*a* _b_ `c` ~~d~~ | e # f \\ &amp;") == (
        "\\*a\\* \\_b\\_ \\`c\\` \\~\\~d\\~\\~ \\| e \\# f \\\\ &amp;amp;")
    assert markdown_text("line\nbreak") == "line break"


def test_escaped_text_renders_as_written_in_a_table_cell():
    for name in ("<img src=x onerror=alert(1)>", "[x](javascript:alert(1))", "a|b*c*`t`_d_", "~~s~~ <b>&amp;"):
        html = rendered(f"| name |\n|---|\n| {markdown_text(name)} |\n")
        shown = name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        assert f"<td>{shown}</td>" in html, html


def test_a_code_span_holds_any_name_in_and_out_of_a_table():
    for name in ("plain", "a`b", "``x``", "`edge", "a|b", " spaced ", "<img src=x>"):
        in_table = rendered(f"| name |\n|---|\n| {markdown_code(name)} |\n")
        outside = rendered(markdown_code(name, in_table=False))
        code = name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        assert f"<code>{code}</code>" in in_table and f"<code>{code}</code>" in outside, (name, in_table, outside)
    assert markdown_code("tflite::MicroInterpreter::Invoke()") == "`tflite::MicroInterpreter::Invoke()`"


def test_a_fence_is_longer_than_any_backtick_run_in_its_block():
    assert markdown_fence("no ticks") == "```" and markdown_fence("a ```` b") == "`````"


def test_workflow_commands_escape_their_data_and_properties():
    assert workflow_message("50% of\r\nRAM: a,b") == "50%25 of%0D%0ARAM: a,b"
    assert workflow_property("C:\\budget,1.toml") == "C%3A\\budget%2C1.toml"


def test_xml_text_replaces_what_xml_cannot_carry():
    element = ElementTree.Element("testcase", name=xml_text("a\x01b\x1f<c>&\n"))
    parsed = ElementTree.fromstring(ElementTree.tostring(element))
    assert parsed.get("name") == "a\ufffdb\ufffd<c>&\n"
