"""Successive Accepts and Rejects (SAR, Bubeck, Wang and Viswanathan 2013) and its synchronized version SySAR.

SAR identifies the top-m models. It runs the K - 1 phases of Successive
Rejects with the same schedule (eq. budget-schedule,
:func:`sysrs_ref.schedule.schedule`, capped at L when needed, so the spend is
exactly SR's), and after each phase *deactivates* one model, either
**accepting** it into the top-m set or **rejecting** it:

1. every active model is evaluated on n_k - n_{k-1} new queries: SAR from
   each model's own query order, SySAR on the *same* queries, positions
   n_{k-1} .. n_k - 1 of the shared order (as SySRs does for SR; the paper's
   "future work", Discussion);
2. the active models are sorted by decreasing empirical mean, sigma(1) first
   (all have n_k scores, so by exact sums; ties by the draw's arm priority,
   the earlier model first);
3. with m' models still to accept, the gaps are
   ``accept = mean(sigma(1)) - mean(sigma(m' + 1))`` (the best model's lead
   over the first model outside the empirical top m') and
   ``reject = mean(sigma(m')) - mean(sigma(last))`` (the worst model's deficit
   to the last model inside); the larger gap decides: sigma(1) is accepted
   when ``accept > reject``, otherwise sigma(last) is rejected. (This is the
   arg-max of Bubeck et al.'s per-arm gaps: within each side the largest gap
   is at the extreme. Their arg-max leaves ties open; here a tie between the
   two gaps rejects, and inside a side the extreme of the priority order is
   taken, so SAR with m = 1 is exactly SR, and SySAR with m = 1 exactly SySRs.)
   When m' = 0 the worst is rejected, and when every active model must be
   accepted (m' equals their number) the best is accepted;
4. after K - 1 phases the one model left is accepted if a place is left.

The outcome's ``ranking`` is the accepted models in the order they were
accepted, then the model left at the end, then the rejected models, the last
rejected first; so ``ranking[:m]`` is the top-m set SAR returns, and
``chosen`` is ``ranking[0]``, the first model accepted. The paper does not
define a ranking for SAR; this order is the analogue of the elimination order
it uses for SR and SySRs (Appendix "Top-m", "Ranking Procedure").
Each phase's :class:`~sysrs_ref.algorithms.base.Step` records the
deactivated model in ``eliminated`` and whether it was accepted.
"""

from __future__ import annotations

from fractions import Fraction

from sysrs_ref.algorithms.base import AlgorithmRun, Outcome, Step
from sysrs_ref.algorithms.successive_rejects import phase_batch
from sysrs_ref.draws import Draw
from sysrs_ref.errors import ParameterError
from sysrs_ref.schedule import Budget, schedule
from sysrs_ref.scores import parse_decimal

__all__ = ["check_m", "sar", "sar_decision", "sysar"]


def check_m(m: object, n_models: int) -> int:
    """*m* as an int if it is a whole number with 1 <= m <= K - 1, else ParameterError.

    >>> check_m("3", 10), check_m(2.0, 3)
    (3, 2)
    >>> check_m(4, 4)
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ParameterError: m (the size of the top-m set) must be an integer from 1 to K - 1 = 3, got 4
    """
    value: Fraction | None
    try:
        value = parse_decimal(str(m)) if not isinstance(m, bool) else None  # bounded: no 10**e for "1e99999999"
    except ValueError:
        value = None
    if value is None or value.denominator != 1 or not 1 <= value <= n_models - 1:
        raise ParameterError(
            f"m (the size of the top-m set) must be an integer from 1 to K - 1 = {n_models - 1}, got {m!r}"
        )
    return int(value)


def sar(budget: int | Budget, draw: Draw, m: int = 1) -> AlgorithmRun:
    """Successive Accepts and Rejects (SAR): the top-*m* models, one accept or reject per phase.

    Needs an unsynchronized draw (one query order per model). One batch per phase.

    >>> from sysrs_ref import Instance, Draw, drive
    >>> inst = Instance([[1, 1, 1, 1], [1, 1, 1, 0], [0, 0, 1, 0], [0, 0, 0, 0]])
    >>> out = drive(sar(16, Draw(((0, 1, 2, 3),) * 4, (0, 1, 2, 3)), m=2), inst)
    >>> out.ranking, out.eliminated, out.accepted   # reject 3, accept 0, reject 2; 1 is left and accepted
    ((0, 1, 2, 3), (3, 0, 2), (0,))
    """
    return _successive_accepts_rejects("sar", budget, draw, m, synchronized=False)


def sysar(budget: int | Budget, draw: Draw, m: int = 1) -> AlgorithmRun:
    """Synchronized Successive Accepts and Rejects (SySAR): SAR with every active model on the same queries.

    Needs a synchronized draw (one shared query order). One batch per phase.

    >>> from sysrs_ref import Instance, Draw, drive
    >>> inst = Instance([[1, 1, 1, 1], [1, 1, 1, 0], [0, 0, 1, 0], [0, 0, 0, 0]])
    >>> out = drive(sysar(16, Draw(((3, 2, 1, 0),), (0, 1, 2, 3)), m=2), inst)
    >>> sorted(out.ranking[:2]), out.spent
    ([0, 1], 16)
    """
    return _successive_accepts_rejects("sysar", budget, draw, m, synchronized=True)


def sar_decision(ordered_sums: list[Fraction], to_accept: int) -> bool:
    """Whether SAR accepts (True: the first of *ordered_sums*) or rejects (False: the last) this phase.

    *ordered_sums* are the active models' sums (equal counts) in SAR's order,
    best first; *to_accept* is m', the number of places left in the top-m set.

    >>> sar_decision([Fraction(9), Fraction(5), Fraction(4)], 1)   # lead 4 vs deficit 5: reject
    False
    >>> sar_decision([Fraction(9), Fraction(2), Fraction(1)], 1)   # lead 7 vs deficit 8: reject
    False
    >>> sar_decision([Fraction(9), Fraction(2), Fraction(1)], 2)   # lead 8 vs deficit 1: accept
    True
    """
    size = len(ordered_sums)
    if to_accept == 0:
        return False
    if to_accept >= size:
        return True
    accept_gap = ordered_sums[0] - ordered_sums[to_accept]
    reject_gap = ordered_sums[to_accept - 1] - ordered_sums[-1]
    return accept_gap > reject_gap


def _successive_accepts_rejects(
    name: str, budget: int | Budget, draw: Draw, m: int, *, synchronized: bool
) -> AlgorithmRun:
    draw.require(draw.n_models, draw.n_queries, synchronized=synchronized, who=name)
    places = check_m(m, draw.n_models)
    lengths = schedule(draw.n_models, draw.n_queries, budget)
    active = list(range(draw.n_models))
    sums = [Fraction(0)] * draw.n_models
    accepted: list[int] = []
    rejected: list[int] = []
    trace: list[Step] = []
    spent = 0
    seen = 0
    for n_k in lengths:
        batch = yield from phase_batch(draw, active, seen, n_k, sums)
        spent += len(batch)
        seen = n_k
        ordered = sorted(active, key=lambda model: (-sums[model], draw.rank[model]))
        accept = sar_decision([sums[model] for model in ordered], places - len(accepted))
        leaving = ordered[0] if accept else ordered[-1]
        (accepted if accept else rejected).append(leaving)
        active.remove(leaving)
        trace.append(Step(batch, eliminated=leaving, accepted=accept))
    (last,) = active
    ranking = (*accepted, last, *reversed(rejected))
    return Outcome(name, ranking[0], ranking, spent, tuple(trace))
