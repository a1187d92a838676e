"""schedule_is_covered: exactly the budgets the proof of Theorem csr_bound covers, re-derived independently."""

from __future__ import annotations

from fractions import Fraction

from sysrs_ref import schedule
from sysrs_ref.theory import schedule_is_covered


def _logbar(n_models: int) -> Fraction:
    return Fraction(1, 2) + sum((Fraction(1, i) for i in range(2, n_models + 1)), Fraction(0))


def test_schedule_is_covered_is_exactly_the_proofs_condition() -> None:
    """The proof bounds phase k's error by exp(-n_k / H_{3,i}) (Lemma bernstein-paired, which needs n_k <= L) and then
    uses n_k >= (n - K) / (logbar(K) (K + 1 - k)) to reach exp(-(n - K) / (logbar(K) H3)). So a budget is covered
    iff every phase of the schedule SySRs runs meets that, or (deterministic scores only) n_k = L: every remaining
    model then saw every query, and the unique best model cannot be the worst. Re-derived here for every K <= 6,
    L <= 20 and budget: deterministic scores are always covered, and stochastic scores exactly when
    n - K <= 2 L logbar(K) (the last phase's need, (n - K) / (2 logbar(K)), fits in L)."""
    cases = refused = 0
    for n_models in range(2, 7):
        for n_queries in range(1, 21):
            for budget in range(n_models, n_models * n_queries + 1):
                phases = schedule(n_models, n_queries, budget)
                assert all(n_k <= n_queries for n_k in phases)
                meets = [
                    n_k * _logbar(n_models) * (n_models + 1 - k) >= budget - n_models
                    for k, n_k in enumerate(phases, start=1)
                ]
                stochastic = all(meets)
                deterministic = all(ok or n_k == n_queries for ok, n_k in zip(meets, phases, strict=True))
                assert schedule_is_covered(n_models, n_queries, budget, stochastic=True) == stochastic
                assert schedule_is_covered(n_models, n_queries, budget, stochastic=False) == deterministic
                assert deterministic
                assert stochastic == (budget - n_models <= 2 * n_queries * _logbar(n_models))
                cases += 1
                refused += not stochastic
    assert (cases, refused) == (3900, 685)
