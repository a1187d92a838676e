"""The six best-model identification algorithms, the two top-m ones (SAR, SySAR) and UCB-E-LRF, each a step generator
(docs/contracts.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sysrs_ref._lazy import lazy_exports

if TYPE_CHECKING:
    from sysrs_ref.algorithms.base import AlgorithmRun, Batch, Outcome, Request, Step
    from sysrs_ref.algorithms.driver import Oracle, drive, select
    from sysrs_ref.algorithms.lrf import LRFDraw, LRFParams, random_lrf_draw, ucbe_lrf
    from sysrs_ref.algorithms.registry import ALGORITHMS, AlgorithmSpec, AnyDraw, ParamValue, get_algorithm
    from sysrs_ref.algorithms.successive_accepts_rejects import sar, sysar
    from sysrs_ref.algorithms.successive_rejects import sr, sysrs
    from sysrs_ref.algorithms.ucb import exploration, syucbe, ucbe
    from sysrs_ref.algorithms.uniform import syus, us

__all__ = [
    "ALGORITHMS",
    "AlgorithmRun",
    "AlgorithmSpec",
    "AnyDraw",
    "Batch",
    "LRFDraw",
    "LRFParams",
    "Oracle",
    "Outcome",
    "ParamValue",
    "Request",
    "Step",
    "drive",
    "exploration",
    "get_algorithm",
    "random_lrf_draw",
    "sar",
    "select",
    "sr",
    "syucbe",
    "sysar",
    "sysrs",
    "syus",
    "ucbe",
    "ucbe_lrf",
    "us",
]

#: Where each public name is defined: imported from there on first access.
_LAZY: dict[str, str] = {
    **dict.fromkeys(("Oracle", "drive", "select"), "sysrs_ref.algorithms.driver"),
    **dict.fromkeys(("AlgorithmRun", "Batch", "Outcome", "Request", "Step"), "sysrs_ref.algorithms.base"),
    **dict.fromkeys(("LRFDraw", "LRFParams", "random_lrf_draw", "ucbe_lrf"), "sysrs_ref.algorithms.lrf"),
    **dict.fromkeys(
        ("ALGORITHMS", "AlgorithmSpec", "AnyDraw", "ParamValue", "get_algorithm"), "sysrs_ref.algorithms.registry"
    ),
    **dict.fromkeys(("sar", "sysar"), "sysrs_ref.algorithms.successive_accepts_rejects"),
    **dict.fromkeys(("sr", "sysrs"), "sysrs_ref.algorithms.successive_rejects"),
    **dict.fromkeys(("exploration", "syucbe", "ucbe"), "sysrs_ref.algorithms.ucb"),
    **dict.fromkeys(("syus", "us"), "sysrs_ref.algorithms.uniform"),
}


if not TYPE_CHECKING:  # type checkers see the imports above instead, so a misspelt name stays an error
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
