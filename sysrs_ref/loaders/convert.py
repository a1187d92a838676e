"""One entry point for every evaluation-harness source: ``convert(source, paths, ...)``.

Each source's loader is imported when that source is read, so importing this module (and
:mod:`sysrs_ref.loaders`, which re-exports :func:`convert`) imports none of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from sysrs_ref.errors import ParameterError

if TYPE_CHECKING:
    from sysrs_ref.loaders._reading import PathsArg
    from sysrs_ref.loaders.table import ResultsTable

__all__ = ["OPTIONS", "SOURCES", "convert"]

#: The sources that :func:`convert` reads, as ``--from`` names them.
SOURCES = ("lm-eval", "helm", "inspect", "lighteval", "long-csv")


#: Which of :func:`convert`'s options each source takes (every source takes *metric* and *missing*).
OPTIONS: Mapping[str, frozenset[str]] = {
    "lm-eval": frozenset({"filter", "reruns", "tasks"}),
    "helm": frozenset({"epochs", "tasks", "suites", "split"}),
    "inspect": frozenset({"epochs", "tasks", "unfinished", "reruns"}),
    "lighteval": frozenset({"reruns", "tasks"}),
    "long-csv": frozenset(),
}

_FLAGS = {
    "filter": "--filter",
    "epochs": "--epochs",
    "reruns": "--reruns",
    "tasks": "--task (--run)",
    "unfinished": "--unfinished",
    "suites": "--suite",
    "split": "--split",
}


def convert(
    source: str,
    paths: PathsArg,
    *,
    metric: str,
    filter: str | None = None,
    missing: str = "fail",
    epochs: str | None = None,
    reruns: str | None = None,
    tasks: Sequence[str] = (),
    unfinished: str | None = None,
    suites: Sequence[str] = (),
    split: str | None = None,
) -> ResultsTable:
    """Read *paths* as results of *source* (one of :data:`SOURCES`) into a :class:`ResultsTable`.

    Dispatches to :func:`~sysrs_ref.loaders.load_lm_eval`,
    :func:`~sysrs_ref.loaders.load_helm`, :func:`~sysrs_ref.loaders.load_inspect`,
    :func:`~sysrs_ref.loaders.load_lighteval` or :func:`~sysrs_ref.loaders.load_long_csv`, passing on the options that
    source takes (:data:`OPTIONS`; an option left at None or empty takes the
    loader's default): *filter* (lm-eval), *reruns* (lm-eval, inspect, lighteval), *epochs* (HELM trials,
    inspect epochs), *tasks* (patterns selecting tasks or runs), *unfinished*
    (inspect), *suites* and *split* (HELM). Raises
    :class:`~sysrs_ref.errors.ParameterError` for an unknown source or policy,
    or an option given to a source that does not take it, and
    :class:`~sysrs_ref.errors.LoaderError` for unusable files.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = open(os.path.join(d, "s.csv"), "w").write("model,query,acc\\na,q1,1\\nb,q1,0\\n")
    ...     convert("long-csv", [d], metric="acc").scores.tolist()
    [[1.0], [0.0]]
    >>> convert("mlflow", [], metric="acc")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ParameterError: unknown source 'mlflow'; use one of lm-eval, helm, inspect, lighteval, long-csv
    >>> convert("long-csv", [], metric="score", epochs="mean")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ParameterError: --epochs applies to helm, inspect results, not to long-csv; leave it out
    """
    if source not in SOURCES:
        raise ParameterError(f"unknown source {source!r}; use one of {', '.join(SOURCES)}")
    from sysrs_ref.loaders.table import check_missing_policy  # here, as each loader below: read only when used

    policy = check_missing_policy(missing)
    given = {
        "filter": filter,
        "epochs": epochs,
        "reruns": reruns,
        "tasks": tuple(tasks) or None,
        "unfinished": unfinished,
        "suites": tuple(suites) or None,
        "split": split,
    }
    for name, value in given.items():
        if value is not None and name not in OPTIONS[source]:
            takers = ", ".join(other for other in SOURCES if name in OPTIONS[other])
            raise ParameterError(f"{_FLAGS[name]} applies to {takers} results, not to {source}; leave it out")
    if source == "lm-eval":
        from sysrs_ref.loaders.lm_eval import load_lm_eval

        return load_lm_eval(
            paths, metric=metric, filter=filter, missing=policy, reruns=reruns or "latest", tasks=tuple(tasks)
        )
    if source == "helm":
        from sysrs_ref.loaders.helm import load_helm

        return load_helm(
            paths,
            metric=metric,
            missing=policy,
            epochs=epochs or "auto",
            tasks=tuple(tasks),
            suites=tuple(suites),
            split=split or "auto",
        )
    if source == "inspect":
        from sysrs_ref.loaders.inspect_ai import load_inspect

        return load_inspect(
            paths,
            metric=metric,
            missing=policy,
            epochs=epochs or "auto",
            tasks=tuple(tasks),
            unfinished=unfinished or "fail",
            reruns=reruns or "merge",
        )
    if source == "lighteval":
        from sysrs_ref.loaders.lighteval import load_lighteval

        return load_lighteval(paths, metric=metric, missing=policy, reruns=reruns or "latest", tasks=tuple(tasks))
    from sysrs_ref.loaders.long_csv import load_long_csv

    return load_long_csv(paths, metric=metric, missing=policy)
