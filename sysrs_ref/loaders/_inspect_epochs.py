"""inspect-ai epochs: the reduction a log records, reducing each sample's epochs, and checking the log's own.

:func:`recorded_reducer` reads the reducer a log names for the scorer
(``--epochs auto``); :func:`reduced_cells` turns a log's samples into cells
under a reducer (``first``, ``all``, or a reduction computed exactly by
:mod:`sysrs_ref.loaders._epochs`, ``mode`` counting the values as written),
in inspect's order of samples, with notes on samples short of epochs; and
:func:`check_reductions` holds those cells against the reductions the log
stores. The rules are those of :mod:`sysrs_ref.loaders.inspect_ai`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

from sysrs_ref.errors import LoaderError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.loaders._epochs import EPOCH_MODES, is_reducer, reduce_epochs
from sysrs_ref.loaders._inspect_files import Source, eval_config
from sysrs_ref.loaders._inspect_values import Sample, score_value
from sysrs_ref.loaders.table import Cell, Samples

__all__ = ["check_reductions", "n_samples", "recorded_reducer", "reduced_cells"]

_TOLERANCE = 1e-9
"""How far inspect's float reduction of a sample may lie from the exact one (relative, and absolute near 0)."""
_REDUCERS_SHOWN = " | ".join(mode for mode in EPOCH_MODES if mode != "auto")


def recorded_reducer(source: Source, metric: str) -> str:
    """The reduction the log records for its epochs (``all`` for none), or a LoaderError asking to choose."""
    where = source.header_where
    names = eval_config(source.header).get("epochs_reducer")
    if names is None:
        results = source.header.get("results")
        scores = results.get("scores") if isinstance(results, Mapping) else None
        named = [
            entry["reducer"]
            for entry in (scores if isinstance(scores, list) else [])
            if isinstance(entry, Mapping)
            and entry.get("scorer", entry.get("name")) == metric
            and isinstance(entry.get("reducer"), str)
        ]
        names = list(dict.fromkeys(named)) or ["mean"]
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise LoaderError(
            f"{where}: eval.config.epochs_reducer is {names!r}, not a list of reducer names; choose the reduction "
            f"with --epochs {_REDUCERS_SHOWN}"
        )
    if not names:
        return "all"  # inspect's --no-epochs-reducer: its metrics see every epoch
    if len(names) > 1:
        listed = ", ".join(str(name) for name in names)
        raise LoaderError(
            f"{where}: the log reduces epochs in {len(names)} ways ({listed}); choose one with "
            f"--epochs {_REDUCERS_SHOWN}"
        )
    name = names[0]
    assert isinstance(name, str)
    if not is_reducer(name):
        raise LoaderError(
            f"{where}: the log reduces epochs with '{name}', which cannot be computed here (only mean, median, "
            f"mode, max, at_least_k, pass_at_k and pass_k_k can); choose the reduction with --epochs {_REDUCERS_SHOWN}"
        )
    return name


class _Reduced(NamedTuple):
    """A cell, with what the cross-check against the log's reductions needs."""

    cell: Cell
    key: str
    exact: Fraction | None
    """The reduced score (None for kept epochs)."""
    ties: tuple[Fraction, ...]
    """The values tied for ``mode`` (empty otherwise)."""


