"""Planting a bug in the real code for a test: a function recompiled from its source with one change.

Shared by the tests that show a proofs_check claim fails, with a counterexample, on broken code.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable

from proofs_check import Status
from proofs_check.registry import Outcome

__all__ = ["assert_fails", "mutated"]


def mutated(function: Callable[..., object], old: str, new: str) -> Callable[..., object]:
    """*function* compiled from its source with *old* replaced by *new* (exactly once), in its own module."""
    source = textwrap.dedent(inspect.getsource(function))
    assert source.count(old) == 1, (function.__name__, old)
    namespace = dict(vars(inspect.getmodule(function)))
    exec(compile(source.replace(old, new), f"<mutated {function.__name__}>", "exec"), namespace)
    result: Callable[..., object] = namespace[function.__name__]
    assert callable(result)
    return result


def assert_fails(outcome: Outcome, *fragments: str) -> None:
    """*outcome* is ``fails`` with a counterexample holding every fragment."""
    assert outcome.status == Status.FAILS, outcome.detail
    assert outcome.counterexample
    for fragment in fragments:
        assert fragment in outcome.counterexample, (fragment, outcome.counterexample)
