"""The score table that every harness loader returns: assembled from cells, with a report of what was merged or dropped.

A loader turns its files into a stream of :class:`Cell` (model id, query id,
score, where it was read) and :func:`assemble` builds the table:

- models and queries are numbered in order of first appearance in the stream;
- every score must be a number in [0, 1] (NaN, infinities, strings, values
  outside [0, 1] raise :class:`~sysrs_ref.errors.LoaderError` naming where);
- the same (model, query) pair twice with the same score is merged and counted
  in :attr:`ResultsTable.duplicates`; with different scores it is an error naming
  both places;
- a model lacking some query that another model has is handled by the
  ``missing`` policy: ``"fail"`` (the default) refuses, ``"drop-models"``
  removes the incomplete models, ``"drop-queries"`` keeps only the queries
  every model has. :attr:`ResultsTable.missing` always reports the counts
  before any dropping;
- a metric whose name suggests another scale than [0, 1] (a percentage,
  BLEU, chrF, TER, EQ-Bench, a perplexity), or whose every value read is 0
  (how a 0-100 metric passes the check of [0, 1] unseen), gives a warning
  (:attr:`ResultsTable.warnings`);
- a cell whose score is a :class:`Samples` (every epoch or trial kept, as
  ``--epochs all`` asks) holds E repeated scores: then every cell must hold
  the same number E of them, :attr:`ResultsTable.samples` is the K x L x E
  array and :attr:`ResultsTable.scores` the exact mean over the E, rounded
  once to float64.

A loader also tells what it did with each input file through a
:class:`FileLog` (used, with how many scores and how they were read, or left
out and why); the table carries it as :attr:`ResultsTable.files`, and the
choices that shaped the table (the epoch reduction, which reruns won, ...)
as :attr:`ResultsTable.settings`.

:func:`save_table` writes the matrix as ``FILE.npy`` and the ids as
``FILE.ids.json``, each atomically.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Literal, NamedTuple, get_args

import numpy as np
import numpy.typing as npt

from sysrs_ref._atomic import atomic_write
from sysrs_ref._words import counted
from sysrs_ref.errors import LoaderError, ParameterError
from sysrs_ref.instance import Instance
from sysrs_ref.json_types import JsonValue
from sysrs_ref.loaders._reading import PathArg
from sysrs_ref.scores import checked_score

__all__ = [
    "MISSING_POLICIES",
    "RERUNS_HINT",
    "Cell",
    "FileLog",
    "FileUse",
    "MissingPolicy",
    "Samples",
    "ResultsTable",
    "assemble",
    "check_missing_policy",
    "save_table",
    "scale_warnings",
]

#: The end of the refusal of a conflicting duplicate (``assemble``'s *conflict_hint*) when several runs are merged.
RERUNS_HINT = "; or, for two runs of one model and task, read the latest alone with --reruns latest"

#: What to do when a model lacks some query that another model has.
MissingPolicy = Literal["fail", "drop-models", "drop-queries"]
MISSING_POLICIES: tuple[MissingPolicy, ...] = get_args(MissingPolicy)

_LISTED = 10
"""How many incomplete models an error message lists by name."""


class Samples(tuple[object, ...]):
    """Every repeated score of one cell (its epochs or trials, in order), kept rather than reduced.

    >>> Samples((1, 0, "1"))
    Samples((1, 0, '1'))
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Samples({tuple(self)!r})"


class FileUse(NamedTuple):
    """What a loader did with one input file: used (with how many scores) or left out, and why.

    >>> FileUse("runs/a.eval", False, 0, "status 'cancelled'; pass --unfinished drop").to_json()["used"]
    False
    """

    path: str
    used: bool
    scores: int
    """How many cells (model, query, score) were read from the file: before repeated cells are merged and
    before ``missing`` drops models or queries, so a file of a dropped model still counts its cells."""
    note: str
    """For a file left out, why; for a used one, how it was read ("" when there is nothing to say)."""

    def to_json(self) -> dict[str, JsonValue]:
        """The entry as the ``files`` list of the conversion report (``FILE.ids.json``, ``convert --json``) shows it."""
        return {"path": self.path, "used": self.used, "scores": self.scores, "note": self.note}


