"""What the subcommands of the command line share: one JSON object with --json, readable text otherwise."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import NamedTuple

from sysrs_ref.algorithms.registry import AlgorithmSpec, ParamValue, get_algorithm
from sysrs_ref.datasets import resolve_scores
from sysrs_ref.instance import Instance
from sysrs_ref.json_types import JsonValue
from sysrs_ref.schedule import parse_budget

__all__ = ["SCORES_HELP", "JsonValue", "Run", "algorithm_params", "emit", "run_from"]

#: The help of every --scores option.
SCORES_HELP = ".npy, .csv matrix or long .csv (model,query,score) file, or a shipped benchmark's name (gsm)"


def emit(args: argparse.Namespace, payload: Mapping[str, JsonValue], text: str) -> None:
    """Print *payload* as one JSON line if ``--json`` was given, else *text*."""
    print(json.dumps(payload) if args.json else text)


class Run(NamedTuple):
    """What --scores, --budget, --algorithm and --a describe: one run, validated."""

    spec: AlgorithmSpec
    instance: Instance
    budget: int
    params: dict[str, ParamValue]
    """The parameters as given."""
    checked: dict[str, ParamValue]
    """The parameters with defaults filled in."""


def run_from(args: argparse.Namespace) -> Run:
    """The algorithm, instance, budget and parameters that --algorithm, --scores, --budget, --a and --m name."""
    spec = get_algorithm(args.algorithm)
    instance = resolve_scores(args.scores)
    budget = parse_budget(args.budget, instance.n_models, instance.n_queries)
    params = algorithm_params(args)
    return Run(spec, instance, budget, params, spec.check_params(params))


def algorithm_params(args: argparse.Namespace) -> dict[str, ParamValue]:
    """The algorithm parameters given on the command line (an algorithm without one refuses it)."""
    given = (("a", args.a), ("m", args.m), ("warmup", getattr(args, "warmup", None)))
    return {key: value for key, value in given if value is not None}
