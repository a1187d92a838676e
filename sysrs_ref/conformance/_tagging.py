"""The tags of a vectors case: which rules it exercises, found by running the reference (and a float64 model) on it.

A tag is computed, not asserted: ``ties`` where another arm priority changes
the answer, ``exactness`` where the float64 model of
:mod:`sysrs_ref.conformance._float64` answers differently, computing in
doubles throughout or only rounding UCB indices to doubles (and the note says
how), ``capped-schedule`` and ``empty-phase`` from the schedule,
``budget`` at n = K or n = K L, ``sar-m-prime`` where SAR accepted a model
before a later decision, ``tied-arms`` where suboptimal models have equal
means. ``refusal`` and any tag the case maker gave are kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from itertools import pairwise

from sysrs_ref.algorithms.driver import drive
from sysrs_ref.algorithms.registry import get_algorithm
from sysrs_ref.conformance._float64 import float_answer, float_sar_by_sums
from sysrs_ref.conformance.compare import first_difference
from sysrs_ref.conformance.solve import solve
from sysrs_ref.conformance.values import JsonValue, scores_of
from sysrs_ref.draws import Draw
from sysrs_ref.instance import Instance
from sysrs_ref.schedule import paper_schedule, schedule

__all__ = ["TAGS", "case_tags"]

#: Every tag, in the order cases list them, with the rule it exercises.
TAGS: dict[str, str] = {
    "ties": "a tie decided by the arm priority: the tied model earlier in it is chosen, kept and ranked higher, "
    "never the lower row index (contracts §3)",
    "exactness": "exact arithmetic decides: sums, means, UCB indices, logbar(K), percentages or hardness values "
    "computed in float64 give another answer, which the case's note names (contracts §13)",
    "capped-schedule": "the paper's n_{K-1} exceeds L (or n = K L): the schedule is capped at L and raised to the "
    "largest level whose spend fits the budget (contracts §6)",
    "empty-phase": "a phase with no new queries (n_k = n_{k-1}, or n_1 = 0) requests nothing but still decides "
    "(contracts §8)",
    "budget": "a budget at an edge, n = K or n = K L: every evaluation counts and none may be overspent (contracts §5)",
    "sar-m-prime": "SAR decides with m' = m minus the models accepted so far, not with m (contracts §10)",
    "tied-arms": "suboptimal models with equal means: arms lists them by increasing row index, and H3 (H3') "
    "places them in decreasing order of H_{3,i} (H'_{3,i}) (contracts §14)",
    "refusal": 'the input must be refused with the kind the case names: answer {"id", "refused": kind} (contracts §16)',
}

_PHASED = ("sr", "sysrs", "sar", "sysar")


def _int(data: Mapping[str, JsonValue], key: str) -> int:
    value = data.get(key)
    assert isinstance(value, int)
    return value


def _schedule_tags(n_models: int, n_queries: int, budget: int) -> set[str]:
    lengths = schedule(n_models, n_queries, budget)
    tags = set()
    if lengths != paper_schedule(n_models, budget):
        tags.add("capped-schedule")
    if lengths[0] == 0 or any(a == b for a, b in pairwise(lengths)):
        tags.add("empty-phase")
    if budget in (n_models, n_models * n_queries):
        tags.add("budget")
    return tags


def _with_priority(data: Mapping[str, JsonValue], priority: list[int]) -> dict[str, JsonValue]:
    draw = data["draw"]
    assert isinstance(draw, Mapping)
    return {**data, "draw": {**draw, "arm_priority": list(priority)}}


def _algorithm_tags(data: Mapping[str, JsonValue], expected: Mapping[str, JsonValue]) -> set[str]:
    name = str(data["algorithm"])
    n_models, n_queries, budget = _int(data, "K"), _int(data, "L"), _int(data, "budget")
    tags = {"budget"} if budget in (n_models, n_models * n_queries) else set()
    if name in _PHASED:
        tags |= _schedule_tags(n_models, n_queries, budget)
    draw = data["draw"]
    assert isinstance(draw, Mapping)
    priority = [x for x in draw["arm_priority"] if isinstance(x, int)] if isinstance(draw["arm_priority"], list) else []
    if "query_orders" in draw:
        others = (list(range(n_models)), priority[::-1], list(range(n_models))[::-1])
        if any(solve("algorithms", _with_priority(data, other)) != expected for other in others if other != priority):
            tags.add("ties")
    if name in ("sar", "sysar"):
        spec = get_algorithm(name)
        orders = draw["query_orders"]
        assert isinstance(orders, list)
        run_draw = Draw(
            tuple(tuple(int(str(q)) for q in order) for order in orders if isinstance(order, list)), tuple(priority)
        )
        params = data.get("params")
        assert isinstance(params, Mapping)
        trace = drive(
            spec.run(budget, run_draw, spec.parse_params({k: str(v) for k, v in params.items()})),
            Instance(scores_of(data)),
        ).trace
        if any(step.accepted for step in trace[:-1]):
            tags.add("sar-m-prime")
    return tags


def _tied_arms(data: Mapping[str, JsonValue]) -> set[str]:
    means = [sum(row, Fraction(0)) for row in scores_of(data)]
    best = max(means)
    others = [mean for mean in means if mean != best]
    return {"tied-arms"} if len(others) != len(set(others)) else set()


def _float_note(family: str, data: Mapping[str, JsonValue], expected: Mapping[str, JsonValue]) -> str:
    """What the float64 model answers where it differs from *expected*, or "" where it agrees."""
    for indices_only, how in ((False, "In float64 arithmetic"), (True, "With UCB indices rounded to float64")):
        answer = float_answer(family, data, indices_only=indices_only)
        difference = None if answer is None else first_difference(family, expected, answer)
        if answer is not None and difference is not None:
            return f"{how} the answer is {_shown(family, answer)} ({difference}).{_sums_note(family, data, expected)}"
    return ""


def _sums_note(family: str, data: Mapping[str, JsonValue], expected: Mapping[str, JsonValue]) -> str:
    """For SAR and SySAR: whether taking the gaps between float64 sums, not means, is caught too (contracts §10)."""
    answer = float_sar_by_sums(data) if family == "algorithms" else None
    if answer is None:
        return ""
    if first_difference(family, expected, answer) is not None:
        return " With the gaps taken between float64 sums instead of means it answers otherwise too."
    return (
        " With the gaps taken between float64 sums instead of means the answer is the exact one: this case "
        "catches float means only."
    )


def _shown(family: str, answer: Mapping[str, JsonValue]) -> str:
    if family == "algorithms":
        shown = f"chosen {answer['chosen']}, ranking {answer['ranking']}"
    elif family == "schedules":
        shown = f"n_k {answer['n_k']}, paper_n_k {answer['paper_n_k']}"
    elif family == "budgets":
        shown = f"budget {answer['budget']}"
    else:
        shown = f"H3 {answer['H3']!r}"
    return shown


def case_tags(
    family: str, data: Mapping[str, JsonValue], expected: Mapping[str, JsonValue] | None, given: Iterable[str]
) -> tuple[tuple[str, ...], str]:
    """The tags of one case (in :data:`TAGS` order) and the float64 note ("" unless it is tagged ``exactness``)."""
    tags = set(given)
    unknown = tags - set(TAGS)
    if unknown:
        raise AssertionError(f"unknown tags {sorted(unknown)}")
    note = ""
    if expected is None:
        tags.add("refusal")
    else:
        if family == "algorithms":
            tags |= _algorithm_tags(data, expected)
        elif family == "schedules":
            tags |= _schedule_tags(_int(data, "K"), _int(data, "L"), _int(data, "budget"))
        elif family == "hardness":
            tags |= _tied_arms(data)
        note = _float_note(family, data, expected)
        if note:
            tags.add("exactness")
        elif "exactness" in tags:  # a case made to pin exactness must be one: float64 answers otherwise
            raise AssertionError(f"the float64 model agrees with the reference on this {family} case: {dict(data)}")
    return tuple(tag for tag in TAGS if tag in tags), note
