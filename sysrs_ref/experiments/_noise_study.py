"""How much of SySRs' advantage over SR survives sampling noise: ``python -m sysrs_ref noise``.

The paper's model is stochastic (Formal Setup: S_ij ~ phi_ij), its experiments
deterministic (greedy decoding: phi_ij point masses). This study runs both on
the same instances and puts the theory's prediction beside the accuracies:

- the shipped binary benchmarks read as Bernoulli with a symmetric flip at
  rate eps, p_ij = eps + (1 - 2 eps) S_ij (:func:`flip_instance`); eps = 0 is
  the deterministic case and gives exactly today's runs;
- synthetic two-parameter item-response benchmarks (the model of
  :func:`~sysrs_ref.synthetic.irt_benchmark`), ``frozen`` (one realised 0/1
  matrix, as greedy decoding gives) and ``resampled`` (S_ij ~ Bernoulli(p_ij),
  a fresh draw at every evaluation).

Every case runs SySRs, SR, SyUCB-E and UCB-E (a = 1) on common random numbers
(:func:`~sysrs_ref.simulation.simulate_many`, R runs, one seed per base
instance shared by its noise levels, so the noise levels are paired too), and
gets H2, H3, H3' (eq. H3, H3k; V_{*,i} of eq. variance taken jointly over J and
the score noise) and the share of arms whose theta_i exceeds theta*(mu*, Delta_i)
(Proposition thm:theta-star). :mod:`~sysrs_ref.experiments._noise_report`
writes the table, the JSON, the CSV and the figure.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np
import numpy.typing as npt

from sysrs_ref._checks import check_int, check_seed
from sysrs_ref.datasets import load_dataset
from sysrs_ref.errors import InstanceError, ParameterError
from sysrs_ref.instance import InstanceLike, as_instance
from sysrs_ref.json_types import JsonValue
from sysrs_ref.simulation import Config, SimulationResult, parse_algorithm_list, simulate_many
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.synthetic import irt_probabilities
from sysrs_ref.theory.hardness import arm_hardness, hardness

__all__ = [
    "BINARY_BENCHMARKS",
    "FLIP_LEVELS",
    "IRT_SPECS",
    "NOISE_ALGORITHMS",
    "NOISE_GRID",
    "CaseResult",
    "IrtSpec",
    "NoiseCase",
    "NoiseSettings",
    "NoiseStudy",
    "Theory",
    "case_theory",
    "flip_instance",
    "noise_case_count",
    "noise_cases",
    "run_noise_study",
]

#: The algorithms compared, as ``simulate_many`` reads them (UCB-E and SyUCB-E with a = 1).
NOISE_ALGORITHMS = "sysrs,sr,syucbe:a=1,ucbe:a=1"

#: The budgets, in % of K L; at 100% every algorithm has one full pass: the accuracy a single pass can reach.
NOISE_GRID: tuple[str, ...] = ("5%", "10%", "20%", "35%", "100%")

#: The flip rates eps of the benchmarks: 0 (deterministic), 1/16, 1/8, 1/4 (dyadic: the noise realises them exactly).
FLIP_LEVELS: tuple[Fraction, ...] = (Fraction(0), Fraction(1, 16), Fraction(1, 8), Fraction(1, 4))

#: The shipped benchmarks with 0/1 scores (narrative_qa and wmt_14 have continuous scores: a flip is not defined).
BINARY_BENCHMARKS: tuple[str, ...] = (
    "arc_challenge",
    "bbh",
    "commonsense",
    "gsm",
    "ifeval",
    "legalbench",
    "math",
    "med_qa",
    "mmlu",
)


@dataclass(frozen=True)
class IrtSpec:
    """A synthetic item-response benchmark: K models, L queries, ability spread (standard deviation), its seed."""

    n_models: int
    n_queries: int
    spread: Fraction = Fraction(1, 2)
    seed: int = 0

    @property
    def name(self) -> str:
        """``irt-KxL-sdS``, e.g. ``irt-30x2000-sd0.5``.

        >>> IrtSpec(30, 2000, Fraction(1, 4)).name
        'irt-30x2000-sd0.25'
        """
        return f"irt-{self.n_models}x{self.n_queries}-sd{float(self.spread):g}"


#: The default synthetic benchmarks: irt_benchmark's own spread (0.5) at two sizes, and closer models (0.25).
IRT_SPECS: tuple[IrtSpec, ...] = (
    IrtSpec(30, 2000, Fraction(1, 2)),
    IrtSpec(30, 2000, Fraction(1, 4)),
    IrtSpec(80, 1000, Fraction(1, 2)),
)

Family = Literal["benchmark", "irt"]


@dataclass(frozen=True)
class NoiseSettings:
    """The study's settings: R, the seed, the budgets, the flip rates, the benchmarks, the synthetic instances.

    >>> NoiseSettings.quick().runs, NoiseSettings().to_json()["flips"]
    (20, ['0', '1/16', '1/8', '1/4'])
    """

    runs: int = 200
    seed: int = 0
    budgets: tuple[str, ...] = NOISE_GRID
    flips: tuple[Fraction, ...] = FLIP_LEVELS
    benchmarks: tuple[str, ...] = BINARY_BENCHMARKS
    irt: tuple[IrtSpec, ...] = IRT_SPECS
    hardest: int = 10
    """theta_i against theta*_i is counted over the *hardest* arms (smallest gaps) and over all arms."""

    @classmethod
    def quick(cls, runs: int = 20, seed: int = 0) -> NoiseSettings:
        """A small study for tests and a first look: two small benchmarks, eps in {0, 1/8}, one small IRT."""
        return cls(
            runs=runs,
            seed=seed,
            flips=(Fraction(0), Fraction(1, 8)),
            benchmarks=("math", "mmlu"),
            irt=(IrtSpec(10, 300, Fraction(1, 2)),),
        )

    def to_json(self) -> dict[str, JsonValue]:
        """The settings as a JSON object (exact flip rates and spreads as ``p/q`` text)."""
        return {
            "runs": self.runs,
            "seed": self.seed,
            "budgets": list(self.budgets),
            "flips": [str(eps) for eps in self.flips],
            "benchmarks": list(self.benchmarks),
            "irt": [
                {"K": s.n_models, "L": s.n_queries, "spread": str(s.spread), "seed": s.seed, "name": s.name}
                for s in self.irt
            ],
            "hardest": self.hardest,
            "algorithms": NOISE_ALGORITHMS,
        }


@dataclass(frozen=True)
class NoiseCase:
    """One row of the study: a base instance under one noise, and the seed of its runs."""

    instance: str
    family: Family
    noise: str
    """``eps=1/16`` for a flipped benchmark; ``frozen`` or ``resampled`` for an item-response benchmark."""
    eps: Fraction | None
    seed: int
    stochastic: StochasticInstance


def flip_instance(scores: InstanceLike, eps: Fraction) -> StochasticInstance:
    """A 0/1 score matrix with a symmetric flip at rate eps: S'_ij ~ Bernoulli(eps + (1 - 2 eps) S_ij).

    Each evaluation returns the wrong score with probability eps, independently
    across cells. The means become eps + (1 - 2 eps) mu_i, so the best model is
    kept and every gap shrinks by 1 - 2 eps (H2 grows by 1 / (1 - 2 eps)^2);
    eps = 0 gives point masses, the deterministic instance. *eps* is in [0, 1/2).

    >>> inst = flip_instance([[1, 1, 0], [1, 0, 0]], Fraction(1, 8))
    >>> inst.means, inst.law(0, 2)
    ((Fraction(5, 8), Fraction(3, 8)), ((Fraction(1, 1), Fraction(1, 8)), (Fraction(0, 1), Fraction(7, 8))))
    >>> flip_instance([[1, 0], [0, 0]], Fraction(0)).degenerate
    True
    """
    base = as_instance(scores, "the flipped matrix")
    eps = Fraction(eps)
    if not 0 <= eps < Fraction(1, 2):
        raise ParameterError(f"the flip rate eps must be in [0, 1/2), got {eps}: at 1/2 every score is a coin flip")
    array = base.array
    if not np.all((array == 0) | (array == 1)):
        raise InstanceError("a symmetric flip needs a 0/1 score matrix; this one has scores strictly between 0 and 1")
    if (eps * 2**53).denominator == 1:  # dyadic: float64 holds p_ij exactly, numpy's thresholds apply
        return StochasticInstance.bernoulli(float(eps) + float(1 - 2 * eps) * array)
    return StochasticInstance.bernoulli([[eps + (1 - 2 * eps) * s for s in row] for row in base.rows])


def _irt_cells(spec: IrtSpec) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The success probabilities p_ij and one realised 0/1 matrix of an item-response benchmark, same row order.

    :func:`~sysrs_ref.synthetic.irt_probabilities` with the spec's ability spread:
    at spread 1/2 the realised matrix is exactly ``irt_benchmark(K, L, seed)``.
    Rows are sorted by the realised means.
    """
    return irt_probabilities(spec.n_models, spec.n_queries, spec.seed, spread=spec.spread)


