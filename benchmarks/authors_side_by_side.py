"""The paper's authors' code and this package side by side: time per run and accuracy on the shipped benchmarks.

Run from the repository root, with a checkout of the authors' repository
(https://github.com/zifanlyu/llm-bandits-sysrs; this script never downloads it, and
nothing of it is part of this package):

    .venv/bin/python -m benchmarks.authors_side_by_side --authors PATH
    .venv/bin/python -m benchmarks.authors_side_by_side --authors PATH --datasets gsm,mmlu \\
        --budgets 8%,20%,35% --algorithms sysrs,sr,ucbe --runs 1000

For every dataset, budget and algorithm it runs R runs twice, in this one process:

- **theirs**: the function of the authors' ``bai_algs.py`` (SySRs:
  ``smart_successive_rejects_wo_replacement_no_budget_limit``, SR:
  ``successive_rejects_wo_replacement_no_budget_limit``, UCB-E: ``ucb_e``, SyUCB-E:
  ``smart_ucb_e``, with a = 1), given the shipped benchmark's matrix
  (:func:`sysrs_ref.load_dataset`, never their pickles) in its module-level
  ``model_accuracies`` and the budget n as an integer, with ``k=R``. Their functions
  draw from numpy's global random state, and each seeds it with 42 when called; the
  script seeds it with 42 too before each call, so their side is reproducible. That
  global state is touched only here, for their code.
- **ours**: :func:`sysrs_ref.simulate` with the same algorithm, n and R
  (``seed=--seed``, one worker: the fast path in this process, with the compiled
  passes where they are built).

It prints, per row, the wall and CPU milliseconds per run of each side and the
accuracy of each (the fraction of runs that chose a true best model, ties
counted), with the difference's 95% interval (normal approximation, two
independent samples of R runs). The two do not use the same random draws, and
the algorithms agree up to the details the paper leaves open (tie-breaking;
what SR does with budget a phase cannot spend when L is short: their code
moves it to earlier phases, this package leaves it unspent), so the
accuracies agree statistically, not run by run. ``--json FILE`` writes every
number.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import math
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import NamedTuple, cast

import numpy as np
import numpy.typing as npt

from sysrs_ref import Instance, load_dataset, parse_budget, simulate

# our name -> (their function in bai_algs.py, whether it takes UCB-E's a, whether it takes verbose)
THEIRS: dict[str, tuple[str, bool, bool]] = {
    "sysrs": ("smart_successive_rejects_wo_replacement_no_budget_limit", False, True),
    "sr": ("successive_rejects_wo_replacement_no_budget_limit", False, True),
    "ucbe": ("ucb_e", True, False),
    "syucbe": ("smart_ucb_e", True, False),
}
THEIR_SEED = 42  # numpy's global seed before each of their calls: the seed their functions set themselves
NAMES = {"sysrs": "SySRs", "sr": "SR", "ucbe": "UCB-E", "syucbe": "SyUCB-E"}


class Timed(NamedTuple):
    """One side of a row: seconds of wall and CPU time for all R runs, and how many runs chose a true best model."""

    wall: float
    cpu: float
    correct: int


class Row(NamedTuple):
    """One dataset, budget and algorithm: both sides."""

    dataset: str
    budget: str
    n: int
    algorithm: str
    theirs: Timed
    ours: Timed


def load_theirs(checkout: Path) -> ModuleType:
    """Import the authors' ``bai_algs.py`` from *checkout* as an untyped module (their code, run as they wrote it)."""
    path = checkout / "bai_algs.py"
    if not path.is_file():
        raise SystemExit(f"error: {path} not found: --authors must be a checkout of the authors' repository")
    spec = importlib.util.spec_from_file_location("authors_bai_algs", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"error: cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_theirs(
    module: ModuleType, algorithm: str, matrix: npt.NDArray[np.float64], n: int, runs: int
) -> tuple[npt.NDArray[np.int64], float, float]:
    """Their *algorithm* on *matrix* at budget *n*, *runs* runs: each run's chosen arm, wall and CPU seconds."""
    name, takes_a, takes_verbose = THEIRS[algorithm]
    function = cast(Callable[..., object], getattr(module, name))
    kwargs: dict[str, object] = {"k": runs}
    if takes_a:
        kwargs["a"] = 1
    if takes_verbose:
        kwargs["verbose"] = False
    vars(module)["model_accuracies"] = np.array(matrix, dtype=np.float64)  # their code reads this module global
    np.random.seed(THEIR_SEED)  # their code draws from numpy's global state (and seeds it with 42 itself)
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():  # their UCB-E prints progress lines;
        warnings.simplefilter("ignore", UserWarning)  # their SR's np.divide(..., where=...) warns on numpy 2
        wall, cpu = time.perf_counter(), time.process_time()
        chosen = function(n, **kwargs)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return np.asarray(chosen, dtype=np.int64).reshape(runs), wall, cpu


