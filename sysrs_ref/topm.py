"""Top-m identification and ranking errors with the paper's tie rule (Appendix "Top-m Ranking and Identification").

A run predicts a ranking pi (best first). For a target m the Appendix scores it by

- the **identification error** 1[{pi_1..pi_m} != T*_m], T*_m the true top-m set;
- the **ranking error** 1[(pi_1..pi_m) != ((1)..(m))];
- the **per-rank error** (1/m) sum_{r <= m} 1[pi_r != (r)];

and, when true means tie, "all proper rankings that are consistent with the
tied ranking" count as correct: each error is the *minimum* over the true
rankings sigma that order the tiers (groups of equal exact mean,
:attr:`~sysrs_ref.instance.Instance.tiers`) by decreasing mean and the models
inside a tier in any order. Ties come from exact means, no tolerance.

The minimum needs no enumeration. Give every position r its *tier* t(r) (the
tier a consistent ranking puts there: tier sizes are fixed, so t(r) is the
same for all of them) and every model i its tier g(i). Then:

- **ranking**: some sigma has sigma_r = pi_r for all r <= m iff
  g(pi_r) = t(r) for all r <= m (the pi_r are distinct, so they extend to a
  bijection of each tier onto its positions);
- **per-rank**: the positions of different tiers are filled independently,
  and inside a tier every pi_r with g(pi_r) = t(r) can be matched at once,
  so the minimum is (1/m) #{r <= m : g(pi_r) != t(r)};
- **identification**: {pi_1..pi_m} is the top-m set of some sigma iff it
  holds every tier lying wholly in the first m positions and its other
  members come from the tier straddling position m, i.e. iff the multiset
  {g(pi_r) : r <= m} equals {t(r) : r <= m}.

``tests/core/test_topm.py`` proves each equal to the brute-force minimum over all
consistent rankings with Hypothesis on small instances with many ties.
Consequences (also tested): ranking error >= identification error, and
ranking error >= per-rank error >= ranking error / m.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from sysrs_ref._words import counted
from sysrs_ref.errors import ParameterError
from sysrs_ref.instance import Instance

__all__ = ["TopMCounts", "TopMErrors", "TopMTruth", "counts_json", "parse_top_m", "topm_counts", "topm_errors"]


@dataclass(frozen=True)
class TopMTruth:
    """The true tier structure an instance's rankings are scored against.

    ``model_tier[i]`` is g(i), the index of model i's tier (0 = the best
    tier); ``position_tier[r]`` is t(r), the tier every consistent true
    ranking puts at position r (0-based).

    >>> truth = TopMTruth.of(Instance([[1, 0], [0, 1], [1, 1], [0, 0]]))
    >>> truth.model_tier, truth.position_tier
    ((1, 1, 0, 2), (0, 1, 1, 2))
    """

    model_tier: tuple[int, ...]
    position_tier: tuple[int, ...]

    @classmethod
    def of(cls, instance: Instance) -> TopMTruth:
        """The tiers of *instance*'s exact means (:attr:`Instance.tiers`)."""
        model_tier = [0] * instance.n_models
        position_tier: list[int] = []
        for index, tier in enumerate(instance.tiers):
            for model in tier:
                model_tier[model] = index
            position_tier.extend([index] * len(tier))
        return cls(tuple(model_tier), tuple(position_tier))

    @property
    def n_models(self) -> int:
        """K."""
        return len(self.model_tier)

    def check_m(self, m: int) -> int:
        """*m* if 1 <= m <= K - 1, else ParameterError."""
        if isinstance(m, bool) or not isinstance(m, int) or not 1 <= m <= self.n_models - 1:
            raise ParameterError(f"top-m needs m from 1 to K - 1 = {self.n_models - 1}, got {m!r}")
        return m


@dataclass(frozen=True)
class TopMErrors:
    """One run's three top-m errors, each the minimum over the consistent true rankings."""

    identification: int
    """1 if the predicted top-m set is not the top-m set of any consistent ranking, else 0."""
    ranking: int
    """1 if the predicted first m models are not the first m of any consistent ranking, else 0."""
    per_rank: Fraction
    """The smallest fraction of the m positions predicted wrongly, over the consistent rankings."""


def _check_ranking(ranking: Sequence[int], n_models: int, m: int) -> tuple[int, ...]:
    prefix = tuple(int(model) for model in ranking[:m])
    if len(prefix) < m or len(set(prefix)) != m or not all(0 <= model < n_models for model in prefix):
        raise ParameterError(
            f"a ranking must list at least m={m} distinct models from 0..{n_models - 1}, got {list(ranking)[:m]}"
        )
    return prefix


def topm_errors(ranking: Sequence[int], truth: TopMTruth | Instance, m: int) -> TopMErrors:
    """The top-*m* identification, ranking and per-rank errors of one predicted *ranking* (best first).

    Only ``ranking[:m]`` matters. With models 1 and 2 tied for rank two,
    predicting either at rank two or three is correct (the Appendix's example):

    >>> inst = Instance([[1, 1, 1], [1, 1, 0], [1, 0, 1], [0, 0, 0]])
    >>> topm_errors([0, 2, 1, 3], inst, 3)
    TopMErrors(identification=0, ranking=0, per_rank=Fraction(0, 1))
    >>> topm_errors([1, 0, 2, 3], inst, 2)    # the right set, in the wrong order
    TopMErrors(identification=0, ranking=1, per_rank=Fraction(1, 1))
    >>> topm_errors([0, 3, 1, 2], inst, 3)    # model 3 is not in the top 3
    TopMErrors(identification=1, ranking=1, per_rank=Fraction(1, 3))
    """
    known = truth if isinstance(truth, TopMTruth) else TopMTruth.of(truth)
    known.check_m(m)
    prefix = _check_ranking(ranking, known.n_models, m)
    predicted = [known.model_tier[model] for model in prefix]
    wanted = known.position_tier[:m]
    wrong = sum(1 for got, want in zip(predicted, wanted, strict=True) if got != want)
    identification = int(Counter(predicted) != Counter(wanted))
    return TopMErrors(identification, int(wrong > 0), Fraction(wrong, m))