class FileLog:
    """The :class:`FileUse` of every input file, in the order the loader met them; a later word on a file wins.

    >>> log = FileLog()
    >>> log.used("a.jsonl", 4)
    >>> log.skipped("b.jsonl", "an older run of gsm8k for m1; --reruns latest keeps a.jsonl")
    >>> [(use.path, use.used) for use in log.entries()]
    [('a.jsonl', True), ('b.jsonl', False)]
    """

    def __init__(self) -> None:
        self._uses: dict[str, FileUse] = {}
        self._warnings: dict[str, None] = {}

    def used(self, path: PathArg, scores: int, note: str = "") -> None:
        """Record that *scores* scores were taken from *path* (*note*: how it was read, if worth saying)."""
        key = os.fspath(path)
        self._uses[key] = FileUse(key, True, scores, note)

    def skipped(self, path: PathArg, reason: str) -> None:
        """Record that *path* was left out, and why (*reason* says how to bring it in, where there is a way)."""
        key = os.fspath(path)
        self._uses[key] = FileUse(key, False, 0, reason)

    def entries(self) -> tuple[FileUse, ...]:
        """Every file's use, in the order the files were first met."""
        return tuple(self._uses.values())

    def warn(self, warning: str) -> None:
        """Record something the reader of the report must see (a limited run, a doubtful scale), once."""
        self._warnings[warning] = None

    def warnings(self) -> tuple[str, ...]:
        """The warnings recorded, in order."""
        return tuple(self._warnings)


class Cell(NamedTuple):
    """One score read from a file: which model, which query, the raw value, and where it was read."""

    model: str
    query: str
    score: object
    """One score, or a :class:`Samples` of repeated scores."""
    where: str
    """For messages: the file and the line, entry or sample ("runs/x.jsonl line 3")."""


