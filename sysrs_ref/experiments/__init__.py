"""The paper's experiments (``python -m sysrs_ref reproduce``): the grid plan, the cache, the tables, the report.

The cells run through the Monte-Carlo engine of :mod:`sysrs_ref.simulation`;
what is here is what is the experiments' own: which cells (:func:`plan`), where
their results live (:class:`Cache`), and what is made of them (tables,
confidence budgets, claims, report, figures, the top-m study, the comparison
with the subset-selection baselines, the noise study, the paper's printed numbers).
"""

from sysrs_ref.experiments._cache import CACHE_FORMAT, Cache, Point, TopMPoint
from sysrs_ref.experiments._dataset_table import COLUMNS, TableRow, dataset_table, table_row
from sysrs_ref.experiments._metrics import confidence_budget, wilson_interval
from sysrs_ref.experiments._noise_report import write_noise_outputs
from sysrs_ref.experiments._noise_study import (
    NoiseSettings,
    NoiseStudy,
    flip_instance,
    noise_case_count,
    run_noise_study,
)
from sysrs_ref.experiments._paper import (
    ACCURACY_TABLE,
    CB_TABLE,
    DATASET_TABLE,
    DIVERSITY_TABLE,
    LRF_GRID,
    PAPER_GRID,
    TABLE_GRID,
    PaperDataset,
)
from sysrs_ref.experiments._plan import (
    GRIDS,
    TOPM_GRID,
    Config,
    cells,
    lrf_configs,
    paper_configs,
    parse_configs,
    parse_grid,
    plan,
    run_cells,
)
from sysrs_ref.experiments._reproduce import ReproduceOutcome, reproduce
from sysrs_ref.experiments._subset_comparison import SUBSET_GRID, full_matrix_comparison, held_out_comparison
from sysrs_ref.experiments._subset_study import SubsetSettings, run_subset_study

__all__ = [
    "ACCURACY_TABLE",
    "CACHE_FORMAT",
    "CB_TABLE",
    "COLUMNS",
    "DATASET_TABLE",
    "DIVERSITY_TABLE",
    "GRIDS",
    "LRF_GRID",
    "NoiseSettings",
    "NoiseStudy",
    "PAPER_GRID",
    "SUBSET_GRID",
    "TABLE_GRID",
    "TOPM_GRID",
    "Cache",
    "Config",
    "PaperDataset",
    "Point",
    "ReproduceOutcome",
    "SubsetSettings",
    "TableRow",
    "TopMPoint",
    "cells",
    "confidence_budget",
    "dataset_table",
    "flip_instance",
    "full_matrix_comparison",
    "held_out_comparison",
    "lrf_configs",
    "noise_case_count",
    "paper_configs",
    "parse_configs",
    "parse_grid",
    "plan",
    "reproduce",
    "run_cells",
    "run_noise_study",
    "run_subset_study",
    "table_row",
    "wilson_interval",
    "write_noise_outputs",
]
