"""One entry point for every evaluation-harness source: ``convert(source, paths, ...)``."""

from __future__ import annotations

from sysrs_ref.errors import ParameterError
from sysrs_ref.loaders._reading import PathsArg
from sysrs_ref.loaders.helm import load_helm
from sysrs_ref.loaders.inspect_ai import load_inspect
from sysrs_ref.loaders.lm_eval import load_lm_eval
from sysrs_ref.loaders.long_csv import load_long_csv
from sysrs_ref.loaders.table import ScoreTable, check_missing_policy

__all__ = ["SOURCES", "convert"]

#: The sources that :func:`convert` reads, as ``--from`` names them.
SOURCES = ("lm-eval", "helm", "inspect", "long-csv")


def convert(
    source: str, paths: PathsArg, *, metric: str, filter: str | None = None, missing: str = "fail"
) -> ScoreTable:
    """Read *paths* as results of *source* (one of :data:`SOURCES`) into a :class:`ScoreTable`.

    Dispatches to :func:`~sysrs_ref.loaders.load_lm_eval`,
    :func:`~sysrs_ref.loaders.load_helm`, :func:`~sysrs_ref.loaders.load_inspect`
    or :func:`~sysrs_ref.loaders.load_long_csv`. *filter* applies to lm-eval
    only. Raises :class:`~sysrs_ref.errors.ParameterError` for an unknown
    source or policy, or a filter given to another source, and
    :class:`~sysrs_ref.errors.LoaderError` for unusable files.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = open(os.path.join(d, "s.csv"), "w").write("model,query,acc\\na,q1,1\\nb,q1,0\\n")
    ...     convert("long-csv", [d], metric="acc").scores.tolist()
    [[1.0], [0.0]]
    >>> convert("mlflow", [], metric="acc")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ParameterError: unknown source 'mlflow'; use one of lm-eval, helm, inspect, long-csv
    """
    if source not in SOURCES:
        raise ParameterError(f"unknown source {source!r}; use one of {', '.join(SOURCES)}")
    policy = check_missing_policy(missing)
    if filter is not None and source != "lm-eval":
        raise ParameterError(f"a filter applies to lm-eval results only, not to {source}; leave out --filter")
    if source == "lm-eval":
        return load_lm_eval(paths, metric=metric, filter=filter, missing=policy)
    if source == "helm":
        return load_helm(paths, metric=metric, missing=policy)
    if source == "inspect":
        return load_inspect(paths, metric=metric, missing=policy)
    return load_long_csv(paths, metric=metric, missing=policy)
