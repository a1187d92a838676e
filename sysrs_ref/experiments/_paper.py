"""Numbers printed in the paper, kept as data so results can be set beside them.

Source: ``sysrs-paper.tex``, transcribed by hand, values as printed: Table
"dataset-details" (Appendix "Dataset Details"), Table "identification-accuracy"
and Table "perfect-identification" (Section "Main Results"), Table
"dataset-diversity" (Section "Experimental Setup"), and the budget grids of
Appendix "Budget Levels". The paper's experiments average over 15 benchmarks.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

__all__ = [
    "ACCURACY_TABLE",
    "CB_LEVELS",
    "CB_TABLE",
    "DATASET_TABLE",
    "DIVERSITY_TABLE",
    "LRF_GRID",
    "PAPER_GRID",
    "TABLE_GRID",
    "PaperDataset",
]


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
        "legalbench": _row(
            "HELM Lite", "quasi_exact", 2047, 80, 0.70, 0.53, 0.004, 121981.9, 103461.9, 87365.6, 22640.7
        ),
        "math": _row("HELM Lite", "math_equiv_cot", 437, 80, 0.93, 0.56, 0.005, 110595.1, 95484.5, 24766.5, 10776.7),
        "narrative_qa": _row("HELM Lite", "f1", 470, 80, 0.81, 0.70, 0.005, 161559.9, 96239.9, 30047.6, 10993.5),
        "natural_qa": _row("HELM Lite", "f1", 2000, 80, 0.65, 0.52, 0.008, 47914.3, 30948.5, 20759.0, 2400.1),
        "wmt_14": _row("HELM Lite", "bleu_4", 5000, 80, 0.23, 0.16, 0.003, 335590.6, 291296.8, 59667.0, 4234.8),
        "mmlu": _row("HELM Lite", "exact_match", 567, 82, 0.81, 0.61, 0.007, 50487.7, 40186.1, 25193.6, 5005.8),
        "med_qa": _row("HELM Lite", "quasi_exact", 1000, 83, 0.87, 0.59, 0.008, 43343.4, 31250.0, 14777.5, 3911.3),
        "commonsense": _row(
            "HELM Lite", "exact_match", 500, 83, 0.97, 0.82, 0.002, 664061.7, 500000.0, 57096.6, 42664.0
        ),
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

#: UCB-E-LRF's 38 budget levels (Appendix "Budget Grid for UCB-E-LRF"): 1..10 by 1 with 1.25,
#: 1.5, 1.75, 2.5, 3.5, 4.5, 5.5, then 12..20 by 2 and 25..100 by 5. The Appendix lists the
#: sub-integer steps, 6..10, 10..20 by 2 and 25..100 by 5: 33 levels; with 1..5 as well (the
#: integers the sub-integer steps sit between, as in the 107-level grid) they are its 38.
LRF_GRID: tuple[str, ...] = tuple(
    f"{level}%"
    for level in sorted(
        [str(p) for p in range(1, 11)]
        + ["1.25", "1.5", "1.75", "2.5", "3.5", "4.5", "5.5"]
        + [str(p) for p in range(12, 21, 2)]
        + [str(p) for p in range(25, 101, 5)],
        key=float,
    )
)

#: The seven budgets of Table "identification-accuracy".
TABLE_GRID: tuple[str, ...] = ("8%", "12%", "16%", "20%", "25%", "30%", "35%")

#: Table "identification-accuracy": identification accuracy in % averaged over the
#: paper's 15 datasets at each budget of :data:`TABLE_GRID`, "rounded down to nearest
#: 0.1%". Keys are configuration labels (``name`` or ``name(param=value)``; UCB-E-LRF's
#: show its warm-up, ``ucbe-lrf(warmup=5%)``).
ACCURACY_TABLE: MappingProxyType[str, tuple[float, ...]] = MappingProxyType(
    {
        "us": (30.2, 36.7, 42.0, 45.3, 50.5, 54.2, 58.0),
        "syus": (39.1, 46.8, 52.0, 56.5, 61.0, 65.3, 68.7),
        "sr": (72.4, 89.7, 95.9, 98.2, 99.3, 99.8, 99.9),
        "sysrs": (83.5, 95.1, 98.5, 99.6, 99.9, 99.9, 100.0),
        "ucbe(a=0.1)": (61.0, 66.9, 70.7, 73.0, 75.8, 77.7, 80.1),
        "ucbe(a=1)": (80.9, 86.8, 89.9, 95.3, 97.5, 98.0, 98.3),
        "ucbe(a=10)": (51.9, 63.3, 75.5, 85.2, 91.1, 91.8, 93.0),
        "syucbe(a=0.1)": (67.1, 74.0, 78.5, 81.3, 84.2, 86.4, 88.4),
        "syucbe(a=1)": (83.4, 89.4, 92.8, 96.1, 98.0, 98.7, 98.9),
        "syucbe(a=10)": (61.4, 73.3, 82.8, 89.3, 92.1, 93.5, 95.1),
        "ucbe-lrf(warmup=5%)": (47.2, 60.8, 73.2, 81.0, 85.9, 91.7, 93.2),
        "ucbe-lrf(warmup=0%)": (39.8, 46.7, 65.7, 73.3, 80.6, 82.7, 84.5),
    }
)

#: The accuracy levels X of Table "perfect-identification" (in %).
CB_LEVELS: tuple[int, ...] = (90, 95, 100)

#: Table "perfect-identification": the X% Confidence Budget in %, (mean, max) over the
#: paper's 15 datasets for X in :data:`CB_LEVELS`, computed on the 107-level grid
#: (the LRF rows on their 38-level grid, "rounded down to nearest checkpoint").
CB_TABLE: MappingProxyType[str, tuple[tuple[int, int], ...]] = MappingProxyType(
    {
        "us": ((73, 99), (78, 100), (90, 100)),
        "syus": ((59, 98), (66, 100), (83, 100)),
        "sr": ((11, 25), (13, 28), (20, 43)),
        "sysrs": ((8, 17), (10, 19), (17, 35)),
        "ucbe(a=0.1)": ((50, 77), (64, 87), (89, 100)),
        "ucbe(a=1)": ((10, 23), (17, 40), (68, 99)),
        "ucbe(a=10)": ((19, 46), (20, 47), (22, 49)),
        "syucbe(a=0.1)": ((37, 71), (50, 82), (89, 100)),
        "syucbe(a=1)": ((9, 23), (14, 29), (66, 99)),
        "syucbe(a=10)": ((17, 43), (18, 46), (23, 52)),
        "ucbe-lrf(warmup=5%)": ((18, 50), (19, 50), (24, 55)),
        "ucbe-lrf(warmup=0%)": ((19, 50), (21, 50), (26, 60)),
    }
)

#: Table "dataset-diversity": (min, max, mean, std) over the paper's 15 datasets.
DIVERSITY_TABLE: MappingProxyType[str, tuple[float, float, float, float]] = MappingProxyType(
    {
        "L": (437, 12032, 2298, 3145),
        "K": (39, 450, 158, 155),
        "delta2": (0.0020, 0.0455, 0.0143, 0.0138),
        "H2": (1.7e3, 5.0e5, 8.7e4, 1.3e5),
        "H3_prime": (1.0e3, 8.7e4, 2.5e4, 2.4e4),
        "H3": (1.0e3, 4.3e4, 1.0e4, 1.1e4),
        "H3_prime/H2": (0.11, 1.08, 0.61, 0.32),
        "H3/H3_prime": (0.07, 1.04, 0.56, 0.35),
    }
)
