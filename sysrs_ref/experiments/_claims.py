"""The paper's headline empirical claims, each checked on the datasets and grid of a reproduction.

Every claim is quoted from Section "Main Results" (or the Introduction and
Conclusion, which repeat them) and decided by a function of the recomputed
tables: ``holds``, ``does not hold``, or ``cannot be checked`` (a
configuration or a grid point the claim needs was not run). The paper's
claims are about the average or worst case over its 15 benchmarks; here they
are evaluated on the datasets at hand, which the detail says.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from sysrs_ref._words import counted
from sysrs_ref.experiments._paper import CB_TABLE
from sysrs_ref.experiments._tables import Results

__all__ = ["CLAIMS", "Claim", "Verdict", "check_claims"]

HOLDS, FAILS, UNCHECKED = "holds", "does not hold", "cannot be checked"
UCB = tuple(f"{name}(a={a})" for name in ("ucbe", "syucbe") for a in ("0.1", "1", "10"))
PAIRS = (("us", "syus"), ("sr", "sysrs")) + tuple((f"ucbe(a={a})", f"syucbe(a={a})") for a in ("0.1", "1", "10"))
LEVELS = (Fraction(90), Fraction(95), Fraction(100))


@dataclass(frozen=True)
class Verdict:
    """A claim's status on this data, with the numbers behind it."""

    status: str
    detail: str


@dataclass(frozen=True)
class Claim:
    """One claim of the paper and how to check it."""

    id: str
    paper_ref: str
    statement: str
    check: Callable[[Results], Verdict]


def _pct(value: Fraction | None) -> str:
    return "never (on this grid)" if value is None else f"{float(value):.4g}%"


def _lower(first: Fraction | None, second: Fraction | None, grid_complete: bool) -> bool | None:
    """Is CB *first* below CB *second*? None (undecided) when both are never reached on a grid short of 100%."""
    if first is None and second is None:
        return False if grid_complete else None
    if first is None:
        return False
    return second is None or first < second


def _acc(value: Fraction) -> str:
    return f"{float(100 * value):.1f}%"


def _needs(results: Results, labels: Sequence[str], points: Sequence[Fraction] = ()) -> Verdict | None:
    have = {c.label for c in results.configs}
    missing = [label for label in labels if label not in have]
    if missing:
        return Verdict(UNCHECKED, f"needs {', '.join(missing)}, which this reproduction did not run")
    absent = [p for p in points if p not in results.grid]
    if absent:
        return Verdict(UNCHECKED, f"needs the budgets {', '.join(_pct(p) for p in absent)}, which are not on the grid")
    return None


def _standard_error(results: Results, labels: Sequence[str], pct: Fraction) -> float:
    """Monte Carlo standard error, in points, of a mean accuracy (one label) or of a difference of two.

    Each dataset's accuracy p from R independent runs has variance p (1 - p) / R;
    a mean over D datasets divides the sum by D^2. For a difference the two
    variances add (an upper bound: algorithms of the same kind share their draws,
    which makes the difference less noisy, not more).
    """
    variance = 0.0
    for label in labels:
        for dataset in results.datasets:
            p = float(results.curve(dataset.name, label).accuracy(pct))
            variance += p * (1 - p) / results.runs
    return 100 * math.sqrt(variance) / len(results.datasets)


def _sysrs_best_accuracy(results: Results) -> Verdict:
    others = [c.label for c in results.configs if c.label != "sysrs"]
    points = results.table_points()
    missing = _needs(results, ["sysrs"]) or (
        None if points else Verdict(UNCHECKED, "no budget of the table on the grid")
    )
    if missing:
        return missing
    beaten, ties = [], []
    for pct in points:
        ours = results.mean_accuracy("sysrs", pct)
        for label in others:
            theirs = results.mean_accuracy(label, pct)
            if theirs > ours:
                error = _standard_error(results, ["sysrs", label], pct)
                beaten.append(
                    f"{label} at {_pct(pct)} ({_acc(theirs)} > {_acc(ours)}; the difference, "
                    f"{float(100 * (theirs - ours)):.1f} points, has a Monte Carlo standard error of about {error:.1f})"
                )
            elif theirs == ours:
                ties.append(f"{label} at {_pct(pct)}")
    tie_note = f"; tied with {', '.join(ties)}" if ties else ""
    if beaten:
        return Verdict(FAILS, "beaten by " + "; ".join(beaten) + tie_note)
    return Verdict(HOLDS, f"highest mean accuracy at all {len(points)} budgets against {len(others)} others{tie_note}")


