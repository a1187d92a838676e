"""The paper's experiments as independent cells, cached on disk (``python -m sysrs_ref reproduce``).

A **cell** is one (dataset, algorithm configuration) pair: R runs of the
algorithm at every budget percentage of a grid, on common draws, exactly as
:func:`~sysrs_ref.simulation.simulate` with the same seed computes them (run
r draws from ``SeedSequence(seed, spawn_key=(r,))``). Cells are independent,
so they go through any :class:`concurrent.futures.Executor`: local worker
processes, or a Dask cluster. One task computes the cells of one dataset that
share a kind of draw (synchronized or not), so the draws are made once for
them all.

Every finished grid point of a cell is written to a cache under
``OUT/cache/`` (atomically: a temporary file, then a rename), keyed by the
dataset's SHA-256, the algorithm, its exact parameters, the budget
percentage, R, the seed and the package version. An interrupted run resumes
where it stopped and never recomputes a finished cell; an entry whose key
does not match (another file, version or setting) is recomputed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, as_completed
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, cast

import numpy as np

from sysrs_ref.algorithms.lrf import LRF_DEFAULTS, lrf_params
from sysrs_ref.algorithms.registry import get_algorithm
from sysrs_ref.cache import CACHE_FORMAT, Cache, Point, TopMPoint
from sysrs_ref.datasets import Dataset
from sysrs_ref.errors import BudgetError, ParameterError
from sysrs_ref.fast.lrf import lrf_rankings
from sysrs_ref.fast.run import CELL_BYTES, CHUNK_BYTES, chunk_runs, exact_params, run_fast
from sysrs_ref.fast.table import ScoreTable, score_table
from sysrs_ref.paper import LRF_GRID, PAPER_GRID, TABLE_GRID
from sysrs_ref.schedule import budget_from_percentage, parse_percentage
from sysrs_ref.scores import decimal_text
from sysrs_ref.simulation import MAX_CHUNK, simulation_draws
from sysrs_ref.topm import TopMCounts, TopMTruth, topm_counts

__all__ = [
    "CACHE_FORMAT",
    "GRIDS",
    "TOPM_GRID",
    "Cache",
    "Config",
    "Point",
    "Task",
    "cells",
    "lrf_configs",
    "parse_configs",
    "parse_grid",
    "paper_configs",
    "plan",
    "run_cells",
    "run_task",
]

#: The Appendix "Top-m" grid: budget percentages in steps of 5% (0% is no budget: it starts at 5%).
TOPM_GRID: tuple[str, ...] = tuple(f"{p}%" for p in range(5, 101, 5))

#: The named budget grids: the paper's 107 levels, the seven budgets of Table "identification-accuracy",
#: the 5% steps of the Appendix "Top-m", and UCB-E-LRF's 38 levels.
GRIDS: Mapping[str, tuple[str, ...]] = {"paper": PAPER_GRID, "table": TABLE_GRID, "topm": TOPM_GRID, "lrf": LRF_GRID}

#: The exploration parameters the paper's tables report for UCB-E and SyUCB-E.
PAPER_EXPLORATION = ("0.1", "1", "10")


@dataclass(frozen=True, order=True)
class Config:
    """An algorithm with its parameters, defaults filled in and exact: one row of the paper's tables.

    >>> Config.of("ucbe", a="0.1").label, Config.of("sysrs").label, Config.of("syucbe").label
    ('ucbe(a=0.1)', 'sysrs', 'syucbe(a=1)')
    """

    algorithm: str
    params: tuple[tuple[str, Fraction], ...] = ()

    @classmethod
    def of(cls, algorithm: str, **params: str | int | Fraction) -> Config:
        """The configuration of a registered *algorithm*, parameters checked and made exact.

        SAR and SySAR keep ``m`` unset unless it is given: in the top-m study
        each target m then runs with ``m`` set to it (the label is ``sar``);
        elsewhere they run with the default m = 1.

        >>> Config.of("sysar").label, Config.of("sysar", m=3).label
        ('sysar', 'sysar(m=3)')
        """
        spec = get_algorithm(algorithm)
        exact = exact_params(spec.name, params)
        if "m" in spec.defaults and "m" not in params:
            del exact["m"]
        return cls(spec.name, tuple(sorted(exact.items())))

    @property
    def m_is_target(self) -> bool:
        """True for SAR or SySAR without a fixed m: each top-m target runs with its own m."""
        return "m" in get_algorithm(self.algorithm).defaults and "m" not in dict(self.params)

    @property
    def label(self) -> str:
        """``name`` or ``name(key=value,...)`` with exact decimal values: the key of the paper's tables."""
        if self.cells:  # UCB-E-LRF: its warm-up, then only what differs from the paper's settings
            shown = [f"warmup={decimal_text(dict(self.params)['warmup'])}%"] + [
                f"{key}={decimal_text(value)}" for key, value in self.params
                if key != "warmup" and value != Fraction(str(LRF_DEFAULTS[key]))
            ]
            return f"{self.algorithm}({','.join(shown)})"
        if not self.params:
            return self.algorithm
        return f"{self.algorithm}({','.join(f'{key}={decimal_text(value)}' for key, value in self.params)})"

    @property
    def synchronized(self) -> bool:
        """Whether the algorithm uses one shared query order per run."""
        return get_algorithm(self.algorithm).synchronized

    @property
    def cells(self) -> bool:
        """Whether the algorithm draws cells (UCB-E-LRF) rather than query orders."""
        return get_algorithm(self.algorithm).cells


