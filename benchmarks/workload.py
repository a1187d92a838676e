"""The fast path's workloads W7 and W107: every dataset, every algorithm, R runs.

W7:   python benchmarks/workload.py --grid table --workers 2
W107: python benchmarks/workload.py --grid paper --a 0.1,1,10,100 --workers 2

For every shipped benchmark (or every matrix of --data DIR, or of $SYSRS_DATA),
each task draws a block of runs once (run r's draw is that of
``sysrs_ref.simulation.simulation_draws(seed, r, r + 1, ...)``, the same as
``simulate`` with the same seed) and runs every algorithm of that kind
(synchronized: SyUS, SySRs, SyUCB-E; unsynchronized: US, SR, UCB-E) on it
at every budget of the grid, with the numpy fast path. Prints one line per
dataset and the wall time; ``--json FILE`` writes every accuracy.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TypedDict

import numpy as np
import numpy.typing as npt

from sysrs_ref import parse_budget
from sysrs_ref.datasets import Dataset, default_datasets, find_datasets
from sysrs_ref.experiments._paper import PAPER_GRID, TABLE_GRID
from sysrs_ref.fast import ScoreTable, run_fast, score_table
from sysrs_ref.simulation import simulation_draws

KINDS = {True: ("syus", "sysrs", "syucbe"), False: ("us", "sr", "ucbe")}
_TABLES: dict[str, ScoreTable] = {}


def _table(dataset: Dataset) -> ScoreTable:
    if dataset.sha256 not in _TABLES:
        _TABLES.clear()  # one matrix at a time per worker keeps memory flat
        _TABLES[dataset.sha256] = score_table(dataset.load())
    return _TABLES[dataset.sha256]


class _Params(TypedDict, total=False):
    """run_fast's parameters here: UCB-E's a, as the decimal text given (none for the other algorithms)."""

    a: str


def _configs(synchronized: bool, a_values: list[str]) -> list[tuple[str, _Params]]:
    out: list[tuple[str, _Params]] = []
    for name in KINDS[synchronized]:
        out += [(name, {"a": a}) for a in a_values] if name.endswith("ucbe") else [(name, {})]
    return out


def _task(
    dataset: Dataset,
    synchronized: bool,
    start: int,
    stop: int,
    budgets: tuple[int, ...],
    seed: int,
    a_values: list[str],
) -> tuple[str, bool, int, list[npt.NDArray[np.int32]], dict[str, float]]:
    table = _table(dataset)
    began = time.perf_counter()
    draws = simulation_draws(seed, start, stop, table.n_models, table.n_queries, synchronized=synchronized)
    seconds = {"draws": time.perf_counter() - began}
    chosen = []
    for name, params in _configs(synchronized, a_values):
        began = time.perf_counter()
        chosen.append(run_fast(table, name, budgets, draws, ranking=False, **params).chosen)
        label = name + ("" if not params else f"(a={params['a']})")
        seconds[label] = time.perf_counter() - began
    return dataset.name, synchronized, start, chosen, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--grid", choices=["table", "paper"], default="table")
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--a", default="1", help="comma-separated exploration values for the UCB family")
    parser.add_argument("--data", help="a folder of score matrices (default: the shipped benchmarks, or $SYSRS_DATA)")
    parser.add_argument("--datasets", default="", help="comma-separated names (default: all)")
    parser.add_argument("--json", default="", help="write every accuracy to this file")
    args = parser.parse_args()
    began = time.perf_counter()
    every = {d.name: d for d in (find_datasets(args.data) if args.data else default_datasets())}
    names = [n for n in args.datasets.split(",") if n] or list(every)
    instances = {name: every[name].load() for name in names}
    grid = TABLE_GRID if args.grid == "table" else PAPER_GRID
    a_values = [a for a in args.a.split(",") if a]
    shapes = {name: instances[name].shape for name in names}
    budgets = {name: tuple(parse_budget(p, *shapes[name]) for p in grid) for name in names}
    tasks = []
    for name in names:
        n_models, n_queries = shapes[name]
        for synchronized in (True, False):
            orders = 1 if synchronized else n_models
            block = max(1, min(args.runs, (256 * 2**20) // (4 * orders * n_queries)))
            for start in range(0, args.runs, block):
                stop = min(args.runs, start + block)
                tasks.append((every[name], synchronized, start, stop, budgets[name], args.seed, a_values))
    chosen: dict[tuple[str, bool], list[list[npt.NDArray[np.int32]]]] = {}
    seconds: dict[str, dict[str, float]] = {}
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        futures = [pool.submit(_task, *task) for task in tasks]
        for future in futures:
            name, synchronized, start, parts, spent = future.result()
            chosen.setdefault((name, synchronized), []).append(parts)
            for label, value in spent.items():
                seconds.setdefault(name, {}).setdefault(label, 0.0)
                seconds[name][label] += value
    wall = time.perf_counter() - began
    results: dict[str, dict[str, list[float]]] = {}
    for name in names:
        best = instances[name].best
        results[name] = {}
        for synchronized in (True, False):
            blocks = chosen[(name, synchronized)]
            for index, (algorithm, params) in enumerate(_configs(synchronized, a_values)):
                picks = np.concatenate([block[index] for block in blocks])
                correct = np.isin(picks, sorted(best))
                label = algorithm + ("" if not params else f"(a={params['a']})")
                results[name][label] = [round(float(x), 4) for x in correct.mean(axis=0)]
        work = ", ".join(f"{k} {v:.1f}s" for k, v in sorted(seconds[name].items()))
        print(f"{name}: {work}", file=sys.stderr)
    print(
        f"{args.grid} grid ({len(grid)} budgets), {len(names)} datasets, R={args.runs}, "
        f"workers={args.workers}: {wall:.1f} s wall"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "grid": list(grid),
                    "runs": args.runs,
                    "seed": args.seed,
                    "wall_seconds": wall,
                    "seconds": seconds,
                    "accuracy": results,
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
