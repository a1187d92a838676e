"""The package's public names: written once (sysrs_ref._EXPORTS), all importable, and the same for type checkers."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import sysrs_ref
from tests.public_surface import surface

INIT = Path(sysrs_ref.__file__)


def _type_checking_imports() -> dict[str, tuple[str, ...]]:
    """The ``if TYPE_CHECKING:`` imports of sysrs_ref/__init__.py: module -> names, each imported ``as`` itself."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    found: dict[str, tuple[str, ...]] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.module, ast.unparse(node)
        assert all(alias.asname == alias.name for alias in node.names), f"re-export as itself: {ast.unparse(node)}"
        found[node.module] = tuple(alias.name for alias in node.names)
    return found


def test_the_type_checkers_see_the_table() -> None:
    assert _type_checking_imports() == sysrs_ref._EXPORTS


def test_every_public_name_resolves_to_its_module() -> None:
    names = [name for names in sysrs_ref._EXPORTS.values() for name in names]
    assert len(names) == len(set(names)) and sorted(sysrs_ref.__all__) == sysrs_ref.__all__
    assert set(sysrs_ref.__all__) == {*names, "__version__", "schedule"}
    for module, exported in sysrs_ref._EXPORTS.items():
        for name in exported:
            assert getattr(sysrs_ref, name) is getattr(importlib.import_module(module), name)
    assert set(dir(sysrs_ref)) >= set(sysrs_ref.__all__)


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        sysrs_ref.no_such_name  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as err:
        assert "no_such_name" in str(err)
    else:
        raise AssertionError("an unknown name resolved")


def test_public_functions_are_documented_with_an_example() -> None:
    for name in sysrs_ref.__all__:
        obj = getattr(sysrs_ref, name)
        if inspect.isfunction(obj):
            doc = inspect.getdoc(obj) or ""
            assert doc.splitlines() and ">>>" in doc, f"{name}: a one-line summary and a runnable example"


def test_the_fast_paths_show_four_public_modules() -> None:
    """sysrs_ref.fast re-exports what a user runs; compiled (the switch), certify (the proved tolerance) and lrf
    (UCB-E-LRF's fast path) are the other public modules, every other module is private."""
    fast = {module for module in surface() if module.startswith("sysrs_ref.fast")}
    assert fast == {"sysrs_ref.fast", "sysrs_ref.fast.certify", "sysrs_ref.fast.compiled", "sysrs_ref.fast.lrf"}


def test_drive_and_select_live_in_a_public_module() -> None:
    assert "sysrs_ref.algorithms.driver" in surface()
    assert sysrs_ref.drive.__module__ == sysrs_ref.select.__module__ == "sysrs_ref.algorithms.driver"
