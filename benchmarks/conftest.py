"""Benchmarks reuse the test suite's helpers (the shipped benchmarks, loaded once per session)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
