"""The distinct values of an array (``sysrs_ref._distinct``): numpy.unique's values, and numpy.ma stays unimported."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from hypothesis import given

from sysrs_ref._distinct import distinct_sorted
from tests.strategies import FloatArray, repeated_floats, score_matrices


@given(repeated_floats)
def test_distinct_sorted_gives_numpy_uniques_values(values: FloatArray) -> None:
    got = distinct_sorted(values)
    assert got.ndim == 1 and got.dtype == values.dtype
    assert np.array_equal(got, np.unique(values))  # -0.0 == 0.0: one value either way


@given(score_matrices())
def test_distinct_sorted_of_a_score_matrix(scores: FloatArray) -> None:
    assert distinct_sorted(scores).tolist() == np.unique(scores).tolist()


def test_reading_a_matrix_does_not_import_numpy_ma() -> None:
    code = (
        "import sys, numpy as np\n"
        "from sysrs_ref import Instance\n"
        "Instance(np.array([[0.0, 1.0, 0.5], [1.0, 1.0, 0.0]]))\n"
        "print('numpy.ma' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
