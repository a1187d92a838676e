"""The correlation threshold theta* (Proposition thm:theta-star) and the Corollary's conditions.

For a suboptimal arm with gap Delta of a best arm with mean mu*, the paper
normalises the covariance by Cov_max(mu*, Delta) = (mu* - Delta)(1 - mu*),
the largest covariance two [0, 1] variables with means mu* and mu* - Delta
can have, and proves: theta_i > theta*(mu*, Delta_i) implies H_{3,i} < H_{2,i}.
"""

from __future__ import annotations

from fractions import Fraction

from sysrs_ref.errors import ParameterError

__all__ = ["cov_max", "corollary_gap_bound", "theta_star", "theta_star_numerator"]


def _check(mu_star: Fraction, delta: Fraction) -> None:
    if not (0 <= delta <= mu_star <= 1):
        raise ParameterError(f"need 0 <= Delta <= mu* <= 1, got mu* = {mu_star}, Delta = {delta}")


def cov_max(mu_star: Fraction, delta: Fraction) -> Fraction:
    """Cov_max(mu*, Delta) = (mu* - Delta)(1 - mu*).

    >>> cov_max(Fraction(3, 4), Fraction(1, 4))
    Fraction(1, 8)
    """
    _check(mu_star, delta)
    return (mu_star - delta) * (1 - mu_star)


def theta_star_numerator(mu_star: Fraction, delta: Fraction) -> Fraction:
    """N(mu*, Delta) = -Delta^2/3 + Delta mu* - Delta/3 - mu*^2 + mu* - 1/4 (Proposition thm:theta-star).

    >>> theta_star_numerator(Fraction(1), Fraction(1, 4))  # -1/48 + 1/4 - 1/12 - 1 + 1 - 1/4
    Fraction(-5, 48)
    """
    _check(mu_star, delta)
    return -(delta**2) / 3 + delta * mu_star - delta / 3 - mu_star**2 + mu_star - Fraction(1, 4)


def theta_star(mu_star: Fraction, delta: Fraction) -> Fraction | None:
    """theta*(mu*, Delta) = N(mu*, Delta) / Cov_max(mu*, Delta); None where Cov_max = 0 (mu* = 1 or mu* = Delta).

    >>> theta_star(Fraction(3, 4), Fraction(1, 4))  # N = 1/48, Cov_max = 1/8
    Fraction(1, 6)
    >>> theta_star(Fraction(1), Fraction(1, 4)) is None
    True
    """
    normaliser = cov_max(mu_star, delta)
    if normaliser == 0:
        return None
    return theta_star_numerator(mu_star, delta) / normaliser


def corollary_gap_bound(mu_star: Fraction) -> Fraction:
    """3/2 mu* - 1: the Corollary's theta-free condition is Delta_i < 3/2 mu* - 1.

    >>> corollary_gap_bound(Fraction(9, 10))
    Fraction(7, 20)
    """
    if not 0 <= mu_star <= 1:
        raise ParameterError(f"need 0 <= mu* <= 1, got {mu_star}")
    return Fraction(3, 2) * mu_star - 1
