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


MAX_PARAMETERS = 12


def parameter_count(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    arguments = function.args
    names = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    count = len(names) + (arguments.vararg is not None) + (arguments.kwarg is not None)
    return count - (1 if names and names[0].arg in ("self", "cls") else 0)


def test_parameter_count_sees_every_kind_of_parameter():
    function = ast.parse("def f(self, a, /, b, *args, c, **kwargs): pass").body[0]
    assert parameter_count(function) == 5


def test_no_function_takes_more_parameters_than_a_reader_can_hold():
    """Past a dozen parameters a function is several functions, or its options want a dataclass."""
    crowded = sorted(f"{path.relative_to(REPO_ROOT)}:{node.lineno} {node.name}({parameter_count(node)})"
                     for package in PACKAGES for path in (REPO_ROOT / package).rglob("*.py")
                     for node in ast.walk(ast.parse(path.read_text()))
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and parameter_count(node) > MAX_PARAMETERS)
    assert crowded == []
