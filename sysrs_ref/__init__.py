"""sysrs-ref: the reference implementation of Synchronized Successive Rejects (SySRs).

Paper: "Cutting LLM Evaluation Costs with SySRs". This package re-exports the
public API; see the README and docs/ for a tour.
"""

from sysrs_ref._version import __version__
from sysrs_ref.algorithms import (
    ALGORITHMS,
    AlgorithmRun,
    AlgorithmSpec,
    AnyDraw,
    Batch,
    LRFDraw,
    LRFParams,
    Outcome,
    ParamValue,
    Request,
    Step,
    exploration,
    get_algorithm,
    random_lrf_draw,
    sar,
    sr,
    syucbe,
    sysar,
    sysrs,
    syus,
    ucbe,
    ucbe_lrf,
    us,
)
from sysrs_ref.datasets import dataset_names, load_dataset
from sysrs_ref.draws import Draw, random_draw
from sysrs_ref.driver import Oracle, drive, select
from sysrs_ref.errors import (
    BoundConditionError,
    BudgetError,
    DatasetError,
    DrawError,
    InstanceError,
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
    schedule,
    schedule_spend,
)
from sysrs_ref.scores import ScoreLike, as_score
from sysrs_ref.simulation import SimulationResult, simulate, simulation_draws
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
    "ParamValue",
    "ParameterError",
    "Request",
    "ScoreError",
    "ScoreLike",
    "SimulationResult",
    "Step",
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
