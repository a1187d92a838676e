"""A vectors file that is not what it seems is refused with one line: nested too deep, of another version, a FIFO."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from sysrs_ref.conformance import load_vectors
from sysrs_ref.errors import InstanceError


def _write(folder: Path, **fields: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    document = {"format": "sysrs-ref-vectors", "version": 2, "family": "budgets", "cases": []} | fields
    (folder / "budgets.json").write_text(json.dumps(document), encoding="utf-8")
    return folder


@pytest.mark.parametrize("version", [1, 2])
def test_the_versions_read(tmp_path: Path, version: int) -> None:
    assert load_vectors(_write(tmp_path, version=version), ["budgets"]) == {"budgets": []}


@pytest.mark.parametrize("version", [3, 0, True, 2.0, "2", None, [2]], ids=repr)
def test_another_version_is_refused(tmp_path: Path, version: object) -> None:
    folder = _write(tmp_path, version=version)
    with pytest.raises(
        InstanceError, match=re.escape(f"is a vectors file of version {json.dumps(version)}; this sysrs-ref")
    ):
        load_vectors(folder, ["budgets"])


def test_a_file_without_a_version_is_refused(tmp_path: Path) -> None:
    folder = _write(tmp_path)
    document = json.loads((folder / "budgets.json").read_text(encoding="utf-8"))
    del document["version"]
    (folder / "budgets.json").write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(InstanceError, match="is a vectors file of version null"):
        load_vectors(folder, ["budgets"])


def test_a_file_nested_deep_is_refused(tmp_path: Path) -> None:
    tmp_path.joinpath("budgets.json").write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    with pytest.raises(InstanceError, match=r"cannot read the vectors file .*JSON nested 200,000 deep"):
        load_vectors(tmp_path, ["budgets"])


def test_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "budgets.json")
    with pytest.raises(InstanceError, match="not a regular file but a FIFO"):
        load_vectors(tmp_path, ["budgets"])
