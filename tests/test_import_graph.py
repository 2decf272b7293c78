"""The packages import in one direction: no module imports, directly or through others, a module that imports it
back, whether the import sits at the top of the file or inside a function (imports kept inside functions for start-up
speed count too). tflm_facts imports neither tool."""

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

PACKAGES = ("tflm_facts", "resolver_gen", "sizetool")


def module_files() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in (REPO_ROOT / package).rglob("*.py"):
            parts = path.relative_to(REPO_ROOT).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def imported_modules(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Our modules that `module` imports anywhere in its file (package __init__ files count as modules)."""
    found = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    found.add(f"{base}.{alias.name}")
                elif base in modules:
                    found.add(base)
    found.discard(module)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    return {module: imported_modules(module, path, modules) for module, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_one_that_imports_it_back():
    graph = import_graph()
    assert "sizetool.operators.operator_graph" in graph  # the walk found the modules
    assert cycles(graph) == []


@pytest.mark.parametrize("tool", ["resolver_gen", "sizetool"])
def test_tflm_facts_import_neither_tool(tool):
    graph = import_graph()
    leaks = {m: sorted(t for t in targets if t.startswith(tool))
             for m, targets in graph.items() if m.startswith("tflm_facts")}
    assert not any(leaks.values()), leaks
