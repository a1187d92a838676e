"""Live SySRs against a slow, flaky evaluator that crashes half way: resume, nothing lost.

Run it from the project's root::

    python examples/live_demo.py

What happens:

1. A session is created for the package's synthetic benchmark (30 models x
   2,000 queries, the same as ``python -m sysrs_ref demo``), SySRs at 10% of
   the full cost.
2. A child process drives it with :func:`sysrs_ref.live.run`: the evaluator
   looks the scores up in the benchmark, sleeps like a real model would
   (latency per query), fails about one call in five (retried with backoff),
   and, once half the budget is spent, kills its own process with SIGKILL:
   no cleanup, no goodbye, as a crash or a pre-empted machine would.
3. This process reopens the session from its directory, checks that every
   score the child had recorded is still there, and drives it to the end.
4. It prints the chosen model, the evaluations made against full evaluation,
   and checks the outcome against ``select`` on the same matrix: the crash
   changed nothing.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from sysrs_ref import select
from sysrs_ref.live import Session, run
from sysrs_ref.live.driver import Failure
from sysrs_ref.synthetic import irt_benchmark

SHAPE = (30, 2000)
DATA_SEED = 5
RUN_SEED = 0
BUDGET = "10%"
LATENCY = 0.00002  # seconds per query of a call: 2,000 queries take 40 ms
FAILURE_RATE = 0.2
# A call gives up after RETRIES + 1 failures in a row: 0.2**9 = 5e-7 per call, about 3e-5 over the ~50 calls
# of a demo (with the default 3 retries it is 0.2**4 = 0.0016 per call: a demo failed a few times in a hundred).
RETRIES = 8


class SlowFlakyEvaluator:
    """Scores from the synthetic benchmark, with latency, random failures, and (optionally) a crash half way."""

    def __init__(self, crash_after: int | None, seed: int) -> None:
        self.instance = irt_benchmark(*SHAPE, seed=DATA_SEED)
        self.crash_after = crash_after
        self.rng = np.random.default_rng(seed)  # the evaluator's own randomness, never the global one
        self.lock = threading.Lock()
        self.returned = 0

    def __call__(self, model: str, queries: Sequence[str]) -> list[float]:
        time.sleep(LATENCY * len(queries))
        with self.lock:
            if self.rng.random() < FAILURE_RATE:
                raise TimeoutError(f"the grader timed out on {model}")
            self.returned += len(queries)
            if self.crash_after is not None and self.returned > self.crash_after:
                os.kill(os.getpid(), signal.SIGKILL)  # a crash mid-run: this call's scores are never recorded
        return [float(self.instance.array[int(model[1:]), int(query[1:])]) for query in queries]


def _ids() -> tuple[list[str], list[str]]:
    return [f"m{i}" for i in range(SHAPE[0])], [f"q{j}" for j in range(SHAPE[1])]


def child(folder: Path) -> None:
    """Drive the session until the evaluator crashes the process (half the budget)."""
    with Session.open(folder) as session:
        run(
            session,
            SlowFlakyEvaluator(crash_after=session.budget // 2, seed=1),
            workers=4,
            retries=RETRIES,
            backoff=0.01,
            chunk=250,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, help="run directory (default: a new temporary one)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.dir)
        return 0
    folder = args.dir or Path(tempfile.mkdtemp(prefix="sysrs-live-")) / "run"
    models, queries = _ids()
    with Session.create(folder, models, queries, budget=BUDGET, seed=RUN_SEED) as session:
        budget = session.budget
    print(
        f"session: SySRs on {SHAPE[0]} models x {SHAPE[1]:,} queries, budget {BUDGET} = {budget:,} evaluations, in {folder}"
    )

    began = time.perf_counter()
    crashed = subprocess.run([sys.executable, __file__, "--child", "--dir", str(folder)], check=False)
    with Session.open(folder, readonly=True) as session:
        kept = dict(session.recorded())
    how = "killed by SIGKILL" if crashed.returncode == -signal.SIGKILL else f"exit status {crashed.returncode}"
    print(
        f"evaluator process: {how} after {time.perf_counter() - began:.1f} s; "
        f"{len(kept):,} of {budget:,} evaluations were recorded before the crash"
    )

    failures: list[Failure] = []
    with Session.open(folder) as session:
        assert dict(session.recorded()) == kept, "a recorded score was lost"
        report = run(
            session,
            SlowFlakyEvaluator(crash_after=None, seed=2),
            workers=4,
            retries=RETRIES,
            backoff=0.01,
            chunk=250,
            on_failure=failures.append,
        )
    print(
        f"resumed: {report.recorded:,} more evaluations in {report.calls} calls ({len(failures)} failed and were "
        f"retried), {report.seconds:.1f} s"
    )

    instance = irt_benchmark(*SHAPE, seed=DATA_SEED)
    full = instance.n_models * instance.n_queries
    reference = select(instance, BUDGET, "sysrs", seed=RUN_SEED)
    same = (report.outcome.chosen, report.outcome.ranking) == (reference.chosen, reference.ranking)
    print(
        f"chosen: {report.chosen} (the true best model is m{min(instance.best)}: "
        f"{'found' if instance.is_best(report.outcome.chosen) else 'missed'})"
    )
    print(
        f"evaluations: {report.outcome.spent:,} instead of {full:,} for full evaluation "
        f"({100 * (1 - report.outcome.spent / full):.0f}% saved)"
    )
    print(f"same outcome as select() on the matrix, without a crash: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
