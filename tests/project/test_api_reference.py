"""The generated API reference (tests/api_reference.py, pdoc) builds, and has a page or an anchor for every public
name: every top-level name of sysrs_ref, every name each documented module exports, every subpackage a theme."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import sysrs_ref
from tests.api_reference import build as build_reference, modules, themes
from tests.public_surface import PACKAGE, is_public

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    output = tmp_path_factory.mktemp("api")
    build_reference(output)
    return output


def _page(reference: Path, module: str) -> str:
    path = reference.joinpath(*module.split(".")).with_suffix(".html")
    assert path.is_file(), f"no page for {module}"
    return path.read_text(encoding="utf-8")


def test_every_top_level_name_has_an_anchor(reference: Path) -> None:
    page = _page(reference, "sysrs_ref")
    missing = [name for name in sysrs_ref.__all__ if f'id="{name}"' not in page]
    assert not missing, f"sysrs_ref.html has no entry for {missing}"


def test_every_documented_module_has_a_page_with_its_names(reference: Path) -> None:
    assert (reference / "index.html").is_file()
    for module in modules():
        page = _page(reference, module)
        exported = getattr(importlib.import_module(module), "__all__", ())
        missing = [name for name in exported if f'id="{name}"' not in page and f"{name}.html" not in page]
        assert not missing, f"the page of {module} has no entry for {missing}"


def test_every_public_subpackage_and_module_of_the_package_is_in_a_theme() -> None:
    top = {f"sysrs_ref.{path.stem}" for path in PACKAGE.glob("*.py")} | {
        f"sysrs_ref.{path.parent.name}" for path in PACKAGE.glob("*/__init__.py")
    }
    documented = {module for names in themes().values() for module in names}
    assert {module for module in top if is_public(module)} - documented == set()
    assert all(is_public(module) for module in documented) and len(modules()) == len(set(modules()))