def reduced_cells(
    path: Path, model: str, task: str, samples: Mapping[str, Sample], reducer: str, count: int
) -> tuple[list[_Reduced], list[str]]:
    """The log's cells under *reducer*, and notes on samples with fewer scored epochs than *count*."""
    cells: list[_Reduced] = []
    fewer = undefined = unscored_first = 0
    for key, sample in sorted(samples.items(), key=lambda item: _order(item[1].sample_id)):
        epochs = [sample.epochs[epoch] for epoch in sorted(sample.epochs)]
        if not epochs:
            continue  # no score at all: a missing cell
        query = f"{task}/{sample.sample_id}"
        if reducer == "first":
            first = sample.epochs.get(1)
            if first is None:
                unscored_first += 1
            else:
                cells.append(_Reduced(Cell(model, query, first.number, first.where), key, first.exact, ()))
            continue
        if reducer == "all":
            absent = [epoch for epoch in range(1, count + 1) if epoch not in sample.epochs]
            if absent:
                shown = ", ".join(str(epoch) for epoch in absent)
                which = f"epoch {shown} of {count} has" if len(absent) == 1 else f"epochs {shown} of {count} have"
                raise LoaderError(
                    f"{path} sample {sample.sample_id}: {which} no score, and --epochs all "
                    "keeps every epoch of every sample; reduce them instead (--epochs mean) or take --epochs first"
                )
            values = Samples(epoch.number for epoch in epochs)
            cells.append(_Reduced(Cell(model, query, values, f"{path} sample {sample.sample_id}"), key, None, ()))
            continue
        fewer += len(epochs) < count
        ties: tuple[Fraction, ...] = ()
        if reducer == "mode":  # inspect counts the values as written, the earliest of the most frequent first
            counts = Counter(epoch.raw for epoch in epochs)
            top = counts.most_common(1)[0][1]
            winners = [epoch for epoch in epochs if counts[epoch.raw] == top]
            exact, ties = winners[0].exact, tuple(dict.fromkeys(epoch.exact for epoch in winners))
        else:
            try:
                exact = reduce_epochs([epoch.exact for epoch in epochs], reducer)
            except ValueError:  # pass_at_k over fewer than k epochs: inspect leaves it unscored
                undefined += 1
                continue
        if len(epochs) == 1 and reducer in ("mean", "median", "mode", "max", "min"):
            cell = Cell(model, query, epochs[0].number, epochs[0].where)
        else:
            cell = Cell(model, query, exact, f"{path} sample {sample.sample_id} ({reducer} of {len(epochs)} epochs)")
        cells.append(_Reduced(cell, key, exact, ties))
    notes = []
    if fewer:
        notes.append(f"{n_samples(fewer)} with fewer than {count} scored epochs, reduced over those they have")
    if undefined:
        notes.append(f"{n_samples(undefined)} left without a score: {reducer} needs more scored epochs than they have")
    if unscored_first:
        notes.append(f"{n_samples(unscored_first)} without a score in epoch 1 left without a score")
    return cells, notes


def _order(sample_id: str | int) -> str:
    """inspect's order of samples (``sort_samples``): string ids as they are, integers zero-filled to 20 digits."""
    return sample_id if isinstance(sample_id, str) else str(sample_id).zfill(20)


def n_samples(count: int) -> str:
    return f"{count} sample" if count == 1 else f"{count} samples"


def check_reductions(path: Path, cells: list[_Reduced], reductions: JsonValue, metric: str, reducer: str) -> int:
    """Check the reduced *cells* against the log's own reductions of *metric*; return how many samples agreed.

    A ``mode`` tie is settled the log's way (the cell is replaced). Entries
    that do not have inspect's shape are passed over: this is a check, not a
    source of scores.
    """
    if not isinstance(reductions, list):
        return 0
    theirs: dict[str, JsonValue] = {}
    for entry in reductions:
        if not isinstance(entry, Mapping) or entry.get("scorer") != metric:
            continue
        named = entry.get("reducer")
        if named != reducer and not (named is None and reducer == "mean"):
            continue
        listed = entry.get("samples")
        for reduced in listed if isinstance(listed, list) else []:
            if isinstance(reduced, Mapping) and isinstance(reduced.get("sample_id"), (str, int)):
                theirs[str(reduced.get("sample_id"))] = reduced.get("value")
    agreed = 0
    for index, cell in enumerate(cells):
        if cell.exact is None or cell.key not in theirs:
            continue
        where = f"{path} reductions sample {cell.key}"
        value = theirs[cell.key]
        if isinstance(value, (Mapping, list)) or value is None:
            continue
        number = score_value(value, where)
        if isinstance(number, float) and (math.isnan(number) or math.isinf(number)):
            continue
        exact = Fraction(number)
        if exact in cell.ties:
            if exact != cell.exact:
                cells[index] = cell._replace(cell=cell.cell._replace(score=exact), exact=exact)
        elif not math.isclose(float(exact), float(cell.exact), rel_tol=_TOLERANCE, abs_tol=_TOLERANCE):
            raise LoaderError(
                f"{path}: the log's own {reducer} of sample {cell.key} over its epochs (its reductions) is {number}, "
                f"but the {reducer} of its scored epochs is {cell.exact} (= {float(cell.exact):.6g}); the log's "
                "scorer maps or reduces values its own way: choose the reduction yourself with "
                f"--epochs {_REDUCERS_SHOWN}"
            )
        agreed += 1
    return agreed
