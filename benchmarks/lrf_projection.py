"""How long the paper's UCB-E-LRF experiment takes here: fit times measured, whole runs projected.

Run: .venv/bin/python benchmarks/lrf_projection.py [--data DIR] [--json FILE]
     (the numpy fit instead of the compiled one: SYSRS_REF_COMPILED=0 OPENBLAS_NUM_THREADS=1 in front)

A run of UCB-E-LRF is its fits: one per step of ``batch`` evaluations from
the warm-up to the run's largest budget, plus one final fit per checkpoint
of the grid (:func:`sysrs_ref.fast.lrf.run_lrf`). A fit's cost depends on the
matrix and on the observed fraction f, so this script times the fit runs use
(:func:`~sysrs_ref.fast.lrf.fit_ensemble_compiled`, paper settings: the
compiled fit, or numpy's where it is switched off) in CPU seconds of this
process (on a machine shared with other jobs, wall time measures the others
too; one worker per core makes CPU time a run's wall time) at a few f
on each matrix, integrates the fitted time over f for the fits a run makes
(trapezoids), and reports, per matrix and variant (5% warm-up, none), the
projected seconds of one run to 35% and to 100%, then the paper's experiment:
the 38-level grid (to 100%), 100 runs, both variants, on every matrix, with
``--workers`` processes (single-threaded BLAS each, perfectly shared).
Only the fits are counted: the control loop between them (the index, the
batch) adds some 10 to 25% on a whole run, so check the projections to 35%
against measured runs (``simulate``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from sysrs_ref.algorithms.lrf import LRFParams
from sysrs_ref.datasets import default_datasets, find_datasets
from sysrs_ref.experiments._paper import LRF_GRID
from sysrs_ref.fast import compiled
from sysrs_ref.fast.lrf import fit_ensemble_compiled

FRACTIONS = (0.01, 0.05, 0.2, 0.35, 0.6, 0.99)
RUNS = 100


def fit_seconds(matrix: np.ndarray, fraction: float, rng: np.random.Generator) -> float:
    """The best of two fits' CPU time with a random *fraction* of the cells observed."""
    observed = matrix.copy()
    observed[rng.random(matrix.shape) >= fraction] = np.nan
    best = float("inf")
    for fit in range(2):
        began = time.process_time()
        fit_ensemble_compiled(observed, 12345, fit, LRFParams())
        best = min(best, time.process_time() - began)
    return best


def run_seconds(cells: int, warmup: float, stop: float, times: dict[float, float], batch: int = 32) -> float:
    """Projected seconds of one run from the warm-up to *stop* (fractions of K L): sum of its fits' times."""
    grid = np.array(sorted(times))
    values = np.array([times[f] for f in grid])
    steps = np.arange(warmup, stop, batch / cells)  # the observed fraction at each step's fit
    finals = [float(p.rstrip("%")) / 100 for p in LRF_GRID if float(p.rstrip("%")) / 100 <= stop]
    return float(np.interp(steps, grid, values).sum() + np.interp(finals, grid, values).sum())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", help="a folder of score matrices (default: the shipped benchmarks, or $SYSRS_DATA)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    datasets = find_datasets(args.data) if args.data else default_datasets()
    rng = np.random.default_rng(0)
    rows = []
    total = total35 = 0.0
    print(f"fit: {'compiled' if compiled.active() else 'numpy'}")
    print(
        f"{'dataset':<14}{'K x L':>12}  fit s at f = {', '.join(map(str, FRACTIONS))}   run to 35% / 100% (5% warm-up; none)"
    )
    for dataset in sorted(datasets, key=lambda d: d.name):
        name = dataset.name
        matrix = np.asarray(dataset.load().array, dtype=np.float64)
        cells = matrix.size
        times = {f: fit_seconds(matrix, f, rng) for f in FRACTIONS}
        runs = {
            (warmup, stop): run_seconds(cells, warmup, stop, times) for warmup in (0.05, 0.0) for stop in (0.35, 1.0)
        }
        total += RUNS * (runs[0.05, 1.0] + runs[0.0, 1.0])
        total35 += RUNS * (runs[0.05, 0.35] + runs[0.0, 0.35])
        rows.append(
            {
                "dataset": name,
                "K": matrix.shape[0],
                "L": matrix.shape[1],
                "fit_seconds": {str(f): t for f, t in times.items()},
                "run_seconds": {f"warmup{int(w * 100)}_to{int(s * 100)}": v for (w, s), v in runs.items()},
            }
        )
        print(
            f"{name:<14}{f'{matrix.shape[0]} x {matrix.shape[1]}':>12}  "
            f"{' '.join(f'{t:.3f}' for t in times.values())}   "
            f"{runs[0.05, 0.35]:.0f} / {runs[0.05, 1.0]:.0f} s; {runs[0.0, 0.35]:.0f} / {runs[0.0, 1.0]:.0f} s"
        )
        sys.stdout.flush()
    wall = total / args.workers
    print(
        f"the paper's LRF accuracy table (to 35%, {RUNS} runs, both variants, {len(rows)} matrices): "
        f"{total35 / 3600:.1f} CPU hours, {total35 / args.workers / 3600:.1f} h wall with {args.workers} workers"
    )
    print(
        f"the paper's LRF experiment (38 levels to 100%, {RUNS} runs, both variants, {len(rows)} matrices): "
        f"{total / 3600:.1f} CPU hours, {wall / 3600:.1f} h wall with {args.workers} workers"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {"rows": rows, "cpu_seconds": total, "wall_seconds": wall, "cpu_seconds_to_35": total35}, indent=1
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
