"""One comparison of two fast outcomes, for the tests that run a kernel with the compiled passes on and off."""

from __future__ import annotations

import numpy as np

from sysrs_ref.fast._kernel import Chunk


def assert_same_outcome(fast: Chunk, plain: Chunk) -> None:
    """The same choices, rankings, spends and number of exact decisions."""
    assert np.array_equal(fast.chosen, plain.chosen)
    assert fast.ranking is not None and plain.ranking is not None
    assert np.array_equal(fast.ranking, plain.ranking)
    assert np.array_equal(fast.spent, plain.spent)
    assert fast.exact_decisions == plain.exact_decisions
