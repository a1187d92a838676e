"""Driving lm-evaluation-harness from a live session: the (model, document) pairs asked for, run by lm-eval itself.

A model is named ``NAME`` or ``NAME:ARGS``, lm-eval's ``--model`` and
``--model_args`` (``hf:pretrained=org/model,dtype=bfloat16``; a model class
registered with ``lm_eval.api.registry.register_model`` works the same way).
:func:`lm_eval_queries` names a task's documents as ``convert --from lm-eval``
does (``"<task>/<doc_id>"``, doc ids 0, 1, ...); :func:`lm_eval_evaluator`
makes the evaluation function of :func:`~sysrs_ref.live.driver.run`: for a
model and some of those queries it calls ``lm_eval.simple_evaluate(model=LM,
tasks=[the loaded task], samples={task: [doc ids]}, log_samples=True)``, the
model ``LM`` built from ``NAME`` and ``ARGS`` as ``simple_evaluate`` builds it,
writes the run's ``results_<timestamp>.json`` (its ``model_name`` the
session's model id) and ``samples_<task>_<timestamp>.jsonl`` under
``<output_path>/<model id, / and : as __>/`` with lm-eval's own
``EvaluationTracker``, and reads the scores back from the samples file with
:func:`~sysrs_ref.loaders.load_lm_eval`. lm-eval's task index and the task
are built once per evaluation function (:func:`lm_eval_harness` shares them
with the query ids), and a model is kept while the calls are its own.
lm-eval is the optional ``lm-eval``
extra; without it these functions raise a :class:`~sysrs_ref.errors.LiveError`
naming it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from pathlib import Path

from sysrs_ref.errors import LiveError
from sysrs_ref.live.driver import CannotEvaluate, Evaluator
from sysrs_ref.loaders.lm_eval import load_lm_eval

__all__ = ["LM_EVAL_HINT", "lm_eval_evaluator", "lm_eval_harness", "lm_eval_queries"]

#: How to get lm-evaluation-harness.
LM_EVAL_HINT = "pip install 'sysrs-ref[lm-eval]' (or pip install lm-eval)"


def _lm_eval() -> tuple[object, object, object]:
    """lm-eval's ``simple_evaluate``, ``TaskManager`` and ``EvaluationTracker``."""
    try:
        from lm_eval import simple_evaluate
        from lm_eval.loggers import EvaluationTracker
        from lm_eval.tasks import TaskManager
    except ImportError:
        raise LiveError(f"driving lm-eval needs it installed, the optional 'lm-eval' extra: {LM_EVAL_HINT}") from None
    return simple_evaluate, TaskManager, EvaluationTracker


def _prepared(task: str, include_path: str | Path | None) -> tuple[object, object, int]:
    """lm-eval's ``TaskManager``, the task *task* loaded by it, and its number of documents.

    With *include_path*, the manager indexes that folder alone first (lm-eval
    indexes the thousands of tasks it ships in tens of seconds); only a task
    it does not find there (or cannot load from there alone) costs the full
    index.
    """
    _, task_manager, _ = _lm_eval()
    make: object = task_manager
    if include_path is not None:
        own: object = make(include_path=str(include_path), include_defaults=False)  # type: ignore[operator]  # lm-eval is an optional extra, imported at run time as a plain object
        if task in getattr(own, "all_tasks", ()):
            with contextlib.suppress(LiveError):  # it may need a template lm-eval ships: then the full index
                return (own, *_load(task, own))
    manager: object = (
        make(include_path=str(include_path)) if include_path is not None else make()  # type: ignore[operator]  # lm-eval is an optional extra, imported at run time as a plain object
    )
    return (manager, *_load(task, manager))


def _load(task: str, manager: object) -> tuple[object, int]:
    """The lm-eval task *task*, loaded once (its documents read), and its number of documents."""
    from lm_eval.tasks import get_task_dict

    try:
        tasks: object = get_task_dict([task], manager)
    except Exception as err:  # lm-eval's own message: an unknown task, a dataset it cannot read
        raise LiveError(f"lm-eval cannot load task '{task}': {err}") from None
    found = tasks.get(task) if isinstance(tasks, dict) else None
    docs = getattr(found, "eval_docs", None)
    if found is None or docs is None:
        raise LiveError(f"lm-eval task '{task}' is not a single task with documents (a group? list its tasks)")
    count = len(docs)
    if not count:
        raise LiveError(f"lm-eval task '{task}' has no documents")
    return found, count


def lm_eval_queries(task: str, *, include_path: str | Path | None = None) -> list[str]:
    """The query ids of lm-eval task *task*'s documents, ``"<task>/<doc_id>"``, doc ids 0, 1, ... in order.

    *include_path* is a folder of task YAML files (lm-eval's ``--include_path``).
    """
    _, _, count = _prepared(task, include_path)  # a LiveError naming the extra when lm-eval is not installed
    return [f"{task}/{doc}" for doc in range(count)]