@dataclass(frozen=True, eq=False)
class ResultsTable:
    """A models x queries score matrix read from evaluation results, with its ids and a report.

    ``scores[i, j]`` is model ``models[i]``'s score on query ``queries[j]``, a
    float64 in [0, 1]; the array is read-only. ``missing`` maps each model that
    lacked some queries to how many, counted before any dropping;
    ``dropped_models`` and ``dropped_queries`` are what the missing policy
    removed, ``duplicates`` how many repeated identical cells were merged.
    ``files`` says what became of each input file and ``settings`` the
    choices that shaped the table (name to a phrase, e.g. ``{"epochs":
    "mean"}``). ``samples`` is None, or with every epoch kept the read-only
    K x L x E array of repeated scores (``scores`` is then their mean).
    ``warnings`` are what the reader must see although nothing was refused: a
    run scoring only part of its task, a metric that may not be a score in
    [0, 1]. Tables compare by identity (compare their fields to compare contents).

    >>> table = ResultsTable(np.array([[1.0, 0.5], [0.0, 1.0]]), ("m1", "m2"), ("q1", "q2"), "long-csv", "score", {})
    >>> table.shape, table.to_instance().means
    ((2, 2), (Fraction(3, 4), Fraction(1, 2)))
    """

    scores: npt.NDArray[np.float64]
    models: tuple[str, ...]
    queries: tuple[str, ...]
    source: str
    metric: str
    missing: Mapping[str, int]
    dropped_models: tuple[str, ...] = ()
    dropped_queries: tuple[str, ...] = ()
    duplicates: int = 0
    files: tuple[FileUse, ...] = ()
    settings: Mapping[str, str] = field(default_factory=dict)
    samples: npt.NDArray[np.float64] | None = None
    warnings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        scores = np.array(self.scores, dtype=np.float64)  # a private copy, so read-only really means unchanging
        if scores.shape != (len(self.models), len(self.queries)):
            raise LoaderError(
                f"a score table needs one row per model and one column per query: the scores have shape "
                f"{scores.shape}, for {counted(len(self.models), 'model')} and "
                f"{counted(len(self.queries), 'query', 'queries')}"
            )
        scores.setflags(write=False)
        object.__setattr__(self, "scores", scores)
        if self.samples is not None:
            samples = np.array(self.samples, dtype=np.float64)
            if samples.ndim != 3 or samples.shape[:2] != scores.shape or samples.shape[2] < 1:
                raise LoaderError(
                    f"a score table's samples must have shape (models, queries, epochs) = "
                    f"({scores.shape[0]}, {scores.shape[1]}, E); they have shape {samples.shape}"
                )
            samples.setflags(write=False)
            object.__setattr__(self, "samples", samples)
        object.__setattr__(self, "files", tuple(self.files))
        object.__setattr__(self, "warnings", tuple(self.warnings))
        object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))
        object.__setattr__(self, "models", tuple(self.models))
        object.__setattr__(self, "queries", tuple(self.queries))
        object.__setattr__(self, "missing", MappingProxyType(dict(self.missing)))
        object.__setattr__(self, "dropped_models", tuple(self.dropped_models))
        object.__setattr__(self, "dropped_queries", tuple(self.dropped_queries))

    @property
    def shape(self) -> tuple[int, int]:
        """(K, L): the number of models and of queries."""
        return (len(self.models), len(self.queries))

    def to_instance(self) -> Instance:
        """The table as a validated :class:`~sysrs_ref.instance.Instance`, with model and query names.

        Raises :class:`~sysrs_ref.errors.InstanceError` when it holds fewer than 2 models.
        """
        return Instance(self.scores, model_names=self.models, query_names=self.queries)

    def ids_json(self) -> dict[str, JsonValue]:
        """The sidecar ``FILE.ids.json`` written beside the matrix, as a dict.

        >>> ResultsTable(np.zeros((1, 2)), ("m",), ("q1", "q2"), "helm", "exact_match", {}).ids_json()["queries"]
        ['q1', 'q2']
        """
        return {
            "source": self.source,
            "metric": self.metric,
            "models": list(self.models),
            "queries": list(self.queries),
            "missing": dict(self.missing),
            "dropped_models": list(self.dropped_models),
            "dropped_queries": list(self.dropped_queries),
            "duplicates": self.duplicates,
            "epochs": None if self.samples is None else int(self.samples.shape[2]),
            "settings": dict(self.settings),
            "files": [use.to_json() for use in self.files],
            "warnings": list(self.warnings),
        }


def check_missing_policy(missing: str) -> MissingPolicy:
    """*missing* if it is one of :data:`MISSING_POLICIES`, else a :class:`~sysrs_ref.errors.ParameterError`.

    >>> check_missing_policy("drop-models")
    'drop-models'
    """
    for policy in MISSING_POLICIES:
        if missing == policy:
            return policy
    raise ParameterError(f"unknown missing-cell policy {missing!r}; use one of {', '.join(MISSING_POLICIES)}")


