"""The ``exact`` subcommand of the command line (:mod:`sysrs_ref.cli`): exact error probabilities over every draw."""

from __future__ import annotations

import argparse

from sysrs_ref.cli_common import JsonValue, emit, run_from
from sysrs_ref.errors import SysrsError
from sysrs_ref.scores import fraction_text
from sysrs_ref.theory.exact import enumeration_size, error_probability
from sysrs_ref.theory.exact_topm import topm_enumeration_size, topm_error_probability
from sysrs_ref.topm import parse_top_m

__all__ = ["run"]


def run(args: argparse.Namespace) -> None:
    """``exact``: the exact error probability (or top-m error) of one algorithm over every draw."""
    spec, instance, budget, _, checked = run_from(args)
    extra = {key: str(checked[key]) for key in ("a", "m") if key in checked}
    m: int | None = None
    if args.top_m is not None:
        targets = parse_top_m(args.top_m, instance.n_models)
        if len(targets) != 1:
            raise SysrsError(f"exact --top-m takes one m, got {args.top_m!r}")
        m = targets[0]
    if m is None:
        error = error_probability(instance, spec.name, budget, limit=args.limit, **extra)
        size = enumeration_size(instance, spec.name, budget, **extra)
        event = "P(no best model chosen)"
    else:
        if args.m is not None and "m" in checked and int(checked["m"]) != m:
            raise SysrsError(f"{spec.name} identifies a top-m set of the --top-m size: leave out --m or give --m {m}")
        extra.pop("m", None)  # SAR and SySAR run with m = the target
        checked = {**checked, "m": m} if "m" in checked else checked
        error = topm_error_probability(instance, spec.name, budget, m, limit=args.limit, **extra)
        size = topm_enumeration_size(instance, spec.name, budget, m, **extra)
        event = f"P(ranking[:{m}] is not a true top-{m} set)"
    payload: dict[str, JsonValue] = {
        "algorithm": spec.name,
        "params": {key: str(value) for key, value in checked.items()},
        "K": instance.n_models,
        "L": instance.n_queries,
        "budget": budget,
        "error": fraction_text(error),
        "error_float": float(error),
        "enumeration_size": size,
        **({"top_m": m} if m is not None else {}),
    }
    text = (
        f"{spec.title} on {args.scores} ({instance.n_models} models x {instance.n_queries} queries), "
        f"budget {budget}: {event} = {fraction_text(error)} = {float(error):.6g}\n"
        f"exact, over every draw (uniform query order(s) and arm priority); {size:,} cases enumerated at most"
    )
    emit(args, payload, text)
