"""The six best-model identification algorithms, the two top-m ones (SAR, SySAR) and UCB-E-LRF, each a step generator
(docs/contracts.md)."""

from sysrs_ref.algorithms.base import AlgorithmRun, Batch, Outcome, Request, Step
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
    "Outcome",
    "ParamValue",
    "Request",
    "Step",
    "exploration",
    "get_algorithm",
    "random_lrf_draw",
    "sar",
    "sr",
    "syucbe",
    "sysar",
    "sysrs",
    "syus",
    "ucbe",
    "ucbe_lrf",
    "us",
]
