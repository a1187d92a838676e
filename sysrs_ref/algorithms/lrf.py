"""UCB-E-LRF (Zhou et al. 2025; the paper's Algorithm "UCB-E-LRF"), the reference step generator.

Registered as ``ucbe-lrf`` (parameters :data:`LRF_DEFAULTS`, read by
:func:`lrf_params`); the numpy version with budget checkpoints is
:mod:`sysrs_ref.fast.lrf`. A run is a function of the budget and an
:class:`LRFDraw`:

1. **Warm-up**: the first n_0 = floor(warmup% x K L) cells of the draw's
   ``cell_order`` (cell = model * L + query), in one batch, in that order
   (the paper's "uniformly draw n_0 arm-instance pairs"; ``warmup=0`` is the
   No Warm-up variant).
2. **Steps**, while budget and unobserved cells remain: fit the ensemble
   (:func:`~sysrs_ref.algorithms.lrf_model.fit_ensemble`, fit t = 0, 1, ...),
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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from decimal import Decimal
from fractions import Fraction

import numpy as np

from sysrs_ref.algorithms.base import AlgorithmRun, Outcome, Request, Step, accept_scores
from sysrs_ref.algorithms.lrf_model import Ensemble, check_dropout, fit_ensemble
from sysrs_ref.errors import DrawError, ParameterError
from sysrs_ref.schedule import check_budget

__all__ = ["LRF_DEFAULTS", "LRFDraw", "LRFParams", "lrf_params", "random_lrf_draw", "ucbe_lrf"]


@dataclass(frozen=True)
class LRFDraw:
    """All the randomness of one UCB-E-LRF run: a cell order, an arm priority and the stream's seed.

    ``cell_order`` is a permutation of the K L cells (cell = model * L +
    query): the warm-up takes its first cells, and it breaks ties between
    queries. ``arm_priority`` breaks ties between models, as in
    :class:`~sysrs_ref.draws.Draw`. ``seed`` (0 <= seed < 2^64) seeds the
    stream of dropout masks and initial factors (:mod:`~sysrs_ref.algorithms.lrf_model`).

    >>> LRFDraw((3, 1, 0, 2), (1, 0), seed=7).n_queries
    2
    """

    cell_order: tuple[int, ...]
    arm_priority: tuple[int, ...]
    seed: int

    def __post_init__(self) -> None:
        n_models, cells = len(self.arm_priority), len(self.cell_order)
        if n_models < 2 or sorted(self.arm_priority) != list(range(n_models)):
            raise DrawError(f"arm_priority must be a permutation of at least 2 models, got {list(self.arm_priority)}")
        if cells == 0 or cells % n_models or sorted(self.cell_order) != list(range(cells)):
            raise DrawError(f"cell_order must be a permutation of the K*L cells (K = {n_models}), got {cells} entries")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not 0 <= self.seed < 2**64:
            raise DrawError(f"seed must be an integer in [0, 2^64), got {self.seed!r}")

    @property
    def n_models(self) -> int:
        """K."""
        return len(self.arm_priority)

    def require(self, n_models: int, n_queries: int) -> None:
        """DrawError unless this draw is for K = *n_models* models and L = *n_queries* queries."""
        if (self.n_models, self.n_queries) != (n_models, n_queries):
            raise DrawError(
                f"the draw is for K = {self.n_models}, L = {self.n_queries}; the scores are K = {n_models}, L = {n_queries}"
            )

    @property
    def n_queries(self) -> int:
        """L."""
        return len(self.cell_order) // self.n_models


def random_lrf_draw(rng: np.random.Generator | int, n_models: int, n_queries: int) -> LRFDraw:
    """A uniformly random :class:`LRFDraw`: ``permutation(K)``, then ``permutation(K L)``, then a 64-bit seed.

    >>> d = random_lrf_draw(3, 2, 3)
    >>> sorted(d.cell_order), d == random_lrf_draw(3, 2, 3)
    ([0, 1, 2, 3, 4, 5], True)
    """
    generator = np.random.default_rng(rng) if isinstance(rng, int) else rng
    priority = tuple(int(x) for x in generator.permutation(n_models))
    order = tuple(int(x) for x in generator.permutation(n_models * n_queries))
    seed = int(generator.integers(0, 2**64, dtype=np.uint64))
    return LRFDraw(order, priority, seed)


@dataclass(frozen=True)
class LRFParams:
    """UCB-E-LRF's hyperparameters; defaults are the paper's (section "UCB-E-LRF Hyperparameters and Settings")."""

    warmup: Fraction = Fraction(5)
    """Warm-up size in % of K L (0: the No Warm-up variant)."""
    batch: int = 32
    rank: int = 1
    members: int = 64
    eta: float = 5.0
    dropout: float = 0.05
    ridge: float = 0.1
    sweeps: int = 10
    bonus_on_observed: bool = True
    unseen_first: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.warmup <= 100:
            raise ParameterError(f"warmup is a percentage of K*L in [0, 100], got {self.warmup}")
        for name in ("batch", "rank", "members", "sweeps"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ParameterError(f"{name} must be a positive integer, got {value!r}")
        if self.members < 2:
            raise ParameterError(f"members must be at least 2 (R is their spread), got {self.members}")
        check_dropout(self.dropout)
        if not self.ridge > 0:
            raise ParameterError(f"ridge must be positive (a model or query without data has no ALS solution), got {self.ridge}")
        if not self.eta >= 0:
            raise ParameterError(f"eta must be non-negative, got {self.eta}")


#: ``ucbe-lrf``'s parameters and defaults (the paper's); booleans as 1 / 0. See :class:`LRFParams`.
LRF_DEFAULTS: Mapping[str, int | str] = {
    "warmup": 5, "batch": 32, "rank": 1, "members": 64, "eta": 5, "dropout": "0.05", "ridge": "0.1", "sweeps": 10,
    "bonus_on_observed": 1, "unseen_first": 0,
}


def lrf_params(values: Mapping[str, int | float | str | Fraction | Decimal | bool]) -> LRFParams:
    """The :class:`LRFParams` that registry-style *values* describe (numbers or decimal strings; unknown keys refused).

    >>> lrf_params({"warmup": "0", "eta": "2.5", "unseen_first": 1})
    LRFParams(warmup=Fraction(0, 1), batch=32, rank=1, members=64, eta=2.5, dropout=0.05, ridge=0.1, sweeps=10, bonus_on_observed=True, unseen_first=True)
    """
    known = {field.name for field in fields(LRFParams)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ParameterError(f"ucbe-lrf has no parameter {unknown[0]!r} (it takes {', '.join(LRF_DEFAULTS)})")
    merged = {**LRF_DEFAULTS, **values}
    exact: dict[str, Fraction] = {}
    for key, value in merged.items():
        try:
            exact[key] = Fraction(str(int(value) if isinstance(value, bool) else value))
        except (ValueError, ZeroDivisionError):
            raise ParameterError(f"ucbe-lrf parameter {key} must be a number, got {value!r}") from None
    for key in ("batch", "rank", "members", "sweeps", "bonus_on_observed", "unseen_first"):
        if exact[key].denominator != 1:
            raise ParameterError(f"ucbe-lrf parameter {key} must be an integer, got {merged[key]!r}")
    for key in ("bonus_on_observed", "unseen_first"):
        if exact[key] not in (0, 1):
            raise ParameterError(f"ucbe-lrf parameter {key} is a switch: 1 (on) or 0 (off), got {merged[key]!r}")
    return LRFParams(
        warmup=exact["warmup"], batch=int(exact["batch"]), rank=int(exact["rank"]), members=int(exact["members"]),
        eta=float(exact["eta"]), dropout=float(exact["dropout"]), ridge=float(exact["ridge"]),
        sweeps=int(exact["sweeps"]), bonus_on_observed=exact["bonus_on_observed"] == 1,
        unseen_first=exact["unseen_first"] == 1,
    )


def _fit(observed: list[list[float | None]], draw: LRFDraw, fit: int, params: LRFParams) -> Ensemble:
    return fit_ensemble(observed, draw.seed, fit, rank=params.rank, members=params.members, dropout=params.dropout,
                        ridge=params.ridge, sweeps=params.sweeps)


def _estimates(observed: Sequence[Sequence[float | None]], ensemble: Ensemble, bonus: float, on_observed: bool) -> list[float]:
    """(1/L) sum_j (O S + (1 - O) Shat + bonus R), the bonus on observed cells only if *on_observed*."""
    out = []
    for row, means, spreads in zip(observed, ensemble.mean, ensemble.spread):
        total = 0.0
        for value, mean, spread in zip(row, means, spreads):
            total += (mean if value is None else value) + (bonus * spread if value is None or on_observed else 0.0)
        out.append(total / len(row))
    return out


def ucbe_lrf(budget: int, draw: LRFDraw, params: LRFParams | None = None) -> AlgorithmRun:
    """UCB-E-LRF (the paper's Algorithm "UCB-E-LRF"): UCB-E on an ensemble low-rank imputation of the scores.

    >>> from sysrs_ref import Instance, drive
    >>> inst = Instance([[1, 1, 1, 0], [1, 0, 0, 0], [0, 0, 1, 0]])
    >>> small = LRFParams(warmup=Fraction(25), batch=2, members=4, sweeps=3)
    >>> out = drive(ucbe_lrf(8, random_lrf_draw(0, 3, 4), small), inst)
    >>> out.spent, len(set(out.requests)) == out.spent, sorted(out.ranking)
    (8, True, [0, 1, 2])
    """
    settings = params if params is not None else LRFParams()
    n_models, n_queries = draw.n_models, draw.n_queries
    check_budget(budget, n_models, n_queries)
    rank = [0] * n_models
    for position, model in enumerate(draw.arm_priority):
        rank[model] = position
    where = [0] * (n_models * n_queries)  # position of each cell in the cell order: the query tie-break
    for position, cell in enumerate(draw.cell_order):
        where[cell] = position
    observed: list[list[float | None]] = [[None] * n_queries for _ in range(n_models)]
    trace: list[Step] = []
    spent = 0

    def record(batch: tuple[Request, ...], scores: list[Fraction]) -> None:
        nonlocal spent
        for request, score in zip(batch, scores):
            observed[request.model][request.query] = float(score)
        spent += len(batch)
        trace.append(Step(batch))

    warm = min(budget, int(Fraction(settings.warmup) * n_models * n_queries / 100))  # floor: n_0 >= 0
    if warm:
        batch = tuple(Request(cell // n_queries, cell % n_queries) for cell in draw.cell_order[:warm])
        record(batch, accept_scores(batch, (yield batch)))
    fit = 0
    while spent < budget:
        open_models = [i for i in range(n_models) if any(v is None for v in observed[i])]
        if not open_models:
            break
        ensemble = _fit(observed, draw, fit, settings)
        fit += 1
        index = _estimates(observed, ensemble, settings.eta, settings.bonus_on_observed)
        if settings.unseen_first:
            index = [float("inf") if all(v is None for v in observed[i]) else index[i] for i in range(n_models)]
        model = max(open_models, key=lambda i: (index[i], -rank[i]))
        free = [j for j in range(n_queries) if observed[model][j] is None]
        free.sort(key=lambda j: (-ensemble.spread[model][j], where[model * n_queries + j]))
        batch = tuple(Request(model, j) for j in free[: min(settings.batch, budget - spent)])
        record(batch, accept_scores(batch, (yield batch)))
    final = _estimates(observed, _fit(observed, draw, fit, settings), 0.0, False)
    ranking = tuple(sorted(range(n_models), key=lambda i: (-final[i], rank[i])))
    return Outcome("ucbe-lrf", ranking[0], ranking, spent, tuple(trace))