def noise_cases(settings: NoiseSettings) -> tuple[NoiseCase, ...]:
    """Every case of the study, benchmarks first: each base instance under each of its noises.

    Base instance number b (benchmarks, then the IRT specs) runs with seed
    ``settings.seed + b``, the same for all its noises (paired).

    >>> [(c.instance, c.noise, c.seed) for c in noise_cases(NoiseSettings.quick())]  # doctest: +NORMALIZE_WHITESPACE
    [('math', 'eps=0', 0), ('math', 'eps=1/8', 0), ('mmlu', 'eps=0', 1), ('mmlu', 'eps=1/8', 1),
     ('irt-10x300-sd0.5', 'frozen', 2), ('irt-10x300-sd0.5', 'resampled', 2)]
    """
    cases: list[NoiseCase] = []
    for index, name in enumerate(settings.benchmarks):
        scores = load_dataset(name)
        seed = settings.seed + index
        cases += [
            NoiseCase(name, "benchmark", f"eps={eps}", eps, seed, flip_instance(scores, eps)) for eps in settings.flips
        ]
    for offset, spec in enumerate(settings.irt):
        probability, frozen = _irt_cells(spec)
        seed = settings.seed + len(settings.benchmarks) + offset
        cases.append(NoiseCase(spec.name, "irt", "frozen", None, seed, StochasticInstance.bernoulli(frozen)))
        cases.append(NoiseCase(spec.name, "irt", "resampled", None, seed, StochasticInstance.bernoulli(probability)))
    return tuple(cases)


