"""Where the shared real score matrices live, as a pytest fixture (used by tests/ and benchmarks/)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def shared_data_dir() -> Path:
    """The folder of real score matrices: $SYSRS_DATA, else ../shared/data next to the project."""
    override = os.environ.get("SYSRS_DATA")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path of the shared data folder; the test FAILS (never skips) when it is missing."""
    folder = shared_data_dir()
    if not folder.is_dir():
        pytest.fail(
            f"shared data folder {folder} does not exist: set SYSRS_DATA to the folder "
            "holding gsm.npy and the other score matrices",
            pytrace=False,
        )
    return folder
