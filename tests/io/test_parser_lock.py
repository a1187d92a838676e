"""The loaders parse text as Python one thread at a time (sysrs_ref/loaders/_python_parser.py says why).

CPython 3.11.0 to 3.11.7 (and 3.12.0 to 3.12.1) share one depth counter between the threads that build an
``ast`` tree, so two threads parsing at once can fail with ``SystemError: AST constructor recursion depth
mismatch``; a Dask worker's threads each load a matrix (numpy parses a ``.npy`` header with
``ast.literal_eval``). The race itself needs the collector to run at the wrong instant and is not reproducible
in a test; what is checked here is that every parse the loaders make holds the lock.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from sysrs_ref.errors import InstanceError
from sysrs_ref.loaders import lighteval
from sysrs_ref.loaders._python_parser import PARSER
from sysrs_ref.loaders.arrays import read_npy, read_npz


@pytest.fixture()
def held(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether the parser's lock was held, for each ``ast.literal_eval`` call from now on."""
    seen: list[bool] = []
    real = ast.literal_eval

    def recorded(text: str) -> object:
        seen.append(PARSER.locked())
        return real(text)

    monkeypatch.setattr(ast, "literal_eval", recorded)
    return seen


def test_an_npy_header_is_parsed_under_the_lock(tmp_path: Path, held: list[bool]) -> None:
    np.save(tmp_path / "m.npy", np.eye(3))
    assert read_npy(tmp_path / "m.npy").tolist() == np.eye(3).tolist()
    assert held == [True, True]  # the header checked, then read again by numpy.lib.format.read_array
    assert not PARSER.locked()


def test_every_npz_member_header_is_parsed_under_the_lock(tmp_path: Path, held: list[bool]) -> None:
    np.savez(tmp_path / "m.npz", a=np.eye(2), b=np.zeros(3))
    arrays = read_npz(tmp_path / "m.npz")
    assert sorted(arrays) == ["a", "b"] and arrays["b"].tolist() == [0.0, 0.0, 0.0]
    assert held == [True] * 4
    assert not PARSER.locked()


def test_a_lighteval_metric_stored_as_text_is_parsed_under_the_lock(held: list[bool]) -> None:
    assert lighteval._scores("{'acc': 1.0}", "a row", "metrics") == {"acc": 1.0}
    assert held == [True]
    assert not PARSER.locked()


def test_a_refused_header_releases_the_lock(tmp_path: Path, held: list[bool]) -> None:
    path = tmp_path / "bad.npy"
    np.save(path, np.eye(2))
    data = path.read_bytes()
    path.write_bytes(data.replace(b"'descr'", b"'descr!", 1))
    with pytest.raises(InstanceError, match=r"not a valid \.npy file"):
        read_npy(path)
    assert held != [] and all(held)  # numpy parses a header that fails once more, as written on Python 2
    assert not PARSER.locked()
