"""Names and paths read from a build are untrusted: a firmware whose symbols, source files and ELF file name carry
HTML and markdown (as anyone opening a pull request can arrange) must come out of every text format shown as written,
never as markup. The markdown outputs are rendered with markdown-it-py (CommonMark with GitHub's tables, raw HTML
allowed as GitHub allows some): no HTML element and no link may come from the names."""

import csv
import io
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree

import pytest

from sizetool import cli

IMG = "<img src=x onerror=alert(1)>"
LINK = "[x](javascript:alert(1))"
PIPES = "a|b*c*`tick`_d_"
HOSTILE_SYMBOLS = {"image_function": IMG, "link_function": LINK, "pipe_table": PIPES}
SOURCES = {
    f"{IMG}.cc": "extern \"C\" int image_function(int x) { return x * 3 + 1; }\n",
    f"{LINK}|*`b`.cc": ("extern \"C\" int link_function(int x) { return x ^ 0x5a; }\n"
                         "extern \"C\" { int pipe_table[64] = {1, 2, 3}; }\n"),
    "main.cc": ("extern \"C\" int image_function(int); extern \"C\" int link_function(int);\n"
                "extern \"C\" int pipe_table[64];\n"
                "int main(int argc, char **) { return image_function(argc) + link_function(argc) + pipe_table[argc]; }\n"),
}

pytestmark = pytest.mark.skipif(not (shutil.which("g++") and shutil.which("objcopy")),
                                reason="needs the host g++ and objcopy to build the hostile firmware")


@pytest.fixture(scope="module")
def hostile_elf(tmp_path_factory):
    directory = tmp_path_factory.mktemp("hostile")
    objects = []
    for name, text in SOURCES.items():
        (directory / name).write_text(text)
        obj = directory / f"unit{len(objects)}.o"
        subprocess.run(["g++", "-g", "-O1", "-c", name, "-o", str(obj)], cwd=directory, check=True)
        objects.append(str(obj))
    elf = directory / f"{IMG}{LINK}.elf"
    subprocess.run(["g++", "-g", *objects, "-o", str(elf)], cwd=directory, check=True)
    renames = [f"--redefine-sym={old}={new}" for old, new in HOSTILE_SYMBOLS.items()]
    subprocess.run(["objcopy", *renames, str(elf)], check=True)
    return elf


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert status in (0, 1), captured.err
    return captured.out


def render_markdown(text: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough").render(text)


def assert_safe_markdown(text: str, must_show=(IMG, LINK)):
    html = render_markdown(text)
    assert not re.search(r"<img\b", html), html
    assert "<a " not in html and "href" not in html, html
    assert "<em>" not in html and "<strong>a" not in html and "<s>" not in html
    for name in must_show:  # shown as text: escaped in the HTML exactly as an HTML writer escapes text
        visible = name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
        assert visible in html, (name, html)


def test_the_markdown_report_shows_hostile_names_as_text(capsys, hostile_elf):
    out = run(capsys, hostile_elf, "--format", "markdown", "--depth", "0", "--no-cache")
    assert_safe_markdown(out, (IMG, LINK, PIPES))


def test_the_diff_markdown_for_a_pr_comment_shows_hostile_names_as_text(capsys, hostile_elf, tmp_path):
    saved = tmp_path / "old.json"
    run(capsys, hostile_elf, "--save", saved, "--no-cache")
    data = json.loads(saved.read_text())
    out = run(capsys, "diff", hostile_elf, hostile_elf, "--format", "markdown")
    assert_safe_markdown(out, ())
    # a build where every hostile symbol grew: the rows carry the names
    text = saved.read_text()
    assert IMG in json.dumps(data)
    out = run(capsys, "diff", saved, hostile_elf, "--format", "markdown")
    assert_safe_markdown(out, ())
    smaller = json.loads(text)
    _shrink(smaller)
    saved.write_text(json.dumps(smaller))
    out = run(capsys, "diff", saved, hostile_elf, "--format", "markdown")
    assert IMG.replace("<", "&lt;") not in out  # inside a code span: shown raw there, which markdown never reads as HTML
    assert_safe_markdown(out, (IMG, LINK))


def _shrink(saved: dict) -> None:
    """Make every entry of a saved report one byte smaller, so that a diff lists them all."""
    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "size" and isinstance(item, int) and item > 1:
                    value[key] = item - 1
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
    walk(saved)


def test_tree_json_csv_and_html_keep_the_names_as_written_and_the_page_has_no_element_from_them(capsys, hostile_elf):
    tree = run(capsys, hostile_elf, "--depth", "0", "--no-cache")
    assert IMG in tree and LINK in tree
    data = run(capsys, hostile_elf, "--format", "json", "--no-cache")
    parsed = json.dumps(json.loads(data), ensure_ascii=False)
    assert IMG in parsed and LINK in parsed
    rows = list(csv.reader(io.StringIO(run(capsys, hostile_elf, "--format", "csv", "--no-cache"))))
    assert any(IMG in cell for row in rows for cell in row) and any(LINK in cell for row in rows for cell in row)
    page = run(capsys, hostile_elf, "--format", "html", "--no-cache")
    assert "<img src=x" not in page and "javascript:alert" not in page.replace("javascript:alert(1))", "")


def test_stack_and_operator_markdown_show_hostile_names_as_text(capsys, hostile_elf):
    out = run(capsys, hostile_elf, "--stack", IMG, "--format", "markdown", "--no-cache")
    assert_safe_markdown(out, ())
    assert "`" + IMG + "`" in out  # the root, in a code span
    out = run(capsys, hostile_elf, "--ops", "--format", "markdown", "--no-cache")
    assert_safe_markdown(out, (IMG,))


def test_check_escapes_names_for_markdown_github_annotations_and_junit(capsys, hostile_elf, tmp_path, monkeypatch):
    budget = tmp_path / "size,budget:x.toml"
    budget.write_text(f'[rom.paths]\n"{IMG}**" = 1\n"{LINK}**" = 1\n"a\\nb\\u0001%**" = 0\n')
    (tmp_path / "junit.xml").unlink(missing_ok=True)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    out = run(capsys, "check", hostile_elf, "--budget", budget, "--format", "markdown", "--junit",
              tmp_path / "junit.xml")
    table, _, annotations = out.partition("::error")
    assert_safe_markdown(table, ())
    annotations = ("::error" + annotations).splitlines()
    assert len(annotations) == 2 and all(line.startswith("::error file=") for line in annotations)
    assert all("size%2Cbudget%3Ax.toml" in line for line in annotations)  # property escaping
    assert any(IMG in line for line in annotations) and any(LINK in line for line in annotations)
    cases = ElementTree.parse(tmp_path / "junit.xml").getroot().iter("testcase")
    names = [case.get("name") for case in cases]
    assert names == [f"rom.paths[{IMG}**]", f"rom.paths[{LINK}**]", "rom.paths[a\nb\ufffd%**]"]
