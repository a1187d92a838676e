"""The ``exact`` subcommand of the command line (:mod:`sysrs_ref.cli`): exact error probabilities over every draw."""

from __future__ import annotations

import argparse
import re
from fractions import Fraction

from sysrs_ref._limits import Need
from sysrs_ref._words import counted, matrix_shape
from sysrs_ref.cli._common import JSON_HELP, JsonValue, emit, run_arguments, run_from, stochastic_fields
from sysrs_ref.errors import SysrsError
from sysrs_ref.schedule import Budget
from sysrs_ref.scores import decimal_text, fraction_text
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.theory.exact import DEFAULT_LIMIT, enumeration_size, exact_law, exact_need
from sysrs_ref.theory.exact_topm import topm_enumeration_size, topm_error_probability
from sysrs_ref.topm import parse_top_m

__all__ = ["EXAMPLE", "add_arguments", "limit_argument", "run"]

EXAMPLE = "--scores data/fixtures/tiny_matrix.csv --budget 12 --algorithm sysrs --json"


#: The largest power of ten --limit takes: far past any enumeration that could run, and cheap to hold.
_LIMIT_EXPONENT_MAX = 100_000


def limit_argument(text: str) -> int:
    """``--limit N``: a whole number, in digits or in scientific form (the form the refusals print), up to 1e100000.

    >>> limit_argument("10000000"), limit_argument("2.5e8"), limit_argument("1e+07"), limit_argument("1e3000") > 10**2999
    (10000000, 250000000, 10000000, True)
    >>> limit_argument("1.5")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: a whole number such as 10000000 or 1e7, up to 1e100000, is needed, got '1.5'
    """
    match = re.fullmatch(r"\s*(\d{1,4000})(?:\.(\d{0,4000}))?(?:[eE]\+?(\d{1,7}))?\s*", text)
    whole, decimals, exponent = (
        (match.group(1), (match.group(2) or "").rstrip("0"), int(match.group(3) or 0)) if match else ("", "", 0)
    )
    if not match or len(decimals) > exponent or exponent + len(whole) > _LIMIT_EXPONENT_MAX + 1:
        raise argparse.ArgumentTypeError(
            f"a whole number such as 10000000 or 1e7, up to 1e{_LIMIT_EXPONENT_MAX}, is needed, got {text!r}"
        )
    limit: int = int(whole + decimals) * 10 ** (exponent - len(decimals))
    return limit


def add_arguments(sub: argparse.ArgumentParser) -> None:
    """The options of ``exact``."""
    run_arguments(sub)
    sub.add_argument(
        "--top-m",
        metavar="M",
        help="the exact top-M identification error instead (ties by the paper's rule; sar and sysar run with m = M)",
    )
    sub.add_argument(
        "--limit",
        type=limit_argument,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"refuse enumerations larger than N, in digits or as 1e7, 2.5e8 (default {DEFAULT_LIMIT:.0e})",
    )
    sub.add_argument("--json", action="store_true", help=JSON_HELP)


def run(args: argparse.Namespace) -> None:
    """``exact``: the exact error probability (or top-m error) of one algorithm over every draw (and every noise)."""

    def declared(n_models: int, n_queries: int) -> Need:  # refused from an .npy header before the matrix is read
        return exact_need(
            n_models, n_queries, args.algorithm, Budget.parse(args.budget, n_models, n_queries).n, args.limit
        )

    spec, instance, parsed, given, _, _ = run_from(args, None if args.stochastic else declared)
    budget, typed = parsed.n, spec.parse_params(given)
    m: int | None = None
    if args.top_m is not None:
        targets = parse_top_m(args.top_m, instance.n_models)
        if len(targets) != 1:
            raise SysrsError(f"exact --top-m takes one m, got {args.top_m!r}")
        m = targets[0]
    if m is None:
        law = exact_law(instance, spec.name, budget, typed, limit=args.limit)
        error = 1 - sum((p for model, p in law.items() if model in instance.best), Fraction(0))
        size = enumeration_size(instance, spec.name, budget, limit=args.limit, **given)
        event = "P(no best model chosen)"
    elif isinstance(instance, StochasticInstance):
        raise SysrsError(
            "exact --top-m is for a score matrix; on random scores, estimate top-m errors with simulate --top-m"
        )
    else:
        target = spec.for_target(typed, m)
        if given and target != typed and spec.top_m_sized:
            raise SysrsError(f"{spec.name} identifies a top-m set of the --top-m size: leave out --m or give --m {m}")
        typed = target
        others = {} if spec.top_m_sized else given  # SAR and SySAR: their one parameter is the target m
        error = topm_error_probability(instance, spec.name, budget, m, limit=args.limit, **others)
        size = topm_enumeration_size(instance, spec.name, budget, m, limit=args.limit, **others)
        event = f"P(ranking[:{m}] is not a true top-{m} set)"
    payload: dict[str, JsonValue] = {
        "algorithm": spec.name,
        "params": {key: decimal_text(value) for key, value in spec.exact_params(typed).items()},
        "K": instance.n_models,
        "L": instance.n_queries,
        "budget": budget,
        "error": fraction_text(error),
        "error_float": float(error),
        "enumeration_size": size,
        **({"top_m": m} if m is not None else {}),
        **stochastic_fields(instance),
    }
    over = "every draw (uniform query order(s) and arm priority)" + (
        f" and every score of the law phi_ij of the random scores ({instance.kind})"
        if isinstance(instance, StochasticInstance)
        else ""
    )
    text = (
        f"{spec.title} on {args.scores} ({matrix_shape(instance.n_models, instance.n_queries)}), "
        f"budget {budget}: {event} = {fraction_text(error)} = {float(error):.6g}\n"
        f"exact, over {over}; {counted(size, 'case', grouped=True)} enumerated at most"
    )
    emit(args, payload, text)