def noise_case_count(settings: NoiseSettings) -> int:
    """How many cases :func:`noise_cases` makes (without loading anything): benchmarks x flips + 2 per IRT spec.

    >>> noise_case_count(NoiseSettings()), noise_case_count(NoiseSettings.quick())
    (42, 6)
    """
    return len(settings.benchmarks) * len(settings.flips) + 2 * len(settings.irt)


@dataclass(frozen=True)
class Theory:
    """The theory's prediction for one case, exact (``None``: infinite, or undefined for tied best models)."""

    mu_star: Fraction
    delta2: Fraction
    h2: Fraction | None
    h3: Fraction | None
    h3_prime: Fraction | None
    hardest: int
    """How many arms (the smallest gaps) ``above_hardest`` counts over."""
    above_hardest: int
    """How many of the hardest arms have theta_i > theta*(mu*, Delta_i) (Proposition thm:theta-star)."""
    arms: int
    above_all: int

    @property
    def ratio(self) -> Fraction | None:
        """H3 / H2: SySRs' bound is the tighter where it is below 1."""
        return None if self.h3 is None or self.h2 is None else self.h3 / self.h2


def case_theory(instance: StochasticInstance, hardest: int = 10) -> Theory:
    """H2, H3, H3' and the arms above theta* of a Bernoulli stochastic instance, exactly.

    V_{*,i} is taken jointly over the uniform query J and the Bernoulli score
    noise (eq. variance): ``hardness(mean_instance, bernoulli=True)``. Noise
    adds p_ij (1 - p_ij) to each arm's variance and no covariance, so it raises
    V_{*,i} and moves H3 toward H2.

    >>> t = case_theory(flip_instance([[1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0]], Fraction(0)), hardest=1)
    >>> t.h2, t.h3, t.ratio, (t.above_hardest, t.hardest, t.above_all, t.arms)
    (Fraction(32, 1), Fraction(56, 3), Fraction(7, 12), (1, 1, 1, 2))
    """
    if instance.kind not in ("bernoulli", "deterministic") and not instance.degenerate:
        raise ParameterError(f"the noise study's theory reads Bernoulli instances, got a {instance.kind} one")
    means = instance.mean_instance
    measures = hardness(means, bernoulli=True)
    if len(means.best) > 1:
        return Theory(measures.best_mean, Fraction(0), None, None, None, 0, 0, 0, 0)
    arms = arm_hardness(means, bernoulli=True)
    above = [a.theta is not None and a.theta_star is not None and a.theta > a.theta_star for a in arms]
    count = min(check_int(hardest, "hardest"), len(arms))
    return Theory(
        measures.best_mean,
        measures.delta2,
        measures.h2,
        measures.h3,
        measures.h3_prime,
        count,
        sum(above[:count]),
        len(arms),
        sum(above),
    )


