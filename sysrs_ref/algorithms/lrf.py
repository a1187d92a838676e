"""UCB-E-LRF (Zhou et al. 2025; the paper's Algorithm "UCB-E-LRF"): its step generator, its one control loop.

Registered as ``ucbe-lrf`` (parameters :data:`LRF_DEFAULTS`, read by
:func:`lrf_params`). The control loop is written once, here; the ensemble
fit is a parameter (:class:`EnsembleFit`): the reference's pure-Python
:func:`fit_ensemble_reference` (the default here, in the registry and in
:func:`~sysrs_ref.select`), or a fit of :mod:`sysrs_ref.fast.lrf`: the
numpy ``fit_ensemble_fast``, which live sessions pass, or the compiled
``fit_ensemble_compiled`` (the reference's doubles bit for bit), which the
command line's ``select`` and the simulations use (:func:`ucbe_lrf_rankings`,
driven by :func:`sysrs_ref.fast.lrf.run_lrf`: one run, the choice at several
budgets). All choose the same models wherever no two indices are within
the numpy fit's 1e-10 of each other (tested). A run is a function of the
budget and an :class:`LRFDraw`:

1. **Warm-up**: the first n_0 = floor(warmup% x K L) cells of the draw's
   ``cell_order`` (cell = model * L + query), in one batch, in that order
   (the paper's "uniformly draw n_0 arm-instance pairs"; ``warmup=0`` is the
   No Warm-up variant).
2. **Steps**, while budget and unobserved cells remain: fit the ensemble
   (fit t = 0, 1, ..., by the run's :class:`EnsembleFit`),
   compute each model's index
   ``B_i = (1/L) sum_j (O_ij S_ij + (1 - O_ij) Shat_ij + eta R_ij)``, take
   the model with the largest B among those with an unobserved query (ties
   by the arm priority), and evaluate it on its ``batch`` unobserved queries
   with the largest R (ties by position in ``cell_order``), fewer if the
   budget or the queries run out.
3. **Choice**: one more fit, then the model with the largest
   ``(1/L) sum_j (O_ij S_ij + (1 - O_ij) Shat_ij)`` (ties by priority); the
   ranking sorts all models by it.

Where the paper's pseudocode and the public implementation (banditeval 0.1.1)
differ, the paper is followed and the other behaviour is an option:

- ``bonus_on_observed`` (default True, the paper): eta R_ij is added on
  observed cells too; banditeval adds it only on unobserved ones (False);
- ``unseen_first`` (default False, the paper): a model with no observation
  gets its B from the imputation; banditeval gives it B = +inf (True). The
  imputation of a row without data is exactly 0 (ridge ALS), so without a
  warm-up the paper's rule evaluates the models one at a time, whole, in
  priority order; the paper's No Warm-up results need banditeval's rule;
- warm-up: exactly n_0 cells (banditeval draws batches of 32 until the
  observed fraction reaches the warm-up, overshooting by up to 31);
- ties: by the draw's arm priority and cell order (banditeval: the lowest
  index, torch.argmax / torch.topk);
- the choice is made after a final fit on everything observed (banditeval
  reports the means of the last fit before the last batch);
- the ensemble pairs each member's data with its own factors (banditeval's
  vmap pairs them with another member's; :mod:`~sysrs_ref.algorithms.lrf_model`).
"""

from __future__ import annotations

import math
from collections.abc import Generator, Sequence
from fractions import Fraction
from typing import Protocol

import numpy as np
import numpy.typing as npt

from sysrs_ref.algorithms._lrf_settings import LRF_DEFAULTS, LRFDraw, LRFParams, lrf_params, random_lrf_draw
from sysrs_ref.algorithms.base import AlgorithmRun, Batch, Outcome, Request, Step, accept_scores
from sysrs_ref.algorithms.lrf_model import fit_ensemble
from sysrs_ref.errors import BudgetError
from sysrs_ref.schedule import check_budget

