"""sysrs-ref: the reference implementation of Synchronized Successive Rejects (SySRs).

Paper: "Cutting LLM Evaluation Costs with SySRs". This package re-exports the
public API; see the README and docs/ for a tour.

The names are imported on first use (PEP 562), so ``import sysrs_ref`` and the command
line start fast; ``from sysrs_ref import simulate`` works as usual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sysrs_ref._lazy import lazy_exports
from sysrs_ref._version import __version__
from sysrs_ref.schedule import schedule  # eager: importing the module sysrs_ref.schedule would shadow the function

if TYPE_CHECKING:
    from sysrs_ref.algorithms import (
        ALGORITHMS,
        AlgorithmRun,
        AlgorithmSpec,
        AnyDraw,
        Batch,
        LRFDraw,
        LRFParams,
        Oracle,
        Outcome,
        ParamValue,
        Request,
        Step,
        drive,
        exploration,
        get_algorithm,
        random_lrf_draw,
        sar,
        select,
        sr,
        sysar,
        sysrs,
        syucbe,
        syus,
        ucbe,
        ucbe_lrf,
        us,
    )
    from sysrs_ref.datasets import dataset_names, load_dataset
    from sysrs_ref.draws import Draw, random_draw
    from sysrs_ref.errors import (
        BoundConditionError,
        BudgetError,
        DatasetError,
        DrawError,
        InstanceError,
        OutputError,
        ParameterError,
        ScoreError,
        SysrsError,
        TooLargeToEnumerateError,
        UnknownAlgorithmError,
    )
    from sysrs_ref.instance import Instance
    from sysrs_ref.loaders import load_scores
    from sysrs_ref.schedule import (
        budget_from_percentage,
        capped_schedule,
        check_budget,
        logbar,
        paper_schedule,
        parse_budget,
        parse_percentage,
        schedule_spend,
    )
    from sysrs_ref.scores import ScoreLike, as_score
    from sysrs_ref.simulation import SimulationResult, simulate, simulation_draws
    from sysrs_ref.stochastic import StochasticDraw, StochasticInstance, random_stochastic_draw
    from sysrs_ref.synthetic import irt_benchmark
    from sysrs_ref.theory import Hardness, hardness

__all__ = [
    "ALGORITHMS",
    "AlgorithmRun",
    "AlgorithmSpec",
    "AnyDraw",
    "Batch",
    "BoundConditionError",
    "BudgetError",
    "DatasetError",
    "Draw",
    "DrawError",
    "Hardness",
    "Instance",
    "InstanceError",
    "LRFDraw",
    "LRFParams",
    "Oracle",
    "Outcome",
    "OutputError",
    "ParamValue",
    "ParameterError",
    "Request",
    "ScoreError",
    "ScoreLike",
    "SimulationResult",
    "Step",
    "StochasticDraw",
    "StochasticInstance",
    "SysrsError",
    "TooLargeToEnumerateError",
    "UnknownAlgorithmError",
    "__version__",
    "as_score",
    "budget_from_percentage",
    "capped_schedule",
    "check_budget",
    "dataset_names",
    "drive",
    "exploration",
    "get_algorithm",
    "hardness",
    "irt_benchmark",
    "load_dataset",
    "load_scores",
    "logbar",
    "paper_schedule",
    "parse_budget",
    "parse_percentage",
    "random_draw",
    "random_lrf_draw",
    "random_stochastic_draw",
    "schedule",
    "schedule_spend",
    "select",
    "simulate",
    "simulation_draws",
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

#: Where each public name is defined: imported from there on first access.
_LAZY: dict[str, str] = {
    **dict.fromkeys(
        (
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
        ),
        "sysrs_ref.algorithms",
    ),
    **dict.fromkeys(("dataset_names", "load_dataset"), "sysrs_ref.datasets"),
    **dict.fromkeys(("Draw", "random_draw"), "sysrs_ref.draws"),
    **dict.fromkeys(
        (
            "BoundConditionError",
            "BudgetError",
            "DatasetError",
            "DrawError",
            "InstanceError",
            "OutputError",
            "ParameterError",
            "ScoreError",
            "SysrsError",
            "TooLargeToEnumerateError",
            "UnknownAlgorithmError",
        ),
        "sysrs_ref.errors",
    ),
    **dict.fromkeys(("Instance",), "sysrs_ref.instance"),
    **dict.fromkeys(("StochasticDraw", "StochasticInstance", "random_stochastic_draw"), "sysrs_ref.stochastic"),
    **dict.fromkeys(("load_scores",), "sysrs_ref.loaders"),
    **dict.fromkeys(
        (
            "budget_from_percentage",
            "capped_schedule",
            "check_budget",
            "logbar",
            "paper_schedule",
            "parse_budget",
            "parse_percentage",
            "schedule_spend",
        ),
        "sysrs_ref.schedule",
    ),
    **dict.fromkeys(("ScoreLike", "as_score"), "sysrs_ref.scores"),
    **dict.fromkeys(("SimulationResult", "simulate", "simulation_draws"), "sysrs_ref.simulation"),
    **dict.fromkeys(("irt_benchmark",), "sysrs_ref.synthetic"),
    **dict.fromkeys(("Hardness", "hardness"), "sysrs_ref.theory"),
}


if not TYPE_CHECKING:  # type checkers see the imports above instead, so a misspelt name stays an error
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
