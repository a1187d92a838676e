"""Importing a module of sysrs_ref registers nothing: every table (the algorithms, the fast kernels, the commands)
is written out where it is defined, and no module's top level calls a function for its effect or writes into a
table, its own or another module's.

Read with :mod:`ast`: the statements at a module's top level (in its ``if`` and ``try`` blocks too, but not in
``if __name__ == "__main__":``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.public_surface import PACKAGE


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for node in body:
        if isinstance(node, ast.If):
            if "__name__" not in ast.unparse(node.test):
                yield from _top_level(node.body)
                yield from _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(handler.body for handler in node.handlers)):
                yield from _top_level(block)
        else:
            yield node


def side_effects(text: str) -> list[str]:
    """The top-level statements of *text* that act at import: a call for its effect, a write into a table.

    >>> side_effects("import x\\nx.KERNELS['a'] = f\\nregister(f)\\nT = {'a': 1}\\nT.update(b=2)\\nY = make()\\n")
    ["line 2: x.KERNELS['a'] = f", 'line 3: register(f)', 'line 5: T.update(b=2)']
    """
    found = []
    for node in _top_level(ast.parse(text).body):
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, (ast.AugAssign, ast.AnnAssign))
            else []
        )
        call = isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
        if call or any(isinstance(target, (ast.Subscript, ast.Attribute)) for target in targets):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda path: str(path.relative_to(PACKAGE)))
def test_importing_a_module_registers_nothing(path: Path) -> None:
    assert side_effects(path.read_text(encoding="utf-8")) == []
