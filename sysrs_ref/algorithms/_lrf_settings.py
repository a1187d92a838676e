"""UCB-E-LRF's draw (:class:`LRFDraw`) and settings (:class:`LRFParams`), re-exported by :mod:`~sysrs_ref.algorithms.lrf`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from decimal import Decimal
from fractions import Fraction

import numpy as np

from sysrs_ref.algorithms.lrf_model import check_dropout
from sysrs_ref.errors import DrawError, ParameterError
from sysrs_ref.scores import parse_decimal

__all__ = ["LRF_DEFAULTS", "LRFDraw", "LRFParams", "lrf_params", "random_lrf_draw"]


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
            raise ParameterError(
                f"ridge must be positive (a model or query without data has no ALS solution), got {self.ridge}"
            )
        if not self.eta >= 0:
            raise ParameterError(f"eta must be non-negative, got {self.eta}")


#: ``ucbe-lrf``'s parameters and defaults (the paper's); booleans as 1 / 0. See :class:`LRFParams`.
LRF_DEFAULTS: Mapping[str, int | str] = {
    "warmup": 5,
    "batch": 32,
    "rank": 1,
    "members": 64,
    "eta": 5,
    "dropout": "0.05",
    "ridge": "0.1",
    "sweeps": 10,
    "bonus_on_observed": 1,
    "unseen_first": 0,
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
            text = str(int(value) if isinstance(value, bool) else value)
            exact[key] = Fraction(value) if isinstance(value, (int, float, Fraction)) else parse_decimal(text)
        except (ValueError, ZeroDivisionError, OverflowError):
            raise ParameterError(f"ucbe-lrf parameter {key} must be a number, got {value!r}") from None
    for key in ("batch", "rank", "members", "sweeps", "bonus_on_observed", "unseen_first"):
        if exact[key].denominator != 1:
            raise ParameterError(f"ucbe-lrf parameter {key} must be an integer, got {merged[key]!r}")
    for key in ("bonus_on_observed", "unseen_first"):
        if exact[key] not in (0, 1):
            raise ParameterError(f"ucbe-lrf parameter {key} is a switch: 1 (on) or 0 (off), got {merged[key]!r}")
    return LRFParams(
        warmup=exact["warmup"],
        batch=int(exact["batch"]),
        rank=int(exact["rank"]),
        members=int(exact["members"]),
        eta=float(exact["eta"]),
        dropout=float(exact["dropout"]),
        ridge=float(exact["ridge"]),
        sweeps=int(exact["sweeps"]),
        bonus_on_observed=exact["bonus_on_observed"] == 1,
        unseen_first=exact["unseen_first"] == 1,
    )
