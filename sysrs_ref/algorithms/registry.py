"""The registry: algorithm names of the command line (docs/cli.md) mapped to their step generators.

Every entry runs the reference: UCB-E-LRF (``ucbe-lrf``) with the pure-Python
fit :func:`~sysrs_ref.algorithms.lrf.fit_ensemble_reference` unless a run is
given another :class:`~sysrs_ref.algorithms.lrf.EnsembleFit`
(:meth:`AlgorithmSpec.run`'s *fit*, as the applications pass the fits of
:mod:`sysrs_ref.fast.lrf`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

import numpy as np

from sysrs_ref._checks import check_int, generator_of, shown_value
from sysrs_ref.algorithms.base import AlgorithmRun
from sysrs_ref.algorithms.lrf import (
    LRF_DEFAULTS,
    EnsembleFit,
    LRFDraw,
    LRFParams,
    fit_ensemble_reference,
    lrf_params,
    random_lrf_draw,
    ucbe_lrf,
)
from sysrs_ref.algorithms.params import (
    AlgorithmParams,
    Exploration,
    NoParams,
    ParamValue,
    TopMSize,
    check_size,
    expect,
    param_items,
)
from sysrs_ref.algorithms.successive_accepts_rejects import check_m, sar, sysar
from sysrs_ref.algorithms.successive_rejects import sr, sysrs
from sysrs_ref.algorithms.ucb import DEFAULT_A, syucbe, ucbe
from sysrs_ref.algorithms.uniform import syus, us
from sysrs_ref.draws import Draw, random_draw
from sysrs_ref.errors import DrawError, ParameterError, UnknownAlgorithmError
from sysrs_ref.schedule import Budget, budget_n

__all__ = ["ALGORITHMS", "AlgorithmSpec", "AnyDraw", "ParamValue", "get_algorithm"]

#: The randomness of a run: query orders (every algorithm but UCB-E-LRF), or a cell order and a stream seed.
AnyDraw = Draw | LRFDraw


def _queries(draw: AnyDraw) -> Draw:
    if not isinstance(draw, Draw):
        raise DrawError(f"this algorithm needs a Draw of query orders (random_draw), got {type(draw).__name__}")
    return draw


def _cells(draw: AnyDraw) -> LRFDraw:
    if not isinstance(draw, LRFDraw):
        raise DrawError(
            f"ucbe-lrf needs an LRFDraw (a cell order and a stream seed; random_lrf_draw), got {type(draw).__name__}"
        )
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
    factory: Callable[[int | Budget, AnyDraw, AlgorithmParams], AlgorithmRun]
    """Starts a run from a budget, a draw and the typed parameters (UCB-E-LRF with the reference's fit)."""
    parse: Callable[[Mapping[str, ParamValue]], AlgorithmParams] = NoParams.parse
    """Its family's parser: user values (defaults filled in) to the typed parameter object."""
    cells: bool = False
    """Whether its draw is an :class:`~sysrs_ref.algorithms.lrf.LRFDraw` (UCB-E-LRF) rather than a Draw."""
    fitted: Callable[[int | Budget, AnyDraw, AlgorithmParams, EnsembleFit], AlgorithmRun] | None = None
    """For an algorithm that fits an ensemble (UCB-E-LRF): starts a run with the fit given; None for the others."""

    def random_draw(self, rng: np.random.Generator | int, n_models: int, n_queries: int) -> AnyDraw:
        """A uniformly random draw of the kind this algorithm takes, from *rng* (or a seed: numpy integers too).

        ParameterError for a seed that is not a non-negative integer.

        >>> get_algorithm("sysrs").random_draw(0, 2, 3).synchronized, type(get_algorithm("ucbe-lrf").random_draw(0, 2, 3)).__name__
        (True, 'LRFDraw')
        """
        generator = generator_of(rng, "seed")
        if self.cells:
            return random_lrf_draw(generator, check_int(n_models, "n_models"), check_int(n_queries, "n_queries"))
        return random_draw(generator, n_models, n_queries, synchronized=self.synchronized)

    def check_draw(self, draw: AnyDraw, n_models: int, n_queries: int) -> None:
        """DrawError unless *draw* is of this algorithm's kind and for K = *n_models*, L = *n_queries*."""
        if self.cells:
            _cells(draw).require(n_models, n_queries)
        else:
            _queries(draw).require(n_models, n_queries, synchronized=self.synchronized, who=self.name)

    def check_params(self, params: Mapping[str, ParamValue]) -> dict[str, ParamValue]:
        """The parameters with defaults filled in; ParameterError for an unknown name or an unbounded number.

        A number given as text or a Decimal must lie within the bounds of
        :func:`~sysrs_ref.scores.parse_decimal` (:func:`~sysrs_ref.algorithms.params.check_size`),
        checked here before any family's parser converts it.
        """
        if not isinstance(params, Mapping):
            raise ParameterError(
                f"{self.name}'s parameters must be a mapping of names to values, got {shown_value(params)}"
            )
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            takes = ", ".join(self.defaults) if self.defaults else "no parameters"
            raise ParameterError(f"{self.name} has no parameter {unknown[0]!r} (it takes {takes})")
        given: dict[str, ParamValue] = {}
        for key, value in params.items():
            check_size(value, f"{self.name} parameter {key}")
            given[key] = _plain(value)
        return {**self.defaults, **given}

    def parse_params(self, params: Mapping[str, ParamValue]) -> AlgorithmParams:
        """The typed parameters *params* describe, defaults filled in: the one place they are validated.

        >>> get_algorithm("ucbe").parse_params({"a": "0.1"}), get_algorithm("sysar").parse_params({})
        (Exploration(a=Fraction(1, 10)), TopMSize(m=1))
        """
        return self.parse(self.check_params(params))

    def exact_params(self, params: AlgorithmParams) -> dict[str, Fraction]:
        """*params*' exact values by name (:func:`~sysrs_ref.algorithms.params.param_items`)."""
        return dict(param_items(params))

    @property
    def top_m_sized(self) -> bool:
        """Whether it is built for one m (SAR, SySAR): a top-m study runs it with m set to each target."""
        return self.parse == TopMSize.parse

    def for_target(self, params: AlgorithmParams, m: int) -> AlgorithmParams:
        """The parameters to identify a top-*m* set with: m set to the target for SAR and SySAR, else as they are."""
        return TopMSize(m) if self.top_m_sized else params

    def start(self, budget: int | Budget, draw: AnyDraw, **params: ParamValue) -> AlgorithmRun:
        """Start a run: the step generator for *budget* and *draw*, parameters by keyword (UCB-E-LRF: the reference fit).

        >>> from sysrs_ref import Instance, drive, random_draw
        >>> spec = get_algorithm("syucbe")
        >>> run = spec.start(4, random_draw(0, 2, 3, synchronized=True), a="0.1")
        >>> drive(run, Instance([[1, 1, 1], [0, 0, 0]])).chosen
        0
        """
        return self.run(budget, draw, self.parse_params(params))

    def run(
        self, budget: int | Budget, draw: AnyDraw, params: AlgorithmParams, *, fit: EnsembleFit | None = None
    ) -> AlgorithmRun:
        """Start a run with parameters already parsed (:meth:`parse_params`).

        *fit* is UCB-E-LRF's ensemble fit (an
        :class:`~sysrs_ref.algorithms.lrf.EnsembleFit`): by default the
        reference's pure-Python :func:`~sysrs_ref.algorithms.lrf.fit_ensemble_reference`
        (tens of seconds per fit on a shipped benchmark), or one of
        :mod:`sysrs_ref.fast.lrf` (milliseconds, the same choices).
        ParameterError for a *fit* given to an algorithm that fits no ensemble,
        or one that is not callable.

        >>> from sysrs_ref import Instance, drive
        >>> from sysrs_ref.algorithms.lrf import fit_ensemble_reference
        >>> spec = get_algorithm("ucbe-lrf")
        >>> params = spec.parse_params({"members": 4, "sweeps": 2})
        >>> run = spec.run(6, spec.random_draw(0, 2, 3), params, fit=fit_ensemble_reference)
        >>> drive(run, Instance([[1, 1, 1], [0, 0, 0]])).chosen
        0
        """
        if fit is None:
            return self.factory(budget, draw, params)
        if self.fitted is None:
            raise ParameterError(f"{self.name} fits no ensemble: fit= is for ucbe-lrf (UCB-E-LRF's ensemble fit)")
        if not callable(fit):
            raise ParameterError(
                f"fit must be an ensemble fit such as sysrs_ref.fast.lrf.fit_ensemble_compiled, got {shown_value(fit)}"
            )
        return self.fitted(budget, draw, params, fit)


def _plain(value: ParamValue) -> ParamValue:
    """A numpy number as the Python number of the same value (a Fraction of an int8 would overflow), else as it is.

    >>> _plain(np.int8(100)), _plain(np.float32(0.5)), _plain("0.1")
    (100, 0.5, '0.1')
    """
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _a(params: AlgorithmParams) -> Fraction:
    return expect(params, Exploration, "UCB-E and SyUCB-E").a


def _m(params: AlgorithmParams, draw: AnyDraw) -> int:
    return check_m(expect(params, TopMSize, "SAR and SySAR").m, draw.n_models)


def _lrf(budget: int | Budget, draw: AnyDraw, params: AlgorithmParams, fit: EnsembleFit) -> AlgorithmRun:
    """A UCB-E-LRF run: its one control loop (:func:`~sysrs_ref.algorithms.lrf.ucbe_lrf`) with the ensemble fit *fit*."""
    n = budget_n(budget, draw.n_models, draw.n_queries)
    return ucbe_lrf(n, _cells(draw), expect(params, LRFParams, "ucbe-lrf"), fit=fit)


ALGORITHMS: Mapping[str, AlgorithmSpec] = MappingProxyType(
    {
        spec.name: spec
        for spec in (
            AlgorithmSpec("us", "US", "Experiments, Baselines", False, {}, lambda n, d, p: us(n, _queries(d))),
            AlgorithmSpec("syus", "SyUS", "Experiments, Baselines", True, {}, lambda n, d, p: syus(n, _queries(d))),
            AlgorithmSpec("sr", "SR", "Audibert et al. 2010; Section 3", False, {}, lambda n, d, p: sr(n, _queries(d))),
            AlgorithmSpec("sysrs", "SySRs", "Algorithm 1", True, {}, lambda n, d, p: sysrs(n, _queries(d))),
            AlgorithmSpec(
                "ucbe",
                "UCB-E",
                "Algorithm UCB-E (Appendix)",
                False,
                {"a": DEFAULT_A},
                lambda n, d, p: ucbe(n, _queries(d), _a(p)),
                Exploration.parse,
            ),
            AlgorithmSpec(
                "syucbe",
                "SyUCB-E",
                "Algorithm SyUCB-E (Appendix)",
                True,
                {"a": DEFAULT_A},
                lambda n, d, p: syucbe(n, _queries(d), _a(p)),
                Exploration.parse,
            ),
            AlgorithmSpec(
                "sar",
                "SAR",
                "Bubeck, Wang and Viswanathan 2013; Appendix Top-m",
                False,
                {"m": 1},
                lambda n, d, p: sar(n, _queries(d), _m(p, d)),
                TopMSize.parse,
            ),
            AlgorithmSpec(
                "sysar",
                "SySAR",
                "SAR on shared queries (Discussion: future work)",
                True,
                {"m": 1},
                lambda n, d, p: sysar(n, _queries(d), _m(p, d)),
                TopMSize.parse,
            ),
            AlgorithmSpec(
                "ucbe-lrf",
                "UCB-E-LRF",
                "Algorithm UCB-E-LRF (Appendix; Zhou et al. 2025)",
                False,
                LRF_DEFAULTS,
                lambda n, d, p: _lrf(n, d, p, fit_ensemble_reference),  # the reference; the applications pass theirs
                lrf_params,
                cells=True,
                fitted=_lrf,
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
        raise UnknownAlgorithmError(f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}")
    return spec
