"""Drivers: feeding an algorithm's requests to an evaluation oracle (docs/contracts.md)."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import numpy as np

from sysrs_ref._checks import generator_of
from sysrs_ref._limits import Need, check_need
from sysrs_ref._words import matrix_shape
from sysrs_ref.algorithms.base import AlgorithmRun, Outcome
from sysrs_ref.algorithms.lrf import EnsembleFit
from sysrs_ref.algorithms.registry import AlgorithmSpec, AnyDraw, ParamValue, get_algorithm
from sysrs_ref.errors import DrawError, ParameterError
from sysrs_ref.instance import InstanceLike, as_instance
from sysrs_ref.schedule import Budget
from sysrs_ref.stochastic import StochasticDraw, StochasticInstance, random_stochastic_draw

__all__ = ["Oracle", "drive", "select"]

#: An evaluation oracle: (model, query) -> score in [0, 1]. An Instance is one.
Oracle = Callable[[int, int], object]


def drive(run: AlgorithmRun, oracle: Oracle | InstanceLike) -> Outcome:
    """Run a step generator to the end, answering every request with ``oracle(model, query)``.

    The oracle may be deterministic (an :class:`~sysrs_ref.instance.Instance`,
    or a score matrix: a numpy array or nested lists, made an Instance) or
    stochastic (a function sampling S_ij ~ phi_ij with its own Generator).
    ParameterError when *run* is not a step generator.

    >>> from sysrs_ref import Instance, sysrs, random_draw
    >>> inst = Instance([[1, 0, 1, 1], [0, 0, 1, 0], [1, 0, 0, 0]])
    >>> drive(sysrs(12, random_draw(0, 3, 4, synchronized=True)), inst).chosen
    0
    """
    if not isinstance(run, Generator):
        raise ParameterError(f"drive needs a step generator such as sysrs(budget, draw), got {type(run).__name__}")
    answer = oracle if callable(oracle) and not isinstance(oracle, np.ndarray) else as_instance(oracle, "the oracle")
    try:
        batch = next(run)
        while True:
            batch = run.send([answer(request.model, request.query) for request in batch])
    except StopIteration as stop:
        outcome = stop.value
    if not isinstance(outcome, Outcome):
        raise TypeError(f"the algorithm returned {type(outcome).__name__}, not an Outcome")
    return outcome


def select_need(n_models: int, n_queries: int, budget: int) -> Need:
    """What one run of the reference needs: exact arithmetic on every evaluation and every model, O(K + n).

    The reference keeps each model's sum as a :class:`~fractions.Fraction`
    and orders the models at each phase; about 0.2 ms per model and per
    evaluation, measured with K = 100,000 models and L = 1 query.

    >>> round(select_need(1_000_000, 1, 1_000_000).seconds)
    400
    """
    return Need(
        f"one run of the reference on {matrix_shape(n_models, n_queries)} at a budget of {budget:,}",
        "exact fractions: O(K + n) for K models and n evaluations, about 0.2 ms each",
        seconds=2e-4 * (n_models + budget),
    )


def select(
    instance: InstanceLike | StochasticInstance,
    budget: int | np.integer[Any] | str | Budget,
    algorithm: str = "sysrs",
    *,
    draw: AnyDraw | StochasticDraw | None = None,
    seed: int | np.random.Generator = 0,
    fit: EnsembleFit | None = None,
    **params: ParamValue,
) -> Outcome:
    """Run *algorithm* once on *instance* with *budget* (an integer or a percentage like ``"12%"``).

    *instance* may be a :class:`~sysrs_ref.stochastic.StochasticInstance`:
    the draw is then a :class:`~sysrs_ref.stochastic.StochasticDraw` (the
    query order(s) and the noise of every cell), by default
    ``random_stochastic_draw(seed, K, L, synchronized=...)``, and each
    evaluation's score follows the noise rule (docs/contracts.md §17).

    The randomness is *draw* if given, else ``random_draw(seed, K, L,
    synchronized=...)`` for the algorithm's kind (``random_lrf_draw(seed, K, L)``
    for ``ucbe-lrf``; *seed* is a non-negative integer, numpy's too, or a
    Generator). *instance* may also be a numpy array or nested lists of
    scores (made an :class:`~sysrs_ref.instance.Instance`). Parameters (``a``
    for the UCB family, ``m`` for SAR,
    ``warmup`` and the others of :data:`~sysrs_ref.algorithms.lrf.LRF_DEFAULTS`
    for UCB-E-LRF) are passed by keyword.

    *fit* is UCB-E-LRF's ensemble fit (an
    :class:`~sysrs_ref.algorithms.lrf.EnsembleFit`; ParameterError for any
    other algorithm). By default it is the reference's pure-Python
    :func:`~sysrs_ref.algorithms.lrf.fit_ensemble_reference`: the
    definition, but about 25 CPU seconds per fit on a shipped benchmark
    (gsm, 80 x 1000), and a run to 8% of it makes 76 fits. Pass a fit of
    :mod:`sysrs_ref.fast.lrf` for a run that takes seconds:
    ``fit_ensemble_compiled`` (the reference's doubles bit for bit where the
    compiled passes were built, else numpy's) or ``fit_ensemble_fast``
    (numpy's, agreeing with the reference to 1e-10; the command line's
    ``select`` uses it). Both make the reference's choices wherever no two
    indices are within 1e-10 of each other.

    >>> from sysrs_ref import Instance
    >>> inst = Instance([[1, 1, 1, 0], [1, 0, 1, 0], [0, 1, 0, 0]])
    >>> out = select(inst, "100%", "sysrs", seed=1)
    >>> out.chosen, out.spent
    (0, 12)
    >>> from sysrs_ref import irt_benchmark
    >>> from sysrs_ref.fast.lrf import fit_ensemble_compiled
    >>> small = irt_benchmark(6, 40, seed=0)
    >>> out = select(small, "30%", "ucbe-lrf", seed=1, fit=fit_ensemble_compiled)
    >>> out.chosen, out == select(small, "30%", "ucbe-lrf", seed=1)   # with the reference's fit: the same run
    (1, True)
    """
    spec = get_algorithm(algorithm)
    if isinstance(instance, StochasticInstance):
        return _select_stochastic(instance, budget, spec, draw, seed, fit, params)
    instance = as_instance(instance)
    parsed = Budget.parse(budget, instance.n_models, instance.n_queries)
    check_need(select_need(instance.n_models, instance.n_queries, parsed.n))
    if isinstance(draw, StochasticDraw):
        raise DrawError(
            "a StochasticDraw is for a StochasticInstance; give the deterministic instance its Draw (draw.draw)"
        )
    if draw is None:
        draw = spec.random_draw(generator_of(seed, "seed"), instance.n_models, instance.n_queries)
    else:
        spec.check_draw(draw, instance.n_models, instance.n_queries)
    return drive(spec.run(parsed, draw, spec.parse_params(params), fit=fit), instance)


def _select_stochastic(
    instance: StochasticInstance,
    budget: int | np.integer[Any] | str | Budget,
    spec: AlgorithmSpec,
    draw: AnyDraw | StochasticDraw | None,
    seed: int | np.random.Generator,
    fit: EnsembleFit | None,
    params: dict[str, ParamValue],
) -> Outcome:
    """One run on a stochastic instance: the draw's orders, the noise's scores (each cell at most once)."""
    if spec.cells:
        raise ParameterError(f"{spec.name} does not run on stochastic instances (it draws cells, not query orders)")
    parsed = Budget.parse(budget, instance.n_models, instance.n_queries)
    if draw is None:
        draw = random_stochastic_draw(
            generator_of(seed, "seed"), instance.n_models, instance.n_queries, synchronized=spec.synchronized
        )
    if not isinstance(draw, StochasticDraw):
        raise DrawError(
            f"a stochastic instance needs a StochasticDraw (the query orders and the noise of every cell), "
            f"got {type(draw).__name__}; make one with random_stochastic_draw(seed, K, L, synchronized=...)"
        )
    spec.check_draw(draw.draw, instance.n_models, instance.n_queries)
    return drive(spec.run(parsed, draw.draw, spec.parse_params(params), fit=fit), instance.oracle(draw.noise))
