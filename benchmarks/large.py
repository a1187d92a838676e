"""Large instances: 1,000 x 10,000 and 4,000 x 20,000 item-response matrices through ``simulate``.

Run from the repository root (minutes; not in the default test run):

    .venv/bin/python -m benchmarks.large                       # 1,000 x 10,000, R = 100, budgets 5% and 20%
    .venv/bin/python -m benchmarks.large --size 4000x20000 --runs 20 --budgets 10%
    .venv/bin/python -m benchmarks.large --check 1             # also replay run 0 with the reference

The matrix is ``irt_probabilities(K, L, seed)``'s drawn 0/1 matrix (exactly
``irt_benchmark(K, L, seed)``'s), written once as a ``.npy`` into a temporary
folder. Each algorithm of the paper's table then runs in its own process,
``python -m sysrs_ref simulate --scores FILE --algorithm A --budgets ... --runs R
--workers W --quiet --json``, twice: once unsampled for its wall time, once for
the peak memory of the process tree (the parent and its workers, sampled every
20 ms from /proc, which slows the run a little): its proportional set size (PSS, each page shared between the
forked workers and their parent counted once), and the summed resident sizes
(RSS, which count such a page once per process, as benchmarks/test_memory.py does). With
``--check N`` the first N runs at the first budget are replayed by the pure
Python reference (``select`` with that run's draw) and must choose the same
model: the fast path's outcome is the reference's.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.process_memory import run_measured, run_timed, simulate_command
from sysrs_ref import Instance, select
from sysrs_ref.algorithms import get_algorithm
from sysrs_ref.simulation import simulation_draws
from sysrs_ref.synthetic import irt_probabilities

ALGORITHMS = ("us", "syus", "sr", "sysrs", "ucbe", "syucbe")


def _run(command: list[str]) -> tuple[float, int, int, str]:
    """Run *command* twice: unsampled for its wall seconds (and stdout), then sampled for its peak tree RSS and
    PSS (bytes). RuntimeError if it fails."""
    timed = run_timed(command)
    measured = run_measured(command, pss=True) if timed.returncode == 0 else timed
    if measured.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({measured.returncode}): {measured.stderr.strip()}")
    return timed.seconds, measured.peak, measured.peak_pss, timed.stdout


def main(argv: list[str] | None = None) -> int:
    """Time and measure every algorithm on a large item-response matrix; print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--size", default="1000x10000", help="K x L (default 1000x10000)")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--budgets", default="5%,20%")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0, help="the matrix's seed and the runs' seed")
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    parser.add_argument("--check", type=int, default=0, help="replay this many runs with the reference")
    parser.add_argument("--json", type=Path, help="write the measurements here")
    args = parser.parse_args(argv)
    n_models, n_queries = (int(part) for part in args.size.lower().split("x"))
    began = time.perf_counter()
    _, matrix = irt_probabilities(n_models, n_queries, args.seed)
    print(f"{n_models} x {n_queries} matrix drawn in {time.perf_counter() - began:.1f} s", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"irt_{n_models}x{n_queries}.npy"
        np.save(path, matrix)
        instance = Instance(matrix) if args.check else None
        for algorithm in args.algorithms.split(","):
            command = simulate_command(
                str(path), algorithm, args.budgets, args.runs, args.workers, "--seed", str(args.seed)
            )
            seconds, peak, pss, out = _run(command)
            result = json.loads(out)
            accuracy = [row["accuracy"] for row in result["results"]]
            memory = f"peak {pss / 2**30:.2f} GiB (PSS; summed RSS {peak / 2**30:.2f} GiB)"
            line = f"{algorithm:>7}: {seconds:6.1f} s, {memory}, accuracy {accuracy}"
            checked = _check(instance, algorithm, result, args) if instance is not None else ""
            print(line + checked, flush=True)
            rows.append(
                {"algorithm": algorithm, "seconds": seconds, "peak_rss": peak, "peak_pss": pss, "accuracy": accuracy}
            )
    if args.json is not None:
        args.json.write_text(json.dumps({"size": args.size, "runs": args.runs, "rows": rows}, indent=1))
    return 0


def _check(instance: Instance, algorithm: str, result: dict[str, object], args: argparse.Namespace) -> str:
    """Replay the first ``args.check`` runs at the first budget with the reference; a note, or AssertionError."""
    rows = result["results"]
    assert isinstance(rows, list)
    budget = int(rows[0]["budget"])  # the same draw serves every budget; the first is checked
    spec = get_algorithm(algorithm)
    began = time.perf_counter()
    for run in range(args.check):
        draw = simulation_draws(args.seed, run, run + 1, *instance.shape, synchronized=spec.synchronized).draw(0)
        reference = select(instance, budget, algorithm, draw=draw)
        fast = _fast_choice(instance, algorithm, budget, run, args.seed)
        assert reference.chosen == fast, f"{algorithm} run {run}: reference {reference.chosen}, fast {fast}"
    return f"; {args.check} run(s) equal to the reference ({time.perf_counter() - began:.0f} s)"


def _fast_choice(instance: Instance, algorithm: str, budget: int, run: int, seed: int) -> int:
    """The fast path's choice in run *run* (the draws of ``simulate --seed seed``)."""
    from sysrs_ref.fast import run_fast

    spec = get_algorithm(algorithm)
    draws = simulation_draws(seed, run, run + 1, *instance.shape, synchronized=spec.synchronized)
    return int(run_fast(instance, algorithm, [budget], draws).chosen[0, 0])


if __name__ == "__main__":
    raise SystemExit(main())
