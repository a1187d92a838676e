"""The answer to a case's input: what the vectors expect, and what the project's own adapter replies.

:func:`solve` answers every family with the reference (exact Fractions, the
step generators, the theory module). With ``fast=True`` (the adapter), an
algorithm case's chosen model, ranking and spend come from the numpy fast
path instead, and its requests from the reference step generator (the fast
path computes outcomes, not request sequences); the two are checked against
each other on every case.

An input the package refuses raises a :class:`~sysrs_ref.errors.SysrsError`;
:func:`refusal_kind` names its kind (docs/contracts.md, "Refusals"). The
inputs are checked in the contract's order: the instance, the parameters, the
budget, then the draw. A case input that is not even shaped like one (a
missing key, a string for an integer) raises :class:`CaseInputError`, which
is no refusal: the adapter answers it with an ``error``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction

from sysrs_ref.algorithms.driver import drive
from sysrs_ref.algorithms.lrf import LRFDraw, LRFParams
from sysrs_ref.algorithms.params import TopMSize, expect
from sysrs_ref.algorithms.registry import AnyDraw, get_algorithm
from sysrs_ref.algorithms.successive_accepts_rejects import check_m
from sysrs_ref.conformance.values import JsonValue, exact_value, parse_exact, scores_of
from sysrs_ref.draws import Draw
from sysrs_ref.errors import (
    BoundConditionError,
    BudgetError,
    DrawError,
    InstanceError,
    ParameterError,
    ScoreError,
    SysrsError,
    TooLargeToEnumerateError,
)
from sysrs_ref.fast import DrawBatch, run_exact
from sysrs_ref.fast.lrf import run_lrf
from sysrs_ref.instance import Instance
from sysrs_ref.schedule import check_budget, paper_schedule, parse_budget, schedule, schedule_spend
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

__all__ = ["EXACT_DRAWS_MAX", "CaseInputError", "exact_draws", "refusal_kind", "solve"]

Input = Mapping[str, JsonValue]


class CaseInputError(SysrsError):
    """A case input that is not shaped like one of its family (not a refusal: the case itself is broken)."""


#: The error classes behind each kind of refusal, most specific first.
_KINDS: tuple[tuple[type[SysrsError], str], ...] = (
    (TooLargeToEnumerateError, "too_large"),
    (BoundConditionError, "conditions"),
    (BudgetError, "budget"),
    (DrawError, "draw"),
    (ParameterError, "params"),
    (InstanceError, "instance"),
    (ScoreError, "instance"),
)


def refusal_kind(error: SysrsError) -> str | None:
    """The kind of refusal *error* stands for (docs/contracts.md, "Refusals"), or None if it is none.

    >>> refusal_kind(BudgetError("budget 3 below K = 4")), refusal_kind(CaseInputError("no input"))
    ('budget', None)
    """
    if isinstance(error, CaseInputError):
        return None
    return next((kind for cls, kind in _KINDS if isinstance(error, cls)), None)


def _int(data: Input, key: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise CaseInputError(f"the case input needs an integer {key!r}, got {value!r}")
    return value


def _params(data: Input) -> dict[str, str]:
    params = data.get("params", {})
    if not isinstance(params, Mapping) or not all(isinstance(v, str) for v in params.values()):
        raise CaseInputError('the case input\'s "params" must map names to exact decimal strings')
    return {str(key): str(value) for key, value in params.items()}


def _instance(data: Input, *, sized: bool) -> Instance:
    """The case's matrix as an Instance; with *sized*, its ``K`` and ``L`` must be the matrix's shape."""
    instance = Instance(scores_of(data))
    if sized and (_int(data, "K"), _int(data, "L")) != instance.shape:
        raise InstanceError(
            f"the case says K = {data.get('K')}, L = {data.get('L')} but its matrix is "
            f"{instance.n_models} x {instance.n_queries}"
        )
    return instance


def _shape(data: Input) -> tuple[int, int]:
    """The case's K and L, refused unless K >= 2 and L >= 1."""
    n_models, n_queries = _int(data, "K"), _int(data, "L")
    if n_models < 2 or n_queries < 1:
        raise InstanceError(f"need K >= 2 models and L >= 1 queries, got K = {n_models}, L = {n_queries}")
    return n_models, n_queries


def _draw(data: Input) -> AnyDraw:
    draw = data.get("draw")
    if not isinstance(draw, Mapping):
        raise CaseInputError('an algorithm case needs a "draw" with "query_orders" and "arm_priority"')
    if "cell_order" in draw:
        seed = draw.get("seed")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise CaseInputError(f'an ucbe-lrf draw needs an integer "seed", got {seed!r}')
        return LRFDraw(
            _integers(draw.get("cell_order"), "cell_order"), _integers(draw.get("arm_priority"), "arm_priority"), seed
        )
    orders = draw.get("query_orders")
    if not isinstance(orders, list) or not orders:
        raise CaseInputError('the draw needs "query_orders": a list of permutations of the queries')
    return Draw(
        tuple(_integers(order, "a query order") for order in orders),
        _integers(draw.get("arm_priority"), "arm_priority"),
    )


def _integers(value: object, what: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in value):
        raise CaseInputError(f"{what} must be a list of integers, got {value!r}")
    return tuple(value)


