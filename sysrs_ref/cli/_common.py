"""What the subcommands of the command line share: one JSON object with --json, readable text otherwise."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from sysrs_ref._limits import Need, check_need
from sysrs_ref.algorithms.registry import AlgorithmSpec, ParamValue, get_algorithm
from sysrs_ref.json_types import JsonValue
from sysrs_ref.schedule import Budget
from sysrs_ref.stochastic import StochasticInstance

if TYPE_CHECKING:
    from sysrs_ref.instance import Instance

__all__ = [
    "JSON_HELP",
    "SCORES_HELP",
    "STOCHASTIC_HELP",
    "WARMUP_HELP",
    "JsonValue",
    "Run",
    "Scores",
    "algorithm_params",
    "emit",
    "labelled",
    "check_header",
    "read_scores",
    "run_arguments",
    "run_from",
    "stochastic_argument",
    "stochastic_fields",
    "stochastic_line",
    "with_names",
]

#: The help of every --scores option.
SCORES_HELP = ".npy, .csv matrix or long .csv (model,query,score) file, or a shipped benchmark's name (gsm)"

#: The help of every --stochastic option.
STOCHASTIC_HELP = (
    "bernoulli: read the --scores matrix as probabilities p_ij of random scores S_ij ~ Bernoulli(p_ij); "
    "a K x L x E .npy (samples) or an .npz (samples, or support and probabilities) is read as random scores "
    "without it"
)

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
    stochastic_argument(sub)


def stochastic_argument(sub: argparse.ArgumentParser) -> None:
    """--stochastic bernoulli: the --scores matrix holds the p_ij of Bernoulli scores."""
    sub.add_argument("--stochastic", choices=("bernoulli",), metavar="KIND", help=STOCHASTIC_HELP)


class Scores(NamedTuple):
    """What --scores (and --stochastic) name: a score matrix or random scores, and the models' names if known."""

    instance: Instance | StochasticInstance
    names: tuple[str, ...] | None


#: What a command's job on a K x L matrix needs, from K and L (checked on an .npy header before the matrix is read).
SizeNeed = Callable[[int, int], Need]


def read_scores(spec: str, stochastic: str | None = None, need: SizeNeed | None = None) -> Scores:
    """The scores ``--scores SPEC [--stochastic KIND]`` names: a matrix, or random scores S_ij ~ phi_ij.

    A ``.npy`` or ``.npz`` file goes through
    :func:`~sysrs_ref.loaders.load_stochastic` (K x L x E samples, a finite
    law, a matrix); anything else through
    :func:`~sysrs_ref.datasets.resolve_scores` (a ``.csv`` or a shipped
    benchmark), read as Bernoulli p_ij with ``stochastic="bernoulli"``. The
    names of random scores' models come from ``X.ids.json`` beside the file.
    *need*, if given, is checked (:func:`~sysrs_ref._limits.check_need`) on
    the K x L that an ``.npy`` matrix's header declares, before the matrix is
    read: a job beyond the limits is refused without the minutes that
    reading a million distinct scores exactly takes.

    >>> read_scores("data/fixtures/tiny_long.csv").names
    ('alpha', 'bravo', 'charlie', 'delta')
    >>> read_scores("data/fixtures/tiny_long.csv", "bernoulli").instance
    StochasticInstance(bernoulli, K=4, L=6, V=2, best=[0])
    """
    from sysrs_ref.datasets import resolve_scores  # here: ``live`` shares this module and reads no matrix
    from sysrs_ref.loaders import as_bernoulli, check_input_path, load_stochastic
    from sysrs_ref.loaders.files import read_sidecar

    bernoulli = stochastic == "bernoulli"
    path = Path(spec)
    check_input_path(path)  # before anything reads it: a FIFO would block forever
    suffix = path.suffix.lower()
    if suffix == ".npz" or (suffix == ".npy" and path.is_file()):
        if need is not None and suffix == ".npy":
            check_header(path, need)
        found = load_stochastic(path, bernoulli=bernoulli)
        if not isinstance(found, StochasticInstance):
            return Scores(found, found.model_names)
        ids = read_sidecar(path, found.shape) if path.is_file() else None
        return Scores(found, None if ids is None else tuple(ids[0]))
    matrix = resolve_scores(spec)
    return Scores(as_bernoulli(matrix) if bernoulli else matrix, matrix.model_names)


def check_header(path: Path, need: SizeNeed) -> None:
    """Check *need* on the K x L an ``.npy`` header declares; a header that does not read is left to the loader.

    >>> check_header(Path("data/fixtures/absent.npy"), lambda k, l: Need("a test", "O(1)"))  # nothing to read: no check
    """
    from sysrs_ref.errors import InstanceError
    from sysrs_ref.loaders.arrays import npy_shape

    try:
        shape = npy_shape(path)
    except (InstanceError, OSError):
        return  # reading the file says what is wrong with it
    if len(shape) == 2:
        check_need(need(shape[0], shape[1]))


def stochastic_fields(instance: Instance | StochasticInstance) -> dict[str, JsonValue]:
    """``{"stochastic": {"kind": ..., "slots": V}}`` for random scores; nothing for a matrix (its output is unchanged).

    >>> stochastic_fields(StochasticInstance.bernoulli([[0.5], [1]]))
    {'stochastic': {'kind': 'bernoulli', 'slots': 2}}
    """
    if not isinstance(instance, StochasticInstance):
        return {}
    return {"stochastic": {"kind": instance.kind, "slots": instance.n_slots}}


def stochastic_line(instance: StochasticInstance) -> str:
    """The one line a text output says about random scores: their law, and that the truth is mu_i of E[S_ij].

    >>> stochastic_line(StochasticInstance.samples([[[1, 0, 1]], [[0, 0, 1]]]))
    'random scores: S_ij is one of the 3 samples of its cell, uniformly; the truth is mu_i = mean over j of E[S_ij]'
    """
    laws = {
        "bernoulli": "S_ij = 1 with probability p_ij (the matrix read), else 0",
        "samples": f"S_ij is one of the {instance.n_slots} samples of its cell, uniformly",
        "finite": f"S_ij follows its cell's law on {instance.n_slots} scores",
        "deterministic": "every S_ij is a point mass",
    }
    return f"random scores: {laws[instance.kind]}; the truth is mu_i = mean over j of E[S_ij]"


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
    """What --scores, --stochastic, --budget, --algorithm and --a describe: one run, validated."""

    spec: AlgorithmSpec
    instance: Instance | StochasticInstance
    budget: Budget
    """Parsed once, here; the algorithms take it as it is."""
    params: dict[str, ParamValue]
    """The parameters as given."""
    checked: dict[str, ParamValue]
    """The parameters with defaults filled in."""
    names: tuple[str, ...] | None
    """The models' names, when known."""


def run_from(args: argparse.Namespace, need: SizeNeed | None = None) -> Run:
    """The algorithm, scores, budget and parameters that --algorithm, --scores, --stochastic, --budget, --a and --m name.

    *need* is passed to :func:`read_scores`.
    """
    spec = get_algorithm(args.algorithm)
    instance, names = read_scores(args.scores, args.stochastic, need)
    budget = Budget.parse(args.budget, instance.n_models, instance.n_queries)
    params = algorithm_params(args)
    return Run(spec, instance, budget, params, spec.check_params(params), names)


def algorithm_params(args: argparse.Namespace) -> dict[str, ParamValue]:
    """The algorithm parameters given on the command line (an algorithm without one refuses it)."""
    given = (("a", args.a), ("m", args.m), ("warmup", getattr(args, "warmup", None)))
    return {key: value for key, value in given if value is not None}
