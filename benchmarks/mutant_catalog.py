"""The mutation check's catalogue: realistic one-line bugs, each with the area whose tests must catch it.

A :class:`Mutant` is a (file, old text, new text) record; its *area* is read
off the file's place in the package (:data:`AREAS`), and the mutant counts
as killed only when the tests of that area's folder fail: a contributor who
changes the loaders and runs ``tests/io`` alone must meet every loader bug
listed here. ``equivalent`` gives the reason a mutant cannot change any
outcome, when it cannot; the runner (:mod:`benchmarks.mutants`) then expects
it to be missed and does not count it against the score.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["AREAS", "MUTANTS", "Area", "Mutant", "area_of"]


class Area(NamedTuple):
    """A part of the package: the files it holds (path prefixes) and the tests that guard it."""

    name: str
    sources: tuple[str, ...]
    tests: tuple[str, ...]


#: Every part of the package, most specific prefix first; ``core`` holds the modules at the package's top.
AREAS: tuple[Area, ...] = (
    Area("fast", ("sysrs_ref/fast/",), ("tests/fast",)),
    Area("io", ("sysrs_ref/loaders/", "sysrs_ref/datasets/"), ("tests/io",)),
    Area("live", ("sysrs_ref/live/",), ("tests/live",)),
    Area("experiments", ("sysrs_ref/experiments/",), ("tests/experiments",)),
    Area("conformance", ("sysrs_ref/conformance/",), ("tests/conformance",)),
    Area("simulation", ("sysrs_ref/simulation/",), ("tests/simulation",)),
    Area("subset", ("sysrs_ref/subset/",), ("tests/subset",)),
    Area("cli", ("sysrs_ref/cli/",), ("tests/cli",)),
    Area("reference", ("sysrs_ref/algorithms/", "sysrs_ref/theory/"), ("tests/reference",)),
    Area("core", ("sysrs_ref/",), ("tests/core",)),
    Area(
        "proofs",
        ("proofs_check/",),
        (
            "tests/project/test_proofs_check_code.py",
            "tests/project/test_proofs_check_mutations.py",
            "tests/project/test_proofs_check.py",
            "tests/project/test_proofs_check_decisions.py",
            "tests/project/test_proofs_check_formulas.py",
        ),
    ),
)


def area_of(path: str) -> Area:
    """The area that holds *path* (a path relative to the repository's root)."""
    for area in AREAS:
        if path.startswith(area.sources):
            return area
    raise ValueError(f"{path} is in no area of benchmarks.mutant_catalog.AREAS")


class Mutant(NamedTuple):
    """One bug: in *file*, *old* (which occurs there exactly once) becomes *new*."""

    name: str
    file: str
    old: str
    new: str
    equivalent: str = ""
    """Why the mutant cannot change any outcome, when it cannot (it is then expected to be missed)."""

    @property
    def area(self) -> Area:
        """The area whose tests must kill this mutant."""
        return area_of(self.file)


MUTANTS: tuple[Mutant, ...] = (
    # -- found by review: the suite used to miss each of these
    Mutant(
        "paired-bound-n-check",
        "sysrs_ref/theory/bounds.py",
        '    if not 1 <= n <= population:\n        raise BoundConditionError(f"the lemma needs 1 <= n <= N, got n = {n}, '
        'N = {population}")\n    if sigma2 < 0:',
        "    if sigma2 < 0:",
    ),
    Mutant(
        "wor-bound-variance-check",
        "sysrs_ref/theory/bounds.py",
        "if bound_m <= 0 or not 0 <= sigma2 <= bound_m**2:",
        "if bound_m <= 0 or not 0 <= sigma2:",
    ),
    Mutant("live-stray-scores", "sysrs_ref/live/session.py", "        if stray:\n", "        if stray[:0]:\n"),
    Mutant("live-score-above-one", "sysrs_ref/live/session.py", "if not 0 <= score <= 1:", "if not 0 <= score:"),
    Mutant(
        "live-open-logs-batches",
        "sysrs_ref/live/session.py",
        "            session._log_new_batches()  # a crash may have come",
        "            pass  # a crash may have come",
    ),
    Mutant(
        "compiled-cut-lower-gap",
        "sysrs_ref/fast/_csrc/cut.inc",
        "nearest[2 * cut] > value + gap && nearest[2 * cut + 1] < value - gap",
        "nearest[2 * cut] > value + gap",
    ),
    Mutant(
        "sysar-reject-tie-first",
        "sysrs_ref/theory/exact_stochastic.py",
        "(split_first if accept else split_last)",
        "(split_first if accept else split_first)",
    ),
    Mutant(
        "inspect-first-scored-epoch",
        "sysrs_ref/loaders/_inspect_epochs.py",
        "first = sample.epochs.get(1)",
        "first = epochs[0]",
    ),  # not equivalent: the reader hands reduced_cells epoch 1 alone, but reduced_cells takes any sample and must
    # keep its epoch 1 (a sample scored in epochs 2 and 3 only has none): tests/io/test_loaders_ids_and_times.py
    Mutant(
        "cache-top-m-targets",
        "sysrs_ref/experiments/_cache.py",
        "if [item[0] for item in items] != list(targets):",
        "if len(items) != len(targets):",
    ),
    # -- written for this check
    Mutant(
        "cache-checksum-without-top-m",
        "sysrs_ref/experiments/_entry.py",
        'if name != "checksum"}',
        'if name not in ("checksum", "top_m")}',
    ),
    Mutant(
        "cache-checksum-ignored",
        "sysrs_ref/experiments/_entry.py",
        'if entry["checksum"] != entry_checksum(entry):',
        'if not entry["checksum"]:',
    ),
    Mutant(
        "cache-stale-dataset",
        "sysrs_ref/experiments/_entry.py",
        'STALE_FIELDS = frozenset({"format", "version", "sha256"})',
        'STALE_FIELDS = frozenset({"format", "version"})',
    ),  # not equivalent: an entry's path (Cache.path) and a checkpoint's folder name the dataset, not its sha256, so
    # the files of a matrix changed under its name are found; still not used (the key differs), but each is said to be
    # damaged ("is for another grid point (its key differs in sha256)") where the cache promises silence: killed by
    # tests/experiments/test_cache_entries.py (the out-of-date entry and checkpoint, the matrix changed under its name)
    Mutant(
        "cache-count-upper-bound",
        "sysrs_ref/experiments/_entry.py",
        "if value < least or (most is not None and value > most):",
        "if value < least:",
    ),
    Mutant(
        "schedule-no-cap",
        "sysrs_ref/schedule.py",
        "return tuple(min(n_queries, _ceil_div(level, n_models + 1 - k)) for k in range(1, n_models))",
        "return tuple(_ceil_div(level, n_models + 1 - k) for k in range(1, n_models))",
    ),
    Mutant(
        "schedule-spend-last-once",
        "sysrs_ref/schedule.py",
        "return sum(lengths) + lengths[-1]",
        "return sum(lengths)",
    ),
    Mutant(
        "schedule-full-budget-uncapped",
        "sysrs_ref/schedule.py",
        "if lengths[-1] > n_queries or budget == n_models * n_queries:",
        "if lengths[-1] > n_queries:",
    ),
    Mutant(
        "budget-above-full",
        "sysrs_ref/schedule.py",
        "    if budget > full:",
        "    if budget > full + 1:",
    ),
    Mutant(
        "npy-header-offset",
        "sysrs_ref/loaders/arrays.py",
        "if declared > available - stream.tell():",
        "if declared > available:",
    ),
    Mutant(
        "npy-object-dtype",
        "sysrs_ref/loaders/arrays.py",
        "    if dtype.hasobject:\n        raise InstanceError(_pickle_message(where))",
        "    if dtype.hasobject and False:\n        raise InstanceError(_pickle_message(where))",
        equivalent="read_array(allow_pickle=False) refuses the same arrays, and _read_array turns its ValueError "
        "into the same message; the header check only refuses earlier",
    ),
    Mutant(
        "npz-stored-bound",
        "sysrs_ref/loaders/arrays.py",
        "return min(info.file_size, compressed)",
        "return info.file_size",
    ),
    Mutant(
        "live-second-score",
        "sysrs_ref/live/session.py",
        "if self._scores.setdefault(pair, score) != score:",
        "if self._scores.setdefault(pair, score) is None:",
    ),
    Mutant(
        "h3-zero-gap",
        "sysrs_ref/theory/bounds.py",
        '    if delta <= 0:\n        raise BoundConditionError(f"H3(Delta, V) needs Delta > 0',
        '    if delta < 0:\n        raise BoundConditionError(f"H3(Delta, V) needs Delta > 0',
    ),
    Mutant(
        "lower-bound-half",
        "sysrs_ref/theory/bounds.py",
        "if not 0 < delta < Fraction(1, 2):",
        "if not 0 < delta <= Fraction(1, 2):",
    ),
    Mutant(
        "sidecar-size",
        "sysrs_ref/loaders/files.py",
        "    if size > MAX_SIDECAR_BYTES:",
        "    if size > 2 * MAX_SIDECAR_BYTES:",
    ),
    Mutant(
        "inspect-first-unscored-count",
        "sysrs_ref/loaders/_inspect_epochs.py",
        "                unscored_first += 1\n",
        "                pass\n",
    ),  # not equivalent either: reduced_cells notes a sample without epoch 1 (the same test), whoever calls it
    # -- the whole package, area by area: each must die in its own area's tests
    Mutant(
        "sr-tie-rule-flipped",
        "sysrs_ref/algorithms/successive_rejects.py",
        "heap = [(place[sums[model]], -rank[model], model) for model in models]",
        "heap = [(place[sums[model]], rank[model], model) for model in models]",
    ),
    Mutant(
        "sar-accept-at-equal-gaps",
        "sysrs_ref/algorithms/successive_accepts_rejects.py",
        "    return accept_gap > reject_gap",
        "    return accept_gap >= reject_gap",
    ),
    Mutant(
        "sar-order-tie-flipped",
        "sysrs_ref/algorithms/successive_accepts_rejects.py",
        "ordered = sorted(active, key=lambda model: (-sums[model], draw.rank[model]))",
        "ordered = sorted(active, key=lambda model: (-sums[model], -draw.rank[model]))",
    ),
    Mutant(
        "sar-reject-gap-first-place",
        "sysrs_ref/algorithms/successive_accepts_rejects.py",
        "reject_gap = ordered_sums[to_accept - 1] - ordered_sums[-1]",
        "reject_gap = ordered_sums[to_accept] - ordered_sums[-1]",
    ),
    Mutant(
        "us-allocation-ceil",
        "sysrs_ref/algorithms/uniform.py",
        "per_model = budget_n(budget, n_models, draw.n_queries) // n_models",
        "per_model = -(-budget_n(budget, n_models, draw.n_queries) // n_models)",
    ),
    Mutant(
        "ucb-tie-rule-flipped",
        "sysrs_ref/algorithms/ucb_index.py",
        "        return self.rank < other.rank",
        "        return self.rank > other.rank",
    ),
    Mutant(
        "ucb-filter-no-tolerance",
        "sysrs_ref/algorithms/ucb_index.py",
        "        if gap > self.tolerance:\n            return True",
        "        if gap > 0:\n            return True",
    ),
    Mutant(
        "ucb-equal-counts-compare-flipped",
        "sysrs_ref/algorithms/ucb_index.py",
        "        return (mean1 > mean2) - (mean1 < mean2)",
        "        return (mean1 >= mean2) - (mean1 < mean2)",
    ),
    Mutant(
        "ucb-warm-up-skipped-count",
        "sysrs_ref/algorithms/ucb.py",
        "    for _ in range(n - n_models):",
        "    for _ in range(n - n_models - 1):",
    ),
    Mutant(
        "rank-by-mean-tie",
        "sysrs_ref/algorithms/base.py",
        "return tuple(sorted(models, key=lambda i: (-sums[i] / counts[i], rank[i])))",
        "return tuple(sorted(models, key=lambda i: (-sums[i] / counts[i], -rank[i])))",
    ),
    Mutant(
        "h3-bonus-constant",
        "sysrs_ref/theory/hardness.py",
        "        bonus = Fraction(2, 3) * (1 + delta) * delta",
        "        bonus = Fraction(1, 3) * (1 + delta) * delta",
    ),
    Mutant(
        "h3-prime-covariance",
        "sysrs_ref/theory/hardness.py",
        "h3_prime=(2 * var_best + 2 * var + bonus) / delta**2 if delta else None,",
        "h3_prime=(2 * v_star + bonus) / delta**2 if delta else None,",
    ),
    Mutant(
        "theta-condition-factor",
        "sysrs_ref/theory/hardness.py",
        "condition_correlation=theta is not None and theta > 2 * delta,",
        "condition_correlation=theta is not None and theta > delta,",
    ),
    Mutant(
        "lower-bound-constant",
        "sysrs_ref/theory/bounds.py",
        "11 * n / h3_two_arm(delta, s - delta**2))",
        "10 * n / h3_two_arm(delta, s - delta**2))",
    ),
    Mutant(
        "ucbe-bound-constant",
        "sysrs_ref/theory/bounds.py",
        "2 * exploration / 25)",
        "exploration / 25)",
    ),
    Mutant(
        "ucbe-max-a-constant",
        "sysrs_ref/theory/bounds.py",
        "return Fraction(25, 36) * (budget - instance.n_models) / h1",
        "return Fraction(25, 36) * budget / h1",
    ),
    Mutant(
        "h3-two-arm-bonus",
        "sysrs_ref/theory/bounds.py",
        "return (2 * variance + Fraction(2, 3) * (1 + delta) * delta) / delta**2",
        "return (2 * variance + Fraction(2, 3) * delta) / delta**2",
    ),
    Mutant(
        "threshold-corollary-gap",
        "sysrs_ref/theory/threshold.py",
        "    return Fraction(3, 2) * mu_star - 1",
        "    return Fraction(3, 2) * mu_star - Fraction(1, 2)",
    ),
    Mutant(
        "fixed-order-solve-signed-pivot",
        "sysrs_ref/_fixed_order.py",
        "pivot = col + np.argmax(np.abs(matrix[..., col:, col]), axis=-1)",
        "pivot = col + np.argmax(matrix[..., col:, col], axis=-1)",
    ),
    Mutant(
        "fixed-order-qr-zero-sign",
        "sysrs_ref/_fixed_order.py",
        "alpha = -norm if column[0] >= 0.0 else norm",
        "alpha = -norm if column[0] > 0.0 else norm",
    ),
    Mutant(
        "topm-ranking-error-any",
        "sysrs_ref/topm.py",
        "return TopMErrors(identification, int(wrong > 0), Fraction(wrong, m))",
        "return TopMErrors(identification, int(wrong > 1), Fraction(wrong, m))",
    ),
    Mutant(
        "scores-above-one",
        "sysrs_ref/scores.py",
        "    if exact < _ZERO or exact > _ONE:",
        "    if exact < _ZERO:",
    ),
    Mutant(
        "instance-nan-check",
        "sysrs_ref/instance.py",
        "bad = ~((as_float >= 0) & (as_float <= 1))",
        "bad = (as_float < 0) | (as_float > 1)",
    ),
    Mutant(
        "draws-one-query",
        "sysrs_ref/draws.py",
        "        if n_queries < 1:",
        "        if n_queries < 0:",
    ),
    Mutant(
        "fast-sr-ignores-tolerance",
        "sysrs_ref/fast/_elimination.py",
        "near = sums <= (smallest + tolerance(n_k, sums.max(axis=1)))[:, None]",
        "near = sums <= smallest[:, None]",
    ),
    Mutant(
        "fast-certify-tolerance-small",
        "sysrs_ref/fast/certify.py",
        "bound: FloatArray = (n_terms + 1) * 2.0**-50 * largest",
        "bound: FloatArray = (n_terms + 1) * 2.0**-60 * largest",
    ),
    Mutant(
        "compiled-sr-exact-tie-earliest",
        "sysrs_ref/fast/_csrc/phases.c",
        "(total == best && run_rank[model] > latest)",
        "(total == best && run_rank[model] < latest)",
    ),
    Mutant(
        "compiled-sr-named-unchecked",
        "sysrs_ref/fast/_csrc/phases.c",
        "if (named >= 0 && row[named] == smallest && mask[named] == SMALLEST)",
        "if (named >= 0 && mask[named] == SMALLEST)",
    ),
    Mutant(
        "compiled-select-skip-from-block-start",
        "sysrs_ref/fast/_csrc/select.c",
        "row[position + CHUNK - 1] == row[position - 1]",
        "row[position + CHUNK - 1] == row[position]",
    ),
    Mutant(
        "compiled-select-band-always-taken",
        "sysrs_ref/fast/_csrc/select.c",
        "int64_t next = block + (block < count && row[first[block]] == value);",
        "int64_t next = block + (block < count);",
    ),
    Mutant(
        "compiled-cut-exact-sum-one-short",
        "sysrs_ref/fast/_csrc/cut.inc",
        "                                          first + 1) == reference_sum;",
        "                                          first) == reference_sum;",
    ),
    Mutant(
        "compiled-top-second-forgotten",
        "sysrs_ref/fast/_csrc/cut.inc",
        "                        second[budget] = best_mean[budget]; /* no larger than any seen before it */\n",
        "",
    ),
    Mutant(
        "compiled-prefix-keys-without-offsets",
        "sysrs_ref/fast/_csrc/phases.inc",
        "return offsets ? (OT)(scaled + (AT)offsets[at]) : (OT)scaled;",
        "return offsets ? (OT)scaled : (OT)scaled;",
    ),
    Mutant(
        "fast-chunk-ranks-from-the-start",
        "sysrs_ref/fast/_batch.py",
        "self.arm_priority[start:stop], self.rank[start:stop])",
        "self.arm_priority[start:stop], self.rank[: stop - start])",
    ),
    Mutant(
        "fast-ucb-top-margin-ignored",
        "sysrs_ref/fast/_ucb.py",
        "near = leaders[:, :, 0] - leaders[:, :, 1] <= runs.bounds.mean_tol",
        "near = leaders[:, :, 0] == leaders[:, :, 1]",
    ),
    Mutant(
        "fast-sar-margin-ignored",
        "sysrs_ref/fast/_accept_reject.py",
        "sure = forced | (left == 1) | (np.abs(difference) > margin)",
        "sure = forced | (left == 1) | (np.abs(difference) > 0)",
    ),
    Mutant(
        "fast-sar-top-margin",
        "sysrs_ref/fast/_accept_reject.py",
        "top = sums >= (ordered[:, 0] - margin)[:, None]",
        "top = sums >= ordered[:, 0][:, None]",
    ),
    Mutant(
        "fast-us-close-margin",
        "sysrs_ref/fast/_uniform.py",
        "close = (ordered[:, :-1] - ordered[:, 1:] <= margin) & (ordered[:, :-1] > 0.0)",
        "close = (ordered[:, :-1] - ordered[:, 1:] <= 0.0) & (ordered[:, :-1] > 0.0)",
    ),
    Mutant(
        "fast-us-tie-rank",
        "sysrs_ref/fast/_uniform.py",
        "order = np.lexsort((rank, -sums), axis=1).astype(np.int32)",
        "order = np.lexsort((-rank, -sums), axis=1).astype(np.int32)",
    ),
    Mutant(
        "conform-float-tolerance-loose",
        "sysrs_ref/conformance/compare.py",
        "FLOAT_TOLERANCE = 1e-12",
        "FLOAT_TOLERANCE = 1e-6",
    ),
    Mutant(
        "table-drop-queries-keeps-partial",
        "sysrs_ref/loaders/table.py",
        'keep_queries = [j for j, count in enumerate(per_query) if policy != "drop-queries" or count == len(model_names)]',
        'keep_queries = [j for j, count in enumerate(per_query) if policy != "drop-queries" or count > 0]',
    ),
    Mutant(
        "helm-first-trial-last",
        "sysrs_ref/loaders/_helm_read.py",
        'trials = sorted(by_trial)[:1] if mode == "first" else sorted(by_trial)',
        'trials = sorted(by_trial)[-1:] if mode == "first" else sorted(by_trial)',
    ),
    Mutant(
        "lighteval-empty-id-accepted",
        "sysrs_ref/loaders/lighteval.py",
        'if not isinstance(sample_id, (str, int)) or isinstance(sample_id, bool) or sample_id == "":',
        "if not isinstance(sample_id, (str, int)) or isinstance(sample_id, bool):",
    ),
    Mutant(
        "metrics-wilson-all-correct",
        "sysrs_ref/experiments/_metrics.py",
        "    high = 1.0 if correct == runs else (centre + spread) / scale",
        "    high = (centre + spread) / scale",
    ),
    Mutant(
        "checkpoint-top-m-order",
        "sysrs_ref/experiments/_checkpoint.py",
        "if [item[0] for item in items] != list(self.top_m):",
        "if sorted(item[0] for item in items) != sorted(self.top_m):",
    ),
    Mutant(
        "kmeans-empty-cluster",
        "sysrs_ref/subset/clustering.py",
        "movable = np.where(counts[labels] > 1, own, -1.0)",
        "movable = np.where(counts[labels] > 0, own, -1.0)",
    ),
    Mutant(
        "irt-sign-convention",
        "sysrs_ref/subset/irt.py",
        "if d == 1 and alpha.mean() < 0.0:",
        "if d == 1 and alpha.mean() > 0.0:",
    ),
    Mutant(
        "live-retry-backoff-last",
        "sysrs_ref/live/driver.py",
        "final = isinstance(error, CannotEvaluate) or attempt > retries",
        "final = isinstance(error, CannotEvaluate) or attempt > retries + 1",
    ),
    Mutant(
        "live-scores-length",
        "sysrs_ref/live/driver.py",
        "or not isinstance(scores, Sequence) or len(scores) != len(queries):",
        "or not isinstance(scores, Sequence) or len(scores) < len(queries):",
    ),
    Mutant(
        "cli-npy-suffix",
        "sysrs_ref/cli/_common.py",
        'if suffix == ".npz" or (suffix == ".npy" and path.is_file()):',
        'if suffix == ".npz" or suffix == ".npy":',
    ),
    # -- the bounded readers (sysrs_ref/_files.py), the size and work limits, JSON types in the cache
    Mutant(
        "cache-count-true-is-one",
        "sysrs_ref/experiments/_entry.py",
        "    if type(value) is not int:\n",
        "    if not isinstance(value, int):\n",
    ),
    Mutant(
        "checkpoint-count-true-is-one",
        "sysrs_ref/experiments/_checkpoint.py",
        "not all(type(item) is int for item in items)",
        "not all(isinstance(item, int) for item in items)",
    ),
    Mutant(
        "top-m-target-true-is-one",
        "sysrs_ref/experiments/_entry.py",
        "len(item) == 4 and type(item[0]) is int",
        "len(item) == 4",
    ),
    Mutant(
        "reader-any-file-kind",
        "sysrs_ref/_files.py",
        "        if not stat.S_ISREG(info.st_mode):",
        "        if stat.S_ISDIR(info.st_mode):",
    ),
    Mutant("reader-blocks-on-fifo", "sysrs_ref/_files.py", "os.O_RDONLY | os.O_NONBLOCK |", "os.O_RDONLY |"),
    Mutant(
        "reader-size-from-stat-only",
        "sysrs_ref/_files.py",
        "    if len(data) > limit:  # the file grew after fstat",
        "    if len(data) > limit + 1:  # the file grew after fstat",
    ),
    Mutant(
        "reader-stat-size-ignored",
        "sysrs_ref/_files.py",
        "        if limit is not None and info.st_size > limit:",
        "        if limit is not None and info.st_size > limit + 1:",
    ),
    Mutant(
        "json-depth-one-more",
        "sysrs_ref/_files.py",
        "    if depth > MAX_JSON_DEPTH:",
        "    if depth > MAX_JSON_DEPTH + 1:",
    ),
    Mutant(
        "json-depth-counts-strings",
        "sysrs_ref/_files.py",
        "    outside = (np.cumsum(quotes, dtype=np.int64) & 1) == 0",
        "    outside = np.ones_like(quotes)",
    ),
    Mutant("json-depth-escaped-quote", "sysrs_ref/_files.py", '.replace(b\'\\\\"\', b"")', ""),
    Mutant(
        "json-depth-shortcut-too-wide",
        "sysrs_ref/_files.py",
        "depth = json_depth(text) if opened > MAX_JSON_DEPTH else 0",
        "depth = json_depth(text) if opened > 2 * MAX_JSON_DEPTH else 0",
    ),
    Mutant(
        "vectors-version-true",
        "sysrs_ref/conformance/vectors.py",
        "    if type(version) is not int or version not in _READ_VERSIONS:",
        "    if version not in _READ_VERSIONS:",
    ),
    Mutant(
        "limits-memory-doubled", "sysrs_ref/_limits.py", "    if need.memory > room:", "    if need.memory > 2 * room:"
    ),
    Mutant(
        "limits-time-doubled",
        "sysrs_ref/_limits.py",
        "    if need.seconds > limit:",
        "    if need.seconds > 2 * limit:",
    ),
    Mutant(
        "limits-fast-path-either",
        "sysrs_ref/_limits.py",
        "if need.memory <= _ALWAYS_BYTES and need.seconds <= _ALWAYS_SECONDS:",
        "if need.memory <= _ALWAYS_BYTES or need.seconds <= _ALWAYS_SECONDS:",
    ),
    Mutant(
        "limits-zero-is-zero",
        "sysrs_ref/_limits.py",
        '    return float("inf") if value == 0 else value',
        "    return value",
    ),
    Mutant(
        "limits-workers-doubled",
        "sysrs_ref/_limits.py",
        "    if count > MAX_WORKERS:",
        "    if count > 2 * MAX_WORKERS:",
    ),
    Mutant(
        "simulate-elimination-unchecked",
        "sysrs_ref/simulation/_engine.py",
        "        check_need(runs_need(",
        "        (runs_need(",
    ),
    Mutant(
        "subset-anchor-linear",
        "sysrs_ref/subset/anchor.py",
        "memory=3 * 8 * n_queries * n_queries,",
        "memory=3 * 8 * n_queries,",
    ),
    # -- the live run's progress, failures and Ctrl-C
    Mutant(
        "live-cannot-evaluate-retried",
        "sysrs_ref/live/driver.py",
        "final = isinstance(error, CannotEvaluate) or attempt > retries",
        "final = attempt > retries",
    ),
    Mutant(
        "live-progress-left-whole-budget",
        "sysrs_ref/live/driver.py",
        "left=None if rate is None else max(status.budget - status.spent, 0) / rate,",
        "left=None if rate is None else status.budget / rate,",
    ),
    Mutant(
        "live-progress-running-not-entered",
        "sysrs_ref/live/driver.py",
        "for call in running.values() if call.entered is not None),",
        "for call in running.values()),",
    ),
    Mutant(
        "live-progress-mean-over-failed-calls",
        "sysrs_ref/live/driver.py",
        "call_seconds=tally.call_seconds / tally.succeeded if tally.succeeded else None,",
        "call_seconds=tally.call_seconds / tally.calls if tally.succeeded else None,",
    ),
    Mutant(
        "live-interrupt-kept-unsaid",
        "sysrs_ref/live/driver.py",
        "                        kept.append(call)\n",
        "                        pass\n",
    ),
    Mutant(
        "live-second-interrupt-lost-finished",
        "sysrs_ref/live/driver.py",
        "if call.entered is not None and not future.done()]",
        "if call.entered is not None]",
    ),
    Mutant(
        "live-stopped-finished-session",
        "sysrs_ref/live/driver.py",
        'then = "the session is finished: run again for its result" if status.done else "run again to resume"',
        'then = "the session is finished: run again for its result" if not status.done else "run again to resume"',
    ),
    # -- the loaders' new refusals and warnings
    Mutant(
        "scale-share-word-ignored",
        "sysrs_ref/loaders/table.py",
        "if scale is not None and not _SHARE_WORDS.intersection(words):",
        "if scale is not None:",
    ),
    Mutant(
        "scale-all-zero-any",
        "sysrs_ref/loaders/table.py",
        "if all(value == 0 for exact, _, _ in cells for value in exact):",
        "if any(value == 0 for exact, _, _ in cells for value in exact):",
    ),
    Mutant(
        "lm-eval-renamed-results-any-count",
        "sysrs_ref/loaders/_lm_eval_results.py",
        "if said.documents is not None and said.documents[0] == documents:",
        "if said.documents is not None:",
    ),
    Mutant(
        "lm-eval-results-document-keys",
        "sysrs_ref/loaders/_lm_eval_results.py",
        '        and isinstance(document.get("results"), Mapping)\n        and any(key in document for key in '
        "_RESULTS_KEYS)\n",
        '        and isinstance(document.get("results"), Mapping)\n',
    ),
    Mutant(
        "lm-eval-lower-is-better-unlisted",
        "sysrs_ref/loaders/_lm_eval_runs.py",
        "if results is None or results.higher_is_better.get(metric) is not False:",
        "if results is None or results.higher_is_better.get(metric):",
    ),
    Mutant(
        "lm-eval-superseded-fewer-documents",
        "sysrs_ref/loaders/lm_eval.py",
        "        if scored > documents:",
        "        if scored >= documents:",
    ),
    Mutant(
        "inspect-second-model-less-log",
        "sysrs_ref/loaders/_inspect_reading.py",
        "        if model != NO_MODEL:\n            return\n",
        "        if model:\n            return\n",
    ),
    # -- proofs_check's decision rules and formula checks (judged by the proofs tests)
    Mutant(
        "rule-sar-reject-tie-first",
        "proofs_check/decision_rules.py",
        "return sigma[max(rejected)], False",
        "return sigma[min(rejected)], False",
    ),
    Mutant(
        "rule-sar-accept-tie-last",
        "proofs_check/decision_rules.py",
        "return sigma[min(largest)], True",
        "return sigma[max(largest)], True",
    ),
    Mutant(
        "rule-index-equal-negative-root",
        "proofs_check/decision_rules.py",
        "if root >= 0 and root * root == p and root + r >= 0:",
        "if root >= 0 and root * root == p:",
    ),
    Mutant(
        "rule-ucb-tie-later-priority",
        "proofs_check/decision_rules.py",
        "if difference == 0 and priority.index(other) < priority.index(chosen):",
        "if difference == 0 and priority.index(other) > priority.index(chosen):",
    ),
    Mutant(
        "rule-mean-tie-priority-reversed",
        "proofs_check/decision_rules.py",
        "    return priority.index(i) < priority.index(j)",
        "    return priority.index(i) > priority.index(j)",
    ),
    Mutant(
        "formula-trace-not-equal",
        "proofs_check/code_formulas.py",
        "        return not self == other",
        "        return self == other",
    ),
    Mutant(
        "decisions-chosen-unchecked",
        "proofs_check/code_decisions.py",
        "if tuple(outcome.ranking) != tuple(expected) or outcome.chosen != expected[0]:",
        "if tuple(outcome.ranking) != tuple(expected):",
    ),
    Mutant(
        "decisions-uniform-batches-unchecked",
        "proofs_check/code_decisions.py",
        "if len(outcome.trace) != 1 or asked != expected:",
        "if asked != expected:",
    ),
    Mutant(
        "exact-zero-probabilities-dropped",  # an engine listing an impossible outcome passes the check
        "proofs_check/code_exact.py",
        "    expected = {k: v for k, v in expected.items() if v}\n",
        "    engine = {k: v for k, v in engine.items() if v}\n    expected = {k: v for k, v in expected.items() if v}\n",
    ),
    # -- the processes the package starts (sysrs_ref/_children.py) and the command lines' streams (_streams.py)
    Mutant(
        "sigterm-raises-every-time",
        "sysrs_ref/_children.py",
        "        if not done:\n            done = True\n            raise raised()",
        "        if True:\n            done = True\n            raise raised()",
    ),
    Mutant(
        "sigterm-handler-left-installed",
        "sysrs_ref/_children.py",
        "        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)",
        "        pass",
    ),
    Mutant(
        "pool-worker-takes-ctrl-c",
        "sysrs_ref/_children.py",
        "    signal.signal(signal.SIGINT, signal.SIG_IGN)\n    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n",
        "    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n",
    ),
    Mutant(
        "pool-worker-keeps-signals-held",
        "sysrs_ref/_children.py",
        "        signal.pthread_sigmask(signal.SIG_UNBLOCK, _INTERRUPTIONS)\n",
        "        pass\n",
    ),
    Mutant(
        "pool-not-stopped-on-interrupt",
        "sysrs_ref/_children.py",
        "    except BaseException:\n        _stop(pool)\n        raise\n    pool.shutdown(wait=True)",
        "    except Exception:\n        _stop(pool)\n        raise\n    pool.shutdown(wait=True)",
    ),
    Mutant(
        "group-end-kills-the-command-only",
        "sysrs_ref/_children.py",
        "                os.killpg(leader.pid, signal.SIGKILL)\n",
        "                os.kill(self.process.pid, signal.SIGKILL)\n",
    ),
    Mutant(
        "stdout-broken-pipe-wrapped",
        "sysrs_ref/_streams.py",
        "            return self._stream.write(text)\n        except BrokenPipeError:\n            raise\n",
        "            return self._stream.write(text)\n",
    ),
    Mutant(
        "stdout-flush-failure-raw",
        "sysrs_ref/_streams.py",
        "            self._stream.flush()\n        except BrokenPipeError:\n            raise\n        except (OSError, ValueError) "
        "as error:",
        "            self._stream.flush()\n        except BrokenPipeError:\n            raise\n        except ValueError as error:",
    ),
    Mutant(
        "stderr-failure-raised",
        "sysrs_ref/_streams.py",
        "                self._stream.flush()\n            except (OSError, ValueError):\n                discard(self._stream)\n"
        "                self._stream = None\n        return len(text)",
        "                self._stream.flush()\n            except ValueError:\n                discard(self._stream)\n"
        "                self._stream = None\n        return len(text)",
    ),
    Mutant(
        "stderr-retried-after-failure",
        "sysrs_ref/_streams.py",
        "                discard(self._stream)\n                self._stream = None\n        return len(text)",
        "                discard(self._stream)\n        return len(text)",
    ),
    Mutant(
        "streams-stderr-not-restored",
        "sysrs_ref/_streams.py",
        "        sys.stdout, sys.stderr = stdout, stderr",
        "        sys.stdout = stdout",
    ),
    # -- the conform runner's handling of the adapter
    Mutant(
        "conform-timeout-keeps-the-adapter",
        "sysrs_ref/conformance/runner.py",
        '_RESTART = ("timeout", "crash", "malformed")',
        '_RESTART = ("crash", "malformed")',
    ),
    Mutant(
        "conform-silent-adapter-waits-every-case",
        "sysrs_ref/conformance/runner.py",
        'if not results and kind in ("timeout", "crash"):',
        'if not results and kind == "crash":',
    ),
    Mutant(
        "conform-two-reply-keys-accepted",
        "sysrs_ref/conformance/runner.py",
        "    if len(present) > 1:\n",
        "    if len(present) > 2:\n",
    ),
    Mutant(
        "conform-budget-requests-unchecked",
        "sysrs_ref/conformance/runner.py",
        "if spent <= budget and requests <= budget:",
        "if spent <= budget:",
    ),
    Mutant(
        "conform-unstartable-adapter-traceback",
        "sysrs_ref/conformance/runner.py",
        "        except OSError as err:\n            self.stderr.close()",
        "        except FileNotFoundError as err:\n            self.stderr.close()",
    ),
    Mutant(
        "conform-refusal-of-any-kind-passes",
        "sysrs_ref/conformance/runner.py",
        'if refused == case["refused"]:',
        "if refused is not None:",
    ),
    # -- more of proofs_check's decision rules
    Mutant(
        "rule-uniform-allocation-strict",
        "proofs_check/decision_rules.py",
        "return max(q for q in range(budget + 1) if n_models * q <= budget)",
        "return max(q for q in range(budget + 1) if n_models * q < budget)",
    ),
    Mutant(
        "rule-eliminated-best",
        "proofs_check/decision_rules.py",
        "if all(_before(j, e, means, priority) for j in active if j != e)]",
        "if all(_before(e, j, means, priority) for j in active if j != e)]",
    ),
    Mutant(
        "rule-ucb-unselectable-chosen",
        "proofs_check/decision_rules.py",
        "    if chosen not in selectable:\n",
        "    if chosen not in selectable and False:\n",
    ),
    # -- the named survivors of an earlier round, each at the edge its test pins
    Mutant(
        "helm-split-name-drops-splitless",
        "sysrs_ref/loaders/_helm_read.py",
        "return [name for name in present if name in (None, split)]",
        "return [name for name in present if name == split]",
    ),
    Mutant(
        "lighteval-repeated-doc-id-used",
        "sysrs_ref/loaders/lighteval.py",
        "    return len(set(ids)) == len(ids)",
        "    return len(ids) == len(sample_ids)",
    ),
    Mutant(
        "inspect-created-offset-dropped",
        "sysrs_ref/loaders/_inspect_files.py",
        "moment = moment.astimezone(UTC).replace(tzinfo=None)",
        "moment = moment.replace(tzinfo=None)",
    ),
    Mutant(
        "schedule-large-k-no-exact-fallback",
        "sysrs_ref/schedule.py",
        "    return first if first == last else _exact_level(n_models, spare)",
        "    return first",
    ),
    Mutant(
        "checkpoint-stale-warned",
        "sysrs_ref/experiments/_checkpoint.py",
        "                if rejected.reason is not None:\n                    self._warn(f\"warning: the checkpoint '{path}' "
        '{rejected.reason}; its runs are made again")',
        "                self._warn(f\"warning: the checkpoint '{path}' {rejected.reason}; its runs are made again\")",
    ),  # a checkpoint of another package version or matrix warned about as damaged ("... None; its runs ...")
    Mutant(
        "checkpoint-key-without-sha256",
        "sysrs_ref/experiments/_checkpoint.py",
        '            "sha256": dataset.sha256,\n',
        "",
    ),  # checkpoints live under the dataset's name: those of the matrix before a change would be counted
    Mutant(
        "cache-key-without-sha256",
        "sysrs_ref/experiments/_cache.py",
        '                "sha256": dataset.sha256,\n',
        "",
    ),
    # -- sizes: every size fast or refused up front
    Mutant(
        "instance-best-rebuilt-each-time",
        "sysrs_ref/instance.py",
        "        return self._best\n",
        "        return frozenset(self._tiers[0])\n",
    ),
    Mutant(
        "sr-size-counts-every-phase",
        "sysrs_ref/theory/exact_unsync.py",
        "        if cap is not None and size > cap:\n            return size\n    size *= max(",
        "    size *= max(",
    ),
    Mutant(
        "sar-size-counts-every-phase",
        "sysrs_ref/theory/exact_sar.py",
        "        if cap is not None and total * priorities > cap:\n            break\n",
        "",
    ),
    Mutant(
        "enumeration-size-unchecked",
        "sysrs_ref/theory/exact.py",
        "    return _check_limit(instance, name, budget, limit)\n",
        "    return _size(instance, name, budget, limit)\n",
    ),
    Mutant(
        "kmeans-need-without-k",
        "sysrs_ref/subset/clustering.py",
        "seconds=1e-9 * 2 * n_points * k * dim,",
        "seconds=1e-9 * 2 * n_points * dim,",
    ),
    Mutant(
        "kmeans-ties-resolved-at-once",
        "sysrs_ref/subset/_clustering_kernels.py",
        "pairs = max(1, CHUNK_ELEMENTS // max(dim, 1))",
        "pairs = 1 << 62",
    ),  # every tied (point, centre) pair gathered at once: 20,000 identical points and k = 1,000 asked 8.9 GiB
    Mutant(
        "kmedoids-need-alternate-rate",
        "sysrs_ref/subset/clustering.py",
        'rate = 1e-8 if method == "fasterpam" else 3e-9',
        "rate = 3e-9",
    ),
    Mutant(
        "us-integral-off-by-one",
        "sysrs_ref/theory/exact_unsync.py",
        "integral = sum(q * (common // (j + 1)) for j, q in enumerate(others))",
        "integral = sum(q * (common // (j + 2)) for j, q in enumerate(others))",
    ),
    Mutant(
        "exact-law-without-time-check",
        "sysrs_ref/theory/exact.py",
        "    check_need(enumeration_need(instance.n_models, instance.n_queries, name, budget, size))\n",
        "",
    ),
)