def assemble(
    cells: Iterable[Cell | tuple[str, str, object, str]],
    *,
    source: str,
    metric: str,
    missing: str = "fail",
    origin: str = "",
    files: FileLog | None = None,
    settings: Mapping[str, str] | None = None,
    conflict_hint: str = "",
) -> ResultsTable:
    """Build a :class:`ResultsTable` from *cells* (model, query, score, where), as the module docstring describes.

    *origin* names the inputs (files or directories) in the messages about the
    whole table; each cell's ``where`` names its own place. *files* is read
    after the last cell (so a loader may record into it while *cells* runs)
    and *settings* is passed on, both for the report. *conflict_hint* ends the
    refusal of a conflicting duplicate with the option that resolves it, where
    the loader has one (``--reruns latest`` for two runs of one model). Raises
    :class:`~sysrs_ref.errors.LoaderError` for a bad score, a conflicting
    duplicate, missing cells under ``missing="fail"``, or an empty result, and
    :class:`~sysrs_ref.errors.ParameterError` for an unknown policy.

    >>> cells = [("a", "q1", 1, "x line 1"), ("a", "q2", 0.5, "x line 2"), ("b", "q2", 0, "x line 3"),
    ...          ("b", "q2", 0, "x line 4")]
    >>> table = assemble(cells, source="long-csv", metric="score", missing="drop-queries")
    >>> table.scores.tolist(), table.queries, dict(table.missing), table.dropped_queries, table.duplicates
    ([[0.5], [0.0]], ('q2',), {'b': 1}, ('q1',), 1)
    """
    policy = check_missing_policy(missing)
    models: dict[str, int] = {}
    queries: dict[str, int] = {}
    values: dict[tuple[int, int], tuple[tuple[Fraction, ...], object, str]] = {}
    duplicates = 0
    epochs: tuple[int, str] | None = None  # (E, where first seen) once a cell keeps its samples; (0, ...) if not
    for model, query, score, where in cells:
        exact = _checked_scores(score, where)
        shape = (len(exact) if isinstance(score, Samples) else 0, where)
        if epochs is None:
            epochs = shape
        elif shape[0] != epochs[0]:
            raise LoaderError(_epochs_message(epochs, shape))
        key = (models.setdefault(model, len(models)), queries.setdefault(query, len(queries)))
        seen = values.get(key)
        if seen is None:
            values[key] = (exact, score, where)
        elif seen[0] == exact:
            duplicates += 1
        else:
            raise LoaderError(
                f"model '{model}', query '{query}' has two different scores: {seen[1]} at {seen[2]} and "
                f"{score} at {where}; keep one of them (remove the other file or entry{conflict_hint}) and convert "
                "again"
            )
    prefix = f"{origin}: " if origin else ""
    if not values:
        raise LoaderError(f"{prefix}no scores found for metric '{metric}'; check the paths and the metric name")
    model_names, query_names = list(models), list(queries)
    per_model = [0] * len(model_names)
    per_query = [0] * len(query_names)
    for model_index, query_index in values:
        per_model[model_index] += 1
        per_query[query_index] += 1
    lacking = {
        name: len(query_names) - count
        for name, count in zip(model_names, per_model, strict=True)
        if count < len(query_names)
    }
    if lacking and policy == "fail":
        raise LoaderError(prefix + _missing_message(lacking, values, model_names, query_names, models))
    keep_models = [i for i, name in enumerate(model_names) if policy != "drop-models" or name not in lacking]
    keep_queries = [j for j, count in enumerate(per_query) if policy != "drop-queries" or count == len(model_names)]
    if not keep_models or not keep_queries:
        left = "model" if not keep_models else "query"
        raise LoaderError(
            f"{prefix}no {left} is left after --missing {policy}: {len(lacking)} of {counted(len(model_names), 'model')} "
            f"lack some of the {counted(len(query_names), 'query', 'queries')}; try the other policy or convert fewer files together"
        )
    depth = epochs[0] if epochs is not None else 0
    scores = np.empty((len(keep_models), len(keep_queries)), dtype=np.float64)
    samples = np.empty((len(keep_models), len(keep_queries), depth), dtype=np.float64) if depth else None
    for row, model_index in enumerate(keep_models):
        if samples is None:
            scores[row, :] = [_as_float(values[(model_index, query_index)]) for query_index in keep_queries]
            continue
        for column, query_index in enumerate(keep_queries):
            cell = values[(model_index, query_index)][0]
            scores[row, column] = float(sum(cell, Fraction(0)) / len(cell))
            samples[row, column, :] = [float(value) for value in cell]
    kept_models, kept_queries = set(keep_models), set(keep_queries)
    return ResultsTable(
        scores=scores,
        models=tuple(model_names[i] for i in keep_models),
        queries=tuple(query_names[j] for j in keep_queries),
        source=source,
        metric=metric,
        missing=lacking,
        dropped_models=tuple(name for i, name in enumerate(model_names) if i not in kept_models),
        dropped_queries=tuple(name for j, name in enumerate(query_names) if j not in kept_queries),
        duplicates=duplicates,
        files=files.entries() if files is not None else (),
        settings=settings or {},
        samples=samples,
        warnings=(*(files.warnings() if files is not None else ()), *scale_warnings(metric, values.values())),
    )


