"""What the subcommands of the command line share: one JSON object with --json, readable text otherwise."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from sysrs_ref.algorithms.registry import AlgorithmSpec, ParamValue, get_algorithm
from sysrs_ref.json_types import JsonValue
from sysrs_ref.schedule import Budget

if TYPE_CHECKING:
    from sysrs_ref.instance import Instance

__all__ = [
    "JSON_HELP",
    "SCORES_HELP",
    "WARMUP_HELP",
    "JsonValue",
    "Run",
    "algorithm_params",
    "emit",
    "labelled",
    "run_arguments",
    "run_from",
    "with_names",
]

#: The help of every --scores option.
SCORES_HELP = ".npy, .csv matrix or long .csv (model,query,score) file, or a shipped benchmark's name (gsm)"

#: The help of every --warmup option.
WARMUP_HELP = "warm-up of ucbe-lrf in %% of K*L (default 5; 0 = the No Warm-up variant)"

#: The help of every --json option.
JSON_HELP = "print one JSON object"


def run_arguments(sub: argparse.ArgumentParser) -> None:
    """--scores, --budget, --algorithm, --a, --m and --warmup: what one run of an algorithm needs."""
    from sysrs_ref.algorithms.registry import ALGORITHMS

    sub.add_argument("--scores", required=True, metavar="F", help=SCORES_HELP)
    sub.add_argument(
        "--budget", required=True, metavar="B", help="evaluations (5000) or a percentage of K*L (12%%, 1.25%%)"
    )
    sub.add_argument(
        "--algorithm", default="sysrs", metavar="NAME", help=f"one of {', '.join(ALGORITHMS)} (default sysrs)"
    )
    sub.add_argument("--a", metavar="A", help="exploration parameter of ucbe and syucbe (default 1)")
    sub.add_argument("--m", metavar="M", help="size of the top-m set sar and sysar identify (default 1)")
    sub.add_argument("--warmup", metavar="P", help=WARMUP_HELP)


def emit(args: argparse.Namespace, payload: Mapping[str, JsonValue], text: str) -> None:
    """Print *payload* as one JSON line if ``--json`` was given, else *text*."""
    print(json.dumps(payload) if args.json else text)


def labelled(index: int, names: Sequence[str] | None) -> str:
    """A model's (or query's) index for text output, followed by its name in parentheses when names are known.

    >>> labelled(2, None), labelled(2, ["a", "b", "org/model-c"])
    ('2', '2 (org/model-c)')
    """
    return str(index) if names is None else f"{index} ({names[index]})"


def with_names(
    payload: Mapping[str, JsonValue], names: Sequence[str] | None, keys: Mapping[str, str]
) -> dict[str, JsonValue]:
    """*payload* with, right after each key of *keys* (an index or a list of indices), its names under *keys*' value.

    Without *names* (the instance has none) the payload is returned unchanged,
    so output without names stays as it was; every existing key keeps its value.

    >>> with_names({"chosen": 1, "ranking": [1, 0], "seed": 0}, ["a", "b"],
    ...            {"chosen": "chosen_name", "ranking": "ranking_names"})
    {'chosen': 1, 'chosen_name': 'b', 'ranking': [1, 0], 'ranking_names': ['b', 'a'], 'seed': 0}
    >>> with_names({"chosen": 1}, None, {"chosen": "chosen_name"})
    {'chosen': 1}
    """
    out: dict[str, JsonValue] = {}
    for key, value in payload.items():
        out[key] = value
        if names is None or key not in keys:
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            out[keys[key]] = names[value]
        elif isinstance(value, list):
            out[keys[key]] = [names[item] for item in value if isinstance(item, int) and not isinstance(item, bool)]
    return out


class Run(NamedTuple):
    """What --scores, --budget, --algorithm and --a describe: one run, validated."""

    spec: AlgorithmSpec
    instance: Instance
    budget: Budget
    """Parsed once, here; the algorithms take it as it is."""
    params: dict[str, ParamValue]
    """The parameters as given."""
    checked: dict[str, ParamValue]
    """The parameters with defaults filled in."""


def run_from(args: argparse.Namespace) -> Run:
    """The algorithm, instance, budget and parameters that --algorithm, --scores, --budget, --a and --m name."""
    from sysrs_ref.datasets import resolve_scores  # here: ``live`` shares this module and reads no matrix

    spec = get_algorithm(args.algorithm)
    instance = resolve_scores(args.scores)
    budget = Budget.parse(args.budget, instance.n_models, instance.n_queries)
    params = algorithm_params(args)
    return Run(spec, instance, budget, params, spec.check_params(params))


def algorithm_params(args: argparse.Namespace) -> dict[str, ParamValue]:
    """The algorithm parameters given on the command line (an algorithm without one refuses it)."""
    given = (("a", args.a), ("m", args.m), ("warmup", getattr(args, "warmup", None)))
    return {key: value for key, value in given if value is not None}
