"""Hardness measures H1, H2 (Audibert et al. 2010), H3 (eq. H3, H3k) and H3' of a deterministic or stochastic instance.

Definitions (section "Guarantees for Classical Best-Arm Identification" and
section "Guarantees for SySRs"), with models sorted so that
mu_(1) >= mu_(2) >= ... >= mu_(K), mu* = mu_(1), J uniform on the L queries:

- Delta_i = mu* - mu_(i) for i >= 2, and Delta_1 = Delta_2;
- H1 = sum_{i=1}^{K} 1 / Delta_i^2,   H2 = max_{i>=2} i / Delta_i^2;
- V_{*,i} = Var(S_{i* J} - S_{(i) J}) (eq. variance), the variance taken
  jointly over J and, for stochastic scores, over S_ij ~ phi_ij;
- H_{3,i} = (2 V_{*,i} + 2/3 (1 + Delta_i) Delta_i) / Delta_i^2,  H3 = max_{i>=2} i H_{3,i};
- H'_{3,i} = (2 Var(S_{i* J}) + 2 Var(S_{(i) J}) + 2/3 (1 + Delta_i) Delta_i) / Delta_i^2,
  H3' = max_{i>=2} i H'_{3,i}.

Scores are deterministic (an :class:`~sysrs_ref.instance.Instance` S), or
stochastic: a :class:`~sysrs_ref.stochastic.StochasticInstance` (S_ij ~ phi_ij,
independent cells), or, with ``bernoulli=True``, a matrix of p_ij read as
``StochasticInstance.bernoulli(p)``. Jointly over J and the noise, with
m_ij = E[S_ij] (the ``mean_instance``) and independent cells (eq. variance):

- Var(S_(i)J) = (1/L) sum_j E[S_ij^2] - mu_i^2 (E[S_ij^2]:
  ``StochasticInstance.second_moment``; p_ij for Bernoulli cells);
- Cov(S_(a)J, S_(b)J) = Cov_J(m_aJ, m_bJ) for a != b (given J, the cross
  moment is m_aJ m_bJ);

so V_{*,i} = E_J[Var(S_{i*J} | J) + Var(S_{(i)J} | J)] + Var_J(m_{i*J} - m_{(i)J}).
The means (Delta_i, H1, H2) are those of the ``mean_instance``. A degenerate
stochastic instance (point masses) gives exactly its matrix's numbers.

Conventions, where the paper is silent (``convention="exact"``, the default):

- Everything is exact (Fractions); floats only for display.
- If the best mean is tied (Delta_2 = 0), every measure is infinite and is
  reported as ``None``: no finite budget bound holds for telling tied models apart.
- Models with equal means can be listed in any order in "(i)", and H3 and
  H3' depend on it (H_{3,i} differs between tied models). The proof of
  Theorem csr_bound holds for every such order, so we take the order that
  gives the smallest (tightest) value: within a group of tied models, larger
  H_{3,i} first (an exchange argument shows this minimises max_i i H_{3,i}).
  H3' is ordered the same way by its own H'_{3,i}.

``convention="paper"`` reproduces the paper's dataset table (Appendix
"Dataset Details") instead: tied models in row order, and H3' with per-arm
*sample* variances (divisor L - 1). With it, H3 matches the table exactly on
every shipped benchmark (arc_challenge: 3457.4, against 3445.7 here) and H3'
within 0.6 (1e-5 relative); see docs/theory.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np
import numpy.typing as npt

from sysrs_ref._limits import Need, check_need
from sysrs_ref._words import matrix_shape
from sysrs_ref.errors import ParameterError
from sysrs_ref.instance import Instance, as_instance
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.theory.threshold import corollary_gap_bound, cov_max, theta_star

__all__ = ["ArmHardness", "Convention", "Hardness", "arm_hardness", "hardness", "hardness_need"]

Convention = Literal["exact", "paper"]


@dataclass(frozen=True)
class ArmHardness:
    """The per-arm quantities of one suboptimal model against the best model i*.

    ``theta`` and ``theta_star`` are ``None`` where the paper's normalisation
    Cov_max = (mu* - Delta)(1 - mu*) is 0 (mu* = 1 or mu_i = 0): the ratio is 0/0.
    ``None`` in ``h3``/``h3_prime``/``h2`` means infinite (Delta = 0).
    """

    model: int
    delta: Fraction
    """Delta_i = mu* - mu_i."""
    var_best: Fraction
    """Var(S_{i* J})."""
    var: Fraction
    """V_i = Var(S_{i J})."""
    cov: Fraction
    """Cov_{*,i} = Cov(S_{i* J}, S_{i J})."""
    v_star: Fraction
    """V_{*,i} = Var(S_{i* J} - S_{i J}) = Var* + V_i - 2 Cov_{*,i}."""
    theta: Fraction | None
    """theta_i = Cov_{*,i} / ((mu* - Delta_i)(1 - mu*)) (can be negative)."""
    theta_star: Fraction | None
    """theta*(mu*, Delta_i) of Proposition thm:theta-star."""
    h2: Fraction | None
    """H_{2,i} = 1 / Delta_i^2."""
    h3: Fraction | None
    """H_{3,i} (eq. H3k)."""
    h3_prime: Fraction | None
    """H'_{3,i}."""
    condition_correlation: bool
    """The Corollary's first condition: theta_i > 2 Delta_i (False where theta_i is undefined)."""
    condition_gap: bool
    """The Corollary's second condition: Delta_i < 3/2 mu* - 1."""


