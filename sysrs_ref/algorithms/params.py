"""One typed parameter object per algorithm family, parsed and validated once where the input enters.

- :class:`NoParams`: US, SyUS, SR, SySRs (hyperparameter-free);
- :class:`Exploration`: UCB-E and SyUCB-E, the exploration parameter a > 0 (Algorithm UCB-E, Appendix);
- :class:`TopMSize`: SAR and SySAR, the size m of the top-m set (Appendix "Top-m");
- :class:`~sysrs_ref.algorithms.lrf.LRFParams`: UCB-E-LRF's hyperparameters.

The registry (:meth:`~sysrs_ref.algorithms.registry.AlgorithmSpec.parse_params`)
turns user values (numbers or exact decimal strings) into one of these; from
there on they are passed as values. :func:`param_items` is their exact form,
for labels, cache keys and JSON. A value given as text or a Decimal is first
checked by :func:`check_size` (the bounds of
:func:`~sysrs_ref.scores.parse_decimal`), so ``1e99999999`` is refused before
anything converts it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import TypeVar

from sysrs_ref.algorithms.lrf import LRFParams, lrf_params
from sysrs_ref.algorithms.ucb import DEFAULT_A, exploration
from sysrs_ref.errors import ParameterError
from sysrs_ref.scores import bounded_decimal

__all__ = [
    "AlgorithmParams",
    "Exploration",
    "NoParams",
    "ParamValue",
    "TopMSize",
    "check_size",
    "expect",
    "param_items",
]

#: What a parameter value may be: numbers, or a decimal string such as "0.1".
ParamValue = int | float | str | Fraction | Decimal


@dataclass(frozen=True, order=True)
class NoParams:
    """The parameters of a hyperparameter-free algorithm: none."""

    @classmethod
    def parse(cls, values: Mapping[str, ParamValue]) -> NoParams:
        """NoParams (the registry has refused any name already).

        >>> NoParams.parse({})
        NoParams()
        """
        return cls()


@dataclass(frozen=True, order=True)
class Exploration:
    """UCB-E's and SyUCB-E's exploration parameter a > 0, exact (the index is mean + sqrt(a / count))."""

    a: Fraction = Fraction(DEFAULT_A)

    @classmethod
    def parse(cls, values: Mapping[str, ParamValue]) -> Exploration:
        """a from *values* (default 1), exactly: ``"0.1"`` is 1/10.

        >>> Exploration.parse({"a": "0.1"})
        Exploration(a=Fraction(1, 10))
        """
        return cls(exploration(values.get("a", DEFAULT_A)))


@dataclass(frozen=True, order=True)
class TopMSize:
    """SAR's and SySAR's m, the size of the top-m set they identify (at most K - 1, checked at the run)."""

    m: int = 1

    @classmethod
    def parse(cls, values: Mapping[str, ParamValue]) -> TopMSize:
        """m from *values* (default 1): a whole number of at least 1.

        >>> TopMSize.parse({"m": "3"})
        TopMSize(m=3)
        """
        given = values.get("m", 1)
        check_size(given, "m (the size of the top-m set)")
        try:
            value = Fraction(str(given).strip()) if not isinstance(given, bool) else None
        except (ValueError, ZeroDivisionError):
            value = None
        if value is None or value.denominator != 1 or value < 1:
            raise ParameterError(f"m (the size of the top-m set) must be a positive integer, got {given!r}")
        return cls(int(value))


def check_size(value: object, name: str) -> None:
    """ParameterError naming *name* when *value*, a decimal text or a Decimal, is too large, too small or too long.

    The bounds are :func:`~sysrs_ref.scores.parse_decimal`'s; anything else
    (numbers, "p/q" text, words, nan) is left to the family's parser, which
    names its own mistakes.

    >>> check_size("0.1", "a"), check_size(Fraction(1, 3), "a")
    (None, None)
    >>> check_size("1e99999999", "ucbe parameter a")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ParameterError: ucbe parameter a is 1e99999999, above 1e+1000 in magnitude: too large to hold exactly (write a number below 1e+1000)
    """
    if not isinstance(value, (str, Decimal)):
        return
    text = str(value)
    try:
        finite = Decimal(text.strip()).is_finite()
    except InvalidOperation:
        return
    if finite:
        try:
            bounded_decimal(text)
        except ValueError as err:
            raise ParameterError(f"{name} {err}") from None


#: The parameters of any registered algorithm.
AlgorithmParams = NoParams | Exploration | TopMSize | LRFParams


_Family = TypeVar("_Family", NoParams, Exploration, TopMSize, LRFParams)


def expect(params: AlgorithmParams, family: type[_Family], who: str) -> _Family:
    """*params* as the *family* algorithm *who* takes; ParameterError naming both when they are of another family.

    >>> expect(Exploration(Fraction(1, 2)), Exploration, "ucbe").a
    Fraction(1, 2)
    >>> expect(NoParams(), TopMSize, "sar")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ParameterError: sar takes TopMSize parameters, got NoParams()
    """
    if not isinstance(params, family):
        raise ParameterError(f"{who} takes {family.__name__} parameters, got {params!r}")
    return params


def parse_lrf(values: Mapping[str, ParamValue]) -> LRFParams:
    """UCB-E-LRF's parameters (:func:`~sysrs_ref.algorithms.lrf.lrf_params`)."""
    return lrf_params(values)


def param_items(params: AlgorithmParams) -> tuple[tuple[str, Fraction], ...]:
    """The parameters' exact values by name, in declaration order: labels, cache keys and JSON are made of these.

    >>> param_items(Exploration(Fraction(1, 10))), param_items(NoParams()), param_items(TopMSize(2))
    ((('a', Fraction(1, 10)),), (), (('m', Fraction(2, 1)),))
    """
    return tuple((field.name, _exact(getattr(params, field.name))) for field in fields(params))


def _exact(value: object) -> Fraction:
    if isinstance(value, bool):
        return Fraction(int(value))
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(repr(value))  # the decimal the user wrote (these floats come from decimal strings)
    raise TypeError(f"not a parameter value: {value!r}")
