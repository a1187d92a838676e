"""What the tests of the compiled passes share: their skip marker and the comparisons of the two backends' results."""

from __future__ import annotations

import numpy as np
import pytest

from sysrs_ref.fast import compiled
from sysrs_ref.fast._kernel import Chunk

#: Skips a test of the compiled passes where they were not built (tests/fast/test_native_build.py then fails).
needs_compiled = pytest.mark.skipif(not compiled.available(), reason="the compiled passes were not built here")


def same_bits(got: tuple[np.ndarray, ...], want: tuple[np.ndarray, ...]) -> bool:
    """The same shapes and the same doubles, bit for bit (so -0.0 and 0.0, or two NaNs, are told apart)."""
    return all(g.shape == w.shape and g.tobytes() == w.tobytes() for g, w in zip(got, want, strict=True))


def assert_same_outcome(fast: Chunk, plain: Chunk) -> None:
    """The same choices, rankings, spends and number of exact decisions."""
    assert np.array_equal(fast.chosen, plain.chosen)
    assert fast.ranking is not None and plain.ranking is not None
    assert np.array_equal(fast.ranking, plain.ranking)
    assert np.array_equal(fast.spent, plain.spent)
    assert fast.exact_decisions == plain.exact_decisions
