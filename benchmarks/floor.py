"""The floor of W7 and W107: the least work the workloads need under the contract, measured in CPU seconds.

Run from the repository root (a minute for W7, a few for W107; not in the default test run):

    .venv/bin/python -m benchmarks.floor --workload w7
    .venv/bin/python -m benchmarks.floor --workload w107 --families   # and each family's fast path on the same draws

Whatever an implementation does, each run of a workload must (1) draw the run's
randomness exactly as docs/contracts.md fixes it (run r's arm priority and
query order(s) from ``SeedSequence(seed, spawn_key=(r,))``), and (2) read the
score cells its algorithm evaluates. At the grid's largest budget n a run of
any of the paper's algorithms evaluates n cells (a schedule capped at L spends
less: its own spend); every smaller budget's outcome may come from the same
cells. So the floor of one (run, configuration) is reading that many cells
once. Here both are done the cheapest way there is: the draws by the compiled
permutations (numpy's PCG64 shuffle, bit for bit: the contract's draws, run r
from its own seed), and the reads as one compiled pass that sums each model's
first ceil(n / K) scores along its order (``sysrs_ref.fast`` ``prefix_at``),
with no bookkeeping: no phases, no keys, no decisions, nothing kept but one sum
per model. Drawing is counted once per run and kind (synchronized and
unsynchronized configurations draw differently), reading once per run and
configuration.

The numbers are CPU seconds of this one process (``time.process_time``), so a
busy machine stretches them less than wall time. With ``--families`` the same
process also runs each configuration's fast path (``run_fast``, ranking off, as
``reproduce`` runs it) on the same draws and prints each family's CPU time
beside its floor: where the rest of the time goes; and each benchmark's
floor, its drawing and fast paths over that floor, and each family's share
(``--json FILE`` keeps them all). To measure another
checkout with this interpreter, run it from that checkout's folder with
``PYTHONPATH=TREE`` (``cd TREE && PYTHONPATH=TREE python -m benchmarks.floor``):
``-m`` puts the current folder first on the path, ahead of ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import sysrs_ref.fast as fast
from sysrs_ref.datasets import Dataset, default_datasets
from sysrs_ref.experiments._paper import PAPER_GRID, TABLE_GRID
from sysrs_ref.schedule import budget_from_percentage, parse_percentage

#: The configurations of each workload, as ``reproduce --algorithms`` names them (UCB's a as decimal text).
WORKLOADS: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str | None], ...]]] = {
    "w7": (TABLE_GRID, (("us", None), ("syus", None), ("sr", None), ("sysrs", None), ("ucbe", "1"), ("syucbe", "1"))),
    "w107": (
        PAPER_GRID,
        (("us", None), ("syus", None), ("sr", None), ("sysrs", None))
        + tuple((name, a) for name in ("ucbe", "syucbe") for a in ("0.1", "1", "10", "100")),
    ),
}

#: The family of each algorithm, as docs/benchmarks.md reports them.
FAMILIES = {"us": "US", "syus": "US", "sr": "SR", "sysrs": "SR", "ucbe": "UCB-E", "syucbe": "UCB-E"}
FAMILY_ORDER = ("US", "SR", "UCB-E")

#: Runs drawn at once: the engine's largest piece (sysrs_ref.simulation), so the arrays stay in the caches.
BLOCK = 256

SYNCHRONIZED = frozenset({"syus", "sysrs", "syucbe"})


@dataclass
class Floor:
    """CPU seconds of the floor (drawing, reading per family) and, when measured, of each family's fast path."""

    draws: float = 0.0
    reads: dict[str, float] = field(default_factory=dict)
    actual: dict[str, float] = field(default_factory=dict)
    cells: int = 0
    """Cells read in all (the floor's reads)."""
    shape: tuple[int, int] = (0, 0)
    """K x L (one benchmark's floor)."""
    benchmarks: dict[str, Floor] = field(default_factory=dict)
    """Each benchmark's own floor and fast paths (the workload's floor: the sum of theirs)."""

    @property
    def total(self) -> float:
        """The floor: drawing plus reading."""
        return self.draws + sum(self.reads.values())

    def add(self, name: str, part: Floor) -> None:
        """Count one benchmark's floor (and fast paths) in this one, and keep it as *name*'s."""
        self.draws += part.draws
        self.cells += part.cells
        for mine, theirs in ((self.reads, part.reads), (self.actual, part.actual)):
            for family, spent in theirs.items():
                mine[family] = mine.get(family, 0.0) + spent
        self.benchmarks[name] = part

    def numbers(self) -> dict[str, Any]:
        """The numbers, for ``--json``."""
        numbers: dict[str, Any] = {"draws": self.draws, "reads": self.reads, "actual": self.actual}
        numbers |= {"cells": self.cells, "total": self.total}
        if self.shape != (0, 0):
            numbers["shape"] = list(self.shape)
        if self.benchmarks:
            numbers["benchmarks"] = {name: part.numbers() for name, part in self.benchmarks.items()}
        return numbers


