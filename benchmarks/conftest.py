"""Benchmarks reuse the test suite's fixtures (the shared data folder)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from data_paths import shared_data  # noqa: E402

__all__ = ["shared_data"]
