"""The real benchmarks for tests and benchmarks: shipped with the package, loaded by name once per session."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from sysrs_ref import Instance
from sysrs_ref.datasets import export_datasets, load_dataset


@functools.cache
def real(name: str) -> Instance:
    """The shipped benchmark *name* (hash-verified), loaded once per test session."""
    return load_dataset(name)


@pytest.fixture(scope="session")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder holding every shipped benchmark as NAME.npy plus MANIFEST.json (``datasets --export``)."""
    folder = tmp_path_factory.mktemp("exported")
    export_datasets(folder)
    return folder