def _algorithm(data: Input, fast: bool) -> dict[str, JsonValue]:
    spec = get_algorithm(str(data.get("algorithm")))
    instance = _instance(data, sized=True)
    params = spec.parse_params(_params(data))
    if isinstance(params, TopMSize):
        check_m(params.m, instance.n_models)
    budget = check_budget(_int(data, "budget"), *instance.shape)
    draw = _draw(data)
    spec.check_draw(draw, *instance.shape)
    outcome = drive(spec.run(budget, draw, params), instance)  # the reference (UCB-E-LRF with its pure-Python fit)
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
        assert isinstance(draw, Draw)
        out = run_exact(instance, spec.name, (budget,), DrawBatch.from_draws([draw]), params)
        chosen, ranking, spent = out.outcome(0, 0)
        if (chosen, list(ranking or ()), spent) != (outcome.chosen, list(outcome.ranking), outcome.spent):
            raise AssertionError(f"the fast path disagrees with the reference on this case: {out.outcome(0, 0)}")
        answer.update(chosen=chosen, ranking=list(ranking or ()), spent=spent)
    return answer


def _schedule(data: Input) -> dict[str, JsonValue]:
    n_models, n_queries = _shape(data)
    budget = check_budget(_int(data, "budget"), n_models, n_queries)
    lengths = schedule(n_models, n_queries, budget)
    paper = paper_schedule(n_models, budget)
    return {
        "n_k": list(lengths),
        "spend": schedule_spend(lengths),
        "capped": lengths != paper,
        "paper_n_k": list(paper),
    }


def _budget(data: Input) -> dict[str, JsonValue]:
    percentage = data.get("percentage")
    if not isinstance(percentage, str):
        raise CaseInputError(f'the case input needs a "percentage" text such as "12.5%", got {percentage!r}')
    return {"budget": parse_budget(percentage, *_shape(data))}


def _hardness(data: Input) -> dict[str, JsonValue]:
    instance = _instance(data, sized=False)
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
    try:
        return parse_exact(data.get(key))
    except ScoreError as err:
        raise CaseInputError(f"the case input's {key!r}: {err}") from None


def _bound(data: Input) -> dict[str, JsonValue]:
    kind = data.get("bound")
    makers: dict[str, Callable[[], Bound]] = {
        "sysrs": lambda: sysrs_bound(_instance(data, sized=False), _int(data, "budget")),
        "sr": lambda: sr_bound(_instance(data, sized=False), _int(data, "budget")),
        "ucbe": lambda: ucbe_bound(_instance(data, sized=False), _int(data, "budget"), _rational(data, "a")),
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
        raise CaseInputError(f"unknown bound {kind!r}: one of {', '.join(makers)}")
    bound = makers[kind]()
    return {"prefactor": exact_value(bound.prefactor), "exponent": exact_value(bound.exponent), "value": float(bound)}


#: The exact family's too_large rule: a case whose draws outnumber this is refused, every other one answered.
EXACT_DRAWS_MAX = 10**6

#: The engines' own limit in the exact family: far above what any case within EXACT_DRAWS_MAX needs.
_ENGINE_LIMIT = 10**15


def exact_draws(n_models: int, n_queries: int, *, synchronized: bool) -> int:
    """The number of draws an exact law ranges over: K! arm priorities times L! per query order.

    One shared order for a synchronized algorithm, K orders otherwise. The
    exact family refuses (``too_large``) a case with more than
    :data:`EXACT_DRAWS_MAX` draws, and answers every other one.

    >>> exact_draws(2, 9, synchronized=True), exact_draws(2, 6, synchronized=False)
    (725760, 1036800)
    """
    return math.factorial(n_models) * math.prod([math.factorial(n_queries)] * (1 if synchronized else n_models))


def _exact(data: Input) -> dict[str, JsonValue]:
    instance = _instance(data, sized=False)
    spec = get_algorithm(str(data.get("algorithm")))
    typed = spec.parse_params(_params(data))
    if isinstance(typed, TopMSize):
        check_m(typed.m, instance.n_models)
    budget = check_budget(_int(data, "budget"), *instance.shape)
    draws = exact_draws(instance.n_models, instance.n_queries, synchronized=spec.synchronized)
    if draws > EXACT_DRAWS_MAX:
        raise TooLargeToEnumerateError(
            f"the exact law over every draw of {spec.name} on {instance.n_models} x {instance.n_queries} ranges over "
            f"{draws} draws, more than the {EXACT_DRAWS_MAX} the exact family answers"
        )
    law = exact_law(instance, spec.name, budget, typed, limit=_ENGINE_LIMIT)
    error = 1 - sum((p for model, p in law.items() if model in instance.best), Fraction(0))
    answer: dict[str, JsonValue] = {
        "error": exact_value(error),
        "law": {str(model): exact_value(p) for model, p in sorted(law.items())},
    }
    if isinstance(typed, TopMSize):  # SAR, SySAR: the law of the top-m set they return
        m = check_m(typed.m, instance.n_models)
        prefixes = topm_distribution(instance, spec.name, budget, m, limit=_ENGINE_LIMIT)
        answer["top_m_law"] = {",".join(map(str, prefix)): exact_value(p) for prefix, p in prefixes.items()}
        answer["top_m_error"] = exact_value(topm_error_probability(instance, spec.name, budget, m, limit=_ENGINE_LIMIT))
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
        raise CaseInputError(f"unknown family {family!r}")
    return solvers[family](data)