def lrf_configs(banditeval: bool = False) -> tuple[Config, ...]:
    """The paper's two UCB-E-LRF rows: 5% warm-up and No Warm-up (``--algorithms lrf``).

    With *banditeval*, both with the public implementation's rules (``--algorithms
    lrf-banditeval``): no bonus on observed cells, and unseen models first.

    >>> [c.label for c in lrf_configs()]
    ['ucbe-lrf(warmup=5%)', 'ucbe-lrf(warmup=0%)']
    >>> lrf_configs(banditeval=True)[1].label
    'ucbe-lrf(warmup=0%,bonus_on_observed=0,unseen_first=1)'
    """
    switches = {"bonus_on_observed": 0, "unseen_first": 1} if banditeval else {}
    return Config.of("ucbe-lrf", **switches), Config.of("ucbe-lrf", warmup=0, **switches)


def paper_configs() -> tuple[Config, ...]:
    """The configurations of the paper's tables but UCB-E-LRF's (hours of work: ``--algorithms paper,lrf``).

    >>> [c.label for c in paper_configs()][:5]
    ['us', 'syus', 'sr', 'sysrs', 'ucbe(a=0.1)']
    """
    plain = tuple(Config.of(name) for name in ("us", "syus", "sr", "sysrs"))
    ucb = tuple(Config.of(name, a=a) for name in ("ucbe", "syucbe") for a in PAPER_EXPLORATION)
    return plain + ucb


def parse_configs(text: str) -> tuple[Config, ...]:
    """Configurations from the command line: ``paper``, ``lrf``, ``lrf-banditeval``, names, and ``name:key=value``
    items, comma-separated.

    >>> [c.label for c in parse_configs("sysrs,ucbe:a=100,syucbe")]
    ['sysrs', 'ucbe(a=100)', 'syucbe(a=1)']
    >>> len(parse_configs("paper,ucbe:a=100"))
    11
    """
    out: list[Config] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            raise ParameterError(f"--algorithms {text!r} has an empty item; write e.g. paper,ucbe:a=100")
        if item in ("paper", "lrf", "lrf-banditeval"):
            out.extend(paper_configs() if item == "paper" else lrf_configs(banditeval=item != "lrf"))
            continue
        name, *assignments = item.split(":")
        params: dict[str, str] = {}
        for assignment in assignments:
            key, sep, value = assignment.partition("=")
            if not sep or not key.strip() or not value.strip():
                raise ParameterError(f"algorithm parameter {assignment!r} in {item!r}: write it as key=value, e.g. ucbe:a=0.1")
            params[key.strip()] = value.strip()
        out.append(Config.of(name.strip(), **params))
    unique = list(dict.fromkeys(out))
    if len(unique) != len(out):
        repeated = sorted({c.label for c in out if out.count(c) > 1})
        raise ParameterError(f"--algorithms names {', '.join(repeated)} more than once")
    return tuple(unique)