@dataclass(frozen=True)
class Hardness:
    """The hardness of one instance; ``None`` stands for an infinite measure (tied best models)."""

    n_models: int
    n_queries: int
    best_mean: Fraction
    """mu*, the best model's mean score (the dataset table's "Best Acc")."""
    mean: Fraction
    """The mean of all K*L scores (the dataset table's "Mean Acc")."""
    deltas: tuple[Fraction, ...]
    """(Delta_1, ..., Delta_K) in sorted order, Delta_1 = Delta_2."""
    h1: Fraction | None
    h2: Fraction | None
    h3: Fraction | None
    h3_prime: Fraction | None

    @property
    def delta2(self) -> Fraction:
        """Delta_2, the gap between the best and the second-best mean."""
        return self.deltas[1]


#: Bits per limb when numerators are split for exact int64 dot products (products < 2^40, sums over 2^22 queries).
_LIMB_BITS = 20


class _Moments:
    """Exact (co)variances jointly over J and the noise: means as integers over one denominator D.

    *second* holds sum_j E[S_ij^2] per model (stochastic scores); ``None``
    means deterministic scores, whose second moments are the squared means.
    """

    def __init__(self, means: Instance, second: tuple[Fraction, ...] | None) -> None:
        self.rows = means.numerators
        self.d = means.denominator
        self.n = means.n_queries
        self.second = second
        # Sums of products of numerators (>= 0) at C speed, exactly: numpy int64 dot products of the
        # numerators split into limbs of _LIMB_BITS bits (one limb when largest^2 L < 2^62), combined
        # as Python integers. Larger numerators (floats whose common denominator a subnormal made 2^1074)
        # are split as odd * 2^shift: the odd parts in limbs, the products summed per shift. Odd parts of
        # more than 63 bits take Python's integers throughout.
        largest = max((max(row, default=0) for row in self.rows), default=0)
        self._limbs: npt.NDArray[np.int64] | None = None
        self._shifts: npt.NDArray[np.int64] | None = None
        self._width = 0
        if largest * largest * max(1, self.n) < 2**62:
            self._limbs, self._width = np.array(self.rows, dtype=np.int64)[None], 0
        elif self.n < 2 ** (62 - 2 * _LIMB_BITS):  # a sum of L products of two limbs stays below 2^62
            if largest < 2**63:
                self._limbs, self._width = _split(self.rows, largest), _LIMB_BITS
            else:
                shifts = [[(x & -x).bit_length() - 1 if x else 0 for x in row] for row in self.rows]
                odd = [[x >> t for x, t in zip(r, ts, strict=True)] for r, ts in zip(self.rows, shifts, strict=True)]
                widest = max((max(row, default=0) for row in odd), default=0)
                if widest < 2**63:
                    self._limbs, self._width = _split(odd, widest), _LIMB_BITS
                    self._shifts = np.array(shifts, dtype=np.int64)
        self._totals = [sum(row) for row in self.rows]

    def _dot(self, first: int, second: int) -> int:
        """sum_j N_{first, j} N_{second, j}, exactly.

        >>> moments = _Moments(Instance([[0.1, 0.7], [0.3, 1.0]]), None)
        >>> moments._dot(0, 1) == sum(x * y for x, y in zip(*moments.rows, strict=True))
        True
        """
        if self._limbs is None:
            return sum(x * y for x, y in zip(self.rows[first], self.rows[second], strict=True))
        if self._shifts is None:
            products = self._limbs[:, first] @ self._limbs[:, second].T  # (limbs, limbs), each exact in int64
            return sum(int(products[i, j]) << (self._width * (i + j)) for i, j in np.ndindex(products.shape))
        # odd * 2^shift: the products of the odd parts' limbs, summed per shift of the product (exact in int64)
        shift = self._shifts[first] + self._shifts[second]
        order = np.argsort(shift, kind="stable")
        ordered = shift[order]
        starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
        left, right = self._limbs[:, first][:, order], self._limbs[:, second][:, order]
        cells = left[:, None, :] * right[None, :, :]  # (limbs, limbs, L), each below 2^(2 _LIMB_BITS)
        sums = np.add.reduceat(cells, starts, axis=2).tolist()
        limbs = range(len(sums))
        total = 0
        for group, at in enumerate(ordered[starts].tolist()):
            total += sum(sums[i][j][group] << (self._width * (i + j)) for i in limbs for j in limbs) << at
        return total

    def variance(self, model: int, sample: bool = False) -> Fraction:
        """Var(S_{model, J}); with ``sample`` the L - 1 divisor (paper convention for H3', deterministic only)."""
        total = self._totals[model]
        if self.second is None:
            spread = Fraction(self.n * self._dot(model, model) - total * total, self.n * self.d * self.d)
            return spread / (self.n - 1 if sample and self.n > 1 else self.n)
        return self.second[model] / self.n - Fraction(total, self.n * self.d) ** 2

    def covariance(self, first: int, second: int) -> Fraction:
        """Cov(S_{first, J}, S_{second, J}) of two different models (cells independent given J)."""
        cross = self._dot(first, second)
        return Fraction(self.n * cross - self._totals[first] * self._totals[second], self.n * self.n * self.d * self.d)


