"""The exact truth an Instance exposes: means, best models, order, ties."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st

from sysrs_ref import Instance, ScoreLike, as_score
from tests.strategies import matrices


@pytest.mark.slow
@given(matrices(max_models=6, max_queries=8))
def test_means_are_exact_fraction_averages(rows: list[list[object]]) -> None:
    inst = Instance(rows)  # type: ignore[arg-type]
    exact = [[as_score(x) for x in row] for row in rows]
    assert inst.rows == tuple(tuple(row) for row in exact)
    assert inst.means == tuple(sum(row, Fraction(0)) / len(row) for row in exact)
    for i, row in enumerate(inst.numerators):
        assert all(Fraction(n, inst.denominator) == s for n, s in zip(row, exact[i], strict=True))


@pytest.mark.slow
@given(matrices(max_models=6, max_queries=8))
def test_best_tiers_ties_and_order(rows: list[list[object]]) -> None:
    inst = Instance(rows)  # type: ignore[arg-type]
    means = inst.means
    assert inst.best == {i for i, m in enumerate(means) if m == max(means)}
    assert inst.best_mean == max(means)
    assert sorted(m for tier in inst.tiers for m in tier) == list(range(inst.n_models))
    tier_means = [means[tier[0]] for tier in inst.tiers]
    assert tier_means == sorted(set(means), reverse=True)
    assert all(means[m] == means[tier[0]] for tier in inst.tiers for m in tier)
    assert inst.ties == tuple(t for t in inst.tiers if len(t) > 1)
    assert [means[m] for m in inst.order] == sorted(means, reverse=True)
    assert all(inst.is_best(m) == (m in inst.best) for m in range(inst.n_models))


def test_the_best_set_is_made_once() -> None:
    """``model in instance.best`` in a loop over the K models (exact's error, the conformance solver) stays O(K):
    the set is made with the instance, not on every access (K^2 / 4 steps on a 1,000,000 x 1 Bernoulli matrix)."""
    inst = Instance([[i % 2] for i in range(1000)])
    assert inst.best is inst.best and inst.best == frozenset(range(1, 1000, 2))


@pytest.mark.slow
@given(matrices(max_models=5, max_queries=5), st.data())
def test_permuted_moves_rows(rows: list[list[object]], data: st.DataObject) -> None:
    inst = Instance(rows)  # type: ignore[arg-type]
    sigma = data.draw(st.permutations(range(inst.n_models)))
    moved = inst.permuted(sigma)
    assert all(moved.row(sigma[i]) == inst.row(i) for i in range(inst.n_models))
    assert moved.best == {sigma[i] for i in inst.best}


def test_floats_are_held_by_their_exact_binary_value() -> None:
    inst = Instance([[0.1, 0.2], [0.3, 0.0]])
    assert inst(0, 0) == Fraction(0.1) != Fraction(1, 10)
    # 0.1 + 0.2 != 0.3 + 0.0 in binary floating point, and the means say so exactly
    assert inst.means[0] != inst.means[1]
    assert inst.array.dtype == np.float64 and inst.array[0, 0] == 0.1


def test_rationals_are_exact_and_the_float_view_is_correctly_rounded() -> None:
    third = Fraction(1, 3)
    rows: list[list[ScoreLike]] = [[third, third, third], [1, 0, 0]]
    inst = Instance(rows)
    assert inst.means == (third, third)
    assert inst.best == {0, 1} and inst.ties == ((0, 1),)
    assert inst.array[0, 0] == 1 / 3
    assert not inst.array.flags.writeable


def test_array_input_equals_nested_input() -> None:
    data = [[1, 0, 1], [0, 0, 1]]
    assert Instance(np.array(data, dtype=bool)) == Instance(data) == Instance(np.array(data, dtype=np.float32))
    assert hash(Instance(data)) == hash(Instance(np.array(data)))


def test_repr_names_shape_and_best() -> None:
    assert repr(Instance([[1, 0], [0, 0]])) == "Instance(K=2, L=2, best=[0])"


def test_array_likes_are_read_as_arrays() -> None:
    """Objects with __array__ (pandas DataFrames, other libraries' arrays) are matrices, not iterables."""

    class ArrayLike:
        def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
            return np.array([[1.0, 0.0], [0.5, 0.5]])

        def __iter__(self) -> object:
            raise AssertionError("must not be iterated")

    assert Instance(ArrayLike()).means == (Fraction(1, 2), Fraction(1, 2))


def test_means_that_tie_as_floats_are_still_ordered_exactly() -> None:
    """The tiers sort by (float, Fraction): two means one float apart by 1e-30 keep their exact order."""
    third = Fraction(1, 3)
    tiny = Fraction(1, 10**30)
    instance = Instance([[third], [third + tiny], [third - tiny], [third], [Fraction(1, 2)]])
    assert float(third + tiny) == float(third - tiny)
    assert instance.tiers == ((4,), (1,), (0, 3), (2,))
