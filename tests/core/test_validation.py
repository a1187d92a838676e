"""Bad scores given as arrays or nested lists are refused with InstanceError naming the problem and where."""

from __future__ import annotations

import re

import numpy as np
import pytest

from sysrs_ref import (
    BudgetError,
    DrawError,
    Instance,
    InstanceError,
    ParameterError,
    ScoreError,
    SysrsError,
    UnknownAlgorithmError,
)

GOOD = [[0.0, 0.5, 1.0], [1.0, 0.25, 0.0]]


def test_every_error_is_a_sysrs_error_and_a_value_error() -> None:
    for error in (BudgetError, DrawError, InstanceError, ParameterError, ScoreError, UnknownAlgorithmError):
        assert issubclass(error, SysrsError)
        assert issubclass(error, ValueError)


# -- Instance from arrays and nested lists ---------------------------------------------


def test_nan_in_array_names_model_and_query() -> None:
    scores = np.zeros((2, 3))
    scores[1, 2] = np.nan
    with pytest.raises(InstanceError, match=r"^score at model 1, query 2 is nan$"):
        Instance(scores)


def test_nan_in_nested_list_names_model_and_query() -> None:
    with pytest.raises(InstanceError, match=r"^score at model 1, query 2 is nan$"):
        Instance([[0, 0, 0], [0, 0, float("nan")]])  # type: ignore[arg-type]


@pytest.mark.parametrize(("value", "shown"), [(np.inf, "inf"), (-np.inf, "-inf")])
def test_infinity_in_array_names_model_and_query(value: float, shown: str) -> None:
    scores = np.zeros((3, 4))
    scores[2, 0] = value
    with pytest.raises(InstanceError, match=rf"^score at model 2, query 0 is {re.escape(shown)}$"):
        Instance(scores)


@pytest.mark.parametrize(("value", "shown"), [(float("inf"), "inf"), (float("-inf"), "-inf")])
def test_infinity_in_nested_list_names_model_and_query(value: float, shown: str) -> None:
    with pytest.raises(InstanceError, match=rf"^score at model 0, query 1 is {re.escape(shown)}$"):
        Instance([[0, value], [1, 1]])  # type: ignore[arg-type]


def test_negative_score_names_value_and_range() -> None:
    with pytest.raises(InstanceError, match=r"score at model 1, query 1 is -0\.5, outside \[0, 1\]"):
        Instance([[0, 0, 0], [0, -0.5, 0]])  # type: ignore[arg-type]


def test_score_above_one_in_array_names_value_and_range() -> None:
    scores = np.zeros((2, 3))
    scores[0, 2] = 1.5
    with pytest.raises(InstanceError, match=r"score at model 0, query 2 is 1\.5, outside \[0, 1\]"):
        Instance(scores)


def test_integer_array_above_one_is_refused() -> None:
    with pytest.raises(InstanceError, match=r"score at model 1, query 0 is 2, outside \[0, 1\]"):
        Instance(np.array([[0, 1], [2, 0]]))


def test_one_dimensional_array_is_refused() -> None:
    with pytest.raises(InstanceError, match=r"2-D matrix.*got 1 dimension\(s\) with shape \(3,\)"):
        Instance(np.array([0.0, 0.5, 1.0]))


def test_one_dimensional_list_is_refused() -> None:
    with pytest.raises(InstanceError, match=r"2-D matrix.*row 0 is float"):
        Instance([0.0, 0.5, 1.0])


def test_three_dimensional_array_is_refused() -> None:
    with pytest.raises(InstanceError, match=r"2-D matrix.*got 3 dimension\(s\) with shape \(2, 2, 2\)"):
        Instance(np.zeros((2, 2, 2)))


@pytest.mark.parametrize("scores", [np.zeros((1, 5)), [[0, 1, 0]]], ids=["array", "list"])
def test_a_single_model_is_refused(scores: object) -> None:
    with pytest.raises(InstanceError, match=r"at least 2 models.*got 1"):
        Instance(scores)  # type: ignore[arg-type]


@pytest.mark.parametrize("scores", [np.zeros((3, 0)), [[], [], []]], ids=["array", "list"])
def test_zero_queries_are_refused(scores: object) -> None:
    with pytest.raises(InstanceError, match=r"at least 1 query.*got 0"):
        Instance(scores)  # type: ignore[arg-type]


def test_no_models_at_all_is_refused() -> None:
    with pytest.raises(InstanceError, match=r"at least 2 models.*got 0"):
        Instance([])


def test_ragged_rows_name_the_short_row() -> None:
    with pytest.raises(InstanceError, match=r"row 2 has 2 scores but row 0 has 3"):
        Instance([[0, 1, 0], [1, 1, 1], [0, 1]])


def test_string_cell_names_model_query_and_value() -> None:
    with pytest.raises(InstanceError, match=r"score at model 1, query 0 is '0\.5', not a number"):
        Instance([[0, 1], ["0.5", 1]])  # type: ignore[arg-type]


def test_whole_string_is_not_a_matrix() -> None:
    with pytest.raises(InstanceError, match=r"2-D matrix.*got str"):
        Instance("0101")


@pytest.mark.parametrize(
    ("array", "dtype_text"),
    [
        (np.array([[0, 1], [1, 0]], dtype=object), "object"),
        (np.array([[0, 1], [1, 0]], dtype=complex), "complex128"),
        (np.array([["0", "1"], ["1", "0"]]), "<U1"),
    ],
    ids=["object", "complex", "str"],
)
def test_non_real_dtype_is_refused(array: np.ndarray, dtype_text: str) -> None:
    with pytest.raises(InstanceError, match=rf"real numbers.*dtype {re.escape(dtype_text)}"):
        Instance(array)


def test_wrong_number_of_model_names() -> None:
    with pytest.raises(InstanceError, match=r"got 3 model names for 2 model"):
        Instance(GOOD, model_names=["a", "b", "c"])


def test_wrong_number_of_query_names() -> None:
    with pytest.raises(InstanceError, match=r"got 2 query names for 3 query"):
        Instance(GOOD, query_names=["q1", "q2"])


def test_duplicate_model_names() -> None:
    with pytest.raises(InstanceError, match=r"model names must be unique"):
        Instance(GOOD, model_names=["a", "a"])
