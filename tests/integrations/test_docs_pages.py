"""Each integration has its page in docs/ with a complete example, and the README links every page."""

import re

import pytest

from tests.conftest import REPO_ROOT

PAGES = ("cmake.md", "zephyr.md", "esp-idf.md", "github-actions.md", "gitlab.md", "pre-commit.md")


@pytest.mark.parametrize("page", PAGES)
def test_each_integration_page_has_an_example_and_is_linked_from_the_readme(page):
    text = (REPO_ROOT / "docs" / page).read_text()
    assert text.startswith("# ") and re.search(r"^## Complete|^## 2\. The ", text, re.MULTILINE), page
    assert text.count("```") >= 2 and text.count("```") % 2 == 0
    assert f"(docs/{page})" in (REPO_ROOT / "README.md").read_text()
    for link in re.findall(r"\]\(([a-z0-9-]+\.md)(?:#[^)]*)?\)", text):
        assert (REPO_ROOT / "docs" / link).exists(), link
