"""Typed keyword parameters that tests pass with ``**`` to ``select``, ``simulate`` and the exact engine.

A plain ``dict[str, X]`` unpacked into ``select(..., **params)`` could, as far as mypy knows, also fill
``draw`` or ``seed``; these TypedDicts name their keys, so mypy checks them against ``**params`` only.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TypedDict


class ExplorationParam(TypedDict, total=False):
    """The exploration parameter a of the UCB family, when the algorithm has one."""

    a: Fraction


class AlgorithmParamValues(ExplorationParam, total=False):
    """a (the UCB family) and m (SAR and SySAR), when the algorithm has them."""

    m: Fraction


class LRFSettings(TypedDict, total=False):
    """Some of UCB-E-LRF's settings, as decimal text (small and fast ones in tests)."""

    batch: str
    members: str
    sweeps: str
    warmup: str
