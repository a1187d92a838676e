"""Numbers printed in the paper, kept as data so results can be set beside them.

Source: ``sysrs-paper.tex``, Table "dataset-details" (Appendix "Dataset
Details"), transcribed by hand. Values are as printed (rounded to the digits
shown).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["DATASET_TABLE", "PAPER_GRID", "TABLE_GRID", "PaperDataset"]


@dataclass(frozen=True)
class PaperDataset:
    """One row of the paper's Table "dataset-details"."""

    source: str
    metric: str
    tasks: int
    models: int
    best_acc: float
    mean_acc: float
    delta2: float
    h1: float
    h2: float
    h3_prime: float
    h3: float


def _row(source: str, metric: str, tasks: int, models: int, *values: float) -> PaperDataset:
    return PaperDataset(source, metric, tasks, models, *values)


DATASET_TABLE = MappingProxyType(
    {
        "arc_challenge": _row("OpenLLM", "acc_norm", 1172, 218, 0.75, 0.52, 0.019, 17568.7, 5676.0, 4426.2, 3457.4),
        "bbh": _row("OpenLLM", "acc_norm", 5761, 39, 0.65, 0.49, 0.046, 4048.8, 1806.6, 1763.8, 1599.3),
        "gpqa": _row("OpenLLM", "acc_norm", 1192, 450, 0.44, 0.29, 0.025, 32672.1, 11561.7, 11740.8, 12197.4),
        "ifeval": _row("OpenLLM", "prompt_strict_acc", 541, 450, 0.88, 0.33, 0.041, 6213.4, 1659.8, 996.0, 960.4),
        "mmlu_pro": _row("OpenLLM", "acc", 12032, 48, 0.53, 0.31, 0.012, 16525.3, 14359.2, 14432.0, 14727.2),
        "musr": _row("OpenLLM", "acc_norm", 756, 450, 0.54, 0.40, 0.024, 41804.6, 12390.7, 13416.9, 13749.2),
        "gsm": _row("HELM Lite", "final_num_exact", 1000, 80, 0.96, 0.67, 0.007, 79251.0, 61224.5, 11376.0, 3861.3),
        "legalbench": _row("HELM Lite", "quasi_exact", 2047, 80, 0.70, 0.53, 0.004, 121981.9, 103461.9, 87365.6, 22640.7),
        "math": _row("HELM Lite", "math_equiv_cot", 437, 80, 0.93, 0.56, 0.005, 110595.1, 95484.5, 24766.5, 10776.7),
        "narrative_qa": _row("HELM Lite", "f1", 470, 80, 0.81, 0.70, 0.005, 161559.9, 96239.9, 30047.6, 10993.5),
        "natural_qa": _row("HELM Lite", "f1", 2000, 80, 0.65, 0.52, 0.008, 47914.3, 30948.5, 20759.0, 2400.1),
        "wmt_14": _row("HELM Lite", "bleu_4", 5000, 80, 0.23, 0.16, 0.003, 335590.6, 291296.8, 59667.0, 4234.8),
        "mmlu": _row("HELM Lite", "exact_match", 567, 82, 0.81, 0.61, 0.007, 50487.7, 40186.1, 25193.6, 5005.8),
        "med_qa": _row("HELM Lite", "quasi_exact", 1000, 83, 0.87, 0.59, 0.008, 43343.4, 31250.0, 14777.5, 3911.3),
        "commonsense": _row("HELM Lite", "exact_match", 500, 83, 0.97, 0.82, 0.002, 664061.7, 500000.0, 57096.6, 42664.0),
    }
)
"""The paper's Table "dataset-details", by dataset name (15 benchmarks)."""

#: The paper's 107 budget levels (Appendix "Budget Levels"): every integer
#: percentage 1..100 plus 1.25, 1.5, 1.75, 2.5, 3.5, 4.5 and 5.5, ascending.
PAPER_GRID: tuple[str, ...] = tuple(
    f"{level}%"
    for level in sorted(
        [str(p) for p in range(1, 101)] + ["1.25", "1.5", "1.75", "2.5", "3.5", "4.5", "5.5"],
        key=float,
    )
)

#: The seven budgets of Table "identification-accuracy".
TABLE_GRID: tuple[str, ...] = ("8%", "12%", "16%", "20%", "25%", "30%", "35%")
