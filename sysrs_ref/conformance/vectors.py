"""The test vectors: one JSON file per family under ``data/vectors/``, and their schema.

``python -m sysrs_ref vectors --out DIR`` writes them (:func:`write_vectors`);
the same bytes every time for a given package version, so the committed
files are checked against a fresh generation. Each file holds the family's
description (the semantics an implementer needs), the rule behind each tag
its cases carry (:data:`TAGS`), the kinds of refusal, and its cases, each
with an ``id``, its ``tags``, an optional ``note`` (why the case exists), an
``input`` and either the ``expected`` output computed by the reference or
the kind of refusal the input must meet (``refused``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from sysrs_ref._atomic import atomic_write, make_folder
from sysrs_ref._files import read_json
from sysrs_ref._version import __version__
from sysrs_ref.conformance._tagging import TAGS, case_tags
from sysrs_ref.conformance.cases import FAMILIES, cases
from sysrs_ref.conformance.schema import REFUSAL_KINDS, SCHEMA
from sysrs_ref.conformance.solve import refusal_kind, solve
from sysrs_ref.conformance.values import JsonValue
from sysrs_ref.errors import InstanceError, SysrsError

__all__ = [
    "DESCRIPTIONS",
    "FORMAT",
    "TAGS",
    "VERSION",
    "default_vectors_dir",
    "family_cases",
    "family_document",
    "load_tag_rules",
    "load_vectors",
    "write_vectors",
]

FORMAT = "sysrs-ref-vectors"
VERSION = 2

#: The versions of the vectors format this package reads (1: no ``tags`` object); any other is refused.
_READ_VERSIONS = (1, 2)

#: The largest vectors file read (the committed ones are below 1 MB).
_VECTORS_FILE_BYTES = 256 * 2**20

DESCRIPTIONS = {
    "algorithms": (
        "One run of an algorithm: outcome = algorithm(scores, budget, draw, params). The draw holds all the "
        "randomness: query_orders is one permutation of the queries shared by every model (syus, sysrs, syucbe, "
        "sysar) or one per model (us, sr, ucbe, sar); a model is always evaluated on the next queries of its order. "
        "arm_priority is a permutation of the models, highest priority first, used only to break ties: among "
        "tied models the one earlier in the priority is chosen as best, kept when the worst is eliminated, and "
        "ranked higher. Means are compared exactly (rationals), UCB indices mean + sqrt(a/N) exactly too. "
        "Expected: chosen, ranking (best first: the reverse elimination order for sr and sysrs; for sar and sysar "
        "the accepted models in acceptance order, then the last model left, then the rejected ones, last "
        "rejected first; decreasing final estimate for ucbe-lrf; decreasing empirical mean for the others), "
        "spent (never above the budget), and batches: every batch of "
        "requests in order, a request being [model, query]. us/syus: one batch, every model on the first "
        "floor(n/K) queries of its order. sr/sysrs: one batch per phase with new queries (a phase with "
        "n_k = n_{k-1} requests nothing but still eliminates), in each batch the active models by index, each "
        "on positions n_{k-1} .. n_k - 1 of its order; the schedule is the family 'schedules'. sar/sysar "
        "(params m): the same phases and batches; after each phase, with m' = m minus the models accepted so far, "
        "the empirical best is accepted if its lead over the (m'+1)-th is larger than the m'-th's lead over the "
        "empirical worst, else the worst is rejected (equal gaps reject; m' = 0 rejects, m' equal to the number "
        "of active models accepts). ucbe/syucbe: "
        "a first batch with every model on the first query of its order, then one request per step for the "
        "model with the largest index among those with queries left. ucbe-lrf (UCB-E-LRF) takes a different "
        "draw: cell_order (a permutation of the K L cells, cell = model * L + query; the warm-up is its first "
        "floor(warmup% K L) cells, and it breaks ties between queries), arm_priority, and seed, which seeds the "
        "SplitMix64 stream of dropout gaps and initial factors laid out in docs/contracts.md (UCB-E-LRF). Its "
        "batches: the warm-up, then per step the chosen model's unobserved queries with the largest ensemble "
        "spread. A parameter outside its domain is a params refusal, a cell_order that is no permutation of the K L "
        "cells or a seed outside [0, 2^64) a draw refusal (docs/contracts.md section 11.1). Its fits are floating point (IEEE double, the documented order of ALS updates); the reference "
        "and the numpy path, which sum in different orders, agree on every case."
    ),
    "schedules": (
        "The Successive Rejects schedule n_1 .. n_{K-1} for K models, L queries and budget n: the paper's "
        "n_k = ceil((n - K) / (logbar(K) (K + 1 - k))) with logbar(K) = 1/2 + sum_{i=2}^{K} 1/i (paper_n_k). "
        "When the paper's n_{K-1} > L, or n = K L, it is capped: n_k(U) = min(L, ceil(U / (K + 1 - k))) at the "
        "largest integer level U >= ceil((n - K) / logbar(K)) whose spend sum_{k<K-1} n_k + 2 n_{K-1} is at "
        "most n (n_k; at n = K L every n_k is L). spend is that sum; capped says whether n_k differs from "
        "paper_n_k. docs/contracts.md states the rule with a worked example."
    ),
    "budgets": "A budget percentage p of K x L as an integer budget: n = floor(p K L / 100), with p read as an "
    "exact decimal (never a float).",
    "hardness": (
        "Hardness measures of a score matrix (Section 'Guarantees for SySRs' and Appendix 'Dataset Details'): "
        "best_mean mu*, the mean of all scores, the sorted gaps Delta_1 = Delta_2 <= ... <= Delta_K, H1, H2, "
        "H3 (eq. H3, the order of tied models chosen to make it smallest) and H3' (H3 with the covariance "
        "term dropped); per suboptimal model: Delta_i, V_i, Cov_{*,i}, V_{*,i}, theta_i and theta*(mu*, "
        "Delta_i) (Proposition thm:theta-star), H_{2,i}, H_{3,i}. Variances are population variances over "
        "the queries. Infinite or undefined values are null (a tied best model makes every H infinite). arms "
        "lists the suboptimal models by decreasing mean, equal means by increasing row index; for H3 (and, "
        "independently, H3') tied models are placed in decreasing order of H_{3,i} (H'_{3,i}). Output keys: "
        "best_mean, mean, deltas, H1, H2, H3, H3_prime, arms; each arm: model (its row), delta, var, cov, v_star, "
        "theta, theta_star, H2_i, H3_i."
    ),
    "bounds": (
        "Bounds of the form prefactor * exp(-exponent), prefactor and exponent exact (docs/contracts.md section "
        "18.1). Inputs by bound: sysrs and sr take budget (n), scores, scores_exact: K(K-1)/2 exp(-(n - K) / "
        "(logbar(K) H)), H = H3 (Theorem csr_bound) or H2 (eq. guarantees-SR); ucbe takes budget, a and the "
        "scores: 2 n K exp(-2a/25) for 0 < a <= 25/36 (n - K)/H1 (eq. guarantees-UCBE); bernstein_wor takes n, "
        "population (N), epsilon, sigma2, M: exp(-n eps^2 / (2 sigma^2 + 2/3 M eps)) for 1 <= n <= N, eps > 0, "
        "M > 0, 0 <= sigma^2 <= M^2 (Lemma bernstein-bounded-wor); bernstein_paired takes n, population, delta, "
        "sigma2: the same with eps = Delta and range M = 1 + Delta, exp(-n Delta^2 / (2 sigma^2 + 2/3 (1 + Delta) "
        "Delta)), for 0 <= Delta <= 1 (Lemma bernstein-paired); lower takes n, delta, s: 1/4 exp(-11 n / "
        "H3(Delta, V)) with V = s - Delta^2 and H3(Delta, V) = (2V + 2/3 (1 + Delta) Delta) / Delta^2, the "
        "one-model H_{3,i}, for 0 < Delta < 1/2, Delta <= s <= 1/2, n >= 1 (Theorem lower-bound). Rational "
        'inputs are exact "p/q" texts, not decimals. prefactor and exponent are compared exactly; value, the '
        "double nearest prefactor * exp(-exponent), within a relative 1e-12, since few languages round exp "
        "correctly. A budget outside [K, K L] is refused with the kind budget; a bound asked outside the other "
        "conditions of its proof with the kind conditions."
    ),
    "exact": (
        "The exact law of the chosen model over every draw (uniform query orders and arm priority; docs/contracts.md "
        "section 18.2): error = 1 - P(chosen is a best model); law, keyed by the model index as a string, positive "
        "probabilities only (a key you add is not checked); for sar and sysar also top_m_law, keyed by ranking[:m] "
        "joined with commas in ranking order, and top_m_error = 1 - P(ranking[:m] is a correct top-m set). A case "
        "whose draws number more than 10^6 (K! (L!)^o, o = 1 for a synchronized algorithm, K otherwise) is refused "
        "with the kind too_large; every other case is answered."
    ),
}


_COMMON = (
    " Every case lists its tags (the rules it exercises, stated in this file's tags object) and may have a note "
    "saying why it exists. A case with refused instead of expected must be refused: answer "
    '{"id": ID, "refused": KIND}, the kinds being stated in this file\'s refusals object; an output fails it.'
)


def default_vectors_dir() -> Path:
    """The committed vectors of this checkout: ``data/vectors`` at the repository's top."""
    return Path(__file__).resolve().parents[2] / "data" / "vectors"


