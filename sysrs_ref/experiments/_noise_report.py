"""The noise study's files: ``noise_study.md`` (the tables), ``.json``, ``.csv`` and ``.png``, written atomically.

Standard errors are the Monte Carlo ones of R independent runs: sqrt(p (1 - p) / R)
for an accuracy p, and for SySRs' advantage over SR (the two on the same draws)
sqrt((a + b) / R - d^2) / sqrt(R), with a (b) the runs only SySRs (SR) got right
and d = (a - b) / R. A mean over the D benchmarks has the standard error
sqrt(sum SE^2) / D (their runs are independent: one seed each).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

from sysrs_ref._atomic import atomic_write
from sysrs_ref._version import __version__
from sysrs_ref._words import counted
from sysrs_ref.experiments._figures import _save
from sysrs_ref.experiments._noise_study import CaseResult, NoiseStudy, Theory
from sysrs_ref.json_types import JsonValue

__all__ = ["NOISE_FILES", "accuracy_se", "advantage", "mean_over_benchmarks", "write_noise_outputs"]

#: The files the study writes (the figure only with matplotlib).
NOISE_FILES: tuple[str, ...] = ("noise_study.md", "noise_study.json", "noise_study.csv", "noise_study.png")

_NAMES = {"sysrs": "SySRs", "sr": "SR", "syucbe(a=1)": "SyUCB-E", "ucbe(a=1)": "UCB-E"}


def accuracy_se(correct: int, runs: int) -> float:
    """The Monte Carlo standard error sqrt(p (1 - p) / R) of an accuracy p = correct / R.

    >>> accuracy_se(50, 100)
    0.05
    """
    p = correct / runs
    return math.sqrt(p * (1 - p) / runs)


def advantage(found: CaseResult, budget: int) -> tuple[Fraction, float]:
    """SySRs' accuracy minus SR's at budget number *budget* (exact, same draws) and its standard error.

    >>> from sysrs_ref.experiments._noise_study import IrtSpec, NoiseSettings, run_noise_study
    >>> study = run_noise_study(NoiseSettings(runs=4, benchmarks=(), irt=(IrtSpec(4, 30),)))
    >>> advantage(study.cases[0], 0)
    (Fraction(0, 1), 0.0)
    """
    only_sysrs, only_sr = found.advantage(budget)
    runs = found.runs
    difference = Fraction(only_sysrs - only_sr, runs)
    spread = max(0.0, (only_sysrs + only_sr) / runs - float(difference) ** 2)
    return difference, math.sqrt(spread / runs)


def mean_over_benchmarks(study: NoiseStudy, eps: Fraction, label: str | None, budget: int) -> tuple[float, float]:
    """The mean over the benchmarks at flip rate *eps* of *label*'s accuracy (None: SySRs minus SR), and its SE.

    NaN when the study has no benchmark at that flip rate.

    >>> from sysrs_ref.experiments._noise_study import IrtSpec, NoiseSettings, run_noise_study
    >>> study = run_noise_study(NoiseSettings(runs=4, benchmarks=(), irt=(IrtSpec(4, 30),)))
    >>> mean_over_benchmarks(study, Fraction(0), "sysrs", 0)
    (nan, nan)
    """
    values: list[tuple[float, float]] = []
    for found in study.cases:
        if found.case.family != "benchmark" or found.case.eps != eps:
            continue
        if label is None:
            difference, se = advantage(found, budget)
            values.append((float(difference), se))
        else:
            row = found.result(label).rows[budget]
            values.append((row.accuracy, accuracy_se(row.correct, found.runs)))
    if not values:
        return math.nan, math.nan
    return sum(v for v, _ in values) / len(values), math.sqrt(sum(se * se for _, se in values)) / len(values)


def _exact(value: Fraction | None) -> JsonValue:
    return None if value is None else str(value)


def _float(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def _theory_json(theory: Theory) -> dict[str, JsonValue]:
    return {
        "mu_star": _exact(theory.mu_star),
        "delta2": _exact(theory.delta2),
        "h2": _exact(theory.h2),
        "h3": _exact(theory.h3),
        "h3_prime": _exact(theory.h3_prime),
        "h3_over_h2": _float(theory.ratio),
        "hardest": theory.hardest,
        "above_hardest": theory.above_hardest,
        "arms": theory.arms,
        "above_all": theory.above_all,
    }


def _case_json(found: CaseResult, budgets: Sequence[str]) -> dict[str, JsonValue]:
    case = found.case
    first = found.results[0]
    accuracy: list[JsonValue] = []
    for label in found.labels:
        for row in found.result(label).rows:
            accuracy.append(
                {
                    "algorithm": label,
                    "budget_pct": row.budget_pct,
                    "budget": row.budget,
                    "correct": row.correct,
                    "runs": first.runs,
                    "accuracy": row.accuracy,
                    "se": accuracy_se(row.correct, first.runs),
                }
            )
    gains: list[JsonValue] = []
    for index, pct in enumerate(budgets):
        only_sysrs, only_sr = found.advantage(index)
        difference, se = advantage(found, index)
        gains.append(
            {
                "budget_pct": pct,
                "sysrs_only": only_sysrs,
                "sr_only": only_sr,
                "sysrs_minus_sr": _exact(difference),
                "value": float(difference),
                "se": se,
            }
        )
    return {
        "instance": case.instance,
        "family": case.family,
        "noise": case.noise,
        "eps": _exact(case.eps),
        "K": first.K,
        "L": first.L,
        "seed": case.seed,
        "best": list(first.best),
        "seconds": round(found.seconds, 3),
        "theory": _theory_json(found.theory),
        "accuracy": accuracy,
        "advantage": gains,
    }


def _document(study: NoiseStudy) -> dict[str, JsonValue]:
    s = study.settings
    labels = study.cases[0].labels if study.cases else ()
    means: list[JsonValue] = []
    for eps in s.flips:
        for label in (*labels, None):
            for index, pct in enumerate(s.budgets):
                value, se = mean_over_benchmarks(study, eps, label, index)
                means.append(
                    {
                        "eps": str(eps),
                        "algorithm": "sysrs-sr" if label is None else label,
                        "budget_pct": pct,
                        "value": None if math.isnan(value) else value,  # NaN: no benchmark at that eps
                        "se": None if math.isnan(se) else se,
                    }
                )
    return {
        "study": "noise",
        "version": __version__,
        "settings": s.to_json(),
        "seconds": round(study.seconds, 3),
        "algorithms": list(labels),
        "cases": [_case_json(found, s.budgets) for found in study.cases],
        "mean_over_benchmarks": means,
    }


def _csv(study: NoiseStudy) -> str:
    lines = [
        "instance,family,noise,eps,K,L,seed,algorithm,budget_pct,budget,runs,correct,accuracy,se,h2,h3,h3_over_h2,"
        "above_hardest,hardest"
    ]
    for found in study.cases:
        case, theory = found.case, found.theory
        first = found.results[0]
        ratio = "" if theory.ratio is None else f"{float(theory.ratio):.6f}"
        for label in found.labels:
            for row in found.result(label).rows:
                lines.append(
                    ",".join(
                        str(part)
                        for part in (
                            case.instance,
                            case.family,
                            case.noise,
                            "" if case.eps is None else case.eps,
                            first.K,
                            first.L,
                            case.seed,
                            label,
                            row.budget_pct,
                            row.budget,
                            first.runs,
                            row.correct,
                            row.accuracy,
                            f"{accuracy_se(row.correct, first.runs):.6f}",
                            "" if theory.h2 is None else theory.h2,
                            "" if theory.h3 is None else theory.h3,
                            ratio,
                            theory.above_hardest,
                            theory.hardest,
                        )
                    )
                )
    return "\n".join(lines) + "\n"


def _pct(value: float, se: float | None = None, signed: bool = False) -> str:
    text = f"{100 * value:+.1f}" if signed else f"{100 * value:.1f}"
    return text if se is None else f"{text} ± {100 * se:.1f}"


def _h(value: Fraction | None) -> str:
    return "inf" if value is None else f"{float(value):,.0f}"


def _markdown(study: NoiseStudy) -> str:
    s = study.settings
    labels = study.cases[0].labels if study.cases else ()
    head = " | ".join(s.budgets)
    rule = "|---" * (len(s.budgets) + 1) + "|"
    lines = [
        "# How much of SySRs' advantage over SR survives sampling noise",
        "",
        f"R = {counted(s.runs, 'run')} per case and algorithm (common random numbers), seed {s.seed}, "
        f"budgets {', '.join(s.budgets)} of K L; sysrs_ref {__version__}; {study.seconds:.0f} s. "
        "Accuracies in %, ± one Monte Carlo standard error.",
        "",
        f"## Mean over the {counted(len(s.benchmarks), 'benchmark')}, symmetric flip at rate eps",
        "",
        f"| eps | algorithm | {head} |",
        "|---" + rule,
    ]
    for eps in s.flips:
        for label in (*labels, None):
            cells = [mean_over_benchmarks(study, eps, label, b) for b in range(len(s.budgets))]
            name = "**SySRs - SR**" if label is None else _NAMES.get(label, label)
            shown = [_pct(v, se, signed=label is None) for v, se in cells]
            lines.append(f"| {eps} | {name} | " + " | ".join(shown) + " |")
    lines += [
        "",
        "## The theory's prediction per case",
        "",
        "H3 < H2 predicts SySRs' advantage (Theorem csr_bound against SR's bound); theta > theta* counts the arms "
        f"with theta_i > theta*(mu*, Delta_i) among the {s.hardest} hardest (smallest gaps) and among all.",
        "",
        "| instance | noise | K x L | mu* | Delta_2 | H2 | H3 | H3' | H3/H2 | theta > theta* (hardest) | (all) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for found in study.cases:
        t, c, first = found.theory, found.case, found.results[0]
        ratio = "—" if t.ratio is None else f"{float(t.ratio):.3f}"
        lines.append(
            f"| {c.instance} | {c.noise} | {first.K} x {first.L} | {float(t.mu_star):.3f} | {float(t.delta2):.4f} | "
            f"{_h(t.h2)} | {_h(t.h3)} | {_h(t.h3_prime)} | {ratio} | {t.above_hardest}/{t.hardest} | "
            f"{t.above_all}/{t.arms} |"
        )
    lines += [
        "",
        "## SySRs - SR per case (accuracy points, same draws)",
        "",
        f"| instance | noise | {head} | SySRs at {s.budgets[0]} | SR at {s.budgets[0]} |",
        "|---" * (len(s.budgets) + 4) + "|",
    ]
    for found in study.cases:
        gains = [advantage(found, b) for b in range(len(s.budgets))]
        first_rows = found.result("sysrs").rows[0], found.result("sr").rows[0]
        lines.append(
            f"| {found.case.instance} | {found.case.noise} | "
            + " | ".join(_pct(float(d), se, signed=True) for d, se in gains)
            + " | "
            + " | ".join(_pct(row.accuracy) for row in first_rows)
            + " |"
        )
    lines += ["", "Every accuracy, of every algorithm: noise_study.csv and noise_study.json.", ""]
    return "\n".join(lines)


def write_noise_outputs(out: Path, study: NoiseStudy, plots: bool = True) -> tuple[list[Path], str]:
    """Write the Markdown table, the JSON, the CSV and (with matplotlib) the figure; return the files and a note.

    >>> import tempfile
    >>> from sysrs_ref.experiments._noise_study import IrtSpec, NoiseSettings, run_noise_study
    >>> study = run_noise_study(NoiseSettings(runs=4, benchmarks=(), irt=(IrtSpec(4, 30),)))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     files, note = write_noise_outputs(Path(folder), study, plots=False)
    >>> [path.name for path in files], note
    (['noise_study.md', 'noise_study.json', 'noise_study.csv'], 'no figure: --no-plot')
    """
    files = [out / name for name in NOISE_FILES[:3]]
    atomic_write(files[0], _markdown(study))
    atomic_write(files[1], json.dumps(_document(study), indent=1) + "\n")
    atomic_write(files[2], _csv(study))
    if not plots:
        return files, "no figure: --no-plot"
    figure = _figure(out, study)
    if figure is None:
        return files, "no figure: matplotlib is not installed (pip install -e '.[plot]'), the rest is written"
    return [*files, figure], f"figure: {figure.name}"


def _figure(out: Path, study: NoiseStudy) -> Path | None:
    try:  # the object-oriented API only: no pyplot, no global backend switched
        from matplotlib.figure import Figure
    except ImportError:
        return None
    s = study.settings
    xs = [float(b.rstrip("%")) for b in s.budgets]
    figure = Figure(figsize=(14, 4.2))
    left, middle, right = figure.subplots(1, 3)
    for eps in s.flips:
        cells = [mean_over_benchmarks(study, eps, None, b) for b in range(len(s.budgets))]
        left.errorbar(
            xs,
            [100 * v for v, _ in cells],
            yerr=[100 * se for _, se in cells],
            marker="o",
            capsize=3,
            label=f"eps = {eps}",
        )
    left.set(
        xlabel="budget (% of K L)",
        ylabel="SySRs - SR (accuracy points)",
        title=f"a) mean over {counted(len(s.benchmarks), 'benchmark')}, flip rate eps",
    )
    irt = [found for found in study.cases if found.case.family == "irt"]
    colours = {name: f"C{index}" for index, name in enumerate(dict.fromkeys(f.case.instance for f in irt))}
    for found in irt:
        gains = [advantage(found, b) for b in range(len(s.budgets))]
        middle.errorbar(
            xs,
            [100 * float(d) for d, _ in gains],
            yerr=[100 * se for _, se in gains],
            marker="o",
            capsize=3,
            linestyle="-" if found.case.noise == "frozen" else "--",
            color=colours[found.case.instance],
            label=f"{found.case.instance} {found.case.noise}",
        )
    middle.set(xlabel="budget (% of K L)", ylabel="SySRs - SR (accuracy points)", title="b) item-response benchmarks")
    flips = [float(eps) for eps in s.flips]
    for name in s.benchmarks:
        ratios = [
            _float(found.theory.ratio)
            for eps in s.flips
            for found in study.cases
            if found.case.instance == name and found.case.eps == eps
        ]
        right.plot(flips, [math.nan if r is None else r for r in ratios], marker=".", label=name)
    right.axhline(1.0, color="black", linewidth=0.8)
    right.set(xlabel="flip rate eps", ylabel="H3 / H2", title="c) noise moves H3 toward H2")
    for axis in (left, middle, right):
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7)
    left.axhline(0.0, color="black", linewidth=0.8)
    middle.axhline(0.0, color="black", linewidth=0.8)
    figure.tight_layout()
    return _save(figure, out / NOISE_FILES[3], 100)