def parse_grid(text: str) -> tuple[Fraction, ...]:
    """A budget grid: a name of :data:`GRIDS` (``paper``, ``table``, ``topm``, ``lrf``), or a file with one percentage per line ("12%" or "12"; # comments).

    >>> [float(p) for p in parse_grid("table")]
    [8.0, 12.0, 16.0, 20.0, 25.0, 30.0, 35.0]
    """
    if text in GRIDS:
        lines: Sequence[str] = GRIDS[text]
        where = f"grid {text!r}"
    else:
        path = Path(text)
        try:
            lines = path.read_text().splitlines()
        except (OSError, UnicodeDecodeError) as err:
            raise ParameterError(
                f"--grid {text!r} is neither a grid name ({', '.join(GRIDS)}) nor a readable file of percentages ({err})"
            ) from None
        where = f"grid file '{path}'"
    points: list[Fraction] = []
    for number, line in enumerate(lines, 1):
        item = line.split("#", 1)[0].strip()
        if not item:
            continue
        try:
            points.append(parse_percentage(item))
        except BudgetError as err:
            raise ParameterError(f"{where}, line {number}: {err}") from None
    if not points:
        raise ParameterError(f"{where} holds no budget percentage")
    if len(set(points)) != len(points):
        raise ParameterError(f"{where} lists a budget percentage twice")
    return tuple(sorted(points))


@dataclass(frozen=True)
class Task:
    """The cells of one dataset that share a kind of draw, at the budgets some of them still need."""

    dataset: Dataset
    synchronized: bool
    configs: tuple[Config, ...]
    percentages: tuple[Fraction, ...]
    budgets: tuple[int, ...]
    runs: int
    seed: int
    top_m: tuple[int, ...] = ()
    """The targets m of the top-m study (empty: the best-model study)."""
    cells: bool = False
    """UCB-E-LRF's configurations: draws of cells, run one by one (:func:`~sysrs_ref.fast.lrf.lrf_rankings`)."""


_TABLES: dict[tuple[str, str], ScoreTable] = {}


def _table(dataset: Dataset) -> ScoreTable:
    """The dataset's score table, kept in the worker process for its next task (one at a time)."""
    key = (str(dataset.path), dataset.sha256)
    if key not in _TABLES:
        _TABLES.clear()
        _TABLES[key] = score_table(dataset.load())
    return _TABLES[key]