def lm_eval_harness(
    task: str,
    *,
    metric: str,
    output_path: str | Path,
    filter: str | None = None,
    include_path: str | Path | None = None,
) -> tuple[list[str], Evaluator]:
    """:func:`lm_eval_queries` and :func:`lm_eval_evaluator` at once, lm-eval's task index and the task built once.

    lm-eval's ``TaskManager`` (its index of tasks) and the loaded task are
    built once and shared: every call of the evaluation function reuses them.
    """
    manager, loaded, count = _prepared(task, include_path)
    evaluate = _evaluator(task, loaded, manager, metric=metric, output_path=output_path, filter=filter)
    return [f"{task}/{doc}" for doc in range(count)], evaluate


def lm_eval_evaluator(
    task: str,
    *,
    metric: str,
    output_path: str | Path,
    filter: str | None = None,
    include_path: str | Path | None = None,
) -> Evaluator:
    """The evaluation function that runs *task*'s documents on a model with ``simple_evaluate`` and reads its samples.

    ``evaluate(model, queries)`` runs the documents of *queries* on the model
    ``NAME[:ARGS]``, saves lm-eval's results and samples under *output_path*
    and returns, in the order of *queries*, each document's *metric* (of
    *filter*, which is needed when the task has several) read back from the
    samples file by :func:`~sysrs_ref.loaders.load_lm_eval`. lm-eval's task
    index and the task are built once, here; a model is built on its first
    call, and kept while the calls are the same model's. A model lm-eval
    cannot build on its first call (an unknown name, a missing file) is a
    :class:`~sysrs_ref.live.driver.CannotEvaluate` error, not retried.
    """
    manager, loaded, _ = _prepared(task, include_path)
    return _evaluator(task, loaded, manager, metric=metric, output_path=output_path, filter=filter)


class _Models:
    """The lm-eval model objects: the last one built kept (a model's calls come together), built under a lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: tuple[str, object] | None = None
        self._built: set[str] = set()  # the models built once already: a later failure may be bad luck

    def get(self, model: str) -> object:
        with self._lock:
            if self._kept is not None and self._kept[0] == model:
                return self._kept[1]
            self._kept = None  # the previous model's memory is freed before the next one is built
            first = model not in self._built
        name, _, args = model.partition(":")
        from lm_eval.api.registry import get_model

        try:  # as simple_evaluate builds a model from its name and arguments
            built: object = get_model(name).create_from_arg_string(
                args, {"batch_size": None, "max_batch_size": None, "device": None}
            )
        except Exception as err:
            if first:  # the same error every time: an unknown name, a missing tokenizer, bad arguments
                raise CannotEvaluate(f"lm-eval cannot build the model '{model}': {err}") from None
            raise
        with self._lock:
            self._built.add(model)
            self._kept = (model, built)
        return built


def _evaluator(
    task: str, loaded: object, manager: object, *, metric: str, output_path: str | Path, filter: str | None
) -> Evaluator:
    simple_evaluate, _, tracker_class = _lm_eval()
    folder = Path(output_path)
    models = _Models()

    def evaluate(model: str, queries: Sequence[str]) -> list[object]:
        prefix = f"{task}/"
        ids: list[int] = []
        for query in queries:
            doc = query[len(prefix) :] if query.startswith(prefix) else ""
            if not doc.isdigit():
                raise LiveError(f"query '{query}' is not a document of lm-eval task '{task}' ({prefix}<doc id>)")
            ids.append(int(doc))
        sanitized = model.replace("/", "__").replace(":", "__")
        out = folder / sanitized
        tracker: object = tracker_class(output_path=str(folder))  # type: ignore[operator]  # lm-eval is an optional extra, imported at run time as a plain object
        before = set(out.rglob(f"samples_{task}_*.jsonl")) if out.exists() else set()
        results: object = simple_evaluate(  # type: ignore[operator]  # lm-eval is an optional extra, imported at run time as a plain object
            model=models.get(model),
            tasks=[loaded],
            samples={task: ids},
            log_samples=True,
            task_manager=manager,
            evaluation_tracker=tracker,
        )
        samples = results.get("samples") if isinstance(results, dict) else None
        if not isinstance(samples, dict) or task not in samples:
            raise LiveError(f"lm-eval ran task '{task}' on model '{model}' but returned no samples")
        config = getattr(tracker, "general_config_tracker", None)
        if config is not None:  # the session's model id in results_*.json (lm-eval names a model by pretrained=)
            config.model_name, config.model_name_sanitized = model, sanitized
        tracker.save_results_aggregated(results=results, samples=samples)  # type: ignore[attr-defined]  # lm-eval is an optional extra, imported at run time as a plain object
        tracker.save_results_samples(task_name=task, samples=samples[task])  # type: ignore[attr-defined]  # lm-eval is an optional extra, imported at run time as a plain object
        written = sorted(set(out.rglob(f"samples_{task}_*.jsonl")) - before)
        if len(written) != 1:
            raise LiveError(f"lm-eval wrote {len(written)} samples files of task '{task}' under {out}, not one")
        table = load_lm_eval(written[0], metric=metric, filter=filter)
        scores = dict(zip(table.queries, table.scores[0].tolist(), strict=True))
        lacking = [query for query in queries if query not in scores]
        if lacking:
            raise LiveError(f"{written[0]}: document '{lacking[0]}' has no {metric}")
        return [scores[query] for query in queries]

    return evaluate