def family_cases(family: str) -> list[dict[str, JsonValue]]:
    """The cases of *family*, each with its tags and its expected output (or refusal) computed by the reference."""
    entries: list[dict[str, JsonValue]] = []
    for case in cases(family):
        try:
            expected: dict[str, JsonValue] | None = solve(family, case.input)
            refused = None
        except SysrsError as err:
            expected, refused = None, refusal_kind(err)
            if refused is None:
                raise
        if refused != case.refused:  # a case meant as a refusal must be one, of its kind, and no other
            raise AssertionError(f"case {case.id}: expected refusal {case.refused!r}, the reference gives {refused!r}")
        tags, note = case_tags(family, case.input, expected, case.tags)
        entry: dict[str, JsonValue] = {"id": case.id, "tags": list(tags)}
        notes = " ".join(text for text in (case.note, note) if text)
        if notes:
            entry["note"] = notes
        entry["input"] = case.input
        if expected is None:
            entry["refused"] = refused
        else:
            entry["expected"] = expected
        entries.append(entry)
    return entries


def family_document(family: str) -> dict[str, JsonValue]:
    """The whole vectors file of *family*."""
    entries = family_cases(family)
    used = {tag for entry in entries for tag in _strings(entry.get("tags"))}
    return {
        "format": FORMAT,
        "version": VERSION,
        "generator": f"sysrs-ref {__version__}",
        "family": family,
        "description": DESCRIPTIONS[family] + _COMMON,
        "tags": {tag: rule for tag, rule in TAGS.items() if tag in used},
        "refusals": dict(REFUSAL_KINDS),
        "cases": list(entries),
    }


