"""The registry: algorithm names of the command line (docs/cli.md) mapped to their step generators."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType

from sysrs_ref.algorithms.base import AlgorithmRun
from sysrs_ref.algorithms.lrf import LRF_DEFAULTS, LRFDraw, lrf_params, random_lrf_draw, ucbe_lrf
from sysrs_ref.algorithms.successive_accepts_rejects import check_m, sar, sysar
from sysrs_ref.algorithms.successive_rejects import sr, sysrs
from sysrs_ref.algorithms.ucb import DEFAULT_A, syucbe, ucbe
from sysrs_ref.algorithms.uniform import syus, us
import numpy as np

from sysrs_ref.draws import Draw, random_draw
from sysrs_ref.errors import DrawError, ParameterError, UnknownAlgorithmError

__all__ = ["ALGORITHMS", "AlgorithmSpec", "AnyDraw", "ParamValue", "get_algorithm"]

#: What a parameter value may be: numbers, or a decimal string such as "0.1".
ParamValue = int | float | str | Fraction | Decimal

#: The randomness of a run: query orders (every algorithm but UCB-E-LRF), or a cell order and a stream seed.
AnyDraw = Draw | LRFDraw


def _queries(draw: AnyDraw) -> Draw:
    if not isinstance(draw, Draw):
        raise DrawError("this algorithm needs a Draw of query orders (random_draw), not an LRFDraw")
    return draw


def _cells(draw: AnyDraw) -> LRFDraw:
    if not isinstance(draw, LRFDraw):
        raise DrawError("ucbe-lrf needs an LRFDraw (a cell order and a stream seed; random_lrf_draw), not a Draw")
    return draw


@dataclass(frozen=True)
class AlgorithmSpec:
    """One registered algorithm: its name, what it is, and how to start a run."""

    name: str
    """The command-line name (``sysrs``)."""
    title: str
    """The paper's name (``SySRs``)."""
    paper_ref: str
    """Where the paper defines it."""
    synchronized: bool
    """Whether it needs a synchronized draw (one shared query order)."""
    defaults: Mapping[str, ParamValue]
    """Its parameters and their default values (empty when hyperparameter-free)."""
    factory: Callable[[int, AnyDraw, Mapping[str, ParamValue]], AlgorithmRun]
    cells: bool = False
    """Whether its draw is an :class:`~sysrs_ref.algorithms.lrf.LRFDraw` (UCB-E-LRF) rather than a Draw."""

    def random_draw(self, rng: np.random.Generator | int, n_models: int, n_queries: int) -> AnyDraw:
        """A uniformly random draw of the kind this algorithm takes, from *rng* (or a seed).

        >>> get_algorithm("sysrs").random_draw(0, 2, 3).synchronized, type(get_algorithm("ucbe-lrf").random_draw(0, 2, 3)).__name__
        (True, 'LRFDraw')
        """
        if self.cells:
            return random_lrf_draw(rng, n_models, n_queries)
        return random_draw(rng, n_models, n_queries, synchronized=self.synchronized)

    def check_draw(self, draw: AnyDraw, n_models: int, n_queries: int) -> None:
        """DrawError unless *draw* is of this algorithm's kind and for K = *n_models*, L = *n_queries*."""
        if self.cells:
            _cells(draw).require(n_models, n_queries)
        else:
            _queries(draw).require(n_models, n_queries, synchronized=self.synchronized, who=self.name)

    def check_params(self, params: Mapping[str, ParamValue]) -> dict[str, ParamValue]:
        """The parameters with defaults filled in; ParameterError for an unknown name."""
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            takes = ", ".join(self.defaults) if self.defaults else "no parameters"
            raise ParameterError(
                f"{self.name} has no parameter {unknown[0]!r} (it takes {takes})"
            )
        return {**self.defaults, **params}

    def start(self, budget: int, draw: AnyDraw, **params: ParamValue) -> AlgorithmRun:
        """Start a run: the step generator for *budget* and *draw*.

        >>> from sysrs_ref import Instance, drive, random_draw
        >>> spec = get_algorithm("syucbe")
        >>> run = spec.start(4, random_draw(0, 2, 3, synchronized=True), a="0.1")
        >>> drive(run, Instance([[1, 1, 1], [0, 0, 0]])).chosen
        0
        """
        return self.factory(budget, draw, self.check_params(params))


ALGORITHMS: Mapping[str, AlgorithmSpec] = MappingProxyType(
    {
        spec.name: spec
        for spec in (
            AlgorithmSpec("us", "US", "Experiments, Baselines", False, {}, lambda n, d, p: us(n, _queries(d))),
            AlgorithmSpec("syus", "SyUS", "Experiments, Baselines", True, {}, lambda n, d, p: syus(n, _queries(d))),
            AlgorithmSpec("sr", "SR", "Audibert et al. 2010; Section 3", False, {}, lambda n, d, p: sr(n, _queries(d))),
            AlgorithmSpec("sysrs", "SySRs", "Algorithm 1", True, {}, lambda n, d, p: sysrs(n, _queries(d))),
            AlgorithmSpec(
                "ucbe", "UCB-E", "Algorithm UCB-E (Appendix)", False, {"a": DEFAULT_A},
                lambda n, d, p: ucbe(n, _queries(d), p["a"]),
            ),
            AlgorithmSpec(
                "syucbe", "SyUCB-E", "Algorithm SyUCB-E (Appendix)", True, {"a": DEFAULT_A},
                lambda n, d, p: syucbe(n, _queries(d), p["a"]),
            ),
            AlgorithmSpec(
                "sar", "SAR", "Bubeck, Wang and Viswanathan 2013; Appendix Top-m", False, {"m": 1},
                lambda n, d, p: sar(n, _queries(d), check_m(p["m"], d.n_models)),
            ),
            AlgorithmSpec(
                "sysar", "SySAR", "SAR on shared queries (Discussion: future work)", True, {"m": 1},
                lambda n, d, p: sysar(n, _queries(d), check_m(p["m"], d.n_models)),
            ),
            AlgorithmSpec(
                "ucbe-lrf", "UCB-E-LRF", "Algorithm UCB-E-LRF (Appendix; Zhou et al. 2025)", False, LRF_DEFAULTS,
                lambda n, d, p: ucbe_lrf(n, _cells(d), lrf_params(p)), cells=True,
            ),
        )
    }
)
"""Every registered algorithm by command-line name, in the paper's order; then SAR and SySAR (top-m), then UCB-E-LRF."""


def get_algorithm(name: str) -> AlgorithmSpec:
    """The registered algorithm called *name* (case-insensitive).

    >>> get_algorithm("SySRs").title
    'SySRs'
    >>> get_algorithm("nope")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.UnknownAlgorithmError: unknown algorithm 'nope'; choose one of us, syus, sr, sysrs, ucbe, syucbe, sar, sysar, ucbe-lrf
    """
    spec = ALGORITHMS.get(name.strip().lower()) if isinstance(name, str) else None
    if spec is None:
        raise UnknownAlgorithmError(
            f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}"
        )
    return spec
