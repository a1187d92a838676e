"""The command line starts fast because of what it does not import (behaviour only; benchmarks/startup.py times it).

``import sysrs_ref`` resolves its public names on first use (PEP 562), ``--help``
imports no subcommand and no numpy, and ``live next`` only the session's own
modules. Each check runs in a fresh interpreter, which prints the modules it
ended up with.
"""

from __future__ import annotations

import ast
import functools
import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import FunctionType, ModuleType

import pytest

import sysrs_ref
import sysrs_ref.algorithms
import sysrs_ref.live

PACKAGE = Path(sysrs_ref.__file__).parent

#: Prints, as one JSON list, the numpy and sysrs_ref modules loaded after running the code before it.
DUMP = (
    "\nimport json, sys\nprint(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'sysrs_ref'))))"
)


def loaded_after(code: str, cwd: Path) -> set[str]:
    """The numpy and sysrs_ref modules a fresh interpreter has loaded after running *code*."""
    done = subprocess.run(
        [sys.executable, "-c", code + DUMP], capture_output=True, text=True, cwd=cwd, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    assert isinstance(found, list)
    return {str(name) for name in found}


def cli(*argv: str) -> str:
    """Code that runs ``python -m sysrs_ref ARGV`` in-process, output discarded, whatever its exit."""
    return (
        "import contextlib, io, sysrs_ref.cli\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        f"    try:\n        sysrs_ref.cli.main({list(argv)!r})\n    except SystemExit:\n        pass"
    )


def test_importing_the_package_imports_no_numpy(tmp_path: Path) -> None:
    loaded = loaded_after("import sysrs_ref", tmp_path)
    assert "sysrs_ref" in loaded
    assert not {name for name in loaded if name.split(".")[0] == "numpy"}, sorted(loaded)


def test_help_imports_no_subcommand_and_no_numpy(tmp_path: Path) -> None:
    loaded = loaded_after(cli("--help"), tmp_path)
    assert not {name for name in loaded if name.split(".")[0] == "numpy"}, sorted(loaded)
    assert {name for name in loaded if name.startswith("sysrs_ref.cli.")} == {"sysrs_ref.cli._main"}


def test_help_as_a_module_imports_no_numpy(tmp_path: Path) -> None:
    """The real ``python -m sysrs_ref --help``, its imports as ``-X importtime`` reports them."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "sysrs_ref", "--help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout
    imported = {line.rpartition("|")[2].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "sysrs_ref.cli._main" in imported
    assert "numpy" not in imported
    assert {name for name in imported if name.startswith("sysrs_ref.cli.")} == {"sysrs_ref.cli._main"}


def test_live_next_imports_only_what_a_session_needs(tmp_path: Path) -> None:
    (tmp_path / "models.txt").write_text("a\nb\nc\n")
    (tmp_path / "queries.txt").write_text("".join(f"q{j}\n" for j in range(10)))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sysrs_ref",
            "live",
            "init",
            "--models",
            "models.txt",
            "--queries",
            "queries.txt",
            "--budget",
            "50%",
            "--algorithm",
            "ucbe",
            "--dir",
            "run",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    loaded = loaded_after(cli("live", "next", "--dir", "run"), tmp_path)
    assert "sysrs_ref.live.session" in loaded
    assert {name for name in loaded if name.startswith("sysrs_ref.cli.")} == {
        "sysrs_ref.cli._main",
        "sysrs_ref.cli._live",
        "sysrs_ref.cli._live_run",  # the arguments of `live run` (no harness is imported)
        "sysrs_ref.cli._common",
    }
    unneeded = ("datasets", "loaders", "fast", "simulation", "theory", "subset", "experiments", "conformance")
    assert not {name for name in loaded if name.split(".")[:2] in [["sysrs_ref", part] for part in unneeded]}, sorted(
        loaded
    )


@functools.cache
def _assignments() -> dict[str, list[str]]:
    """Every module-level name assigned in the package (outside ``__init__.py``), with the modules assigning it."""
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "__init__.py":
            continue
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        for node in ast.parse(path.read_text()).body:
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign)
                else []
            )
            for target in targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(module)
    return found


def defining_module(name: str, obj: object) -> str:
    """Where *name* is defined: a function's or class's ``__module__``, else the one module assigning it."""
    if isinstance(obj, type | FunctionType):
        return obj.__module__
    found = sorted(set(_assignments().get(name, [])))
    assert len(found) == 1, f"{name} is assigned in {found or 'no module'}"
    return found[0]


@pytest.mark.slow
@pytest.mark.parametrize("package", [sysrs_ref, sysrs_ref.algorithms, sysrs_ref.live], ids=lambda p: p.__name__)
def test_every_public_name_is_the_object_of_its_defining_module(package: ModuleType) -> None:
    assert sorted(set(package.__all__)) == sorted(package.__all__)
    for name in package.__all__:
        obj = getattr(package, name)
        module = defining_module(name, obj)
        assert getattr(importlib.import_module(module), name) is obj, (
            f"{package.__name__}.{name} is not {module}.{name}"
        )
        assert name in dir(package)
    with pytest.raises(AttributeError):
        package.no_such_name  # noqa: B018  (the access is the test)


def test_every_public_name_resolves_in_a_fresh_interpreter(tmp_path: Path) -> None:
    """Resolved lazily, in the order of __all__, from nothing imported (not after other tests imported it all)."""
    code = (
        "import sysrs_ref, sysrs_ref.algorithms, sysrs_ref.live\n"
        "for package in (sysrs_ref, sysrs_ref.algorithms, sysrs_ref.live):\n"
        "    for name in package.__all__:\n"
        "        getattr(package, name)\n"
        "assert callable(sysrs_ref.schedule), 'sysrs_ref.schedule is the function, not the module'"
    )
    assert "sysrs_ref.simulation" in loaded_after(code, tmp_path)