def run_task(task: Task) -> dict[str, tuple[Point, ...]]:
    """Compute a task's cells (in a worker): R runs, in chunks, every configuration on each chunk's draws."""
    table = _table(task.dataset)
    best = sorted(table.instance.best)
    n_models, n_queries = table.n_models, table.n_queries
    cell_bytes = max(CELL_BYTES.get(config.algorithm, 64) for config in task.configs)
    size = max(1, min(MAX_CHUNK, chunk_runs(n_models, n_queries, len(task.budgets), CHUNK_BYTES // 2, cell_bytes)))
    correct = {config: np.zeros(len(task.budgets), dtype=np.int64) for config in task.configs}
    spent = {config: np.zeros(len(task.budgets), dtype=np.int64) for config in task.configs}
    truth = TopMTruth.of(table.instance) if task.top_m else None
    errors: dict[tuple[Config, int], TopMCounts] = {}
    for start in range(0, task.runs, size):
        stop = min(task.runs, start + size)
        if task.cells:
            for config in task.configs:
                rankings = lrf_rankings(table.instance.array, task.budgets, task.seed, start, stop, lrf_params(dict(config.params)))
                correct[config] += np.isin(rankings[:, :, 0], best).sum(axis=0)
                spent[config] = np.asarray(task.budgets, dtype=np.int64)  # UCB-E-LRF spends each budget exactly
                for m in task.top_m:
                    assert truth is not None
                    found = topm_counts(rankings, truth, m)
                    errors[config, m] = errors[config, m].merged(found) if (config, m) in errors else found
            continue
        draws = simulation_draws(task.seed, start, stop, n_models, n_queries, synchronized=task.synchronized)
        for config in task.configs:
            params = cast("dict[str, Any]", dict(config.params))  # only the algorithm's own names, e.g. "a"
            ranked = bool(task.top_m) and not config.m_is_target
            out = run_fast(table, config.algorithm, task.budgets, draws, ranking=ranked, **params)
            correct[config] += np.isin(out.chosen, best).sum(axis=0)
            np.maximum(spent[config], out.spent.max(axis=0), out=spent[config])
            for m in task.top_m:
                assert truth is not None
                source = run_fast(table, config.algorithm, task.budgets, draws, **params, m=m) if config.m_is_target else out
                assert source.ranking is not None
                found = topm_counts(source.ranking, truth, m)
                errors[config, m] = errors[config, m].merged(found) if (config, m) in errors else found
    return {
        config.label: tuple(
            Point(pct, budget, int(hits), task.runs, int(most), _top_m_point(errors, config, task.top_m, index))
            for index, (pct, budget, hits, most) in enumerate(
                zip(task.percentages, task.budgets, correct[config], spent[config])
            )
        )
        for config in task.configs
    }


def _top_m_point(
    errors: Mapping[tuple[Config, int], TopMCounts], config: Config, targets: tuple[int, ...], index: int
) -> tuple[TopMPoint, ...]:
    return tuple(
        TopMPoint(
            m, errors[config, m].identification[index], errors[config, m].ranking[index],
            errors[config, m].wrong_positions[index],
        )
        for m in targets
    )


def _budgets(dataset: Dataset, grid: Sequence[Fraction], shape: tuple[int, int] | None) -> tuple[int, ...]:
    n_models, n_queries = shape if shape is not None else dataset.load().shape
    try:
        return tuple(budget_from_percentage(pct, n_models, n_queries) for pct in grid)
    except BudgetError as err:
        raise BudgetError(f"dataset {dataset.name!r}: {err}; leave that percentage out of the grid") from None


def plan(
    datasets: Sequence[Dataset],
    configs: Sequence[Config],
    grid: Sequence[Fraction],
    runs: int,
    seed: int,
    cache: Cache,
    *,
    shapes: Mapping[str, tuple[int, int]] | None = None,
) -> tuple[list[Task], int]:
    """The tasks still to do (cells with a grid point not in the cache), and how many cells are done already.

    *shapes* gives each dataset's (K, L) when the caller has loaded it already.
    """
    tasks: list[Task] = []
    done = 0
    for dataset in datasets:
        budgets = _budgets(dataset, grid, None if shapes is None else shapes.get(dataset.name))
        for synchronized, lrf in ((True, False), (False, False), (False, True)):
            kind = [c for c in configs if (c.synchronized, c.cells) == (synchronized, lrf)]
            missing = [c for c in kind if any(cache.get(dataset, c, pct, runs, seed) is None for pct in grid)]
            done += len(kind) - len(missing)
            if missing:
                tasks.append(
                    Task(dataset, synchronized, tuple(missing), tuple(grid), budgets, runs, seed, cache.top_m, lrf)
                )
    return tasks, done


def run_cells(
    tasks: Sequence[Task],
    cache: Cache,
    executor: Executor | None = None,
    progress: Callable[[int], None] | None = None,
) -> None:
    """Run *tasks* (inline, or on *executor*) and cache every point as its task finishes.

    *progress* is called with the number of cells each finished task held. On
    an interruption (Ctrl-C) the tasks not started are cancelled and the
    exception goes on: what finished is in the cache, what did not is not.
    """

    def record(task: Task, result: Mapping[str, tuple[Point, ...]]) -> None:
        for config in task.configs:
            for point in result[config.label]:
                cache.put(task.dataset, config, point, task.seed)
        if progress is not None:
            progress(len(task.configs))

    if executor is None:
        for task in tasks:
            record(task, run_task(task))
        return
    pending: dict[Future[dict[str, tuple[Point, ...]]], Task] = {}
    try:
        for task in tasks:
            pending[executor.submit(run_task, task)] = task
        for future in as_completed(pending):
            record(pending[future], future.result())
    except BaseException:
        for future in pending:
            future.cancel()
        raise


def cells(
    datasets: Sequence[Dataset], configs: Sequence[Config], grid: Sequence[Fraction], runs: int, seed: int, cache: Cache
) -> Iterator[tuple[Dataset, Config, tuple[Point, ...]]]:
    """Every cell's points, from the cache (after :func:`run_cells`); ParameterError if one is missing."""
    for dataset in datasets:
        for config in configs:
            points = tuple(cache.get(dataset, config, pct, runs, seed) for pct in grid)
            if any(point is None for point in points):
                raise ParameterError(f"the cache has no result for {dataset.name} {config.label}: run the cells first")
            yield dataset, config, tuple(p for p in points if p is not None)
