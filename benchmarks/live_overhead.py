"""What a live session costs beyond the evaluations themselves: logging, fsyncs, replay.

Run: OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/live_overhead.py [--data DIR] [--budget 35%] [NAME ...]

For each benchmark (default: gsm and wmt_14, the largest HELM one), a
SySRs session is driven to the end by :func:`sysrs_ref.live.run` with an
evaluator that looks the scores up (so the time is the session's own),
then reopened read-only (a full replay of the log). It prints the
evaluations, the calls, the seconds of each, the log's size, the seconds of
``select`` on the same matrix, and whether the outcome is the same.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from sysrs_ref import Instance, select
from sysrs_ref.datasets import load_dataset, resolve_scores
from sysrs_ref.live import Session, run


def measure(matrix: np.ndarray, budget: str) -> str:
    """One session on *matrix* at *budget*: a line of numbers."""
    n_models, n_queries = matrix.shape
    models, queries = [f"m{i}" for i in range(n_models)], [f"q{j}" for j in range(n_queries)]

    def lookup(model: str, asked: Sequence[str]) -> list[float]:
        return [float(matrix[int(model[1:]), int(query[1:])]) for query in asked]

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "run"
        began = time.perf_counter()
        with Session.create(folder, models, queries, budget=budget, seed=0) as session:
            report = run(session, lookup, workers=2)
        live = time.perf_counter() - began
        began = time.perf_counter()
        with Session.open(folder, readonly=True) as again:
            assert again.chosen == report.chosen
        replay = time.perf_counter() - began
        size = (folder / "log.jsonl").stat().st_size
    began = time.perf_counter()
    reference = select(Instance(matrix), budget, "sysrs", seed=0)
    plain = time.perf_counter() - began
    same = (reference.chosen, reference.ranking) == (report.outcome.chosen, report.outcome.ranking)
    return (
        f"{n_models}x{n_queries} at {budget}: {report.outcome.spent} evaluations in {report.calls} calls; "
        f"live {live:.1f} s, reopen {replay:.1f} s, log {size / 1e6:.1f} MB; select {plain:.1f} s; same outcome: {same}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=["gsm", "wmt_14"])
    parser.add_argument("--data", type=Path, help="a folder of score matrices (default: the shipped benchmarks)")
    parser.add_argument("--budget", default="35%")
    args = parser.parse_args()
    for name in args.names:
        instance = resolve_scores(args.data / f"{name}.npy") if args.data else load_dataset(name)
        matrix = np.asarray(instance.array, dtype=np.float64)
        print(f"{name}: {measure(matrix, args.budget)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