def _twelve_percent(results: Results) -> Verdict:
    twelve = Fraction(12)
    missing = _needs(results, ["sysrs", "sr", "us", "syus", *UCB], [twelve])
    if missing:
        return missing
    sysrs = results.mean_accuracy("sysrs", twelve)
    bandits = {label: results.mean_accuracy(label, twelve) for label in ("sr", *UCB)}
    uniform = {label: results.mean_accuracy(label, twelve) for label in ("us", "syus")}
    best_bandit = max(bandits.items(), key=lambda item: item[1])
    best_uniform = max(uniform.items(), key=lambda item: item[1])
    parts = [
        (
            sysrs >= Fraction(95, 100),
            f"SySRs {_acc(sysrs)} (claim: 95%; standard error about "
            f"{_standard_error(results, ['sysrs'], twelve):.1f} points)",
        ),
        (
            best_bandit[1] < Fraction(9, 10),
            f"best other bandit {best_bandit[0]} {_acc(best_bandit[1])} (claim: below 90%)",
        ),
        (
            best_uniform[1] < Fraction(1, 2),
            f"best uniform {best_uniform[0]} {_acc(best_uniform[1])} (claim: below 50%)",
        ),
    ]
    detail = "; ".join(f"{text} {'yes' if ok else 'NO'}" for ok, text in parts)
    return Verdict(HOLDS if all(ok for ok, _ in parts) else FAILS, detail)


def _sync_accuracy(results: Results) -> Verdict:
    pairs = [pair for pair in PAIRS if _needs(results, pair) is None]
    points = results.table_points()
    if not pairs or not points:
        return Verdict(UNCHECKED, "needs a synchronized / unsynchronized pair and a budget of the table")
    losses, ties, gains = [], [], []
    for plain, synced in pairs:
        for pct in points:
            gain = results.mean_accuracy(synced, pct) - results.mean_accuracy(plain, pct)
            gains.append(gain)
            if gain < 0:
                error = _standard_error(results, [synced, plain], pct)
                losses.append(
                    f"{synced} vs {plain} at {_pct(pct)} ({float(100 * gain):+.1f} points, "
                    f"standard error about {error:.1f})"
                )
            elif gain == 0:
                ties.append(f"{synced} and {plain} at {_pct(pct)}")
    mean_gain = float(100 * sum(gains, Fraction(0)) / len(gains))
    detail = (
        f"synchronized higher in {len(gains) - len(losses) - len(ties)}, equal in {len(ties)}, lower in "
        f"{len(losses)} of {len(gains)} comparisons, mean gain {mean_gain:+.1f} points"
        + (f"; equal: {'; '.join(ties)}" if ties else "")
    )
    return Verdict(FAILS, detail + "; lower: " + "; ".join(losses)) if losses else Verdict(HOLDS, detail)


