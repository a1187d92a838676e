"""The size of sysrs_ref's public surface: its public modules and the names they export.

A module is public when no part of its dotted name starts with an underscore; the names it exports are its
``__all__`` (a module without one exports every top-level name it defines that does not start with an
underscore). Read from the source with :mod:`ast`; only a module whose ``__all__`` is computed is imported. Run it to print the count::

    python -m tests.public_surface          # the total
    python -m tests.public_surface --each   # and every public module with its count
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import sysrs_ref

PACKAGE = Path(sysrs_ref.__file__).parent


def module_name(path: Path) -> str:
    """The dotted name of the module at *path* (a file under sysrs_ref/)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_public(module: str) -> bool:
    """Whether no part of the dotted name *module* starts with an underscore."""
    return not any(part.startswith("_") for part in module.split("."))


def exported_names(module: str, tree: ast.Module) -> list[str]:
    """The names *module* exports: its ``__all__``, else the public top-level names it defines.

    A literal ``__all__`` is read from *tree*; one built at import time (sysrs_ref/__init__.py builds it from its
    table) is read from the imported module.
    """
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            if isinstance(node.value, (ast.List, ast.Tuple)):
                return [str(ast.literal_eval(element)) for element in node.value.elts]
            return list(importlib.import_module(module).__all__)
    defined: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.append(node.name)
        elif isinstance(node, ast.Assign):
            defined.extend(target.id for target in node.targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defined.append(node.target.id)
    return [name for name in dict.fromkeys(defined) if not name.startswith("_")]


def surface() -> dict[str, list[str]]:
    """Every public module of sysrs_ref (dotted name) -> the names it exports."""
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        if is_public(name):
            found[name] = exported_names(name, ast.parse(path.read_text(encoding="utf-8")))
    return found


def main(argv: list[str]) -> int:
    modules = surface()
    if "--each" in argv:
        for name, names in modules.items():
            print(f"{len(names):4d}  {name}")
    print(f"{len(modules)} public modules export {sum(len(names) for names in modules.values())} names")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
