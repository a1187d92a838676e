"""Driving inspect-ai from a live session: the (model, sample) pairs the algorithm asks for, run by inspect itself.

:func:`inspect_queries` names the samples of an inspect ``Task`` as ``convert
--from inspect`` does (``"<task name>/<sample id>"``; a sample without an id
is numbered from 1, as inspect numbers it); :func:`inspect_evaluator` makes the
evaluation function of :func:`~sysrs_ref.live.driver.run`: for a model and
some of those queries, it calls ``inspect_ai.eval(task, model=MODEL,
sample_id=[...], log_dir=LOG_DIR)`` and reads the scores back from the log
inspect wrote, with :func:`~sysrs_ref.loaders.load_inspect` (the scorer named
*scorer*, its epochs reduced as the log says). Every pair is recorded in the
session as soon as its call returns, so a session stopped mid-batch resumes
without running a recorded pair again, and the logs left in *log_dir*
convert back to the scores recorded.

inspect-ai is the optional ``inspect`` extra; without it these functions
raise a :class:`~sysrs_ref.errors.LiveError` naming it.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from sysrs_ref.errors import LiveError
from sysrs_ref.live.driver import CannotEvaluate, Evaluator
from sysrs_ref.loaders.inspect_ai import load_inspect

__all__ = ["INSPECT_HINT", "inspect_evaluator", "inspect_queries", "load_task"]

#: How to get inspect-ai.
INSPECT_HINT = "pip install 'sysrs-ref[inspect]' (or pip install inspect-ai)"


def _inspect() -> object:
    try:
        import inspect_ai
    except ImportError:
        raise LiveError(
            f"driving inspect-ai needs it installed, the optional 'inspect' extra: {INSPECT_HINT}"
        ) from None
    return inspect_ai


def _samples(task: object) -> tuple[str, list[str | int]]:
    """The task's name and its samples' ids (a sample without an id numbered from 1, as inspect does)."""
    name = getattr(task, "name", None)
    dataset = getattr(task, "dataset", None)
    if not isinstance(name, str) or dataset is None:
        raise LiveError(f"{task!r} is not an inspect-ai Task (it needs a name and a dataset)")
    ids: list[str | int] = []
    for position, sample in enumerate(dataset, start=1):
        sample_id = getattr(sample, "id", None)
        ids.append(sample_id if isinstance(sample_id, (str, int)) and not isinstance(sample_id, bool) else position)
    if not ids:
        raise LiveError(f"inspect task '{name}' has no samples")
    return name, ids


def load_task(spec: str) -> object:
    """The inspect-ai ``Task`` that ``FILE.py@NAME`` names: the module *FILE.py* imported, its ``NAME`` called.

    ``NAME`` is a ``@task`` function (called with no argument) or a ``Task``.
    Raises :class:`~sysrs_ref.errors.LiveError` for a file that cannot be
    imported or a name it does not define.
    """
    _inspect()
    file, at, name = spec.rpartition("@")
    if not at or not file or not name:
        raise LiveError(f"--inspect {spec!r}: name the task as FILE.py@NAME (the file defining it, and its name)")
    path = Path(file)
    if not path.is_file():
        raise LiveError(f"--inspect {spec!r}: no such file {path}")
    module_name = f"_sysrs_inspect_task_{abs(hash(path.resolve()))}"
    loader = importlib.util.spec_from_file_location(module_name, path)
    if loader is None or loader.loader is None:
        raise LiveError(f"--inspect {spec!r}: {path} cannot be imported as a Python module")
    module = importlib.util.module_from_spec(loader)
    sys.modules[module_name] = module
    try:
        loader.loader.exec_module(module)
    except Exception as err:
        raise LiveError(f"--inspect {spec!r}: importing {path} failed: {err!r}") from None
    # A module without a spec is a local file to inspect: it then skips the scan of every installed package's
    # files that it makes on each eval() to find a task's distribution (3 s a call with the extras installed).
    module.__spec__ = None
    found = getattr(module, name, None)
    if found is None:
        raise LiveError(f"--inspect {spec!r}: {path} defines no {name}")
    try:
        task = found() if callable(found) and not hasattr(found, "dataset") else found
    except Exception as err:  # the user's task function: whatever it raises is one line
        raise LiveError(f"--inspect {spec!r}: {name}() raised {err!r}") from None
    _samples(task)  # a LiveError now if it is not a task
    return task


def inspect_queries(task: object) -> list[str]:
    """The query ids of an inspect-ai ``Task``'s samples, ``"<task name>/<sample id>"``, in the dataset's order.

    Raises :class:`~sysrs_ref.errors.LiveError` for something that is not a
    Task, or a task without samples.
    """
    _inspect()
    name, ids = _samples(task)
    return [f"{name}/{sample_id}" for sample_id in ids]


def inspect_evaluator(
    task: object, *, scorer: str, log_dir: str | Path, options: Mapping[str, object] | None = None
) -> Evaluator:
    """The evaluation function that runs *task*'s samples on a model with ``inspect_ai.eval`` and reads its log.

    ``evaluate(model, queries)`` runs ``inspect_ai.eval(task, model=model,
    sample_id=[the queries' sample ids], log_dir=log_dir, display="none",
    **options)`` and returns, in the order of *queries*, the score of
    scorer *scorer* that :func:`~sysrs_ref.loaders.load_inspect` reads from
    the log written. A log that did not finish, or a sample left without a
    score, is a :class:`~sysrs_ref.errors.LiveError` with inspect's message
    (the driver retries the call, then stops; the scores recorded before are
    kept). A model's first call that inspect refuses, or that ends in an
    error before any sample ran (an unknown model, a tokenizer it cannot
    download), is a :class:`~sysrs_ref.live.driver.CannotEvaluate` error:
    reported at once, not retried.
    """
    inspect_ai = _inspect()
    name, ids = _samples(task)
    by_query = {f"{name}/{sample_id}": sample_id for sample_id in ids}
    folder = str(log_dir)
    extra = dict(options or {})

    worked: set[str] = set()  # the models with a call that ran: a later error may be bad luck, and is retried

    def evaluate(model: str, queries: Sequence[str]) -> list[object]:
        unknown = [query for query in queries if query not in by_query]
        if unknown:
            raise LiveError(f"query '{unknown[0]}' is not a sample of inspect task '{name}'")
        sample_ids = [by_query[query] for query in queries]
        first = model not in worked
        try:
            logs: object = inspect_ai.eval(  # type: ignore[attr-defined]  # inspect-ai is an optional extra, imported at run time as a plain object
                task, model=model, sample_id=sample_ids, log_dir=folder, display="none", **extra
            )
        except Exception as err:  # inspect refuses the call itself: an unknown model, a bad option
            if first:
                raise CannotEvaluate(f"inspect-ai cannot run model '{model}': {err}") from None
            raise
        found = logs if isinstance(logs, list) else []
        locations = [getattr(log, "location", None) for log in found]
        if len(locations) != 1 or not isinstance(locations[0], str):
            raise LiveError(f"inspect_ai.eval of task '{name}' on model '{model}' wrote no single log")
        status = getattr(found[0], "status", None)
        if status != "success":  # inspect's own message, from the log it wrote
            error = getattr(getattr(found[0], "error", None), "message", None) or f"the log's status is {status!r}"
            message = f"inspect-ai's eval of task '{name}' on model '{model}' ended with an error: {error}"
            if first and not getattr(found[0], "results", None):  # not one sample ran: the setup, every time
                raise CannotEvaluate(f"{message} ({locations[0]})")
            raise LiveError(f"{message} ({locations[0]}); retried")
        worked.add(model)
        table = load_inspect(locations[0], metric=scorer, missing="fail")
        scores = dict(zip(table.queries, table.scores[0].tolist(), strict=True))
        lacking = [query for query in queries if query not in scores]
        if lacking:
            raise LiveError(
                f"{locations[0]}: sample '{lacking[0]}' has no score from scorer '{scorer}' (an error in the sample?)"
            )
        return [scores[query] for query in queries]

    return evaluate