@dataclass(frozen=True)
class CaseResult:
    """One case's theory and its simulations (one :class:`SimulationResult` per algorithm, in ``labels`` order)."""

    case: NoiseCase
    theory: Theory
    results: tuple[SimulationResult, ...]
    labels: tuple[str, ...]
    seconds: float

    @property
    def runs(self) -> int:
        """R, the runs of every algorithm."""
        return self.results[0].runs

    def result(self, label: str) -> SimulationResult:
        """The simulation of the algorithm labelled *label* (``sysrs``, ``ucbe(a=1)``)."""
        return self.results[self.labels.index(label)]

    def hits(self, label: str) -> npt.NDArray[np.bool_]:
        """``hits[r, b]``: whether run r of *label* chose a true best model at budget b."""
        found = self.result(label)
        return np.isin(found.chosen, np.array(found.best))

    def advantage(self, budget: int) -> tuple[int, int]:
        """(runs only SySRs got right, runs only SR got right) at budget number *budget*, on the same draws."""
        sysrs, sr = self.hits("sysrs")[:, budget], self.hits("sr")[:, budget]
        return int(np.sum(sysrs & ~sr)), int(np.sum(sr & ~sysrs))


@dataclass(frozen=True)
class NoiseStudy:
    """Every case's result, in :func:`noise_cases`' order, and the settings."""

    settings: NoiseSettings
    cases: tuple[CaseResult, ...]
    seconds: float


def run_noise_study(
    settings: NoiseSettings, *, workers: int = 1, progress: Callable[[str], None] | None = None
) -> NoiseStudy:
    """Simulate every case (``simulate_many`` on its stochastic instance) and compute its theory.

    *workers* processes run each case's simulations (the numbers do not
    depend on it); *progress* is told each case as it finishes.

    >>> study = run_noise_study(NoiseSettings(runs=4, benchmarks=(), irt=(IrtSpec(4, 30),)))
    >>> [(f.case.noise, f.result("sysrs").rows[-1].correct, f.advantage(0)) for f in study.cases]
    [('frozen', 4, (0, 0)), ('resampled', 0, (0, 0))]
    """
    runs = check_int(settings.runs, "runs")
    check_seed(settings.seed)
    workers = check_int(workers, "workers")
    configs: Sequence[Config] = parse_algorithm_list(NOISE_ALGORITHMS, "algorithms")
    labels = tuple(config.label for config in configs)
    began = time.perf_counter()
    done: list[CaseResult] = []
    for case in noise_cases(settings):
        start = time.perf_counter()
        results = simulate_many(case.stochastic, configs, list(settings.budgets), runs, case.seed, workers=workers)
        theory = case_theory(case.stochastic, settings.hardest)
        done.append(CaseResult(case, theory, results, labels, time.perf_counter() - start))
        if progress is not None:
            progress(f"{case.instance} {case.noise}")
    return NoiseStudy(settings, tuple(done), time.perf_counter() - began)