def _strings(value: JsonValue) -> list[str]:
    return [x for x in value if isinstance(x, str)] if isinstance(value, list) else []


def _text(document: Mapping[str, JsonValue]) -> str:
    """JSON for people: objects one key per line, a list of plain values (or of such lists) on one line.

    >>> print(_text({"a": [1, 2], "b": {"c": [[0, 1], [2, 3]]}}), end="")
    {
     "a": [1, 2],
     "b": {
      "c": [[0, 1], [2, 3]]
     }
    }
    """
    return _dump(document, 0) + "\n"


def _flat(value: JsonValue) -> bool:
    if isinstance(value, list):
        return all(not isinstance(x, (list, dict)) or (isinstance(x, list) and _flat(x)) for x in value)
    return not isinstance(value, dict)


def _dump(value: JsonValue, depth: int) -> str:
    if _flat(value):
        return json.dumps(value, ensure_ascii=True, separators=(", ", ": "))
    pad, inner = " " * depth, " " * (depth + 1)
    if isinstance(value, Mapping):
        items = [f"{inner}{json.dumps(key)}: {_dump(item, depth + 1)}" for key, item in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}" if items else "{}"
    assert isinstance(value, list)
    return "[\n" + ",\n".join(f"{inner}{_dump(item, depth + 1)}" for item in value) + f"\n{pad}]" if value else "[]"