def _sysrs_lowest_cb(results: Results) -> Verdict:
    missing = _needs(results, ["sysrs"])
    if missing:
        return missing
    others = [c.label for c in results.configs if c.label != "sysrs"]
    problems, notes = [], []
    for level in LEVELS:
        ours = results.cb_summary("sysrs", level)
        if ours.mean is None or ours.worst is None:
            problems.append(f"SySRs never reaches {level}% on {ours.total - ours.reached} dataset(s) of this grid")
            continue
        notes.append(f"{level}% CB: mean {float(ours.mean):.4g}%, max {_pct(ours.worst)}")
        for label in others:
            theirs = results.cb_summary(label, level)
            for what, mine, other in (("mean", ours.mean, theirs.mean), ("max", ours.worst, theirs.worst)):
                if other is not None and other < mine:
                    problems.append(f"{label} has a lower {what} {level}% CB ({_pct(other)} < {_pct(mine)})")
                elif other is not None and other == mine:
                    notes.append(f"{label} ties the {what} {level}% CB")
    detail = "; ".join(notes)
    return (
        Verdict(FAILS, "; ".join(problems) + ("; " + detail if detail else "")) if problems else Verdict(HOLDS, detail)
    )


def _sysrs_35(results: Results) -> Verdict:
    missing = _needs(results, ["sysrs"])
    if missing:
        return missing
    budgets = results.confidence_budgets("sysrs", Fraction(100))
    worst = results.cb_summary("sysrs", Fraction(100)).worst
    above = [f"{name} {_pct(value)}" for name, value in budgets.items() if value is None or value > 35]
    caveat = (
        ""
        if results.grid[-1] >= 100
        else f" (the grid ends at {_pct(results.grid[-1])}: accuracy beyond it is not checked)"
    )
    if above:
        return Verdict(FAILS, f"100% CB above 35% on: {', '.join(above)}{caveat}")
    return Verdict(HOLDS, f"largest 100% CB {_pct(worst)} over {counted(len(budgets), 'dataset')}{caveat}")


def _others_100(results: Results) -> Verdict:
    missing = _needs(results, ["sr", *UCB])
    if missing:
        return missing
    if results.grid[-1] < 100:
        return Verdict(UNCHECKED, f"needs the grid up to 100% (it ends at {_pct(results.grid[-1])})")
    sr = results.cb_summary("sr", Fraction(100)).worst
    ucb = {label: results.cb_summary(label, Fraction(100)).worst for label in UCB}
    best_label, best = min(ucb.items(), key=lambda item: (item[1] is None, item[1] or 0))
    detail = f"SR {_pct(sr)} (claim: 43%); best UCB {best_label} {_pct(best)} (claim: around 50%)"
    ok = sr is not None and best is not None and sr > 35 and best > 35
    return Verdict(
        HOLDS if ok else FAILS, detail + ("" if ok else "; the claim is that both need more than SySRs' 35%")
    )


def _compare_cb(mine: Fraction | int | None, theirs: Fraction | int | None) -> int:
    """-1 when CB *mine* is lower (better) than *theirs*, 0 when equal, 1 when higher; never is the highest."""
    if mine == theirs:
        return 0
    if mine is None:
        return 1
    return -1 if theirs is None or mine < theirs else 1


