"""The package's layers and its import graph: nothing imports upward, and no import cycle (docs/python.md, "Layout").

The graph, the layers and the import reader are tests/import_graph.py's (``python -m tests.import_graph`` prints
them). Every import counts: at module level, inside functions, and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.import_graph import (
    LAYERS,
    cycles,
    imports,
    imports_of,
    layer,
    main,
    module_graph,
    modules,
    part,
    report,
)
from tests.public_surface import PACKAGE, module_name


def test_every_module_has_a_layer() -> None:
    parts = {part(module_name(path)) for path in modules()}
    assert parts <= set(LAYERS), f"give these a layer: {sorted(parts - set(LAYERS))}"


@pytest.mark.parametrize("path", modules(), ids=lambda path: str(path.relative_to(PACKAGE)))
def test_no_module_imports_a_higher_layer(path: Path) -> None:
    own = layer(module_name(path))
    upward = [f"line {line}: {name} (layer {layer(name)} > {own})" for line, name in imports(path) if layer(name) > own]
    assert not upward, f"{path.relative_to(PACKAGE)} (layer {own}) imports upward: " + "; ".join(upward)


def test_the_check_sees_imports_in_functions_and_type_checking() -> None:
    text = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from sysrs_ref.experiments import Config\n"
        "def f() -> None:\n    from sysrs_ref.cli import main\n"
        "from . import _batch\nfrom .. import simulation\nimport sysrs_ref.live.session\nimport numpy\n"
    )
    names = sorted(name for _, name in imports_of(text, "sysrs_ref.fast"))
    assert names == [
        "sysrs_ref.cli",
        "sysrs_ref.experiments",
        "sysrs_ref.fast._batch",
        "sysrs_ref.live.session",
        "sysrs_ref.simulation",
    ]
    assert [layer(name) > LAYERS["fast"] for name in names] == [True, True, False, True, True]


def test_no_import_cycle() -> None:
    found = cycles(module_graph())
    assert not found, "import cycles (break each one; imports in functions count too): " + "; ".join(
        " <-> ".join(cycle) for cycle in found
    )


def test_the_cycle_check_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def _private_reach(importer: str, imported: str) -> bool:
    """Whether *importer* reaches into a private module of another subpackage (or top-level module) than its own.

    The root package's own helpers (``sysrs_ref._checks``, ``sysrs_ref._atomic``, ...) serve every subpackage and
    are not counted; a private module below a subpackage (``sysrs_ref.loaders._reading``) is its own.
    """
    below = imported.split(".")[2:]
    return part(importer) != part(imported) and any(name.startswith("_") for name in below)


def test_no_module_imports_another_subpackages_private_module() -> None:
    reached = [
        f"{module_name(path)} line {line}: {name}"
        for path in modules()
        for line, name in imports(path)
        if _private_reach(module_name(path), name)
    ]
    assert not reached, "import these from the subpackage (export them there): " + "; ".join(reached)


def test_the_private_import_check_finds_one() -> None:
    text = (
        "from sysrs_ref.loaders._reading import check_input_path\nfrom sysrs_ref.fast import _native\n"
        "from sysrs_ref.simulation import simulate\nfrom sysrs_ref._checks import check_int\n"
        "from sysrs_ref.cli._common import emit\n"
    )
    names = [name for _, name in imports_of(text, "sysrs_ref.cli")]
    assert [_private_reach("sysrs_ref.cli._main", name) for name in names] == [True, True, False, False, False]


def test_the_report_names_what_goes_up_and_what_cycles() -> None:
    graph = {
        "sysrs_ref.instance": {"sysrs_ref.cli._main"},
        "sysrs_ref.cli._main": {"sysrs_ref.instance", "sysrs_ref.algorithms.sr"},
        "sysrs_ref.algorithms.sr": set(),
    }
    lines = report(graph)
    assert lines[0] == "sysrs_ref: 3 modules, 3 imports between them"
    assert lines[1] == "0 core            1 modules; imports from command line 1"
    assert lines[2] == "1 reference       1 modules; imports from nothing"
    assert lines[6] == "5 command line    1 modules; imports from core 1, reference 1"
    assert lines[-2] == "imports up a layer: sysrs_ref.instance -> sysrs_ref.cli._main"
    assert lines[-1] == "import cycles: sysrs_ref.cli._main <-> sysrs_ref.instance"


def test_the_command_lists_every_module_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--each"]) == 0
    printed = capsys.readouterr().out.splitlines()
    listed = {line.split(" -> ")[0].strip() for line in printed if line.startswith("    ")}
    assert listed == {module_name(path) for path in modules()}
    assert printed[-2:] == ["imports up a layer: none", "import cycles: none"]