def write_vectors(out: str | Path, families: Sequence[str] = FAMILIES) -> list[Path]:
    """Write ``<family>.json`` for each family and ``schema.json`` into *out*, atomically; return the paths.

    A file that cannot be written (a full disk, a read-only folder, *out*
    under a regular file) is an OutputError naming it and the reason; the
    files written before it are complete, and no temporary file is left.
    """
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise InstanceError(f"--out '{folder}' exists and is not a folder")
    make_folder(folder)
    paths = []
    for family in families:
        path = folder / f"{family}.json"
        atomic_write(path, _text(family_document(family)))
        paths.append(path)
    atomic_write(folder / "schema.json", _text(SCHEMA))
    return [*paths, folder / "schema.json"]


def _document(folder: str | Path, family: str) -> tuple[Path, dict[str, JsonValue]]:
    """The path and parsed contents of *family*'s vectors file in *folder* (InstanceError if it is not one)."""
    path = Path(folder) / f"{family}.json"
    try:
        document = read_json(path, _VECTORS_FILE_BYTES)
    except (OSError, ValueError) as err:  # missing, not a regular file, too large; not UTF-8 JSON, nested too deep
        raise InstanceError(
            f"cannot read the vectors file '{path}' ({getattr(err, 'strerror', None) or err}); "
            "regenerate with python -m sysrs_ref vectors --out DIR"
        ) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT or document.get("family") != family:
        raise InstanceError(f"'{path}' is not a sysrs-ref vectors file of the family {family!r}")
    version = document.get("version")
    if type(version) is not int or version not in _READ_VERSIONS:  # type: a JSON true is not the version 1
        raise InstanceError(
            f"'{path}' is a vectors file of version {json.dumps(version)}; this sysrs-ref reads versions "
            f"{' and '.join(map(str, _READ_VERSIONS))}: regenerate the vectors with the sysrs-ref that matches them"
        )
    return path, document


def load_vectors(folder: str | Path, families: Sequence[str] = FAMILIES) -> dict[str, list[dict[str, JsonValue]]]:
    """The cases of each family from the files in *folder* (InstanceError if one is missing or not a vectors file)."""
    out: dict[str, list[dict[str, JsonValue]]] = {}
    for family in families:
        path, document = _document(folder, family)
        cases_list = document.get("cases")
        if not isinstance(cases_list, list):
            raise InstanceError(f"'{path}' has no list of cases")
        out[family] = [case for case in cases_list if isinstance(case, dict)]
    return out


def load_tag_rules(folder: str | Path, families: Sequence[str] = FAMILIES) -> dict[str, str]:
    """The rule behind each tag: the union of the top-level ``tags`` objects of the families' files in *folder*.

    A file without a ``tags`` object (format version 1) contributes :data:`TAGS`,
    this package's rules; when two files state a tag, the first family's
    sentence is kept. InstanceError if a file is missing, is not a vectors
    file, or its ``tags`` is not an object of strings.
    """
    rules: dict[str, str] = {}
    for family in families:
        path, document = _document(folder, family)
        stated = document.get("tags", TAGS)
        if not isinstance(stated, dict) or not all(isinstance(rule, str) for rule in stated.values()):
            raise InstanceError(f"'{path}': \"tags\" must be an object of rules, one sentence (a string) per tag")
        for tag, rule in stated.items():
            rules.setdefault(str(tag), str(rule))
    return rules
