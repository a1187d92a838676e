"""Bad budgets, draws, algorithm names, parameters and oracle scores are refused with specific errors."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import sysrs_ref
from sysrs_ref import (
    BudgetError,
    Draw,
    DrawError,
    Instance,
    ParameterError,
    ScoreError,
    UnknownAlgorithmError,
    budget_from_percentage,
    check_budget,
    get_algorithm,
    parse_budget,
)

# -- budgets ------------------------------------------------------------------------------


@pytest.mark.parametrize("budget", ["3", 3])
def test_budget_below_k(budget: str | int) -> None:
    with pytest.raises(BudgetError, match=r"at least the number of models \(K=4\), got 3"):
        parse_budget(budget, 4, 30)


def test_check_budget_below_k() -> None:
    with pytest.raises(BudgetError, match=r"at least the number of models \(K=5\), got 4"):
        check_budget(4, 5, 10)


def test_percentage_budget_below_k() -> None:
    with pytest.raises(BudgetError, match=r"1% of 4 x 30 is 1 evaluation, below the number of models \(K=4\)"):
        parse_budget("1%", 4, 30)


@pytest.mark.parametrize("budget", ["121", 121])
def test_budget_above_k_times_l(budget: str | int) -> None:
    with pytest.raises(BudgetError, match=r"at most K\*L = 120 .*got 121"):
        parse_budget(budget, 4, 30)


@pytest.mark.parametrize("text", ["12.5", "-5", "", "twelve", "++5000", "\u00b2", "1_0", "\uff11\uff12", "1e3"])
def test_non_integer_budget_string(text: str) -> None:
    with pytest.raises(BudgetError, match=rf"budget {re.escape(repr(text))} is neither an integer .* nor a percentage"):
        parse_budget(text, 4, 30)


@pytest.mark.parametrize("text", ["0%", "101%", "-5%"])
def test_percentage_out_of_range(text: str) -> None:
    with pytest.raises(BudgetError, match=rf"percentage must be in \(0%, 100%\], got {re.escape(repr(text))}"):
        parse_budget(text, 80, 1000)


def test_percentage_zero_via_budget_from_percentage() -> None:
    with pytest.raises(BudgetError, match=r"percentage must be in \(0%, 100%\]"):
        budget_from_percentage("0%", 80, 1000)


def test_percentage_not_a_number() -> None:
    with pytest.raises(BudgetError, match=r"percentage 'abc%' is not a number"):
        parse_budget("abc%", 80, 1000)


@pytest.mark.parametrize("text", ["nan%", "inf%", "1_0%", "\uff11%", "++5%", "5 %%"])
def test_percentage_outside_the_decimal_syntax(text: str) -> None:
    """Budgets take ASCII decimals only (docs/contracts.md, "Budgets"): every other spelling is refused plainly."""
    with pytest.raises(BudgetError, match=rf"percentage {re.escape(repr(text))} is not a number"):
        parse_budget(text, 80, 1000)


@pytest.mark.parametrize("text", ["1e1%", "2.5E-1%", "+1e+1%"])
def test_percentage_with_an_exponent_is_refused_as_such(text: str) -> None:
    """An exponent is outside the decimal syntax too, and the message names it, even when the value is in range."""
    with pytest.raises(BudgetError, match=rf"percentage {re.escape(repr(text))} has an exponent; write it in plain"):
        parse_budget(text, 80, 1000)


def test_bool_budget_is_refused() -> None:
    with pytest.raises(BudgetError, match=r"budget must be an integer or a percentage.*got True"):
        parse_budget(True, 4, 30)


def test_bool_budget_is_refused_by_check_budget() -> None:
    with pytest.raises(BudgetError, match=r"budget must be an integer number of evaluations, got True"):
        check_budget(True, 4, 30)


def test_float_budget_is_refused() -> None:
    with pytest.raises(BudgetError, match=r"got 12\.0"):
        parse_budget(12.0, 4, 30)  # type: ignore[arg-type]


def test_valid_budgets_are_accepted() -> None:
    assert parse_budget("12%", 80, 1000) == 9600
    assert parse_budget("1.25%", 80, 1000) == 1000
    assert parse_budget(" 5000 ", 80, 1000) == 5000
    assert parse_budget(4, 4, 30) == 4
    assert parse_budget("100%", 4, 30) == 120


# -- draws ----------------------------------------------------------------------------------


def test_priority_not_a_permutation() -> None:
    with pytest.raises(DrawError, match=r"arm_priority must be a permutation of the models 0\.\.2, got \[0, 2, 2\]"):
        Draw(((0, 1, 2),), (0, 2, 2))


def test_priority_of_one_model() -> None:
    with pytest.raises(DrawError, match=r"arm_priority must order at least 2 models, got 1"):
        Draw(((0, 1),), (0,))


def test_priority_with_non_integers() -> None:
    with pytest.raises(DrawError, match=r"arm_priority must hold integers, got 1\.0"):
        Draw(((0, 1),), (0, 1.0))  # type: ignore[arg-type]


def test_order_not_a_permutation() -> None:
    with pytest.raises(DrawError, match=r"query order 1 must be a permutation of the queries 0\.\.2"):
        Draw(((0, 1, 2), (0, 0, 2)), (1, 0))


def test_order_of_wrong_length() -> None:
    with pytest.raises(DrawError, match=r"query order 1 must be a permutation of the queries 0\.\.2"):
        Draw(((0, 1, 2), (1, 0)), (1, 0))


def test_empty_order() -> None:
    with pytest.raises(DrawError, match=r"query orders must hold at least 1 query"):
        Draw(((),), (0, 1))


def test_wrong_number_of_orders() -> None:
    with pytest.raises(DrawError, match=r"1 query order \(synchronized\) or one per model \(3\), got 2"):
        Draw(((0, 1), (1, 0)), (0, 1, 2))


def test_draw_for_a_different_instance() -> None:
    draw = Draw(((0, 1, 2),), (0, 1))
    with pytest.raises(DrawError, match=r"the draw is for 2 models x 3 queries, the instance has 3 x 3"):
        draw.require(3, 3, synchronized=True, who="sysrs")


def test_select_with_draw_for_a_different_instance() -> None:
    draw = Draw(((0, 1, 2),), (0, 1))
    instance = Instance([[1, 0], [0, 1], [1, 1]])
    with pytest.raises(DrawError, match=r"the draw is for 2 models x 3 queries, the instance has 3 x 2"):
        sysrs_ref.select(instance, 4, "sysrs", draw=draw)


@pytest.mark.parametrize("name", ["us", "sr", "ucbe"])
def test_synchronized_draw_given_to_unsynchronized_algorithm(name: str) -> None:
    run = get_algorithm(name).start(6, Draw(((0, 1, 2),), (0, 1)))
    with pytest.raises(DrawError, match=rf"{name} needs one query order per model \(2\); this draw is synchronized"):
        next(run)


@pytest.mark.parametrize("name", ["syus", "sysrs", "syucbe"])
def test_unsynchronized_draw_given_to_synchronized_algorithm(name: str) -> None:
    run = get_algorithm(name).start(6, Draw(((0, 1, 2), (2, 1, 0)), (0, 1)))
    with pytest.raises(DrawError, match=rf"{name} needs a synchronized draw .*this draw has 2 orders"):
        next(run)


def test_direct_generator_us_with_synchronized_draw() -> None:
    run = sysrs_ref.us(4, Draw(((0, 1, 2),), (1, 0)))
    with pytest.raises(DrawError, match=r"us needs one query order per model"):
        next(run)


def test_algorithm_with_budget_out_of_range() -> None:
    run = sysrs_ref.sysrs(7, Draw(((0, 1, 2),), (0, 1)))
    with pytest.raises(BudgetError, match=r"at most K\*L = 6 .*got 7"):
        next(run)


# -- algorithms and parameters ----------------------------------------------------------------


def test_unknown_algorithm_lists_the_choices() -> None:
    with pytest.raises(UnknownAlgorithmError, match=r"unknown algorithm 'nope'; choose one of .*sysrs"):
        get_algorithm("nope")


def test_unknown_parameter_for_hyperparameter_free_algorithm() -> None:
    draw = Draw(((0, 1, 2),), (0, 1))
    with pytest.raises(ParameterError, match=r"sysrs has no parameter 'a' \(it takes no parameters\)"):
        get_algorithm("sysrs").start(6, draw, a=1)


def test_unknown_parameter_for_ucbe() -> None:
    draw = Draw(((0, 1, 2), (2, 1, 0)), (0, 1))
    with pytest.raises(ParameterError, match=r"ucbe has no parameter 'b' \(it takes a\)"):
        get_algorithm("ucbe").start(6, draw, b=1)


def test_check_params_unknown() -> None:
    with pytest.raises(ParameterError, match=r"syucbe has no parameter 'alpha'"):
        get_algorithm("syucbe").check_params({"alpha": 1})


@pytest.mark.parametrize("a", [0, -1, "0", "-0.5", Fraction(0)])
def test_exploration_not_positive(a: object) -> None:
    draw = Draw(((0, 1, 2), (2, 1, 0)), (0, 1))
    with pytest.raises(ParameterError, match=r"exploration parameter a must be positive"):
        get_algorithm("ucbe").start(6, draw, a=a)  # type: ignore[arg-type]


@pytest.mark.parametrize("a", ["nan", float("nan")])
def test_exploration_nan(a: object) -> None:
    draw = Draw(((0, 1, 2),), (0, 1))
    with pytest.raises(ParameterError, match=r"exploration parameter a is nan"):
        get_algorithm("syucbe").start(6, draw, a=a)  # type: ignore[arg-type]


def test_exploration_not_a_number() -> None:
    draw = Draw(((0, 1, 2),), (0, 1))
    with pytest.raises(ParameterError, match=r"exploration parameter a is 'abc', not a number"):
        get_algorithm("syucbe").start(6, draw, a="abc")


@pytest.mark.parametrize("a", [float("inf"), "inf"])
def test_exploration_infinite(a: object) -> None:
    with pytest.raises(ParameterError, match=r"exploration parameter a is inf"):
        sysrs_ref.exploration(a)  # type: ignore[arg-type]


def test_exploration_bool() -> None:
    with pytest.raises(ParameterError, match=r"exploration parameter a must be a positive number, got True"):
        sysrs_ref.exploration(True)


def test_exploration_accepts_exact_decimal() -> None:
    assert sysrs_ref.exploration("0.1") == Fraction(1, 10)


# -- scores sent into a running generator ---------------------------------------------------------


def _first_batch() -> tuple[object, tuple[sysrs_ref.Request, ...]]:
    run = sysrs_ref.sysrs(6, Draw(((2, 0, 1),), (0, 1)))
    batch = next(run)
    assert len(batch) == 6
    return run, batch


def test_wrong_number_of_scores() -> None:
    run, _ = _first_batch()
    with pytest.raises(ScoreError, match=r"got 1 score for a batch of 6 requests"):
        run.send([1])  # type: ignore[attr-defined]


def test_too_many_scores() -> None:
    run, _ = _first_batch()
    with pytest.raises(ScoreError, match=r"got 7 scores for a batch of 6 requests"):
        run.send([1] * 7)  # type: ignore[attr-defined]


def test_nan_score_names_model_and_query() -> None:
    run, batch = _first_batch()
    scores: list[object] = [1] * 6
    scores[1] = float("nan")
    request = batch[1]
    with pytest.raises(ScoreError, match=rf"^model {request.model}, query {request.query}: score is nan$"):
        run.send(scores)  # type: ignore[attr-defined]


def test_score_above_one_names_model_and_query() -> None:
    run, batch = _first_batch()
    scores: list[object] = [0] * 6
    scores[4] = 1.5
    request = batch[4]
    with pytest.raises(
        ScoreError, match=rf"^model {request.model}, query {request.query}: score is 1\.5, outside \[0, 1\]$"
    ):
        run.send(scores)  # type: ignore[attr-defined]


def test_string_score_names_model_and_query() -> None:
    run, batch = _first_batch()
    scores: list[object] = [0] * 6
    scores[0] = "0.5"
    request = batch[0]
    with pytest.raises(
        ScoreError, match=rf"model {request.model}, query {request.query}: score is '0\.5', not a number"
    ):
        run.send(scores)  # type: ignore[attr-defined]


def test_negative_score_into_ucbe() -> None:
    run = sysrs_ref.ucbe(4, Draw(((0, 1, 2), (2, 1, 0)), (0, 1)))
    batch = next(run)
    assert [tuple(r) for r in batch] == [(0, 0), (1, 2)]
    with pytest.raises(ScoreError, match=r"model 1, query 2: score is -0\.1, outside \[0, 1\]"):
        run.send([1, -0.1])


def test_resuming_without_scores() -> None:
    run, _ = _first_batch()
    with pytest.raises(ScoreError, match=r"resumed without scores.*generator\.send\(scores\)"):
        next(run)  # type: ignore[call-overload]


def test_send_none_is_resuming_without_scores() -> None:
    run, _ = _first_batch()
    with pytest.raises(ScoreError, match=r"resumed without scores"):
        run.send(None)  # type: ignore[attr-defined]


def test_bare_number_instead_of_a_sequence_of_scores() -> None:
    # PACKAGE BUG (left failing on purpose): sending one bare number instead of a
    # sequence of scores raises TypeError("object of type 'float' has no len()")
    # from accept_scores, not a ScoreError naming the mistake.
    run, _ = _first_batch()
    with pytest.raises(ScoreError, match=r"scores"):
        run.send(0.5)  # type: ignore[attr-defined]


@settings(max_examples=300)
@given(
    st.integers(min_value=-3, max_value=160),
    st.integers(min_value=-1, max_value=12),
    st.integers(min_value=-1, max_value=12),
    st.sampled_from([int, np.int64, bool]),
)
def test_check_budget_answers_plain_ints_as_any_integer(budget: int, n_models: int, n_queries: int, kind: type) -> None:
    """Plain ints take a shortcut through check_budget: its answer (the budget, or the error and its message) is the one
    a numpy integer of the same value gets, and a bool is refused whatever its value."""

    def outcome(value: object, k: object, l: object) -> object:
        try:
            return check_budget(value, k, l)  # type: ignore[arg-type]
        except BudgetError as error:
            return str(error)

    plain = outcome(budget, n_models, n_queries)
    if kind is bool:
        assert isinstance(outcome(bool(budget % 2), n_models, n_queries), str)
        return
    numpy = outcome(np.int64(budget), np.int64(n_models), np.int64(n_queries))
    assert plain == (re.sub(r"np\.int64\((-?[0-9]+)\)", r"\1", numpy) if isinstance(numpy, str) else numpy)
    assert type(plain) is (
        int if n_models > 0 and n_queries > 0 and n_models <= budget <= n_models * n_queries else str
    )