def _split(rows: Sequence[Sequence[int]], largest: int) -> npt.NDArray[np.int64]:
    """(limbs, K, L): non-negative integers below 2^63 in limbs of _LIMB_BITS bits, the lowest first."""
    matrix = np.array(rows, dtype=np.uint64)
    mask = np.uint64(2**_LIMB_BITS - 1)
    count = max(1, -(-largest.bit_length() // _LIMB_BITS))
    return np.stack([((matrix >> np.uint64(_LIMB_BITS * limb)) & mask).astype(np.int64) for limb in range(count)])


def _scores(
    instance: Instance | StochasticInstance, bernoulli: bool, convention: str
) -> tuple[Instance, tuple[Fraction, ...] | None]:
    """The means (an Instance) and, for stochastic scores, sum_j E[S_ij^2] per model; arguments checked."""
    if convention not in ("exact", "paper"):
        raise ParameterError(f"convention must be 'exact' or 'paper', got {convention!r}")
    if isinstance(instance, StochasticInstance):
        if bernoulli:
            raise ParameterError(
                "bernoulli=True reads a matrix of p_ij; a StochasticInstance carries its own laws: leave bernoulli out"
            )
        if instance.degenerate:
            return instance.mean_instance, None
        if convention == "paper":
            raise ParameterError(
                "the paper's table convention applies to deterministic matrices only, not to a StochasticInstance"
            )
        second = tuple(
            sum((instance.second_moment(i, j) for j in range(instance.n_queries)), Fraction(0))
            for i in range(instance.n_models)
        )
        return instance.mean_instance, second
    means = as_instance(instance, "hardness's instance")
    if not bernoulli:
        return means, None
    if convention == "paper":
        raise ParameterError("the paper's table convention applies to deterministic matrices only")
    # Bernoulli cells: E[S_ij^2] = p_ij, so sum_j E[S_ij^2] = L mu_i
    return means, tuple(Fraction(sum(row), means.denominator) for row in means.numerators)


def arm_hardness(instance: Instance | StochasticInstance, *, bernoulli: bool = False) -> tuple[ArmHardness, ...]:
    """Per-arm quantities of every model but the best, in decreasing mean (ties by row).

    *instance* is a score matrix, a matrix of p_ij with ``bernoulli=True``, or a
    :class:`~sysrs_ref.stochastic.StochasticInstance` (variances and
    covariances jointly over J and the noise, eq. variance; module docstring).
    Needs a unique best model (raises ParameterError otherwise: i* is undefined).

    >>> arms = arm_hardness(Instance([[1, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 0]]))
    >>> [(a.model, a.delta, a.v_star, a.theta) for a in arms]
    [(1, Fraction(1, 4), Fraction(3, 16), Fraction(1, 1)), (2, Fraction(1, 2), Fraction(1, 4), Fraction(1, 1))]
    >>> coin = StochasticInstance.bernoulli([[1, 1], [Fraction(1, 2), 0]])  # V_* = (1/4 + 0)/2 + Var_J(1/2, 1)
    >>> arm_hardness(coin)[0].v_star
    Fraction(3, 16)
    """
    means, second = _scores(instance, bernoulli, "exact")
    return _arms(means, _Moments(means, second))


def _arms(instance: Instance, moments: _Moments) -> tuple[ArmHardness, ...]:
    """The per-arm quantities of :func:`arm_hardness` from the means and the moments."""
    if len(instance.best) > 1:
        raise ParameterError(
            f"the best mean is tied between models {sorted(instance.best)}: i* and the per-arm quantities are undefined"
        )
    (best,) = instance.best
    mu_star = instance.best_mean
    var_best = moments.variance(best)
    arms = []
    for model in instance.order[1:]:
        delta = mu_star - instance.means[model]
        var = moments.variance(model)
        cov = moments.covariance(best, model)
        v_star = var_best + var - 2 * cov
        bonus = Fraction(2, 3) * (1 + delta) * delta
        normaliser = cov_max(mu_star, delta)
        theta = cov / normaliser if normaliser != 0 else None
        arms.append(
            ArmHardness(
                model=model,
                delta=delta,
                var_best=var_best,
                var=var,
                cov=cov,
                v_star=v_star,
                theta=theta,
                theta_star=theta_star(mu_star, delta),
                h2=1 / delta**2 if delta else None,
                h3=(2 * v_star + bonus) / delta**2 if delta else None,
                h3_prime=(2 * var_best + 2 * var + bonus) / delta**2 if delta else None,
                condition_correlation=theta is not None and theta > 2 * delta,
                condition_gap=delta < corollary_gap_bound(mu_star),
            )
        )
    return tuple(arms)


def _ordered_max(groups: Sequence[Sequence[Fraction]], tightest: bool) -> Fraction:
    """max over positions i = 2, 3, ... of i * h, each group by decreasing h (or as given)."""
    best = Fraction(0)
    position = 2
    for group in groups:
        for h in sorted(group, reverse=True) if tightest else group:
            best = max(best, position * h)
            position += 1
    return best


def hardness_need(n_models: int, n_queries: int) -> Need:
    """What :func:`hardness` needs: exact moments of every model, O(K L) fractions, then sums over K exact gaps.

    A sum of K fractions 1/Delta_i^2 with unrelated denominators grows to
    O(K) digits, so the sums cost O(K^2) in the worst case (scores that are
    arbitrary floats); measured on a 2-core x86-64 machine, about 10
    microseconds per score and 0.2 microseconds per K^2.

    >>> round(hardness_need(4000, 50).seconds)
    5
    """
    return Need(
        f"the exact hardness of {matrix_shape(n_models, n_queries)}",
        "exact fractions: O(K L) for the moments, up to O(K^2) for the sums over the gaps",
        memory=200 * n_models * n_queries,
        seconds=1e-5 * n_models * n_queries + 2e-7 * n_models * n_models,
    )


def hardness(
    instance: Instance | StochasticInstance, *, bernoulli: bool = False, convention: Convention = "exact"
) -> Hardness:
    """Compute Delta_i, H1, H2, H3 and H3' of *instance* exactly.

    *instance* is a score matrix or a
    :class:`~sysrs_ref.stochastic.StochasticInstance` (H1, H2 from the means;
    H3, H3' from variances jointly over J and the noise, eq. variance).
    ``bernoulli=True`` reads a matrix as success probabilities p_ij of
    Bernoulli scores (the same numbers as ``StochasticInstance.bernoulli``);
    ``convention="paper"`` uses the paper's table conventions (module
    docstring; deterministic scores only). Sizes whose estimate
    (:func:`hardness_need`) is beyond the time limit or the memory are refused
    up front with :class:`~sysrs_ref.errors.TooLargeError`.

    >>> h = hardness(Instance([[1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0]]))
    >>> h.delta2, h.h1, h.h2
    (Fraction(1, 4), Fraction(36, 1), Fraction(32, 1))
    >>> h.h3, h.h3_prime
    (Fraction(56, 3), Fraction(104, 3))
    >>> hardness(StochasticInstance.bernoulli([[1, 1], [Fraction(1, 2), 0]])).h3  # 2 (2 * 3/16 + 2/3 * 7/4 * 3/4) / (3/4)^2
    Fraction(40, 9)
    """
    shape: tuple[int, ...]
    try:
        shape = instance.shape if isinstance(instance, (Instance, StochasticInstance)) else np.shape(instance)
    except ValueError:  # ragged rows: as_instance says what is wrong
        shape = ()
    if len(shape) == 2:
        check_need(hardness_need(int(shape[0]), int(shape[1])))
    instance, second = _scores(instance, bernoulli, convention)
    moments = _Moments(instance, second)
    n_models, n_queries = instance.shape
    tiers = instance.tiers
    best_mean = instance.best_mean
    mean = sum(instance.means, Fraction(0)) / n_models
    gaps = [best_mean - instance.means[model] for tier in tiers for model in tier]
    deltas = (gaps[1], *gaps[1:])
    if deltas[1] == 0:
        return Hardness(n_models, n_queries, best_mean, mean, deltas, None, None, None, None)

    h1 = sum((1 / delta**2 for delta in deltas), Fraction(0))
    h2 = max(i / deltas[i - 1] ** 2 for i in range(2, n_models + 1))
    arms = _arms(instance, moments)
    if convention == "paper":
        (best,) = instance.best
        sample_best = moments.variance(best, sample=True)

        def paper_h3_prime(arm: ArmHardness) -> Fraction:
            bonus = Fraction(2, 3) * (1 + arm.delta) * arm.delta
            return (2 * sample_best + 2 * moments.variance(arm.model, sample=True) + bonus) / arm.delta**2

        h3 = _ordered_max([[arm.h3 for arm in arms if arm.h3 is not None]], tightest=False)
        h3p = _ordered_max([[paper_h3_prime(arm) for arm in arms]], tightest=False)
        return Hardness(n_models, n_queries, best_mean, mean, deltas, h1, h2, h3, h3p)

    groups: dict[Fraction, list[ArmHardness]] = {}
    for arm in arms:  # arms come in decreasing mean: groups keep that order
        groups.setdefault(arm.delta, []).append(arm)
    h3_groups = [[arm.h3 for arm in group if arm.h3 is not None] for group in groups.values()]
    h3p_groups = [[arm.h3_prime for arm in group if arm.h3_prime is not None] for group in groups.values()]
    return Hardness(
        n_models,
        n_queries,
        best_mean,
        mean,
        deltas,
        h1,
        h2,
        _ordered_max(h3_groups, tightest=True),
        _ordered_max(h3p_groups, tightest=True),
    )
