"""A live session: an algorithm run against real evaluations, persisted so that a crash loses nothing.

docs/contracts.md: every algorithm is a step generator that yields a batch
of evaluation requests and is sent their scores. A :class:`Session` drives
one with scores that arrive from outside (a harness, a grader, a person), in
any order and over any number of processes and days:

- :meth:`Session.create` writes ``session.json`` (the models' and queries'
  ids, the algorithm, its parameters, the budget n, the seed) atomically into
  a new run directory. The draw is ``spec.random_draw(seed, K, L)``, exactly
  as :func:`~sysrs_ref.algorithms.driver.select` makes it, and id i of the model list is
  row i, id j of the query list column j. So a session fed the scores of a
  matrix ends with the outcome of ``select(matrix, budget, algorithm,
  seed=seed)`` (for ``ucbe-lrf``, with ``fit=fit_ensemble_fast``: a session
  fits UCB-E-LRF's ensemble with the numpy fit of :mod:`sysrs_ref.fast.lrf`).
- :meth:`Session.pending` is what the algorithm needs next: the pairs of its
  current batch (a whole SySRs phase; one UCB-E step) not recorded yet.
- :meth:`Session.record` / :meth:`Session.record_many` take scores. Each is
  appended to ``log.jsonl`` and fsynced before the call returns
  (:mod:`sysrs_ref.live.log`); when the batch is complete the algorithm
  advances, and its next batch is logged too.
- :meth:`Session.open` replays the log through a fresh generator: any crash,
  at any instant, resumes with every acknowledged score.

Refused (:class:`~sysrs_ref.errors.LiveError`, nothing written): an unknown
id; a pair the algorithm has not requested (yet); a second, different score
for a pair. A score that is not a number in [0, 1] is a
:class:`~sysrs_ref.errors.ScoreError`. Recording the same score again is
harmless and writes nothing. Scores are kept exactly (a float's exact value;
``"0.1"`` is 1/10), as the reference does, so a tie is a true tie.

Log records (one JSON object per line): ``{"t": "batch", "index": b,
"pairs": [[model, query], ...]}`` for each batch the algorithm asks for,
and ``{"t": "score", "model": id, "query": id, "score": S}``, S a JSON number
when the score is a float's exact value (its shortest round-trip text), else
its exact decimal (``"0.1"``, the decimal 1/10) or ``"p/q"``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType, TracebackType

from sysrs_ref._atomic import atomic_write
from sysrs_ref._checks import check_int
from sysrs_ref._files import read_json
from sysrs_ref._version import __version__
from sysrs_ref._words import counted
from sysrs_ref.algorithms.base import AlgorithmRun, Batch, Outcome
from sysrs_ref.algorithms.lrf import EnsembleFit
from sysrs_ref.algorithms.registry import ParamValue, get_algorithm
from sysrs_ref.errors import LiveError, ScoreError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.live.config import (
    CONFIG_NAME,
    FORMAT,
    check_ids,
    check_new_folder,
    config_ids,
    config_int,
    exact_score,
    param_json,
    param_value,
    score_json,
    shown,
)
from sysrs_ref.live.log import LOG_NAME, LogWriter, fsync_directory, read_log
from sysrs_ref.live.status import SessionStatus
from sysrs_ref.schedule import parse_budget
from sysrs_ref.scores import as_score, decimal_text

__all__ = ["Session", "SessionStatus"]

Pair = tuple[str, str]


class Session:
    """One algorithm run fed with scores from outside, persisted in a run directory; a context manager.

    Create one with :meth:`create`, reopen it with :meth:`open` (from any
    process, after any crash). A session opened for writing holds the run
    directory's lock until :meth:`close`.

    >>> import tempfile
    >>> from sysrs_ref import Instance, select
    >>> matrix = Instance([[1, 1, 0, 1], [0, 1, 0, 0], [1, 0, 0, 1]])
    >>> run = Path(tempfile.mkdtemp()) / "run"
    >>> with Session.create(run, ["m0", "m1", "m2"], ["q0", "q1", "q2", "q3"], budget=9, seed=4) as session:
    ...     while not session.done:
    ...         for model, query in session.pending():
    ...             _ = session.record(model, query, matrix.score(int(model[1:]), int(query[1:])))
    ...     print(session.chosen, session.status().spent)
    m0 8
    >>> select(matrix, 9, "sysrs", seed=4).chosen
    0
    """

    def __init__(
        self,
        directory: Path,
        config: Mapping[str, JsonValue],
        writer: LogWriter | None,
        records: Sequence[Mapping[str, JsonValue]],
    ) -> None:
        self.directory = directory
        self.models: tuple[str, ...] = config_ids(config, "models")
        self.queries: tuple[str, ...] = config_ids(config, "queries")
        self.algorithm = str(config["algorithm"])
        self.budget = config_int(config, "budget")
        self.seed = config_int(config, "seed")
        params = config.get("params", {})
        if not isinstance(params, dict):
            raise LiveError(f"{directory / CONFIG_NAME}: 'params' must be an object")
        self.params: dict[str, ParamValue] = {key: param_value(value) for key, value in params.items()}
        self._model_index = {model: i for i, model in enumerate(self.models)}
        self._query_index = {query: j for j, query in enumerate(self.queries)}
        self._writer = writer
        self._scores: dict[Pair, Fraction] = {}
        self._batches: list[tuple[Pair, ...]] = []
        self._waiting: set[Pair] = set()  # the current batch's pairs not recorded yet
        self._broken: str | None = None  # why this object must not be used any more (reopen the session)
        self._outcome: Outcome | None = None
        spec = get_algorithm(self.algorithm)
        draw = spec.random_draw(self.seed, len(self.models), len(self.queries))
        fit: EnsembleFit | None = None
        if spec.fitted is not None:  # UCB-E-LRF: the numpy fit (imported here: other sessions need no fast path)
            from sysrs_ref.fast.lrf import fit_ensemble_fast

            fit = fit_ensemble_fast
        self._run: AlgorithmRun = spec.run(self.budget, draw, spec.parse_params(self.params), fit=fit)
        self._replay(records)

    # -- creating and opening -------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        directory: str | Path,
        models: Sequence[str],
        queries: Sequence[str],
        *,
        budget: int | str,
        algorithm: str = "sysrs",
        seed: int = 0,
        params: Mapping[str, ParamValue] | None = None,
    ) -> Session:
        """Start a session in the new (or empty) folder *directory*, open for writing.

        *models* and *queries* are distinct non-empty ids (row and column
        order); *budget* evaluations, or a percentage of K L such as ``"12%"``;
        *params* the algorithm's (``a`` for UCB-E, ``m`` for SAR, ...).
        LiveError if the folder holds a session already; the usual
        BudgetError, ParameterError or UnknownAlgorithmError for bad settings;
        OutputError (naming the file and the reason) if its files cannot be
        written, and then no session is left started there.
        """
        folder = Path(directory)
        model_ids, query_ids = check_ids(models, "model"), check_ids(queries, "query")
        if len(model_ids) < 2:
            raise LiveError(f"a session needs two or more models to choose between, got one: {model_ids[0]!r}")
        spec = get_algorithm(algorithm)
        check_int(seed, "seed", least=0, error=LiveError)
        checked = spec.check_params(dict(params or {}))
        n = parse_budget(budget, len(model_ids), len(query_ids))
        check_new_folder(folder)
        config: dict[str, JsonValue] = {
            "format": FORMAT,
            "package": __version__,
            "algorithm": spec.name,
            "params": {key: param_json(value) for key, value in checked.items()},
            "budget": n,
            "budget_given": str(budget),
            "seed": seed,
            "models": list(model_ids),
            "queries": list(query_ids),
        }
        session = cls(folder, config, None, [])  # starts the run in memory: bad settings fail here, before any file
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fsync_directory(folder.parent)
        except OSError as err:
            raise LiveError(f"cannot create the run directory {folder}: {err.strerror or err}") from None
        writer, records = LogWriter.open(folder)  # the lock first: two 'live init' at once cannot both win
        written = False
        try:
            if (folder / CONFIG_NAME).exists() or records:
                raise LiveError(f"{folder}: another process has just started a session there")
            atomic_write(folder / CONFIG_NAME, json.dumps(config, indent=1) + "\n")
            written = True
            session._writer = writer
            session._log_new_batches()
        except BaseException:
            if written:  # a full disk (OutputError), Ctrl-C: all or nothing, so a new start can use the folder
                _unstart(folder)
            writer.close()
            raise
        return session

    @classmethod
    def open(cls, directory: str | Path, *, readonly: bool = False) -> Session:
        """Reopen the session in *directory* by replaying its log; for writing unless *readonly*.

        A read-only session (``live status``, ``live next``) takes no lock and
        writes nothing; it refuses :meth:`record`.
        """
        folder = Path(directory)
        path = folder / CONFIG_NAME
        try:
            config = read_json(path)
        except FileNotFoundError:
            raise LiveError(f"no session in {folder}: {CONFIG_NAME} is missing (start one with 'live init')") from None
        except (OSError, ValueError) as err:  # not a regular file, too large; ValueError: not UTF-8 JSON, too deep
            raise LiveError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") from None
        if not isinstance(config, dict) or config.get("format") != FORMAT:
            raise LiveError(f"{path} is not a sysrs-ref live session file")
        if not (folder / LOG_NAME).exists():  # created before the config, never removed: deleted or lost since
            raise LiveError(
                f"the session in {folder} has lost its log ({LOG_NAME} is missing), so every recorded score is gone; "
                f"restore the file, or start over at spent 0: remove {path} and run 'live init' again"
            )
        if readonly:
            return cls(folder, config, None, read_log(folder / LOG_NAME)[0])
        writer, records = LogWriter.open(folder)
        try:
            session = cls(folder, config, writer, records)
            session._log_new_batches()  # a crash may have come between a batch's last score and its successor
        except BaseException:
            writer.close()
            raise
        return session

    def close(self) -> None:
        """Release the run directory (idempotent)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    # -- what the algorithm needs, and the scores ------------------------------------------------------

    @property
    def writable(self) -> bool:
        """Whether this object can record (opened for writing, not closed, not stopped mid-update)."""
        return self._writer is not None and self._broken is None

    @property
    def done(self) -> bool:
        """Whether the algorithm has finished (then :attr:`outcome` is set)."""
        return self._outcome is not None

    @property
    def outcome(self) -> Outcome | None:
        """The run's :class:`~sysrs_ref.algorithms.base.Outcome` (row indices), once done."""
        return self._outcome

    @property
    def chosen(self) -> str | None:
        """The id of the model chosen as best, once done."""
        return None if self._outcome is None else self.models[self._outcome.chosen]

    @property
    def ranking(self) -> tuple[str, ...] | None:
        """Every model id, best first, once done."""
        return None if self._outcome is None else tuple(self.models[i] for i in self._outcome.ranking)

    def pending(self) -> tuple[Pair, ...]:
        """The (model id, query id) pairs the algorithm needs next, in its batch's order; empty when done."""
        self._require_intact()
        if self._outcome is not None or not self._batches:
            return ()
        return tuple(pair for pair in self._batches[-1] if pair in self._waiting)

    def batch(self) -> tuple[Pair, ...]:
        """Every (model id, query id) pair of the algorithm's current batch, recorded or not; empty when done."""
        self._require_intact()
        if self._outcome is not None or not self._batches:
            return ()
        return self._batches[-1]

    def recorded(self) -> Mapping[Pair, Fraction]:
        """Every score recorded so far, by (model id, query id), exactly (a read-only view)."""
        return MappingProxyType(self._scores)

    def record(self, model: str, query: str, score: object) -> bool:
        """Record one score; True if it is new, False if the same score was recorded already.

        See :meth:`record_many`.
        """
        return self.record_many([(model, query, score)]) == 1

    def record_many(self, scores: Iterable[tuple[str, str, object]]) -> int:
        """Record (model id, query id, score) triples, all or none; the number of new ones.

        Every triple is checked before anything is written: ids known, score
        in [0, 1], pair pending or recorded with the same score (then it is
        skipped). The new scores are appended to the log and fsynced in one
        write; if they complete the algorithm's batch, it advances.
        """
        self.check_writable()
        writer = self._writer
        assert writer is not None  # check_writable
        waiting = self._waiting
        new: dict[Pair, Fraction] = {}
        for model, query, value in scores:
            pair = (model, query)
            self._check_pair(pair)
            try:
                score = as_score(value)
            except ScoreError as err:
                raise ScoreError(f"model {model!r}, query {query!r}: {err}") from None
            known = self._scores.get(pair, new.get(pair))
            if known is not None:
                if known != score:
                    raise LiveError(
                        f"model {model!r}, query {query!r} already has the score {decimal_text(known)}; "
                        f"refusing the different score {decimal_text(score)} (a pair is scored once)"
                    )
                continue
            if pair not in waiting:
                raise LiveError(
                    f"model {model!r}, query {query!r} was not requested: the algorithm needs "
                    f"{counted(len(waiting), 'pair')} now ('live next' lists them); "
                    + ("it has finished" if self.done else "later pairs are requested once this batch is complete")
                )
            new[pair] = score
        if new:
            try:
                writer.append(
                    {"t": "score", "model": m, "query": q, "score": score_json(s)} for (m, q), s in new.items()
                )
                self._scores.update(new)
                self._waiting.difference_update(new)
                self._advance()
                self._log_new_batches()
            except BaseException as error:  # Ctrl-C in an fsync or a fit, a full disk: memory and log may differ
                self._broken = f"{type(error).__name__} while recording"
                self.close()
                raise
        return len(new)

    def check_writable(self) -> None:
        """LiveError unless this object can record: opened for writing, not closed, not stopped mid-update."""
        self._require_intact()
        if self._writer is None:
            raise LiveError(f"the session in {self.directory} was opened read-only (or closed); open it to record")

    def _require_intact(self) -> None:
        if self._broken is not None:
            raise LiveError(
                f"this session object stopped in the middle of an update ({self._broken}); open it again with "
                f"Session.open({str(self.directory)!r}): its log holds every score that was acknowledged"
            )

    def status(self) -> SessionStatus:
        """The session's progress: spent / budget, the phase, the active models, the result when done."""
        self._require_intact()
        current = self._batches[-1] if self._batches and not self.done else ()
        active = tuple(dict.fromkeys(model for model, _ in current))
        return SessionStatus(
            self.algorithm,
            len(self.models),
            len(self.queries),
            self.budget,
            len(self._scores),
            len(self.pending()),
            len(self._batches),
            active,
            self.done,
            self.chosen,
            self.ranking,
        )

    # -- replay ---------------------------------------------------------------------------------------

    def _check_pair(self, pair: Pair) -> None:
        model, query = pair
        if model not in self._model_index:
            raise LiveError(f"unknown model {model!r}: the session's models are {shown(self.models)}")
        if query not in self._query_index:
            raise LiveError(f"unknown query {query!r}: the session's queries are {shown(self.queries)}")

    def _replay(self, records: Sequence[Mapping[str, JsonValue]]) -> None:
        """Rebuild the state from the log: the scores, then the batches the algorithm asks for, checked."""
        logged: list[tuple[Pair, ...]] = []
        where = self.directory / LOG_NAME
        for number, record in enumerate(records, start=1):
            kind = record.get("t")
            if kind == "batch":
                pairs = record.get("pairs")
                if not isinstance(pairs, list):
                    raise LiveError(f"{where} record {number}: a batch without its pairs; the log is corrupt")
                logged.append(tuple((str(p[0]), str(p[1])) for p in pairs if isinstance(p, list) and len(p) == 2))
            elif kind == "score":
                pair = (str(record.get("model")), str(record.get("query")))
                self._check_pair(pair)
                try:
                    score = exact_score(record.get("score"))
                except (ValueError, ArithmeticError):  # decimal errors and 1/0 are ArithmeticErrors
                    score = Fraction(-1)
                if not 0 <= score <= 1:
                    raise LiveError(
                        f"{where} record {number}: unreadable score {record.get('score')!r}; the log is corrupt"
                    )
                if self._scores.setdefault(pair, score) != score:
                    raise LiveError(
                        f"{where} record {number}: a second, different score for {pair}; the log is corrupt"
                    )
            else:
                raise LiveError(f"{where} record {number}: unknown record type {kind!r}; the log is corrupt")
        self._start()
        self._advance()
        for index, batch in enumerate(logged):
            if index >= len(self._batches) or batch != self._batches[index]:
                raise LiveError(
                    f"{where}: batch {index + 1} of the log is not what the algorithm asks for now; the session was "
                    f"written by another version of sysrs-ref or its files were edited (package {__version__})"
                )
        self._logged = len(logged)
        asked = {pair for batch in self._batches for pair in batch}
        stray = [pair for pair in self._scores if pair not in asked]
        if stray:
            raise LiveError(
                f"{where}: scores for pairs the algorithm never requested, first {stray[0]}; the log is corrupt"
            )

    def _start(self) -> None:
        try:
            batch = next(self._run)
        except StopIteration as stop:
            self._finish(stop.value)
            return
        self._asked(batch)

    def _advance(self) -> None:
        """Send every complete batch's scores to the algorithm, until it needs one not fully recorded."""
        while self._outcome is None and self._batches and not self._waiting:
            try:
                batch = self._run.send([self._scores[pair] for pair in self._batches[-1]])
            except StopIteration as stop:
                self._finish(stop.value)
                return
            self._asked(batch)

    def _asked(self, batch: Batch) -> None:
        """The algorithm asked for *batch*: it becomes the current one."""
        pairs = self._pairs(batch)
        self._batches.append(pairs)
        self._waiting = {pair for pair in pairs if pair not in self._scores}

    def _finish(self, outcome: object) -> None:
        if not isinstance(outcome, Outcome):
            raise TypeError(f"the algorithm returned {type(outcome).__name__}, not an Outcome")
        self._outcome = outcome

    def _pairs(self, batch: Batch) -> tuple[Pair, ...]:
        return tuple((self.models[r.model], self.queries[r.query]) for r in batch)

    def _log_new_batches(self) -> None:
        """Append the batches the algorithm asked for since the log last recorded one."""
        if self._writer is not None and self._logged < len(self._batches):
            self._writer.append(
                {"t": "batch", "index": index + 1, "pairs": [list(pair) for pair in self._batches[index]]}
                for index in range(self._logged, len(self._batches))
            )
            self._logged = len(self._batches)


def _unstart(folder: Path) -> None:
    """Undo a start that failed before its log held a record: remove its config, leaving the folder reusable.

    Called with the lock held. A log that holds a record already is left, and
    the config with it: the session exists and :meth:`Session.open` resumes it.
    """
    with contextlib.suppress(OSError):
        if (folder / LOG_NAME).stat().st_size == 0:
            (folder / CONFIG_NAME).unlink()
            fsync_directory(folder)
