"""sysrs-ref: the reference implementation of Synchronized Successive Rejects (SySRs).

Paper: "Cutting LLM Evaluation Costs with SySRs". This package re-exports the
public API; see the README and docs/ for a tour.

The names are imported on first use (PEP 562), so ``import sysrs_ref`` and the command
line start fast; ``from sysrs_ref import simulate`` works as usual.

The API by theme (each module has its page in the API reference):

- Instances, draws and scores: `sysrs_ref.instance`, `sysrs_ref.stochastic`, `sysrs_ref.draws`,
  `sysrs_ref.scores`, `sysrs_ref.synthetic`, `sysrs_ref.topm`
- Budgets and schedules: `sysrs_ref.schedule`
- The algorithms, `select` and `drive`: `sysrs_ref.algorithms`, `sysrs_ref.algorithms.driver`
- Theory (hardness, bounds, exact error probabilities): `sysrs_ref.theory`
- Fast paths: `sysrs_ref.fast`, `sysrs_ref.fast.compiled`, `sysrs_ref.fast.certify`, `sysrs_ref.fast.lrf`
- Reading scores: `sysrs_ref.loaders`, `sysrs_ref.datasets`
- Monte Carlo: `sysrs_ref.simulation`
- The paper's experiments: `sysrs_ref.experiments`
- Subset-selection baselines: `sysrs_ref.subset`
- Live evaluation: `sysrs_ref.live`
- Conformance of other implementations: `sysrs_ref.conformance`
- Errors and JSON values: `sysrs_ref.errors`, `sysrs_ref.json_types`
- The command line (``python -m sysrs_ref``): `sysrs_ref.cli`
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sysrs_ref._lazy import lazy_exports
from sysrs_ref._version import __version__ as __version__
from sysrs_ref.schedule import (
    schedule as schedule,
)  # eager: importing the module sysrs_ref.schedule would shadow the function

#: The public API, written once: each module and the names it gives (imported on first use, PEP 562).
#: ``__all__`` and the lazy map come from it; tests/project/test_public_api.py checks that the imports for type checkers
#: below name the same.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "sysrs_ref.algorithms": (
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
        "sysar",
        "sysrs",
        "syucbe",
        "syus",
        "ucbe",
        "ucbe_lrf",
        "us",
    ),
    "sysrs_ref.datasets": (
        "dataset_names",
        "load_dataset",
    ),
    "sysrs_ref.draws": (
        "Draw",
        "random_draw",
    ),
    "sysrs_ref.errors": (
        "BoundConditionError",
        "BudgetError",
        "DatasetError",
        "DrawError",
        "InstanceError",
        "OutputError",
        "ParameterError",
        "ScoreError",
        "SysrsError",
        "TooLargeError",
        "TooLargeToEnumerateError",
        "UnknownAlgorithmError",
    ),
    "sysrs_ref.instance": ("Instance",),
    "sysrs_ref.loaders": ("load_scores",),
    "sysrs_ref.schedule": (
        "budget_from_percentage",
        "capped_schedule",
        "check_budget",
        "logbar",
        "paper_schedule",
        "parse_budget",
        "parse_percentage",
        "schedule_spend",
    ),
    "sysrs_ref.scores": (
        "ScoreLike",
        "as_score",
    ),
    "sysrs_ref.simulation": (
        "SimulationResult",
        "simulate",
        "simulation_draws",
    ),
    "sysrs_ref.stochastic": (
        "StochasticDraw",
        "StochasticInstance",
        "random_stochastic_draw",
    ),
    "sysrs_ref.synthetic": ("irt_benchmark",),
    "sysrs_ref.theory": (
        "Hardness",
        "hardness",
    ),
}

if TYPE_CHECKING:  # type checkers read these (``X as X``: re-exported); at run time the names load lazily
    from sysrs_ref.algorithms import (
        ALGORITHMS as ALGORITHMS,
        AlgorithmRun as AlgorithmRun,
        AlgorithmSpec as AlgorithmSpec,
        AnyDraw as AnyDraw,
        Batch as Batch,
        LRFDraw as LRFDraw,
        LRFParams as LRFParams,
        Oracle as Oracle,
        Outcome as Outcome,
        ParamValue as ParamValue,
        Request as Request,
        Step as Step,
        drive as drive,
        exploration as exploration,
        get_algorithm as get_algorithm,
        random_lrf_draw as random_lrf_draw,
        sar as sar,
        select as select,
        sr as sr,
        sysar as sysar,
        sysrs as sysrs,
        syucbe as syucbe,
        syus as syus,
        ucbe as ucbe,
        ucbe_lrf as ucbe_lrf,
        us as us,
    )
    from sysrs_ref.datasets import dataset_names as dataset_names, load_dataset as load_dataset
    from sysrs_ref.draws import Draw as Draw, random_draw as random_draw
    from sysrs_ref.errors import (
        BoundConditionError as BoundConditionError,
        BudgetError as BudgetError,
        DatasetError as DatasetError,
        DrawError as DrawError,
        InstanceError as InstanceError,
        OutputError as OutputError,
        ParameterError as ParameterError,
        ScoreError as ScoreError,
        SysrsError as SysrsError,
        TooLargeError as TooLargeError,
        TooLargeToEnumerateError as TooLargeToEnumerateError,
        UnknownAlgorithmError as UnknownAlgorithmError,
    )
    from sysrs_ref.instance import Instance as Instance
    from sysrs_ref.loaders import load_scores as load_scores
    from sysrs_ref.schedule import (
        budget_from_percentage as budget_from_percentage,
        capped_schedule as capped_schedule,
        check_budget as check_budget,
        logbar as logbar,
        paper_schedule as paper_schedule,
        parse_budget as parse_budget,
        parse_percentage as parse_percentage,
        schedule_spend as schedule_spend,
    )
    from sysrs_ref.scores import ScoreLike as ScoreLike, as_score as as_score
    from sysrs_ref.simulation import (
        SimulationResult as SimulationResult,
        simulate as simulate,
        simulation_draws as simulation_draws,
    )
    from sysrs_ref.stochastic import (
        StochasticDraw as StochasticDraw,
        StochasticInstance as StochasticInstance,
        random_stochastic_draw as random_stochastic_draw,
    )
    from sysrs_ref.synthetic import irt_benchmark as irt_benchmark
    from sysrs_ref.theory import Hardness as Hardness, hardness as hardness

__all__ = sorted(["__version__", "schedule", *(name for names in _EXPORTS.values() for name in names)])

if not TYPE_CHECKING:  # type checkers see the imports above instead, so a misspelt name stays an error
    __getattr__, __dir__ = lazy_exports(
        __name__, {name: module for module, names in _EXPORTS.items() for name in names}, __all__
    )