#: Words of a metric's name that suggest another scale than [0, 1], and what that scale is.
_OTHER_SCALES = {
    "percent": "a percentage, 0 to 100",
    "percentage": "a percentage, 0 to 100",
    "pct": "a percentage, 0 to 100",
    "eqbench": "EQ-Bench scores 0 to 100",
    "bleu": "BLEU, which harnesses often give 0 to 100",
    "chrf": "chrF, which harnesses often give 0 to 100",
    "ter": "TER, 0 to 100 and beyond",
    "perplexity": "a perplexity, 1 and above",
    "bpb": "bits per byte, 0 and above",
}
#: Words of a metric's name that say it is a share in [0, 1] whatever else it names (``bleu_acc``, ``pct_correct``).
_SHARE_WORDS = frozenset({"acc", "accuracy", "em", "match", "correct", "f1", "rate", "ratio", "frac", "fraction"})


def scale_warnings(metric: str, cells: Iterable[tuple[tuple[Fraction, ...], object, str]]) -> tuple[str, ...]:
    """Warnings that *metric* may not be a score in [0, 1], from its name and from the values read.

    Every value lies in [0, 1] (or it was refused); a name like
    ``percent_parseable`` or ``bleu_max`` (not ``bleu_acc``: a share) or
    values that are all 0 (which a 0-100 metric shows when nothing scored)
    still leave the doubt.

    >>> scale_warnings("acc", [((Fraction(1),), 1, "x"), ((Fraction(0),), 0, "y")])
    ()
    >>> print(*scale_warnings("percent_parseable", [((Fraction(0),), 0, "x")]), sep="\\n")
    metric 'percent_parseable' is named like a metric of another scale (a percentage, 0 to 100) than [0, 1]: check that the harness scored it in [0, 1]
    every score of metric 'percent_parseable' read is 0: the matrix cannot tell the models apart, and a metric of another scale (0 to 100) that scored nothing reads the same; check the metric
    """
    found = []
    words = re.split(r"[^a-z0-9]+", metric.lower())
    scale = next((_OTHER_SCALES[word] for word in words if word in _OTHER_SCALES), None)
    if scale is None and "bits_per_byte" in metric.lower():
        scale = _OTHER_SCALES["bpb"]
    if scale is not None and not _SHARE_WORDS.intersection(words):
        found.append(
            f"metric '{metric}' is named like a metric of another scale ({scale}) than [0, 1]: check that the "
            "harness scored it in [0, 1]"
        )
    if all(value == 0 for exact, _, _ in cells for value in exact):
        found.append(
            f"every score of metric '{metric}' read is 0: the matrix cannot tell the models apart, and a metric of "
            "another scale (0 to 100) that scored nothing reads the same; check the metric"
        )
    return tuple(found)


def _as_float(entry: tuple[tuple[Fraction, ...], object, str]) -> float:
    """The float64 of a cell's one exact score: the float or int it was given as (-0.0 made 0.0), else the Fraction's."""
    given = entry[1]
    return given + 0.0 if type(given) is float or type(given) is int else float(entry[0][0])