def _sync_cb(results: Results) -> Verdict:
    pairs = [pair for pair in PAIRS if _needs(results, pair) is None]
    if not pairs:
        return Verdict(UNCHECKED, "needs a synchronized / unsynchronized pair")
    outcomes: list[int] = []
    higher: list[str] = []
    paper: list[int] = []
    for plain, synced in pairs:
        for index, level in enumerate(LEVELS):
            a, b = results.cb_summary(plain, level), results.cb_summary(synced, level)
            for what, mine, theirs in (("mean", b.mean, a.mean), ("max", b.worst, a.worst)):
                outcomes.append(_compare_cb(mine, theirs))
                if outcomes[-1] > 0:
                    higher.append(f"{synced} {what} {level}% CB {_pct(mine)} > {plain} {_pct(theirs)}")
            if plain in CB_TABLE and synced in CB_TABLE:
                paper += [_compare_cb(CB_TABLE[synced][index][k], CB_TABLE[plain][index][k]) for k in (0, 1)]
    total = len(outcomes)

    def counts(values: list[int]) -> str:
        return f"lower in {values.count(-1)}, equal in {values.count(0)}, higher in {values.count(1)} of {len(values)}"

    detail = f"synchronized {counts(outcomes)} (mean, max) CB comparisons"
    if paper:
        detail += f" (the paper's own table: {counts(paper)})"
    if higher:
        detail += "; higher: " + "; ".join(higher)
    detail += "; 'almost all' is read as: higher in at most a tenth"
    return Verdict(HOLDS if outcomes.count(1) <= total // 10 else FAILS, detail)


def _exploration_tradeoff(results: Results) -> Verdict:
    missing = _needs(results, list(UCB))
    if missing:
        return missing
    complete = results.grid[-1] >= 100
    parts, decided = [], []
    for name in ("ucbe", "syucbe"):
        low90 = results.cb_summary(f"{name}(a=1)", Fraction(90)).mean
        high90 = results.cb_summary(f"{name}(a=10)", Fraction(90)).mean
        low100 = results.cb_summary(f"{name}(a=1)", Fraction(100)).worst
        high100 = results.cb_summary(f"{name}(a=10)", Fraction(100)).worst
        decided += [_lower(low90, high90, complete), _lower(high100, low100, complete)]
        parts.append(
            f"{name}: mean 90% CB a=1 {_pct(low90)} vs a=10 {_pct(high90)}; "
            f"max 100% CB a=10 {_pct(high100)} vs a=1 {_pct(low100)}"
        )
    detail = "; ".join(parts)
    if False in decided:
        return Verdict(FAILS, detail)
    if None in decided:
        return Verdict(
            UNCHECKED, detail + f" (neither reaches the level by the end of the grid, {_pct(results.grid[-1])})"
        )
    return Verdict(HOLDS, detail)


CLAIMS: tuple[Claim, ...] = (
    Claim(
        "sysrs-best-accuracy",
        "Main Results, Table identification-accuracy",
        "SySRs outperforms all baselines for all tested hyperparameters at all considered budgets.",
        _sysrs_best_accuracy,
    ),
    Claim(
        "sysrs-12-percent",
        "Main Results",
        "At 12% of the budget, SySRs achieves an average identification accuracy of 95% while all other bandit "
        "methods stay below 90% and the uniform sampling baselines do not even reach 50%.",
        _twelve_percent,
    ),
    Claim(
        "sync-beats-unsync-accuracy",
        "Main Results",
        "For all of US, UCB-E, and SR, the synchronized variants outperform the non-synchronized version.",
        _sync_accuracy,
    ),
    Claim(
        "sysrs-lowest-cb",
        "Main Results, Table perfect-identification",
        "SySRs consistently achieves the lowest mean and maximum CB values across all three accuracy thresholds.",
        _sysrs_lowest_cb,
    ),
    Claim(
        "sysrs-35-percent",
        "Main Results, Introduction, Conclusion",
        "Across all datasets, SySRs needs to evaluate at most 35% of model/query pairs to identify the best model "
        "with probability one.",
        _sysrs_35,
    ),
    Claim(
        "others-need-more",
        "Main Results",
        "SR requires 43%, the best UCB variants need around 50% (to identify the best model with probability one).",
        _others_100,
    ),
    Claim(
        "sync-beats-unsync-cb",
        "Main Results",
        "Synchronized algorithms (SySRs, SyUCB-E and SyUS) outperform their non-synchronized counterparts in almost "
        "all cases (Confidence Budgets).",
        _sync_cb,
    ),
    Claim(
        "exploration-tradeoff",
        "Main Results",
        "Lower values of a (a = 1.0) perform much better in terms of the 90% CB; higher values (a = 10.0) are needed "
        "to identify the best model with perfect reliability (100% CB).",
        _exploration_tradeoff,
    ),
)


def check_claims(results: Results) -> list[tuple[Claim, Verdict]]:
    """Every claim of :data:`CLAIMS` with its verdict on *results*."""
    return [(claim, claim.check(results)) for claim in CLAIMS]