def run_ours(instance: Instance, algorithm: str, n: int, runs: int, seed: int) -> tuple[int, float, float]:
    """This package's :func:`simulate` of *algorithm* at budget *n*, *runs* runs: correct runs, wall, CPU seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    if algorithm.endswith("ucbe"):
        result = simulate(instance, algorithm, [n], runs, seed, workers=1, a=1)
    else:
        result = simulate(instance, algorithm, [n], runs, seed, workers=1)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return result.rows[0].correct, wall, cpu


def measure(
    module: ModuleType,
    datasets: list[str],
    budgets: list[str],
    algorithms: list[str],
    runs: int,
    seed: int,
) -> list[Row]:
    """Every row: each dataset, budget and algorithm, theirs then ours."""
    rows: list[Row] = []
    for name in datasets:
        instance = load_dataset(name)
        best = np.array(sorted(instance.best), dtype=np.int64)
        for budget in budgets:
            n = parse_budget(budget, *instance.shape)
            for algorithm in algorithms:
                chosen, their_wall, their_cpu = run_theirs(module, algorithm, instance.array, n, runs)
                correct, our_wall, our_cpu = run_ours(instance, algorithm, n, runs, seed)
                theirs = Timed(their_wall, their_cpu, int(np.isin(chosen, best).sum()))
                row = Row(name, budget, n, algorithm, theirs, Timed(our_wall, our_cpu, correct))
                print(_line(row, runs), flush=True)
                rows.append(row)
    return rows


def _interval(row: Row, runs: int) -> tuple[float, float]:
    """The difference of accuracies (ours - theirs) and the half-width of its 95% normal interval."""
    p, q = row.ours.correct / runs, row.theirs.correct / runs
    return p - q, 1.96 * math.sqrt((p * (1 - p) + q * (1 - q)) / runs)


def _line(row: Row, runs: int) -> str:
    """One row of the table, in Markdown."""
    difference, half = _interval(row, runs)
    per_run = 1000 / runs
    return (
        f"| {row.dataset} | {row.budget} ({row.n:,}) | {NAMES[row.algorithm]} "
        f"| {row.theirs.wall * per_run:.2f} / {row.theirs.cpu * per_run:.2f} "
        f"| {row.ours.wall * per_run:.3f} / {row.ours.cpu * per_run:.3f} "
        f"| {row.theirs.cpu / max(row.ours.cpu, 1e-9):.0f}x "
        f"| {row.theirs.correct / runs:.3f} | {row.ours.correct / runs:.3f} | {difference:+.3f} +- {half:.3f} |"
    )


def main(argv: list[str] | None = None) -> int:
    """Parse the options, run both sides on every row, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--authors", type=Path, required=True, help="a checkout of the authors' repository")
    parser.add_argument("--datasets", default="gsm,mmlu", help="shipped benchmarks, comma-separated")
    parser.add_argument("--budgets", default="8%,20%,35%", help="budgets, comma-separated (evaluations or % of K L)")
    parser.add_argument("--algorithms", default="sysrs,sr,ucbe", help=f"comma-separated, of {', '.join(THEIRS)}")
    parser.add_argument("--runs", type=int, default=1000, help="R, the runs of each side per row")
    parser.add_argument("--seed", type=int, default=0, help="our seed (simulate's)")
    parser.add_argument("--json", type=Path, help="also write every number to this file")
    args = parser.parse_args(argv)
    algorithms = args.algorithms.split(",")
    unknown = [name for name in algorithms if name not in THEIRS]
    if unknown:
        parser.error(f"unknown algorithm {unknown[0]!r}: choose from {', '.join(THEIRS)}")
    module = load_theirs(args.authors)
    off = os.environ.get("SYSRS_REF_COMPILED", "1").strip().lower() in ("0", "false", "no", "off")
    backend = "numpy alone (SYSRS_REF_COMPILED=0)" if off else "the compiled passes where built"
    print(
        f"R = {args.runs} runs per side; ours: simulate, 1 worker, {backend}; python {platform.python_version()}, "
        f"numpy {np.__version__}, {platform.machine()}",
        file=sys.stderr,
    )
    print(
        "| benchmark | budget (n) | algorithm | theirs ms/run wall / CPU | ours ms/run wall / CPU "
        "| CPU ratio | theirs accuracy | ours accuracy | ours - theirs (95%) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    rows = measure(module, args.datasets.split(","), args.budgets.split(","), algorithms, args.runs, args.seed)
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {
                    "runs": args.runs,
                    "rows": [
                        {
                            "dataset": row.dataset,
                            "budget": row.budget,
                            "n": row.n,
                            "algorithm": row.algorithm,
                            "theirs": row.theirs._asdict(),
                            "ours": row.ours._asdict(),
                        }
                        for row in rows
                    ],
                },
                indent=1,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