def _checked_scores(score: object, where: str) -> tuple[Fraction, ...]:
    """The cell's score (or each of its :class:`Samples`) as an exact Fraction in [0, 1]."""
    if (type(score) is float or type(score) is int) and 0 <= score <= 1:  # the common case, without a generator
        return (checked_score(score),)
    given = tuple(score) if isinstance(score, Samples) else (score,)
    if not given:
        raise LoaderError(f"{where}: no score in this cell's samples")
    try:
        return tuple(checked_score(value) for value in given)
    except ValueError as problem:
        raise LoaderError(f"{where}: score {problem}; every score must be a number in [0, 1]") from None


def _epochs_message(first: tuple[int, str], other: tuple[int, str]) -> str:
    def phrase(count: int) -> str:
        return f"{counted(count, 'epoch')} kept" if count else "a single (reduced) score"

    return (
        f"{other[1]}: {phrase(other[0])}, but {first[1]} has {phrase(first[0])}; with every epoch kept "
        "(--epochs all) every cell needs the same number of epochs: reduce them instead (--epochs mean) or "
        "convert the logs with equal epochs separately"
    )


def _missing_message(
    lacking: dict[str, int],
    values: Mapping[tuple[int, int], object],
    model_names: list[str],
    query_names: list[str],
    index: Mapping[str, int],
) -> str:
    parts = []
    for name, count in list(lacking.items())[:_LISTED]:
        first = next(query for j, query in enumerate(query_names) if (index[name], j) not in values)
        parts.append(f"'{name}' lacks {count} (first: '{first}')")
    more = f" and {len(lacking) - _LISTED} more" if len(lacking) > _LISTED else ""
    return (
        f"{len(lacking)} of {counted(len(model_names), 'model')} lack scores for some of the "
        f"{counted(len(query_names), 'query', 'queries')}: "
        + "; ".join(parts)
        + more
        + ". Every model needs a score on every query: score the missing ones, or pass --missing drop-models "
        "(drop those models) or --missing drop-queries (keep only the queries every model has)"
    )


def save_table(table: ResultsTable, out: PathArg) -> tuple[Path, Path]:
    """Write *table*'s matrix to *out* (``FILE.npy``) and its ids to ``FILE.ids.json``; return both paths.

    The ``.npy`` is ``numpy.save`` of the float64 matrix (read it back with
    ``numpy.load(path, allow_pickle=False)`` or
    :func:`sysrs_ref.loaders.load_scores`), or of the K x L x E samples when
    the table kept every epoch; the sidecar holds
    :meth:`ResultsTable.ids_json`. Each file is written to a temporary file in
    the same directory, flushed, synced and renamed into place, so a reader
    never sees a partial file. Missing parent directories are created.

    >>> import tempfile, os
    >>> table = ResultsTable(np.array([[1.0], [0.0]]), ("a", "b"), ("q",), "long-csv", "score", {})
    >>> with tempfile.TemporaryDirectory() as d:
    ...     matrix, ids = save_table(table, os.path.join(d, "s.npy"))
    ...     np.load(matrix, allow_pickle=False).tolist(), ids.name
    ([[1.0], [0.0]], 's.ids.json')
    """
    path = Path(os.fspath(out))
    if path.suffix != ".npy":
        raise LoaderError(f"{path}: the output file must end in .npy (its ids are written beside it as FILE.ids.json)")
    ids_path = path.with_suffix(".ids.json")
    buffer = io.BytesIO()
    array = table.scores if table.samples is None else table.samples
    np.save(buffer, np.ascontiguousarray(array, dtype=np.float64), allow_pickle=False)
    sidecar = json.dumps(table.ids_json(), indent=1, ensure_ascii=False) + "\n"
    for target, data in ((path, buffer.getvalue()), (ids_path, sidecar.encode("utf-8"))):
        try:
            atomic_write(target, data)
        except OSError as err:
            raise LoaderError(f"{target}: cannot write it ({err.strerror or err}); check the directory") from None
    return path, ids_path