__all__ = [
    "LRF_DEFAULTS",
    "EnsembleFit",
    "LRFDraw",
    "LRFParams",
    "fit_ensemble_reference",
    "lrf_params",
    "random_lrf_draw",
    "ucbe_lrf",
    "ucbe_lrf_rankings",
]

#: A float64 array: observed scores (NaN = not observed), S-hat, R, indices.
FloatArray = npt.NDArray[np.float64]


class EnsembleFit(Protocol):
    """A fitting routine of UCB-E-LRF: fit number *fit* of the run seeded *seed*, on the observed scores.

    Called as ``fit(scores, seed, fit, params)`` with *scores* the K x L
    observed matrix (NaN = not observed; the routine must not change it);
    returns (S-hat, R), the ensemble's mean and standard deviation, each a
    K x L float64 array. Three routines follow the stream and the ALS of
    :mod:`~sysrs_ref.algorithms.lrf_model`: :func:`fit_ensemble_reference`
    (pure Python, the reference, tens of seconds per fit on the shipped
    benchmarks), and in :mod:`sysrs_ref.fast.lrf` the numpy
    ``fit_ensemble_fast`` (agreeing with it to 1e-10) and the compiled
    ``fit_ensemble_compiled`` (its doubles bit for bit).
    """

    def __call__(self, scores: FloatArray, seed: int, fit: int, params: LRFParams, /) -> tuple[FloatArray, FloatArray]:
        """(S-hat, R) of fit number *fit*."""
        ...


def fit_ensemble_reference(
    scores: FloatArray, seed: int, fit: int, params: LRFParams, ddof: int = 1
) -> tuple[FloatArray, FloatArray]:
    """(S-hat, R) of fit *fit* by the reference's pure-Python :func:`~sysrs_ref.algorithms.lrf_model.fit_ensemble`.

    An :class:`EnsembleFit`: *scores* is K x L with NaN where not observed; the
    mean and spread come back as float64 arrays, bit for bit the reference's
    doubles.

    >>> mean, spread = fit_ensemble_reference(np.array([[1.0, np.nan], [0.5, 1.0]]), 9, 0, LRFParams(members=3, sweeps=2))
    >>> mean.shape, bool((spread >= 0).all())
    ((2, 2), True)
    """
    listed: list[list[float | None]] = [[None if math.isnan(x) else x for x in row] for row in scores.tolist()]
    ensemble = fit_ensemble(
        listed,
        seed,
        fit,
        rank=params.rank,
        members=params.members,
        dropout=params.dropout,
        ridge=params.ridge,
        sweeps=params.sweeps,
        ddof=ddof,
    )
    return np.array(ensemble.mean, dtype=np.float64), np.array(ensemble.spread, dtype=np.float64)


#: All models, best first.
Ranking = tuple[int, ...]

#: A UCB-E-LRF run that returns its ranking at each of several budgets (:func:`ucbe_lrf_rankings`).
RankingsRun = Generator[Batch, Sequence[object], list[Ranking]]


def ucbe_lrf(
    budget: int, draw: LRFDraw, params: LRFParams | None = None, *, fit: EnsembleFit = fit_ensemble_reference
) -> AlgorithmRun:
    """UCB-E-LRF (the paper's Algorithm "UCB-E-LRF"): UCB-E on an ensemble low-rank imputation of the scores.

    *fit* fits the ensemble: the reference's pure-Python
    :func:`fit_ensemble_reference` by default (as the registry's
    ``ucbe-lrf`` and :func:`~sysrs_ref.select` unless given another), or a
    fit of :mod:`sysrs_ref.fast.lrf` (``fit_ensemble_fast``, which live
    sessions pass, or ``fit_ensemble_compiled``). Only the
    fit differs: the control loop is this one.

    >>> from sysrs_ref import Instance, drive
    >>> inst = Instance([[1, 1, 1, 0], [1, 0, 0, 0], [0, 0, 1, 0]])
    >>> small = LRFParams(warmup=Fraction(25), batch=2, members=4, sweeps=3)
    >>> out = drive(ucbe_lrf(8, random_lrf_draw(0, 3, 4), small), inst)
    >>> out.spent, len(set(out.requests)) == out.spent, sorted(out.ranking)
    (8, True, [0, 1, 2])
    """
    outcome, _ = yield from _control_loop((budget,), draw, params, fit)
    return outcome


