"""An algorithm configuration, the unit of the Monte-Carlo engine: a registered algorithm with exact parameters."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from sysrs_ref.algorithms.lrf import LRF_DEFAULTS, LRFParams
from sysrs_ref.algorithms.params import AlgorithmParams, expect
from sysrs_ref.algorithms.registry import ParamValue, get_algorithm
from sysrs_ref.errors import ParameterError
from sysrs_ref.scores import decimal_text

__all__ = ["PAPER_SIX", "Config", "parse_algorithm_list"]

#: The six algorithms of the paper's Table "identification-accuracy", UCB-E and SyUCB-E with a = 1
#: (``simulate --algorithm all``).
PAPER_SIX: tuple[str, ...] = ("us", "syus", "sr", "sysrs", "ucbe:a=1", "syucbe:a=1")


@dataclass(frozen=True, order=True)
class Config:
    """An algorithm with its parameters, defaults filled in and exact: one row of the paper's tables.

    >>> Config.of("ucbe", a="0.1").label, Config.of("sysrs").label, Config.of("syucbe").label
    ('ucbe(a=0.1)', 'sysrs', 'syucbe(a=1)')
    """

    algorithm: str
    params: tuple[tuple[str, Fraction], ...] = ()

    @classmethod
    def of(cls, algorithm: str, **params: ParamValue) -> Config:
        """The configuration of a registered *algorithm*, parameters checked and made exact.

        SAR and SySAR keep ``m`` unset unless it is given: in a top-m study
        each target m then runs with ``m`` set to it (the label is ``sar``);
        elsewhere they run with the default m = 1.

        >>> Config.of("sysar").label, Config.of("sysar", m=3).label
        ('sysar', 'sysar(m=3)')
        """
        spec = get_algorithm(algorithm)
        exact = spec.exact_params(spec.parse_params(params))
        if spec.top_m_sized and "m" not in params:
            exact = {}  # m is each target's, in a top-m study
        return cls(spec.name, tuple(sorted(exact.items())))

    @property
    def m_is_target(self) -> bool:
        """True for SAR or SySAR without a fixed m: each top-m target runs with its own m."""
        return get_algorithm(self.algorithm).top_m_sized and not self.params

    @property
    def typed(self) -> AlgorithmParams:
        """The parameters the algorithm runs with (SAR's m = 1 when it is a target), as its family's object."""
        return get_algorithm(self.algorithm).parse_params(dict(self.params))

    @property
    def exact(self) -> dict[str, Fraction]:
        """:attr:`typed`'s exact values by name."""
        return get_algorithm(self.algorithm).exact_params(self.typed)

    @property
    def lrf(self) -> LRFParams:
        """UCB-E-LRF's parameters (ParameterError for another algorithm)."""
        return expect(self.typed, LRFParams, self.algorithm)

    @property
    def label(self) -> str:
        """``name`` or ``name(key=value,...)`` with exact decimal values: the key of the paper's tables."""
        if self.cells:  # UCB-E-LRF: its warm-up, then only what differs from the paper's settings
            shown = [f"warmup={decimal_text(dict(self.params)['warmup'])}%"] + [
                f"{key}={decimal_text(value)}"
                for key, value in self.params
                if key != "warmup" and value != Fraction(str(LRF_DEFAULTS[key]))
            ]
            return f"{self.algorithm}({','.join(shown)})"
        if not self.params:
            return self.algorithm
        return f"{self.algorithm}({','.join(f'{key}={decimal_text(value)}' for key, value in self.params)})"

    @property
    def synchronized(self) -> bool:
        """Whether the algorithm uses one shared query order per run."""
        return get_algorithm(self.algorithm).synchronized

    @property
    def cells(self) -> bool:
        """Whether the algorithm draws cells (UCB-E-LRF) rather than query orders."""
        return get_algorithm(self.algorithm).cells


def parse_algorithm_list(
    text: str,
    flag: str = "--algorithm",
    named: Mapping[str, tuple[Config, ...]] | None = None,
    defaults: Mapping[str, ParamValue] | None = None,
) -> tuple[Config, ...]:
    """Configurations from a comma-separated list of ``name`` and ``name:key=value`` items.

    *named* maps words to groups of configurations (``all``, ``paper``);
    *defaults* are parameters (from ``--a``, ``--m``, ``--warmup``) given to
    every item that takes them and does not set them itself; a default no
    item takes is refused. The same configuration twice is refused.

    >>> [c.label for c in parse_algorithm_list("sysrs,ucbe:a=100,syucbe")]
    ['sysrs', 'ucbe(a=100)', 'syucbe(a=1)']
    >>> [c.label for c in parse_algorithm_list("ucbe,sr", defaults={"a": "0.1"})]
    ['ucbe(a=0.1)', 'sr']
    """
    groups = {"all": parse_algorithm_list(",".join(PAPER_SIX), flag, {})} if named is None else named
    given = dict(defaults or {})
    out: list[Config] = []
    used: set[str] = set()
    for item in (part.strip() for part in text.split(",")):
        if not item:
            raise ParameterError(f"{flag} {text!r} has an empty item; write e.g. sysrs,ucbe:a=0.1")
        if item in groups:
            if given:
                raise ParameterError(
                    f"{flag} {item} fixes its algorithms' parameters ({', '.join(c.label for c in groups[item])}); "
                    f"list the algorithms instead to set {', '.join(sorted(given))}"
                )
            out.extend(groups[item])
            continue
        name, *assignments = item.split(":")
        params: dict[str, ParamValue] = {}
        for assignment in assignments:
            key, sep, value = assignment.partition("=")
            if not sep or not key.strip() or not value.strip():
                raise ParameterError(
                    f"algorithm parameter {assignment!r} in {item!r}: write it as key=value, e.g. ucbe:a=0.1"
                )
            params[key.strip()] = value.strip()
        spec = get_algorithm(name.strip())
        for key, default in given.items():
            if key in spec.defaults:
                used.add(key)
                params.setdefault(key, default)
            elif len(text.split(",")) == 1:  # one algorithm: a parameter it does not take is a mistake
                used.add(key)
                params[key] = default
        out.append(Config.of(spec.name, **params))
    unused = sorted(set(given) - used)
    if unused:
        raise ParameterError(f"no algorithm of {flag} {text!r} takes the parameter {unused[0]!r}")
    unique = list(dict.fromkeys(out))
    if len(unique) != len(out):
        repeated = sorted({c.label for c in out if out.count(c) > 1})
        raise ParameterError(f"{flag} names {', '.join(repeated)} more than once")
    return tuple(unique)
