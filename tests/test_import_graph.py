"""The packages import in one direction: no module imports, directly or through others, a module that imports it
back, whether the import sits at the top of the file or inside a function (imports kept inside functions for start-up
speed count too). tflm_facts imports neither tool."""

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

PACKAGES = ("tflm_facts", "tflm_model", "resolver_gen", "sizetool")


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


@pytest.mark.parametrize("tool", ["resolver_gen", "sizetool"])
def test_the_model_library_imports_neither_command(tool):
    graph = import_graph()
    leaks = {m: sorted(t for t in targets if t.startswith(tool))
             for m, targets in graph.items() if m.startswith("tflm_model")}
    assert not any(leaks.values()), leaks


# size-report's stages, in the order data flows through them: a module imports only from its own stage or earlier
# ones (docs/architecture.md). The analyses after the report share a rank where one may use another's results.
SIZETOOL_STAGES = {
    "errors": 0, "sizes": 0, "text_escaping": 0,
    "inputs": 1,
    "code_graph": 2,
    "report": 3,
    "operators": 4,
    "stack": 5, "fit": 5,
    "profile": 6, "advice": 6,
    "ci": 6,
    "history": 7,
    "render": 8,
    "commands": 9, "cli": 10,
}


def stage_of(module: str) -> int | None:
    parts = module.split(".")
    return SIZETOOL_STAGES.get(parts[1]) if parts[0] == "sizetool" and len(parts) > 1 else None


def test_every_sizetool_module_belongs_to_a_stage():
    assert [m for m in import_graph() if m.startswith("sizetool.") and stage_of(m) is None] == []


def test_size_report_data_flows_one_way_through_its_stages():
    graph = import_graph()
    upstream = sorted(f"{module} -> {target}" for module, targets in graph.items() if stage_of(module) is not None
                      for target in targets if stage_of(target) is not None and stage_of(target) > stage_of(module))
    assert upstream == []


def test_the_analyses_do_not_import_each_other_backwards():
    """stack and fit may use the operator graph; operators never use stack or fit, and stack and fit not each other."""
    graph = import_graph()
    backwards = sorted(f"{module} -> {target}" for module, targets in graph.items() for target in targets
                       if (module.startswith("sizetool.operators") and target.startswith(("sizetool.stack", "sizetool.fit")))
                       or (module.startswith("sizetool.stack") and target.startswith("sizetool.fit"))
                       or (module.startswith("sizetool.fit") and target.startswith("sizetool.stack")))
    assert backwards == []


COMMAND_MODULES = ("sizetool.cli", "sizetool.commands", "resolver_gen.cli")


def test_no_library_module_reaches_up_into_a_command():
    """The command layers (size-report's commands, gen-resolver's cli) sit on top: what one command needs of the other
    tool (size-report check's --header needs gen-resolver's generation) lives in that tool's library part."""
    graph = import_graph()
    upward = sorted(f"{module} -> {target}" for module, targets in graph.items()
                    if not module.startswith(COMMAND_MODULES) for target in targets
                    if target.startswith(COMMAND_MODULES))
    assert upward == []