def ucbe_lrf_rankings(
    budgets: Sequence[int], draw: LRFDraw, params: LRFParams | None = None, *, fit: EnsembleFit = fit_ensemble_reference
) -> RankingsRun:
    """One UCB-E-LRF run to the largest of *budgets*, returning the ranking a separate run at each budget returns.

    The run is :func:`ucbe_lrf`'s with the largest budget; when the number of
    evaluations reaches a smaller budget (inside a batch, if so), it makes the
    choice there: a final fit, numbered as the separate run's would be, on
    what is observed. Entry b of the result is therefore
    ``drive(ucbe_lrf(budgets[b], draw, params, fit=fit), oracle).ranking``
    exactly (the runs' fits are the same calls). BudgetError for an empty
    *budgets* or a budget outside [K, K L].

    >>> run = ucbe_lrf_rankings([4, 2], random_lrf_draw(1, 2, 2), LRFParams(members=3, sweeps=2))
    >>> batch = next(run)
    >>> try:
    ...     while True:
    ...         batch = run.send([1 - r.model for r in batch])   # model 0 scores 1 everywhere, model 1 scores 0
    ... except StopIteration as stop:
    ...     [ranking[0] for ranking in stop.value]
    [0, 0]
    """
    _, rankings = yield from _control_loop(budgets, draw, params, fit)
    return [rankings[budget] for budget in budgets]


