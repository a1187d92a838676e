"""Deliberately broken copies of real functions, for the tests that check that a claim of proofs_check fails on them."""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable

from proofs_check import Status
from proofs_check.registry import Outcome


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
    """The claim's outcome is ``fails`` with a counterexample holding every fragment."""
    assert outcome.status == Status.FAILS, outcome.detail
    assert outcome.counterexample
    for fragment in fragments:
        assert fragment in outcome.counterexample, (fragment, outcome.counterexample)
