"""The compiled LRF fit's kept arrays and spans: wide and tall matrices, changing shapes and threads give the same bits."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from sysrs_ref.algorithms.lrf import LRFParams, fit_ensemble_reference
from sysrs_ref.fast.lrf import fit_ensemble_compiled
from tests.backends import needs_compiled


def _bits(array: np.ndarray) -> list[int]:
    return np.ascontiguousarray(array, dtype=np.float64).view(np.uint64).ravel().tolist()


def _scores(n_models: int, n_queries: int, seed: int, observed: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scores = np.round(rng.random((n_models, n_queries)), 2)
    scores[rng.random(scores.shape) >= observed] = np.nan
    return scores


@needs_compiled
@pytest.mark.parametrize(
    ("n_models", "n_queries", "observed"),
    [(3, 1300, 0.6), (1100, 2, 0.6), (4, 1025, 0.6), (1030, 3, 0.6), (3, 1300, 0.1), (2, 1300, 0.02)],
)
def test_a_fit_over_several_spans_of_the_other_factor_is_the_reference_fit(
    n_models: int, n_queries: int, observed: float
) -> None:
    """More than 1,024 rows of the other factor: each line's sums go on from span to span in the reference's order.

    Spans are longer where lines have fewer cells (0.1 observed here: 4 spans of 325 queries; 0.02: one span).
    """
    scores = _scores(n_models, n_queries, n_queries, observed)
    params = LRFParams(members=17, dropout=0.3, sweeps=2)
    mean, spread = fit_ensemble_compiled(scores, 11, 2, params)
    want_mean, want_spread = fit_ensemble_reference(scores, 11, 2, params)
    assert _bits(mean) == _bits(want_mean) and _bits(spread) == _bits(want_spread)


@needs_compiled
def test_fits_of_changing_shapes_and_in_threads_give_the_same_bits() -> None:
    """A thread keeps its arrays from fit to fit: a fit after a larger or smaller one, or in another thread, is the same."""
    params = LRFParams(members=33, sweeps=3)
    cases = [(_scores(k, n, k + n, f), 5, t) for k, n, f, t in [(40, 700, 0.5, 0), (6, 9, 0.9, 1), (70, 30, 0.2, 2)]]
    first = [fit_ensemble_compiled(s, seed, t, params) for s, seed, t in cases]
    again = [fit_ensemble_compiled(s, seed, t, params) for s, seed, t in reversed(cases)][::-1]
    found: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}

    def work(number: int) -> None:
        order = cases[number:] + cases[:number]
        fits = [fit_ensemble_compiled(s, seed, t, params) for s, seed, t in order for _ in range(2)][::2]
        found[number] = fits[len(cases) - number :] + fits[: len(cases) - number]

    threads = [threading.Thread(target=work, args=(number,)) for number in range(len(cases))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for fits in [again, *found.values()]:
        assert [(_bits(m), _bits(s)) for m, s in fits] == [(_bits(m), _bits(s)) for m, s in first]
    small_mean, small_spread = fit_ensemble_reference(*cases[1], params)
    assert _bits(first[1][0]) == _bits(small_mean) and _bits(first[1][1]) == _bits(small_spread)
