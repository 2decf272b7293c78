"""The layout stays readable: every package says what it owns, and no module grows past what one reader can hold."""

import ast

import pytest

from tests.conftest import REPO_ROOT

PACKAGES = ("tflm_facts", "tflm_model", "resolver_gen", "sizetool")
MAX_MODULE_LINES = 700


def package_dirs():
    return sorted(init.parent for package in PACKAGES for init in (REPO_ROOT / package).rglob("__init__.py")
                  if "migrations" not in init.parts)


@pytest.mark.parametrize("package", package_dirs(), ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_package_docstring_says_what_it_owns(package):
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text()))
    assert docstring and len(docstring.split()) >= 8, f"{package}: no docstring saying what the package owns"


def test_no_module_is_longer_than_one_reader_can_hold():
    long_modules = {str(path.relative_to(REPO_ROOT)): lines
                    for package in PACKAGES for path in (REPO_ROOT / package).rglob("*.py")
                    if (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES}
    assert long_modules == {}