def _control_loop(
    budgets: Sequence[int], draw: LRFDraw, params: LRFParams | None, fit: EnsembleFit
) -> Generator[Batch, Sequence[object], tuple[Outcome, dict[int, Ranking]]]:
    """UCB-E-LRF's control loop, the only one: warm-up, steps, and the choice at every budget (see the module).

    Runs to the largest budget; returns that run's Outcome and the ranking at
    each budget. Observed scores are kept as doubles in a K x L array, NaN
    where not observed.
    """
    settings = params if params is not None else LRFParams()
    n_models, n_queries = draw.n_models, draw.n_queries
    pending = sorted({check_budget(budget, n_models, n_queries) for budget in budgets})
    if not pending:
        raise BudgetError("give at least one budget")
    last = pending[-1]
    rank, where = _positions(draw.arm_priority), _positions(draw.cell_order)  # the model and query tie-breaks
    observed = np.full((n_models, n_queries), np.nan)
    scratch = _Scratch(n_models, n_queries)
    rankings: dict[int, Ranking] = {}
    trace: list[Step] = []
    spent = fits = 0  # fits: the number of the next fit, t

    def record(batch: Batch, answer: Sequence[object] | None) -> None:
        """Observe *batch*'s cells in order; where a budget is reached, the choice on what is observed there."""
        nonlocal spent
        for request, score in zip(batch, _doubles(batch, answer), strict=True):
            observed[request.model, request.query] = score
            spent += 1
            if pending and spent == pending[0]:
                mean, spread = fit(observed, draw.seed, fits, settings)
                rankings[pending.pop(0)] = _ranking(_estimates(observed, mean, spread, 0.0, False, scratch), rank)
        trace.append(Step(batch))

    warm = min(last, int(Fraction(settings.warmup) * n_models * n_queries / 100))  # floor: n_0 >= 0
    if warm:
        batch = tuple(Request(cell // n_queries, cell % n_queries) for cell in draw.cell_order[:warm])
        record(batch, (yield batch))
    while pending:  # spent < last <= K L: some cell, so some model, is open
        mean, spread = fit(observed, draw.seed, fits, settings)
        fits += 1
        index = _estimates(observed, mean, spread, settings.eta, settings.bonus_on_observed, scratch)
        model = _step_model(observed, index, rank, settings.unseen_first)
        batch = _step_queries(observed, spread, where, model, min(settings.batch, last - spent))
        record(batch, (yield batch))
    ranking = rankings[last]
    return Outcome("ucbe-lrf", ranking[0], ranking, spent, tuple(trace)), rankings


def _doubles(batch: Batch, answer: Sequence[object] | None) -> list[float]:
    """The batch's scores, checked by :func:`~sysrs_ref.algorithms.base.accept_scores`, as the doubles nearest them.

    Plain floats in [0, 1], one per request (what a score matrix sends), are
    taken as they are (``+ 0.0`` turns -0.0 into 0.0): exactly what the
    check's Fractions give back as doubles, without making the Fractions.
    """
    if (
        isinstance(answer, list)
        and len(answer) == len(batch)
        and all(type(score) is float and 0.0 <= score <= 1.0 for score in answer)
    ):
        return [score + 0.0 for score in answer]
    return [float(score) for score in accept_scores(batch, answer)]


def _positions(permutation: Sequence[int]) -> npt.NDArray[np.int64]:
    """Each element's position in *permutation* (its inverse)."""
    out = np.empty(len(permutation), dtype=np.int64)
    out[np.asarray(permutation, dtype=np.int64)] = np.arange(len(permutation))
    return out


class _Scratch:
    """The K x L arrays :func:`_estimates` works in, made once per run (fresh ones each step cost page faults)."""

    def __init__(self, n_models: int, n_queries: int) -> None:
        self.seen = np.empty((n_models, n_queries), dtype=bool)
        self.bonuses = np.empty((n_models, n_queries))
        self.terms = np.empty((n_models, n_queries))
        self.totals = np.empty((n_models, n_queries))


def _estimates(
    observed: FloatArray, mean: FloatArray, spread: FloatArray, bonus: float, on_observed: bool, scratch: _Scratch
) -> FloatArray:
    """(1/L) sum_j (O S + (1 - O) Shat + bonus R), the bonus on observed cells only if *on_observed*.

    As docs/contracts.md (11.6) orders it: each term first, then a running
    total from 0.0, j ascending (a cumulative sum; numpy's ``sum`` pairs its
    additions), then divided by L. Computed in *scratch*'s arrays.
    """
    seen = np.logical_not(np.isnan(observed, out=scratch.seen), out=scratch.seen)
    bonuses = np.multiply(bonus, spread, out=scratch.bonuses)
    if not on_observed:
        np.copyto(bonuses, 0.0, where=seen)
    terms = scratch.terms
    np.copyto(terms, mean)
    np.copyto(terms, observed, where=seen)
    np.add(terms, bonuses, out=terms)
    out: FloatArray = np.cumsum(terms, axis=1, out=scratch.totals)[:, -1] / observed.shape[1]
    return out


def _step_model(observed: FloatArray, index: FloatArray, rank: npt.NDArray[np.int64], unseen_first: bool) -> int:
    """The open model (one with an unobserved query) with the largest index; ties by the arm priority."""
    unobserved = np.isnan(observed)
    if unseen_first:
        index = np.where(unobserved.all(axis=1), np.inf, index)
    open_models = np.flatnonzero(unobserved.any(axis=1))
    return int(open_models[np.lexsort((rank[open_models], -index[open_models]))[0]])


def _step_queries(
    observed: FloatArray, spread: FloatArray, where: npt.NDArray[np.int64], model: int, size: int
) -> Batch:
    """*model*'s first *size* unobserved queries by decreasing spread; ties by position in the cell order."""
    n_queries = observed.shape[1]
    free = np.flatnonzero(np.isnan(observed[model]))
    free = free[np.lexsort((where[model * n_queries + free], -spread[model, free]))]
    return tuple(Request(model, int(query)) for query in free[:size])


def _ranking(final: FloatArray, rank: npt.NDArray[np.int64]) -> Ranking:
    """All models by decreasing final estimate; ties by the arm priority."""
    return tuple(int(model) for model in np.lexsort((rank, -final)))
