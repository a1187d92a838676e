"""The result shared by the subset-selection baselines, its estimates and its input checks.

Appendix "Subset Selection Experimental Details", "Experimental Setup": for a
K x L score matrix S and a budget fraction b, a subset-selection method picks
k = floor(b L) *anchor* questions q_1, ..., q_k with weights w_1, ..., w_k
(summing to 1), every model is evaluated on the anchors only, its benchmark
mean is estimated as mu-hat_i = sum_l w_l S[i, q_l], and the predicted best
model is the argmax of the estimates.

Tie rule: the predicted best model is the *lowest-indexed* model with the
largest estimate. This is a documented departure from the project's
arm-priority rule (a random priority over the models, :mod:`sysrs_ref.draws`):
these baselines are deterministic given their seed, and their only randomness
is the clustering initialisation, as in the paper.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sysrs_ref.errors import BudgetError, InstanceError, ParameterError, ScoreError
from sysrs_ref.json_types import JsonValue

__all__ = ["SubsetResult", "check_subset_inputs", "make_result", "weighted_estimates"]


@dataclass(frozen=True)
class SubsetResult:
    """One subset selection: the anchors, their weights, the model estimates and the chosen model.

    ``anchors`` are distinct question indices in increasing order and
    ``weights[l]`` belongs to ``anchors[l]``; ``estimates[i]`` is
    sum_l weights[l] * S[i, anchors[l]]; ``chosen`` is the argmax of the
    estimates, ties going to the lowest model index (see the module docstring).

    >>> r = SubsetResult("anchor", 2, (0, 3), (0.75, 0.25), (0.75, 0.25), 0)
    >>> r.to_json()
    {'method': 'anchor', 'k': 2, 'anchors': [0, 3], 'weights': [0.75, 0.25], 'estimates': [0.75, 0.25], 'chosen': 0}
    """

    method: str
    k: int
    anchors: tuple[int, ...]
    weights: tuple[float, ...]
    estimates: tuple[float, ...]
    chosen: int

    def __post_init__(self) -> None:
        if len(self.anchors) != self.k or len(self.weights) != self.k:
            raise ParameterError(
                f"a subset of k = {self.k} needs k anchors and k weights, "
                f"got {len(self.anchors)} and {len(self.weights)}"
            )
        if len(set(self.anchors)) != self.k:
            raise ParameterError(f"anchors must be distinct questions, got {self.anchors}")
        if not 0 <= self.chosen < len(self.estimates):
            raise ParameterError(f"chosen = {self.chosen} is not a model index (K = {len(self.estimates)})")

    def to_json(self) -> dict[str, JsonValue]:
        """The result as a JSON object with exactly the keys method, k, anchors, weights, estimates, chosen.

        >>> sorted(SubsetResult("m", 1, (2,), (1.0,), (0.0, 1.0), 1).to_json())
        ['anchors', 'chosen', 'estimates', 'k', 'method', 'weights']
        """
        return {
            "method": self.method,
            "k": self.k,
            "anchors": list(self.anchors),
            "weights": list(self.weights),
            "estimates": list(self.estimates),
            "chosen": self.chosen,
        }


def check_subset_inputs(scores: npt.ArrayLike, k: int) -> npt.NDArray[np.float64]:
    """Validate a score matrix and an anchor count; return the scores as a float64 K x L array.

    The scores must form a 2-D real array with K >= 2 models (rows) and
    L >= 1 questions (columns), every entry finite and in [0, 1]; k must be an
    integer with 1 <= k <= L. A malformed matrix raises
    :class:`~sysrs_ref.errors.InstanceError`, a value that is not a score
    :class:`~sysrs_ref.errors.ScoreError`, a bad k
    :class:`~sysrs_ref.errors.BudgetError`.

    >>> check_subset_inputs([[0, 1], [1, 1]], 2).dtype
    dtype('float64')
    >>> check_subset_inputs([[0, 1], [1, 1]], 3)
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.BudgetError: k must be between 1 and L (= 2) anchor questions, got 3
    """
    try:
        array = np.asarray(scores)
    except ValueError:
        raise InstanceError("scores must be a 2-D matrix (models x questions) with rows of equal length") from None
    if array.ndim != 2:
        raise InstanceError(
            f"scores must be a 2-D matrix (models x questions), got {array.ndim} dimension(s) with shape {array.shape}"
        )
    if array.dtype.kind not in "biuf":
        raise InstanceError(f"scores must be real numbers, got an array of dtype {array.dtype}")
    n_models, n_questions = array.shape
    if n_models < 2:
        raise InstanceError(f"need at least 2 models (rows) to choose from, got {n_models}")
    if n_questions < 1:
        raise InstanceError("need at least 1 question (column), got 0")
    values = array.astype(np.float64)
    bad = ~np.isfinite(values) | (values < 0) | (values > 1)
    if bad.any():
        model, question = (int(x) for x in np.argwhere(bad)[0])
        raise ScoreError(
            f"score at model {model}, question {question} is {array[model, question].item()!r}: scores must be finite and in [0, 1]"
        )
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise BudgetError(f"k (the number of anchor questions) must be an integer, got {k!r}")
    if not 1 <= k <= n_questions:
        raise BudgetError(f"k must be between 1 and L (= {n_questions}) anchor questions, got {k}")
    return values


def weighted_estimates(
    scores: npt.NDArray[np.float64], anchors: Sequence[int], weights: Sequence[float]
) -> npt.NDArray[np.float64]:
    """The estimates mu-hat_i = sum_l weights[l] * scores[i, anchors[l]], one per model (row).

    Each sum is taken with :func:`math.fsum` over the rounded products, so the
    result does not depend on the order of the anchors or on the BLAS.

    >>> weighted_estimates(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]), [0, 2], [0.5, 0.5])
    array([1. , 0.5])
    """
    columns = np.asarray(scores, dtype=np.float64)[:, list(anchors)]
    products = columns * np.asarray(weights, dtype=np.float64)
    return np.array([math.fsum(row) for row in products.tolist()], dtype=np.float64)


def make_result(
    method: str,
    scores: npt.NDArray[np.float64],
    anchors: Sequence[int],
    weights: Sequence[float],
) -> SubsetResult:
    """Build a :class:`SubsetResult`: anchors sorted (weights kept with them), estimates, argmax.

    >>> make_result("m", np.array([[1.0, 0.0], [0.0, 1.0]]), [1, 0], [0.25, 0.75]).anchors
    (0, 1)
    """
    order = sorted(range(len(anchors)), key=lambda position: int(anchors[position]))
    sorted_anchors = tuple(int(anchors[position]) for position in order)
    sorted_weights = tuple(float(weights[position]) for position in order)
    estimates = weighted_estimates(scores, sorted_anchors, sorted_weights)
    return SubsetResult(
        method=method,
        k=len(sorted_anchors),
        anchors=sorted_anchors,
        weights=sorted_weights,
        estimates=tuple(float(x) for x in estimates),
        chosen=int(np.argmax(estimates)),  # the first maximum: ties go to the lowest model index
    )
