"""Anchor points with the two k-medoids searches: identification error, k-medoids objective, time.

Run: OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/anchor_kmedoids.py [--data DIR] [--seeds 20] [--max-queries 2100] [NAME ...]

``reproduce --subset-selection`` runs anchor points with the alternating
k-medoids search by default, because FasterPAM (the paper's code's search)
takes minutes per call at L = 5000. This measures what that choice changes,
on every shipped benchmark with at most ``--max-queries`` queries: at each of
the Appendix's budgets (5..35%), ``--seeds`` seeds of each search (the same
k-medoids++ starts), the paper's protocol (fitted on the full matrix). It
prints, per matrix and search, the identification error over budgets and
seeds, the mean k-medoids objective relative to FasterPAM's, and the seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from sysrs_ref.datasets import default_datasets, find_datasets
from sysrs_ref.experiments._subset_comparison import SUBSET_GRID
from sysrs_ref.subset.anchor import anchor_points, question_correlations
from sysrs_ref.subset.clustering import kmedoids
from sysrs_ref.subset.methods import anchors_for_budget


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument(
        "--data", type=Path, help="a folder of score matrices (default: the shipped benchmarks, or $SYSRS_DATA)"
    )
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--max-queries", type=int, default=2100)
    args = parser.parse_args()
    every = {d.name: d for d in (find_datasets(args.data) if args.data else default_datasets())}
    instances = {name: dataset.load() for name, dataset in every.items()}
    names = args.names or [n for n, inst in instances.items() if inst.n_queries <= args.max_queries]
    totals = {"fasterpam": [0, 0], "alternate": [0, 0]}
    for name in names:
        instance = instances[name]
        scores = np.asarray(instance.array, dtype=np.float64)
        correlations = question_correlations(scores)
        distances = 1.0 - correlations
        line = [f"{name} ({scores.shape[0]}x{scores.shape[1]})"]
        objectives: dict[str, list[float]] = {"fasterpam": [], "alternate": []}
        for method in ("fasterpam", "alternate"):
            wrong = runs = 0
            seconds = 0.0
            for pct in SUBSET_GRID:
                k = anchors_for_budget(pct, *scores.shape)
                for seed in range(args.seeds):
                    began = time.perf_counter()
                    result = anchor_points(scores, k, seed=seed, kmedoids_method=method, correlations=correlations)
                    seconds += time.perf_counter() - began
                    wrong += not instance.is_best(result.chosen)
                    runs += 1
                    objectives[method].append(kmedoids(distances, k, seed=seed, method=method).objective)
            totals[method][0] += wrong
            totals[method][1] += runs
            line.append(f"{method}: error {100 * wrong / runs:.1f}% ({seconds:.0f} s)")
        ratio = float(np.mean(np.array(objectives["alternate"]) / np.array(objectives["fasterpam"])))
        line.append(f"alternate objective / fasterpam = {ratio:.3f}")
        print(" | ".join(line), flush=True)
    print("all: " + ", ".join(f"{m} error {100 * w / r:.1f}% over {r} runs" for m, (w, r) in totals.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
