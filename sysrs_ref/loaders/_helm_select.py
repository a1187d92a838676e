"""Choosing the HELM runs to use and yielding their cells, with every run's fate recorded for the report.

Runs are identified (their run specs read), then left out, each with the reason
the report gives: empty leftovers, runs that no ``--run`` pattern selects, runs
that did not finish, the losing copies of a run found in several suites (with a
``--suite`` preference), and runs without the metric (when another run has it).
A pattern that selects nothing, a suite that no run is in, a metric that no run
has, and a run found in two suites with different scores (without a preference)
are errors. The runs kept are read and their cells yielded in the order found.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fnmatch import fnmatchcase

from sysrs_ref._words import counted
from sysrs_ref.errors import LoaderError
from sysrs_ref.loaders._helm_read import MAIN_SPLIT, SPLIT_ALL, SPLIT_AUTO, Stats, identify, read_stats
from sysrs_ref.loaders._helm_runs import SPEC_FILE, STATS_FILE, Run
from sysrs_ref.loaders.table import Cell, FileLog

__all__ = ["run_cells"]

_LISTED = 10
_UNFINISHED = f"no {STATS_FILE} (the run did not finish, or was written by an old HELM); rerun it or leave it out"
_EMPTY = (
    f"no {SPEC_FILE} or {STATS_FILE} in this folder beside the runs of its suite (a run that stopped before "
    "writing its results: HELM writes them when the run ends); rerun it or leave it out"
)

_NOTE_REDUCTION = {"auto": "mean", "all": "all kept"}


def _listing(names: Sequence[str]) -> str:
    shown = ", ".join(names[:_LISTED])
    return shown + (f" and {len(names) - _LISTED} more" if len(names) > _LISTED else "")


def _quoted(flag: str, values: Sequence[str]) -> str:
    return " ".join(f"{flag} '{value}'" for value in values)


def run_cells(
    runs: list[Run],
    metric: str,
    mode: str,
    patterns: tuple[str, ...],
    preference: tuple[str, ...],
    files: FileLog,
    settings: dict[str, str],
    origin: str,
    *,
    stats_limit: int,
    spec_limit: int,
    split: str = SPLIT_AUTO,
    split_setting: str = "",
) -> Iterator[Cell]:
    """The cells of the runs chosen among *runs*; every run's fate is recorded in *files*, in the order found.

    Each run's per_instance_stats.json is read no further than *stats_limit* bytes, its run_spec.json no
    further than *spec_limit*; *split* is the ``--split`` choice (:func:`~sysrs_ref.loaders._helm_read.read_stats`).
    """
    notes: dict[int, str] = {}  # position in runs -> why it was left out
    for run in runs:
        identify(run, spec_limit)
    for position, run in enumerate(runs):
        if run.empty:
            notes[position] = _EMPTY
    real = [(position, run) for position, run in enumerate(runs) if not run.empty]
    if patterns:
        settings["runs"] = ", ".join(patterns) + " (matched against run names with and without model=)"
        hits = dict.fromkeys(patterns, 0)
        for position, run in real:
            matched = [p for p in patterns if fnmatchcase(run.key, p) or fnmatchcase(run.name, p)]
            for pattern in matched:
                hits[pattern] += 1
            if not matched:
                notes[position] = f"run '{run.name}' is not selected by {_quoted('--run', patterns)}"
        unmatched = [pattern for pattern, count in hits.items() if not count]
        if unmatched:
            keys = sorted({run.key for _, run in real})
            raise LoaderError(
                f"{origin}: {_quoted('--run', unmatched)} selects no run (a pattern is matched against each run's "
                f"name, with and without its model= argument); the runs are: {_listing(keys)}"
            )
    for position, run in real:
        if position not in notes and run.stats is None:
            notes[position] = _UNFINISHED
    candidates = [(position, run) for position, run in real if position not in notes]
    suite_names = sorted({run.suite for _, run in real})
    unknown = [name for name in preference if name not in suite_names]
    if unknown:
        raise LoaderError(
            f"{origin}: {_quoted('--suite', unknown)}: no run is in a suite of that name (a run's suite is the name "
            f"of the folder holding it); the suites are: {_listing(suite_names)}"
        )
    if preference:
        settings["suites"] = ", ".join(preference) + " (a run in several suites: the first listed wins)"
    elif len({run.suite for _, run in candidates}) > 1:
        settings["suites"] = "no preference (a run in several suites must have the same scores in each)"
    _settle_suites(candidates, preference, notes)
    read: dict[int, Stats] = {}
    for position, run in candidates:
        if position not in notes:
            read[position] = read_stats(run, metric, mode, stats_limit, split)
    _leave_out_other_splits(runs, read, split, notes)
    if split != SPLIT_AUTO or any(set(stats.splits) - {MAIN_SPLIT} for stats in read.values()):
        settings["split"] = split_setting or split
    with_metric = [position for position, stats in read.items() if stats.exact or stats.splits]
    if read and not with_metric:
        position = min(read)
        has = ", ".join(sorted(read[position].names)) or "no stats"
        others = f", and none of the other {len(read) - 1} runs read has it either" if len(read) > 1 else ""
        extra = sorted(set().union(*(stats.names for stats in read.values())) - read[position].names)
        also = f" (they also have {', '.join(extra)})" if extra else ""
        raise LoaderError(
            f"{runs[position].path}: no unperturbed stat named '{metric}' in any train trial; the file has {has}"
            f"{others}{also}; choose one with --metric NAME"
        )
    for position, stats in read.items():
        if not stats.exact and position not in notes:
            has = ", ".join(sorted(stats.names)) or "no stats"
            notes[position] = f"no unperturbed stat named '{metric}' (another scenario or metric); its stats are {has}"
    if not preference:
        _check_agreement([(runs[position], read[position]) for position in sorted(read) if position not in notes])
    if not any(position not in notes for position in read):
        reasons = sorted(set(notes.values()))
        raise LoaderError(
            f"{origin}: none of the {len(runs)} HELM runs found can be read: " + "; ".join(reasons[:_LISTED])
        )
    for position, run in enumerate(runs):
        if position in notes:
            files.skipped(run.path, notes[position])
            continue
        stats = read[position]
        files.used(run.path, len(stats.exact), _note(stats, mode, split))
        yield from stats.cells


def _settle_suites(candidates: list[tuple[int, Run]], preference: tuple[str, ...], notes: dict[int, str]) -> None:
    """Leave out, in *notes*, every run that loses to the same run in a preferred suite."""
    if not preference:
        return
    rank = {name: index for index, name in reversed(list(enumerate(preference)))}
    groups: dict[tuple[str, str], list[tuple[int, Run]]] = {}
    for position, run in candidates:
        groups.setdefault((run.model, run.key), []).append((position, run))
    flags = _quoted("--suite", preference)
    for group in groups.values():
        best = min(rank.get(run.suite, len(preference)) for _, run in group)
        if best == len(preference):
            continue  # none of its suites is listed: the copies must agree, as without a preference
        winner = next(run for _, run in group if rank.get(run.suite) == best)
        for position, run in group:
            if rank.get(run.suite, len(preference)) > best:
                notes[position] = f"the same run in suite '{winner.suite}' wins ({flags}): {winner.path}"


def _check_agreement(used: list[tuple[Run, Stats]]) -> None:
    """Refuse a run found in several suites with different scores (without a --suite preference)."""
    by_run: dict[tuple[str, str], list[tuple[Run, Stats]]] = {}
    for run, stats in used:
        by_run.setdefault((run.model, run.key), []).append((run, stats))
    for (model, key), copies in by_run.items():
        for index, (first, first_stats) in enumerate(copies):
            for other, other_stats in copies[index + 1 :]:
                if other.suite == first.suite:
                    continue  # one suite: assemble merges or refuses cell by cell
                for query, (exact, shown, where) in first_stats.exact.items():
                    theirs = other_stats.exact.get(query)
                    if theirs is not None and theirs[0] != exact:
                        raise LoaderError(
                            f"model '{model}', run '{key}' is in suite '{first.suite}' ({first.path}) and in suite "
                            f"'{other.suite}' ({other.path}) with different scores (query '{query}': {shown} at "
                            f"{where}, {theirs[1]} at {theirs[2]}); choose one with --suite NAME (repeat it for an "
                            "order of preference: the first listed wins)"
                        )


def _leave_out_other_splits(runs: list[Run], read: dict[int, Stats], split: str, notes: dict[int, str]) -> None:
    """Leave out the runs that have the metric but not the split named by --split; none having it is an error."""
    if split in (SPLIT_AUTO, SPLIT_ALL):
        return
    lacking = [position for position, stats in read.items() if stats.splits and not stats.exact]
    if lacking and len(lacking) == sum(1 for stats in read.values() if stats.splits):
        present = sorted({name for stats in read.values() for name in stats.splits})
        raise LoaderError(
            f"{runs[lacking[0]].path}: --split '{split}': no run read has instances of that split; their splits "
            f"are {', '.join(present)}"
        )
    for position in lacking:
        notes[position] = (
            f"no instance of split '{split}' (--split); its splits are {', '.join(sorted(read[position].splits))}"
        )


def _split_note(stats: Stats, split: str) -> str:
    """Which split(s) a used run was read on, when it has several or the one read is not HELM's test split."""
    read = [name for name in stats.read_splits if name is not None]
    others = {name: count for name, count in stats.splits.items() if name not in read}
    if not others and read in ([], [MAIN_SPLIT]):
        return ""
    counts = ", ".join(f"{name} ({counted(stats.splits[name], 'instance')})" for name in read)
    said = f"split {counts}" if len(read) == 1 else f"splits {counts}, each a query of its own"
    if split == SPLIT_AUTO and read != [MAIN_SPLIT]:
        said += f" (the run has no {MAIN_SPLIT} split)"
    if others:
        left = ", ".join(f"{name} ({counted(count, 'instance')})" for name, count in sorted(others.items()))
        said += f"; left out: {left} (--split NAME or --split all reads them)"
    return said


def _note(stats: Stats, mode: str, split: str = SPLIT_AUTO) -> str:
    """How a used run was read, for the report: its split, its trials and their reduction, the perturbed entries."""
    parts = [_split_note(stats, split)] if _split_note(stats, split) else []
    if stats.trials and max(stats.trials) > 1:
        low, high = min(stats.trials), max(stats.trials)
        counts = str(high) if low == high else f"{low} to {high}"
        parts.append(f"{counts} trials, {_NOTE_REDUCTION.get(mode, mode)}")
    if stats.perturbed:
        parts.append(f"{stats.perturbed} perturbed {'entry' if stats.perturbed == 1 else 'entries'} left out")
    return "; ".join(parts)