@dataclass(frozen=True)
class TopMCounts:
    """Top-m errors summed over R runs at B budgets, for one m: exact integer counts.

    ``identification[b]`` and ``ranking[b]`` count the runs in error at budget
    b; ``wrong_positions[b]`` counts wrongly predicted positions over all runs
    (out of ``m * runs``), so the per-rank error rate is
    ``wrong_positions[b] / (m * runs)``.
    """

    m: int
    runs: int
    identification: tuple[int, ...]
    ranking: tuple[int, ...]
    wrong_positions: tuple[int, ...]

    def rates(self, budget_index: int) -> tuple[Fraction, Fraction, Fraction]:
        """(identification error, ranking error, per-rank error) at one budget, exactly."""
        return (
            Fraction(self.identification[budget_index], self.runs),
            Fraction(self.ranking[budget_index], self.runs),
            Fraction(self.wrong_positions[budget_index], self.m * self.runs),
        )

    def merged(self, other: TopMCounts) -> TopMCounts:
        """The counts of both sets of runs together (same m and budgets)."""
        if other.m != self.m or len(other.ranking) != len(self.ranking):
            raise ValueError("can only merge top-m counts for the same m and budgets")
        return TopMCounts(
            self.m,
            self.runs + other.runs,
            _add(self.identification, other.identification),
            _add(self.ranking, other.ranking),
            _add(self.wrong_positions, other.wrong_positions),
        )


def _add(left: tuple[int, ...], right: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(x + y for x, y in zip(left, right, strict=True))


def _ints(values: npt.NDArray[np.integer]) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


def topm_counts(rankings: npt.NDArray[np.integer], truth: TopMTruth, m: int) -> TopMCounts:
    """Vectorized :func:`topm_errors` over rankings of shape (R, B, K) (or (R, B, m) prefixes), summed over runs.

    Exactly the sums of :func:`topm_errors` over the runs (tested).

    >>> inst = Instance([[1, 1, 1], [1, 1, 0], [1, 0, 1], [0, 0, 0]])
    >>> rankings = np.array([[[0, 2, 1, 3]], [[1, 0, 2, 3]], [[0, 3, 1, 2]]])
    >>> topm_counts(rankings, TopMTruth.of(inst), 3)
    TopMCounts(m=3, runs=3, identification=(1,), ranking=(2,), wrong_positions=(3,))
    """
    truth.check_m(m)
    array = np.asarray(rankings)
    if array.ndim != 3 or array.shape[2] < m:
        raise ParameterError(f"rankings must have shape (runs, budgets, >= m={m}), got {array.shape}")
    model_tier = np.asarray(truth.model_tier, dtype=np.int32)
    wanted = np.asarray(truth.position_tier[:m], dtype=np.int32)
    predicted = model_tier[array[:, :, :m]]  # g(pi_r), shape (R, B, m)
    wrong = predicted != wanted
    wrong_positions = wrong.sum(axis=(0, 2))
    ranking = wrong.any(axis=2).sum(axis=0)
    # the multisets of tiers agree iff the sorted predicted tiers equal t(1..m), which is sorted
    identification = (np.sort(predicted, axis=2) != wanted).any(axis=2).sum(axis=0)
    return TopMCounts(m, int(array.shape[0]), _ints(identification), _ints(ranking), _ints(wrong_positions))


def parse_top_m(text: str | Sequence[int], n_models: int | None = None) -> tuple[int, ...]:
    """A list of targets m such as "3,5,10": distinct positive integers, sorted; each <= K - 1 when K is given.

    >>> parse_top_m("10, 3,5")
    (3, 5, 10)
    >>> parse_top_m("3,x")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ParameterError: --top-m takes positive integers separated by commas, such as 3,5,10; got '3,x'
    """
    items: list[object] = list(text.split(",")) if isinstance(text, str) else list(text)
    values: list[int] = []
    for item in items:
        word = str(item).strip()
        if isinstance(item, bool) or not word.isdigit() or len(word) > 18 or int(word) < 1:  # no 4300-digit ints
            raise ParameterError(f"--top-m takes positive integers separated by commas, such as 3,5,10; got {text!r}")
        values.append(int(word))
    if not values:
        raise ParameterError("--top-m needs at least one m, such as 3,5,10")
    if n_models is not None and max(values) > n_models - 1:
        raise ParameterError(
            f"top-m needs m <= K - 1 = {n_models - 1} (there are {counted(n_models, 'model')}), got m = {max(values)}"
        )
    return tuple(sorted(set(values)))


def counts_json(counts: Mapping[int, TopMCounts], budget_index: int) -> dict[str, dict[str, float]]:
    """The ``"top_m"`` object of one simulate row: ``{"3": {"identification_error", "ranking_error", "per_rank_error"}}``."""
    out: dict[str, dict[str, float]] = {}
    for m, entry in sorted(counts.items()):
        ident, rank, per_rank = entry.rates(budget_index)
        out[str(m)] = {
            "identification_error": float(ident),
            "ranking_error": float(rank),
            "per_rank_error": float(per_rank),
        }
    return out
