"""Monte Carlo (``python -m sysrs_ref simulate``): R seeded runs of one or several algorithms at a grid of budgets.

:mod:`~sysrs_ref.simulation._engine` is the one Monte-Carlo engine, used by
``simulate`` and by ``reproduce`` alike.
"""

from sysrs_ref.simulation._config import PAPER_SIX, Config, parse_algorithm_list
from sysrs_ref.simulation._engine import AnyTable, CellResult, Job, jobs_of, run_jobs, runs_need
from sysrs_ref.simulation._processes import process_pool
from sysrs_ref.simulation._simulate import SimulationResult, SimulationRow, simulate, simulate_many, simulation_draws

__all__ = [
    "PAPER_SIX",
    "AnyTable",
    "CellResult",
    "Config",
    "Job",
    "SimulationResult",
    "SimulationRow",
    "jobs_of",
    "parse_algorithm_list",
    "process_pool",
    "run_jobs",
    "runs_need",
    "simulate",
    "simulate_many",
    "simulation_draws",
]
