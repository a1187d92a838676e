"""The answer to a case's input: what the vectors expect, and what the project's own adapter replies.

:func:`solve` answers every family with the reference (exact Fractions, the
step generators, the theory module). With ``fast=True`` (the adapter), an
algorithm case's chosen model, ranking and spend come from the numpy fast
path instead, and its requests from the reference step generator (the fast
path computes outcomes, not request sequences); the two are checked against
each other on every case.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction

from sysrs_ref.algorithms._driver import drive
from sysrs_ref.algorithms.lrf import LRFDraw, LRFParams, fit_ensemble_reference, ucbe_lrf
from sysrs_ref.algorithms.params import TopMSize, expect
from sysrs_ref.algorithms.registry import AnyDraw, get_algorithm
from sysrs_ref.algorithms.successive_accepts_rejects import check_m
from sysrs_ref.conformance.values import JsonValue, exact_value, parse_exact, scores_of
from sysrs_ref.draws import Draw
from sysrs_ref.errors import ParameterError, SysrsError
from sysrs_ref.fast.batch import DrawBatch
from sysrs_ref.fast.lrf import run_lrf
from sysrs_ref.fast.run import run_exact
from sysrs_ref.instance import Instance
from sysrs_ref.schedule import paper_schedule, parse_budget, schedule, schedule_spend
from sysrs_ref.theory.bounds import (
    Bound,
    bernstein_paired_bound,
    bernstein_wor_bound,
    lower_bound,
    sr_bound,
    sysrs_bound,
    ucbe_bound,
)
from sysrs_ref.theory.exact import exact_law
from sysrs_ref.theory.exact_topm import topm_distribution, topm_error_probability
from sysrs_ref.theory.hardness import arm_hardness, hardness

__all__ = ["solve"]

Input = Mapping[str, JsonValue]


def _int(data: Input, key: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterError(f"the case input needs an integer {key!r}, got {value!r}")
    return value


def _params(data: Input) -> dict[str, str]:
    params = data.get("params", {})
    if not isinstance(params, Mapping) or not all(isinstance(v, str) for v in params.values()):
        raise ParameterError('the case input\'s "params" must map names to exact decimal strings')
    return {str(key): str(value) for key, value in params.items()}


def _draw(data: Input) -> AnyDraw:
    draw = data.get("draw")
    if not isinstance(draw, Mapping):
        raise ParameterError('an algorithm case needs a "draw" with "query_orders" and "arm_priority"')
    if "cell_order" in draw:
        seed = draw.get("seed")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ParameterError(f'an ucbe-lrf draw needs an integer "seed", got {seed!r}')
        return LRFDraw(
            _integers(draw.get("cell_order"), "cell_order"), _integers(draw.get("arm_priority"), "arm_priority"), seed
        )
    orders = draw.get("query_orders")
    if not isinstance(orders, list) or not orders:
        raise ParameterError('the draw needs "query_orders": a list of permutations of the queries')
    return Draw(
        tuple(_integers(order, "a query order") for order in orders),
        _integers(draw.get("arm_priority"), "arm_priority"),
    )


def _integers(value: object, what: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in value):
        raise ParameterError(f"{what} must be a list of integers, got {value!r}")
    return tuple(value)


def _algorithm(data: Input, fast: bool) -> dict[str, JsonValue]:
    spec = get_algorithm(str(data.get("algorithm")))
    instance = Instance(scores_of(data))
    draw, budget, params = _draw(data), _int(data, "budget"), spec.parse_params(_params(data))
    if isinstance(draw, LRFDraw) and isinstance(params, LRFParams):  # the oracle: UCB-E-LRF with the exact fit
        outcome = drive(ucbe_lrf(budget, draw, params, fit=fit_ensemble_reference), instance)
    else:
        outcome = drive(spec.run(budget, draw, params), instance)
    answer: dict[str, JsonValue] = {
        "chosen": outcome.chosen,
        "ranking": list(outcome.ranking),
        "spent": outcome.spent,
        "batches": [[[r.model, r.query] for r in step.requests] for step in outcome.trace if step.requests],
    }
    if fast and isinstance(draw, LRFDraw):
        fast_ranking = run_lrf(instance.array, [budget], draw, expect(params, LRFParams, spec.name))[0]
        if list(fast_ranking) != list(outcome.ranking):
            raise AssertionError(f"the fast path disagrees with the reference on this case: {fast_ranking}")
    elif fast:
        spec.check_draw(draw, instance.n_models, instance.n_queries)
        assert isinstance(draw, Draw)
        out = run_exact(instance, spec.name, (budget,), DrawBatch.from_draws([draw]), params)
        chosen, ranking, spent = out.outcome(0, 0)
        if (chosen, list(ranking or ()), spent) != (outcome.chosen, list(outcome.ranking), outcome.spent):
            raise AssertionError(f"the fast path disagrees with the reference on this case: {out.outcome(0, 0)}")
        answer.update(chosen=chosen, ranking=list(ranking or ()), spent=spent)
    return answer


def _schedule(data: Input) -> dict[str, JsonValue]:
    n_models, n_queries, budget = _int(data, "K"), _int(data, "L"), _int(data, "budget")
    lengths = schedule(n_models, n_queries, budget)
    paper = paper_schedule(n_models, budget)
    return {
        "n_k": list(lengths),
        "spend": schedule_spend(lengths),
        "capped": lengths != paper,
        "paper_n_k": list(paper),
    }


def _budget(data: Input) -> dict[str, JsonValue]:
    return {"budget": parse_budget(str(data.get("percentage")), _int(data, "K"), _int(data, "L"))}


def _hardness(data: Input) -> dict[str, JsonValue]:
    instance = Instance(scores_of(data))
    h = hardness(instance)
    arms: list[JsonValue] | None = (
        None
        if len(instance.best) > 1
        else [  # a tied best: no i*, no per-arm values
            {
                "model": arm.model,
                "delta": exact_value(arm.delta),
                "var": exact_value(arm.var),
                "cov": exact_value(arm.cov),
                "v_star": exact_value(arm.v_star),
                "theta": exact_value(arm.theta),
                "theta_star": exact_value(arm.theta_star),
                "H2_i": exact_value(arm.h2),
                "H3_i": exact_value(arm.h3),
            }
            for arm in (arm_hardness(instance) if len(instance.best) == 1 else ())
        ]
    )
    return {
        "best_mean": exact_value(h.best_mean),
        "mean": exact_value(h.mean),
        "deltas": [exact_value(d) for d in h.deltas],
        "H1": exact_value(h.h1),
        "H2": exact_value(h.h2),
        "H3": exact_value(h.h3),
        "H3_prime": exact_value(h.h3_prime),
        "arms": arms,
    }


def _rational(data: Input, key: str) -> Fraction:
    return parse_exact(data.get(key))


def _bound(data: Input) -> dict[str, JsonValue]:
    kind = data.get("bound")
    makers: dict[str, Callable[[], Bound]] = {
        "sysrs": lambda: sysrs_bound(Instance(scores_of(data)), _int(data, "budget")),
        "sr": lambda: sr_bound(Instance(scores_of(data)), _int(data, "budget")),
        "ucbe": lambda: ucbe_bound(Instance(scores_of(data)), _int(data, "budget"), _rational(data, "a")),
        "bernstein_wor": lambda: bernstein_wor_bound(
            _int(data, "n"),
            _int(data, "population"),
            _rational(data, "epsilon"),
            _rational(data, "sigma2"),
            _rational(data, "M"),
        ),
        "bernstein_paired": lambda: bernstein_paired_bound(
            _int(data, "n"), _int(data, "population"), _rational(data, "delta"), _rational(data, "sigma2")
        ),
        "lower": lambda: lower_bound(_int(data, "n"), _rational(data, "delta"), _rational(data, "s")),
    }
    if not isinstance(kind, str) or kind not in makers:
        raise ParameterError(f"unknown bound {kind!r}: one of {', '.join(makers)}")
    bound = makers[kind]()
    return {"prefactor": exact_value(bound.prefactor), "exponent": exact_value(bound.exponent), "value": float(bound)}


def _exact(data: Input) -> dict[str, JsonValue]:
    instance = Instance(scores_of(data))
    spec, budget = get_algorithm(str(data.get("algorithm"))), _int(data, "budget")
    typed = spec.parse_params(_params(data))
    law = exact_law(instance, spec.name, budget, typed)
    error = 1 - sum((p for model, p in law.items() if model in instance.best), Fraction(0))
    answer: dict[str, JsonValue] = {
        "error": exact_value(error),
        "law": {str(model): exact_value(p) for model, p in sorted(law.items())},
    }
    if isinstance(typed, TopMSize):  # SAR, SySAR: the law of the top-m set they return
        m = check_m(typed.m, instance.n_models)
        prefixes = topm_distribution(instance, spec.name, budget, m)
        answer["top_m_law"] = {",".join(map(str, prefix)): exact_value(p) for prefix, p in prefixes.items()}
        answer["top_m_error"] = exact_value(topm_error_probability(instance, spec.name, budget, m))
    return answer


def solve(family: str, data: Input, *, fast: bool = False) -> dict[str, JsonValue]:
    """The output for one case input of *family* (SysrsError for an input this package refuses)."""
    if family == "algorithms":
        return _algorithm(data, fast)
    solvers: dict[str, Callable[[Input], dict[str, JsonValue]]] = {
        "schedules": _schedule,
        "budgets": _budget,
        "hardness": _hardness,
        "bounds": _bound,
        "exact": _exact,
    }
    if family not in solvers:
        raise SysrsError(f"unknown family {family!r}")
    return solvers[family](data)