def _draws(seed: int, start: int, stop: int, shape: tuple[int, int], synchronized: bool) -> Any:
    """Runs start .. stop - 1 of a simulation seeded with *seed* (the contract's draws; this tree's or an older one's)."""
    draw: Callable[..., Any] | None = getattr(fast, "simulation_draws", None)
    if draw is None:  # an older tree: the same function in its batch module
        draw = getattr(importlib.import_module("sysrs_ref.fast.batch"), "simulation_draws")  # noqa: B009
    assert draw is not None
    return draw(seed, start, stop, *shape, synchronized=synchronized)


def _blocks(runs: int) -> Iterator[tuple[int, int]]:
    for start in range(0, runs, BLOCK):
        yield start, min(runs, start + BLOCK)


def measure(
    workload: str, runs: int, seed: int = 0, datasets: Sequence[Dataset] | None = None, families: bool = False
) -> Floor:
    """The floor of *workload* (``w7`` or ``w107``) at *runs* runs per cell, and with *families* each family's time."""
    from sysrs_ref.fast._kernel import prefix_at

    grid, configs = WORKLOADS[workload]
    floor = Floor()
    for dataset in default_datasets() if datasets is None else datasets:
        instance = dataset.load()
        table = fast.score_table(instance)
        n_models, n_queries = instance.shape
        part = Floor(shape=(n_models, n_queries))
        budgets = tuple(budget_from_percentage(parse_percentage(p), n_models, n_queries) for p in grid)
        # the cells a run reads at the largest budget: each model's first ceil(n / K) along its order, at most L
        width = min(n_queries, math.ceil(max(budgets) / n_models))
        for synchronized in (True, False):
            kind = [(name, a) for name, a in configs if (name in SYNCHRONIZED) == synchronized]
            for start, stop in _blocks(runs):
                began = time.process_time()
                draws = _draws(seed, start, stop, (n_models, n_queries), synchronized)
                part.draws += time.process_time() - began
                for name, a in kind:
                    family = FAMILIES[name]
                    began = time.process_time()
                    prefix_at(table, draws, [width])
                    part.reads[family] = part.reads.get(family, 0.0) + time.process_time() - began
                    part.cells += (stop - start) * n_models * width
                    if families:
                        began = time.process_time()
                        if a is None:
                            fast.run_fast(table, name, budgets, draws, ranking=False)
                        else:
                            fast.run_fast(table, name, budgets, draws, ranking=False, a=a)
                        spent = time.process_time() - began
                        part.actual[family] = part.actual.get(family, 0.0) + spent
        floor.add(dataset.name, part)
    return floor


def report(workload: str, floor: Floor) -> list[str]:
    """The floor's lines: its total and parts, and with measured families each one's time over its share of the reads."""
    reads = sum(floor.reads.values())
    lines = [
        f"{workload.upper()} floor: {floor.total:.2f} s CPU: drawing {floor.draws:.2f} s, reading "
        f"{floor.cells / 1e9:.2f} G cells {reads:.2f} s"
    ]
    for family in FAMILY_ORDER:
        if family not in floor.reads:
            continue
        line = f"  {family}: reading its cells {floor.reads[family]:.2f} s"
        if family in floor.actual:
            line += (
                f"; its fast paths {floor.actual[family]:.2f} s = {floor.actual[family] / floor.reads[family]:.1f} x"
            )
        lines.append(line)
    if floor.actual:
        total = sum(floor.actual.values()) + floor.draws
        lines.append(f"  all: drawing and the fast paths {total:.2f} s CPU = {total / floor.total:.1f} x the floor")
    if floor.actual and floor.benchmarks:
        lines.append("  by benchmark: the floor; drawing and the fast paths, over the floor; each family's fast paths")
        for name, part in floor.benchmarks.items():
            spent = sum(part.actual.values()) + part.draws
            over = spent / part.total if part.total > 0 else math.inf
            families = ", ".join(
                f"{family} {part.actual[family]:.2f}" for family in FAMILY_ORDER if family in part.actual
            )
            lines.append(
                f"    {name} ({part.shape[0]} x {part.shape[1]}): {part.total:.2f} s; {spent:.2f} s = {over:.1f} x; "
                f"{families}"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Measure the floor of one workload and print it (``--json FILE``: the numbers too)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--workload", choices=sorted(WORKLOADS), default="w7")
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--families", action="store_true", help="also each family's fast path on the same draws")
    parser.add_argument("--datasets", default="", help="comma-separated names (default: all shipped)")
    parser.add_argument("--json", default="", help="write the numbers to this file")
    args = parser.parse_args(argv)
    every = default_datasets()
    chosen = [d for d in every if d.name in args.datasets.split(",")] if args.datasets else list(every)
    floor = measure(args.workload, args.runs, args.seed, chosen, args.families)
    for line in report(args.workload, floor):
        print(line, flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as file:
            json.dump(floor.numbers(), file, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
