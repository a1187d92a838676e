"""The package's layers and its import graph: nothing imports upward, and no import cycle (docs/python.md, "Layout").

core -> reference (algorithms, theory, subset) -> fast -> io (loaders, datasets)
-> applications (simulation, live, conformance, experiments) -> command line.
Every import counts: at module level, inside functions, and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import sysrs_ref

PACKAGE = Path(sysrs_ref.__file__).parent

#: The layer of every top-level module and subpackage of sysrs_ref (a lower number is a lower layer).
LAYERS: dict[str, int] = {
    **dict.fromkeys(
        (
            "_atomic",
            "_checks",
            "_fixed_order",
            "_lazy",
            "_version",
            "_words",
            "errors",
            "json_types",
            "scores",
            "instance",
            "draws",
            "stochastic",
            "schedule",
            "topm",
            "synthetic",
        ),
        0,
    ),
    **dict.fromkeys(("algorithms", "theory", "subset"), 1),
    "fast": 2,
    **dict.fromkeys(("loaders", "datasets"), 3),
    **dict.fromkeys(("simulation", "live", "conformance", "experiments"), 4),
    **dict.fromkeys(("cli", "__main__", "__init__"), 5),
}


def _part(module: str) -> str:
    """The top-level module or subpackage of sysrs_ref that *module* (dotted, from sysrs_ref) belongs to."""
    parts = module.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def _name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every sysrs_ref module the file at *path* imports: (line, dotted name)."""
    package = _name(path) if path.name == "__init__.py" else _name(path).rpartition(".")[0]
    return _imports_of(path.read_text(), package)


def _imports_of(text: str, package: str) -> list[tuple[int, str]]:
    """Every sysrs_ref module *text* (a module of *package*) imports, relative imports resolved.

    ``from package import name`` is read as the module ``package.name`` when there is one, else as ``package``.
    """
    modules = {_name(path) for path in _modules()}
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = parts[: len(parts) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.append((node.lineno, full if base == "sysrs_ref" or full in modules else base))
    return [(line, name) for line, name in found if name == "sysrs_ref" or name.startswith("sysrs_ref.")]


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_layer() -> None:
    parts = {_part(_name(path)) if path != PACKAGE / "__init__.py" else "__init__" for path in _modules()}
    assert parts <= set(LAYERS), f"give these a layer: {sorted(parts - set(LAYERS))}"


@pytest.mark.parametrize("path", _modules(), ids=lambda path: str(path.relative_to(PACKAGE)))
def test_no_module_imports_a_higher_layer(path: Path) -> None:
    own = "__init__" if path == PACKAGE / "__init__.py" else _part(_name(path))
    upward = [
        f"line {line}: {name} (layer {LAYERS.get(_part(name), 99)} > {LAYERS[own]})"
        for line, name in _imports(path)
        if LAYERS.get(_part(name), 99) > LAYERS[own]
    ]
    assert not upward, f"{path.relative_to(PACKAGE)} ({own}, layer {LAYERS[own]}) imports upward: " + "; ".join(upward)


def test_the_check_sees_imports_in_functions_and_type_checking() -> None:
    text = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from sysrs_ref.experiments import Config\n"
        "def f() -> None:\n    from sysrs_ref.cli import main\n"
        "from . import _batch\nfrom .. import simulation\nimport sysrs_ref.live.session\nimport numpy\n"
    )
    names = sorted(name for _, name in _imports_of(text, "sysrs_ref.fast"))
    assert names == [
        "sysrs_ref.cli",
        "sysrs_ref.experiments",
        "sysrs_ref.fast._batch",
        "sysrs_ref.live.session",
        "sysrs_ref.simulation",
    ]
    assert [LAYERS[_part(name)] > LAYERS["fast"] for name in names] == [True, True, False, True, True]


def _module_graph() -> dict[str, set[str]]:
    """Module -> the sysrs_ref modules it imports (every import, as :func:`_imports` reads them)."""
    names = {_name(path) for path in _modules()}
    return {
        _name(path): {name for _, name in _imports(path) if name in names and name != _name(path)}
        for path in _modules()
    }


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of *graph* with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.mark.slow
def test_no_import_cycle() -> None:
    cycles = _cycles(_module_graph())
    assert not cycles, "import cycles (break each one; imports in functions count too): " + "; ".join(
        " <-> ".join(cycle) for cycle in cycles
    )


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _private_reach(importer: str, imported: str) -> bool:
    """Whether *importer* reaches into a private module of another subpackage (or top-level module) than its own.

    The root package's own helpers (``sysrs_ref._checks``, ``sysrs_ref._atomic``, ...) serve every subpackage and
    are not counted; a private module below a subpackage (``sysrs_ref.loaders._reading``) is its own.
    """
    below = imported.split(".")[2:]
    return _part(importer) != _part(imported) and any(part.startswith("_") for part in below)


def test_no_module_imports_another_subpackages_private_module() -> None:
    reached = [
        f"{_name(path)} line {line}: {name}"
        for path in _modules()
        for line, name in _imports(path)
        if _private_reach(_name(path), name)
    ]
    assert not reached, "import these from the subpackage (export them there): " + "; ".join(reached)


def test_the_private_import_check_finds_one() -> None:
    text = (
        "from sysrs_ref.loaders._reading import check_input_path\nfrom sysrs_ref.fast import _native\n"
        "from sysrs_ref.simulation import simulate\nfrom sysrs_ref._checks import check_int\n"
        "from sysrs_ref.cli._common import emit\n"
    )
    names = [name for _, name in _imports_of(text, "sysrs_ref.cli")]
    assert [_private_reach("sysrs_ref.cli._main", name) for name in names] == [True, True, False, False, False]
