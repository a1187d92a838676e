"""sysrs_ref's import graph: the layer of every module, every import read from the source, and the cycles.

core -> reference (algorithms, theory, subset) -> fast -> io (loaders, datasets)
-> applications (simulation, live, conformance, experiments) -> command line (docs/python.md, "Layout").
Every import counts: at module level, inside functions, and under ``TYPE_CHECKING``. The files are parsed with
:mod:`ast`, not imported. tests/project/test_layers.py asserts on this graph; run it to print the graph by layer::

    python -m tests.import_graph          # imports between layers, upward imports, cycles
    python -m tests.import_graph --each   # and every module with the modules it imports

It exits with status 1 when an import goes up a layer or closes a cycle.
"""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path

from tests.public_surface import PACKAGE, module_name

#: The layers, lowest first.
LAYER_NAMES = ("core", "reference", "fast", "io", "applications", "command line")

#: The layer of every top-level module and subpackage of sysrs_ref (an index into LAYER_NAMES).
LAYERS: dict[str, int] = {
    **dict.fromkeys(
        (
            "_atomic",
            "_children",
            "_streams",
            "_checks",
            "_distinct",
            "_files",
            "_limits",
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

#: The layer given to a part of sysrs_ref that LAYERS does not list: above every layer, so an import of it fails.
UNLISTED = 99


@functools.cache
def modules() -> tuple[Path, ...]:
    """Every module file of sysrs_ref, sorted."""
    return tuple(sorted(PACKAGE.rglob("*.py")))


@functools.cache
def _known() -> frozenset[str]:
    """The dotted names of every module of sysrs_ref."""
    return frozenset(module_name(path) for path in modules())


def part(module: str) -> str:
    """The top-level module or subpackage of sysrs_ref that *module* (dotted, from sysrs_ref) belongs to.

    ``sysrs_ref`` itself is its ``__init__``.
    """
    parts = module.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def layer(module: str) -> int:
    """The layer of *module* (dotted), :data:`UNLISTED` for a part LAYERS does not list."""
    return LAYERS.get(part(module), UNLISTED)


def imports(path: Path) -> list[tuple[int, str]]:
    """Every sysrs_ref module the file at *path* imports: (line, dotted name)."""
    own = module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    return imports_of(path.read_text(encoding="utf-8"), package)


def imports_of(text: str, package: str) -> list[tuple[int, str]]:
    """Every sysrs_ref module *text* (a module of *package*) imports, relative imports resolved.

    ``from package import name`` is read as the module ``package.name`` when there is one, else as ``package``.
    """
    known = _known()
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
                found.append((node.lineno, full if base == "sysrs_ref" or full in known else base))
    return [(line, name) for line, name in found if name == "sysrs_ref" or name.startswith("sysrs_ref.")]


def module_graph() -> dict[str, set[str]]:
    """Module -> the other sysrs_ref modules it imports (every import, as :func:`imports` reads them)."""
    return {
        module_name(path): {name for _, name in imports(path) if name in _known() and name != module_name(path)}
        for path in modules()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
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


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Every import in *graph* that goes up a layer, as ``importer -> imported``."""
    return [
        f"{module} -> {target}"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if layer(target) > layer(module)
    ]


def report(graph: dict[str, set[str]], *, each: bool = False) -> list[str]:
    """The lines :func:`main` prints for *graph*: per layer its modules and the imports it makes, by layer."""
    lines = [f"sysrs_ref: {len(graph)} modules, {sum(map(len, graph.values()))} imports between them"]
    for number, name in enumerate(LAYER_NAMES):
        members = sorted(module for module in graph if layer(module) == number)
        into = [
            sum(layer(target) == other for module in members for target in graph[module])
            for other in range(len(LAYER_NAMES))
        ]
        made = ", ".join(f"{LAYER_NAMES[other]} {count}" for other, count in enumerate(into) if count)
        lines.append(f"{number} {name:<13} {len(members):3d} modules; imports from {made or 'nothing'}")
        if each:
            lines += [f"    {module} -> {', '.join(sorted(graph[module])) or '-'}" for module in members]
    unlisted = sorted({part(module) for module in graph if layer(module) == UNLISTED})
    if unlisted:
        lines.append("without a layer (give them one in LAYERS): " + ", ".join(unlisted))
    going_up = upward(graph)
    found = cycles(graph)
    lines.append("imports up a layer: " + ("; ".join(going_up) if going_up else "none"))
    lines.append("import cycles: " + ("; ".join(" <-> ".join(cycle) for cycle in found) if found else "none"))
    return lines


def main(argv: list[str]) -> int:
    graph = module_graph()
    print("\n".join(report(graph, each="--each" in argv)))
    return 1 if upward(graph) or cycles(graph) or any(layer(module) == UNLISTED for module in graph) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
