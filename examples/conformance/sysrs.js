#!/usr/bin/env node
// An independent implementation of sysrs-ref behind its conformance protocol, written from
// docs/contracts.md, docs/conformance.md, the descriptions of data/vectors/*.json and the paper,
// never from the Python source: no dependencies, Node.js >= 18, exact BigInt rationals throughout.
//
//   python -m sysrs_ref conform --family algorithms --family schedules --family budgets \
//       --family hardness --exclude 'ucbe-lrf-*' -- node examples/conformance/sysrs.js
//
// It answers every case of these families:
//   algorithms  us, syus, sr, sysrs, ucbe, syucbe, sar, sysar   (ucbe-lrf: "unsupported")
//   schedules   the Successive Rejects schedule, capped or not
//   budgets     a percentage of K L as an integer budget
//   hardness    mu*, the gaps, H1, H2, H3, H3' and the per-arm quantities, as exact "p/q" texts
// and says "unsupported" to the bounds and exact families.
//
// Protocol (contracts section 15): one JSON case per line on stdin, {"family", "id", "input"}; one
// JSON answer per line on stdout: {"id", "output"}, {"id", "refused": KIND} for an input the rules
// refuse, {"id", "unsupported": why}, or {"id", "error": why} if something unexpected happens.
//
// SYSRS_JS_MUTANT=ties-by-index (every tie broken by row index instead of the arm priority) or
// =schedule-floor (floor instead of ceil in the paper's schedule) makes it subtly wrong on purpose:
// tests/conformance/test_conformance_js.py checks that the vectors catch both, in the right places.
"use strict";

const readline = require("readline");
const MUTANT = process.env.SYSRS_JS_MUTANT || "";

// ============================================================================================
// Exact rationals (contracts section 13: every comparison of means and indices is exact).
// ============================================================================================

function gcd(a, b) {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** A rational number num/den in lowest terms, den > 0 (BigInt). */
class Q {
  constructor(num, den = 1n) {
    if (den === 0n) throw new Error("division by zero");
    if (den < 0n) [num, den] = [-num, -den];
    const g = gcd(num, den);
    this.num = g > 1n ? num / g : num;
    this.den = g > 1n ? den / g : den;
  }

  static int(n) { return new Q(BigInt(n)); }
  add(o) { return new Q(this.num * o.den + o.num * this.den, this.den * o.den); }
  sub(o) { return new Q(this.num * o.den - o.num * this.den, this.den * o.den); }
  mul(o) { return new Q(this.num * o.num, this.den * o.den); }
  div(o) { return new Q(this.num * o.den, this.den * o.num); }
  sign() { return this.num > 0n ? 1 : this.num < 0n ? -1 : 0; }
  cmp(o) { return this.sub(o).sign(); }
  isZero() { return this.num === 0n; }
  /** "p/q" in lowest terms, or "p" for an integer: how exact values are answered. */
  toString() { return this.den === 1n ? `${this.num}` : `${this.num}/${this.den}`; }
}

const ZERO = Q.int(0), ONE = Q.int(1);

function sumQ(values) { return values.reduce((total, x) => total.add(x), ZERO); }
function maxQ(values) { return values.reduce((best, x) => (x.cmp(best) > 0 ? x : best)); }

/** The exact value of a double (a double is m 2^e; contracts section 13). */
function rationalOfDouble(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const negative = bits >> 63n === 1n;
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  // subnormals (exponent 0) have no hidden bit and the exponent of the smallest normal
  const mantissa = exponent === 0 ? fraction : fraction | (1n << 52n);
  const shift = (exponent === 0 ? 1 : exponent) - 1075; // value = mantissa * 2^shift
  const value = shift >= 0 ? new Q(mantissa << BigInt(shift)) : new Q(mantissa, 1n << BigInt(-shift));
  return negative ? ZERO.sub(value) : value;
}

/**
 * An exact decimal text, or null: an optional sign, digits with at most one point ("0.1", "+2", ".5",
 * "12."), and, if `exponent`, an optional exponent ("1e-3": parameters, section 9; a percentage has
 * none, section 5).
 */
function parseDecimal(text, exponent = false) {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (match === null || (match[2] + (match[3] || "")) === "" || (match[4] !== undefined && !exponent)) return null;
  const fraction = match[3] || "";
  let value = new Q(BigInt(match[2] + fraction || "0"), 10n ** BigInt(fraction.length));
  const power = Number(match[4] || "0");
  if (Math.abs(power) > 1000) return null; // not a parameter anyone means
  value = power >= 0 ? value.mul(new Q(10n ** BigInt(power))) : value.div(new Q(10n ** BigInt(-power)));
  return match[1] === "-" ? ZERO.sub(value) : value;
}

// ============================================================================================
// Refusals (contracts section 16): an input the rules refuse is answered {"id", "refused": KIND}.
// The checks run in the order instance, params, budget, draw: the first kind that applies is answered.
// ============================================================================================

class Refusal extends Error {
  constructor(kind, why) {
    super(why);
    this.kind = kind;
  }
}

function refuse(kind, why) { throw new Refusal(kind, why); }

const isCount = (x) => Number.isSafeInteger(x);

/** Is `list` a permutation of 0 .. size-1? */
function isPermutation(list, size) {
  if (!Array.isArray(list) || list.length !== size) return false;
  const seen = new Array(size).fill(false);
  for (const x of list) {
    if (!Number.isInteger(x) || x < 0 || x >= size || seen[x]) return false;
    seen[x] = true;
  }
  return true;
}

/** One score: a "p/q" or "p" text (scores_exact) or a JSON number (scores), as a rational in [0, 1]. */
function readScore(value) {
  let score = null;
  if (typeof value === "string" && /^-?\d+(\/\d+)?$/.test(value)) {
    const [p, q = "1"] = value.split("/");
    if (BigInt(q) !== 0n) score = new Q(BigInt(p), BigInt(q));
  } else if (typeof value === "number" && Number.isFinite(value)) {
    score = rationalOfDouble(value);
  }
  if (score === null) refuse("instance", `a score is not a number: ${JSON.stringify(value)}`);
  if (score.sign() < 0 || score.cmp(ONE) > 0) refuse("instance", `the score ${value} is outside [0, 1]`);
  return score;
}

/** A K x L matrix of scores (contracts section 1): K >= 2 rows, L >= 1 columns, no ragged rows. */
function readMatrix(rows, name) {
  if (!Array.isArray(rows) || !rows.every(Array.isArray)) refuse("instance", `${name} is not a list of rows`);
  if (rows.length < 2) refuse("instance", `${rows.length} model(s) in ${name}: an instance has K >= 2`);
  if (rows[0].length < 1) refuse("instance", `no queries in ${name}: an instance has L >= 1`);
  if (rows.some((row) => row.length !== rows[0].length)) refuse("instance", `${name} has ragged rows`);
  return rows.map((row) => row.map(readScore));
}

/**
 * The instance of a case: the exact scores, from scores_exact (or, without it, from the doubles of
 * scores: both name the same doubles, section 13). An algorithm case's K and L must agree with it.
 */
function readInstance(input, sized) {
  const exact = input.scores_exact !== undefined;
  if (!exact && input.scores === undefined) refuse("instance", "no score matrix (scores_exact or scores)");
  const S = readMatrix(exact ? input.scores_exact : input.scores, exact ? "scores_exact" : "scores");
  const K = S.length, L = S[0].length;
  if (sized && input.K !== K) refuse("instance", `K = ${JSON.stringify(input.K)} but the matrix has ${K} rows`);
  if (sized && input.L !== L) refuse("instance", `L = ${JSON.stringify(input.L)} but the matrix has ${L} columns`);
  return { S, K, L };
}

/** K and L of a case that has no matrix (schedules, budgets): K >= 2, L >= 1. */
function readShape(input) {
  const { K, L } = input;
  if (!isCount(K) || K < 2) refuse("instance", `K = ${JSON.stringify(K)}: an instance has K >= 2 models`);
  if (!isCount(L) || L < 1) refuse("instance", `L = ${JSON.stringify(L)}: an instance has L >= 1 queries`);
  return { K, L };
}

/** An integer budget n with K <= n <= K L (contracts section 5). */
function readBudget(budget, K, L) {
  if (!isCount(budget)) refuse("budget", `the budget ${JSON.stringify(budget)} is not an integer`);
  if (budget < K) refuse("budget", `budget ${budget} below K = ${K}: every model must be evaluated once`);
  if (budget > K * L) refuse("budget", `budget ${budget} above K L = ${K * L}: a pair would be evaluated twice`);
  return budget;
}

// The algorithms this file implements, whether they share one query order (contracts section 2),
// and their parameters with their defaults (sections 9 and 10). Values are exact decimal texts.
const ALGORITHMS = {
  us: { synchronized: false, params: {} },
  syus: { synchronized: true, params: {} },
  sr: { synchronized: false, params: {} },
  sysrs: { synchronized: true, params: {} },
  ucbe: { synchronized: false, params: { a: "1" } },
  syucbe: { synchronized: true, params: { a: "1" } },
  sar: { synchronized: false, params: { m: "1" } },
  sysar: { synchronized: true, params: { m: "1" } },
};

/** The parameters of a run: known names only, a > 0 (section 9), m an integer in 1 .. K-1 (section 10). */
function readParams(algorithm, given, K) {
  if (given === undefined) given = {};
  if (given === null || typeof given !== "object" || Array.isArray(given)) refuse("params", "params is not an object");
  const known = ALGORITHMS[algorithm].params;
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(known, name)) refuse("params", `${algorithm} has no parameter ${JSON.stringify(name)}`);
    if (typeof given[name] !== "string") refuse("params", `${name} must be a decimal text, not ${JSON.stringify(given[name])}`);
  }
  const text = { ...known, ...given };
  const params = {};
  if ("a" in text) {
    params.a = parseDecimal(text.a.trim(), true);
    if (params.a === null || params.a.sign() <= 0) refuse("params", `a = ${text.a}: it must be a decimal > 0`);
  }
  if ("m" in text) {
    const m = parseDecimal(text.m.trim(), true);
    if (m === null || m.den !== 1n || m.num < 1n || m.num > BigInt(K - 1)) {
      refuse("params", `m = ${text.m}: it must be an integer in 1 .. K-1 = ${K - 1}`);
    }
    params.m = Number(m.num);
  }
  return params;
}

/** The draw (contracts section 2): one shared order (synchronized) or K orders, and the arm priority. */
function readDraw(draw, synchronized, K, L) {
  if (draw === null || typeof draw !== "object") refuse("draw", "no draw");
  const orders = draw.query_orders;
  if (!Array.isArray(orders)) refuse("draw", "no query_orders");
  const wanted = synchronized ? 1 : K;
  if (orders.length !== wanted) {
    refuse("draw", `${orders.length} query order(s); this algorithm takes ${synchronized ? "exactly one, shared" : `K = ${K}, one per model`}`);
  }
  orders.forEach((order, i) => {
    if (!isPermutation(order, L)) refuse("draw", `query_orders[${i}] is not a permutation of 0 .. ${L - 1}`);
  });
  if (!isPermutation(draw.arm_priority, K)) refuse("draw", `arm_priority is not a permutation of 0 .. ${K - 1}`);
  return { orders, priority: draw.arm_priority };
}

// ============================================================================================
// Ties and the arm priority (contracts section 3).
// ============================================================================================

/** rank[model] = the model's position in the arm priority (0 wins every tie). */
function ranks(priority) {
  const rank = new Array(priority.length);
  priority.forEach((model, position) => { rank[model] = position; });
  // the mutant breaks ties by row index, as if the priority were 0, 1, ..., K-1
  return MUTANT === "ties-by-index" ? rank.map((_, model) => model) : rank;
}

// ============================================================================================
// Budgets (contracts section 5): a percentage p of K L is n = floor(p K L / 100), p exact.
// ============================================================================================

function budgetFromPercentage(input) {
  const { K, L } = readShape(input);
  const text = typeof input.percentage === "string" ? input.percentage.trim() : "";
  const p = text.endsWith("%") ? parseDecimal(text.slice(0, -1).trim()) : null;
  if (p === null) refuse("budget", `${JSON.stringify(input.percentage)} is not a percentage such as "1.25%"`);
  if (p.sign() <= 0 || p.cmp(Q.int(100)) > 0) refuse("budget", `${text} is outside (0, 100]`);
  const product = p.mul(Q.int(K * L));
  const n = product.num / (product.den * 100n); // floor, since both are positive
  return { budget: readBudget(Number(n), K, L) };
}

// ============================================================================================
// The Successive Rejects schedule (contracts section 6).
// ============================================================================================

const ceilDiv = (a, b) => (a + b - 1n) / b; // a >= 0n, b > 0n

/** logbar(K) = 1/2 + sum_{i=2}^{K} 1/i. */
function logbar(K) {
  let total = new Q(1n, 2n);
  for (let i = 2; i <= K; i++) total = total.add(new Q(1n, BigInt(i)));
  return total;
}

/** The paper's n_k = ceil((n - K) / (logbar(K) (K + 1 - k))), k = 1 .. K-1 (eq. budget-schedule). */
function paperSchedule(K, n) {
  const lb = logbar(K);
  const out = [];
  for (let k = 1; k < K; k++) {
    const x = Q.int(n - K).div(lb.mul(Q.int(K + 1 - k))); // >= 0
    out.push(MUTANT === "schedule-floor" ? x.num / x.den : ceilDiv(x.num, x.den));
  }
  return out;
}

/** spend = n_1 + ... + n_{K-2} + 2 n_{K-1}: the eliminated models, then the last two. */
function spend(lengths) {
  return lengths.reduce((a, b) => a + b, 0n) + lengths[lengths.length - 1];
}

/** The capped schedule at level U: n_k(U) = min(L, ceil(U / (K + 1 - k))). */
function level(K, L, U) {
  const out = [];
  for (let k = 1; k < K; k++) {
    const value = ceilDiv(U, BigInt(K + 1 - k));
    out.push(value < BigInt(L) ? value : BigInt(L));
  }
  return out;
}

/** The schedule used (n_k) and the paper's (paper_n_k), as BigInts. */
function schedule(K, L, n) {
  const paper = paperSchedule(K, n);
  if (n === K * L) return { lengths: paper.map(() => BigInt(L)), paper }; // rule 1: every pair
  if (paper[paper.length - 1] <= BigInt(L)) return { lengths: paper, paper }; // not capped
  // rule 2: the largest integer level U >= U0 = ceil((n - K) / logbar(K)) whose spend fits n.
  // spend(U) is non-decreasing and spend(U0) <= n < spend(K L): bisect, keeping spend(low) <= n.
  const u0 = Q.int(n - K).div(logbar(K));
  let low = ceilDiv(u0.num, u0.den), high = BigInt(K * L);
  while (high - low > 1n) {
    const middle = (low + high) / 2n;
    if (spend(level(K, L, middle)) <= BigInt(n)) low = middle; else high = middle;
  }
  return { lengths: level(K, L, low), paper };
}

function scheduleCase(input) {
  const { K, L } = readShape(input);
  const n = readBudget(input.budget, K, L);
  const { lengths, paper } = schedule(K, L, n);
  return {
    n_k: lengths.map(Number),
    spend: Number(spend(lengths)),
    capped: lengths.some((value, index) => value !== paper[index]),
    paper_n_k: paper.map(Number),
  };
}

// ============================================================================================
// The algorithms (contracts sections 4 and 7-10; the outcome, section 12).
// ============================================================================================

/**
 * A run's state: the scores as integers A[i][j] over one common denominator D (so sums are exact
 * integers and equal means are equal sums), each model's query order, the priority ranks, and
 * what was asked so far.
 */
function newRun(instance, n, draw) {
  let D = 1n;
  for (const row of instance.S) for (const x of row) D = (D / gcd(D, x.den)) * x.den;
  return {
    K: instance.K,
    L: instance.L,
    n,
    D,
    A: instance.S.map((row) => row.map((x) => x.num * (D / x.den))),
    orderOf: (model) => draw.orders[draw.orders.length === 1 ? 0 : model],
    rank: ranks(draw.priority),
    sums: new Array(instance.K).fill(0n), // exact, in units of 1/D
    counts: new Array(instance.K).fill(0), // N_i: the next query of model i is orderOf(i)[N_i]
    batches: [],
  };
}

/** Ask one batch (contracts section 4): the scores are added to the sums; an empty batch is not recorded. */
function ask(run, requests) {
  if (requests.length === 0) return;
  for (const [model, query] of requests) {
    run.sums[model] += run.A[model][query];
    run.counts[model] += 1;
  }
  run.batches.push(requests);
}

/** Model `model` on positions from .. to-1 of its query order. */
function positions(run, model, from, to) {
  const order = run.orderOf(model), out = [];
  for (let p = from; p < to; p++) out.push([model, order[p]]);
  return out;
}

const compareBig = (x, y) => (x > y ? 1 : x < y ? -1 : 0);

/** Sign of mean_i - mean_j, counts unequal in general: sum_i N_j against sum_j N_i (section 13). */
function compareMeans(run, i, j) {
  return compareBig(run.sums[i] * BigInt(run.counts[j]), run.sums[j] * BigInt(run.counts[i]));
}

/** `models` by decreasing exact empirical mean, equal means earlier in the priority first (section 3). */
function byMean(run, models) {
  return [...models].sort((i, j) => compareMeans(run, j, i) || run.rank[i] - run.rank[j]);
}

function outcome(run, ranking) {
  const spent = run.batches.reduce((total, batch) => total + batch.length, 0);
  return { chosen: ranking[0], ranking, spent, batches: run.batches };
}

const allModels = (K) => [...Array(K).keys()];

// --- US and SyUS (section 7): one batch, every model on its first floor(n/K) positions. ---------

function uniformSampling(run) {
  const q = Math.floor(run.n / run.K);
  ask(run, allModels(run.K).flatMap((model) => positions(run, model, 0, q)));
  return outcome(run, byMean(run, allModels(run.K)));
}

// --- The phases of SR, SySRs, SAR and SySAR (sections 6, 8, 10). --------------------------------
// Phase k asks every active model (by index) for positions n_{k-1} .. n_k - 1 of its order, in one
// batch if there is any (a phase without new queries asks nothing), then `decide(active)` names
// the model to deactivate. Every active model has n_k scores, so comparing means is comparing sums.

function phases(run, decide) {
  const { lengths } = schedule(run.K, run.L, run.n);
  let active = allModels(run.K), seen = 0;
  for (const nk of lengths.map(Number)) {
    ask(run, active.flatMap((model) => positions(run, model, seen, nk)));
    seen = nk;
    const out = decide(active);
    active = active.filter((model) => model !== out);
  }
  return active[0]; // the model left after the K - 1 phases
}

/** sigma: the active models by decreasing sum, equal sums earlier in the priority first. */
function sigma(run, active) {
  return [...active].sort((i, j) => compareBig(run.sums[j], run.sums[i]) || run.rank[i] - run.rank[j]);
}

// SR and SySRs (section 8): eliminate the smallest sum, among equal sums the latest in the priority,
// which is the last of sigma. Ranking: the winner, then the reverse elimination order.
function successiveRejects(run) {
  const eliminated = [];
  const winner = phases(run, (active) => {
    const worst = sigma(run, active).at(-1);
    eliminated.push(worst);
    return worst;
  });
  return outcome(run, [winner, ...eliminated.reverse()]);
}

// SAR and SySAR (section 10): accept the empirical best or reject the empirical worst, with
// m' = m minus the models accepted so far (places still to fill); equal gaps reject.
function successiveAcceptsRejects(run, m) {
  const accepted = [], rejected = [];
  const left = phases(run, (active) => {
    const order = sigma(run, active);
    const sum = (position) => run.sums[order[position - 1]]; // 1-based, as in the contracts
    const mPrime = m - accepted.length;
    let accept;
    if (mPrime === 0) accept = false;
    else if (mPrime === active.length) accept = true;
    else accept = sum(1) - sum(mPrime + 1) > sum(mPrime) - sum(active.length);
    const model = accept ? order[0] : order[order.length - 1];
    (accept ? accepted : rejected).push(model);
    return model;
  });
  return outcome(run, [...accepted, left, ...rejected.reverse()]);
}

// --- UCB-E and SyUCB-E (section 9). --------------------------------------------------------------

/**
 * The sign of r + sqrt(p) - sqrt(q), for rationals r and p, q >= 0, exactly.
 *
 * Let f = sqrt(p) - sqrt(q): sign(f) = sign(p - q). If r and f have the same sign, or one of them
 * is 0, the sum has the sign of the other (or theirs). Otherwise they have opposite signs and
 * sign(r + f) = sign(r) sign(|r| - |f|) = sign(r) sign(r^2 - f^2), where
 *   r^2 - f^2 = r^2 - p - q + 2 sqrt(pq) = B + 2 sqrt(pq),   B = r^2 - p - q.
 * If B >= 0 that is > 0, or 0 when B = 0 and pq = 0. If B < 0, both 2 sqrt(pq) and -B are >= 0, so
 * sign(2 sqrt(pq) - (-B)) = sign(4pq - B^2). No square root is ever taken.
 */
function signOfRootDifference(r, p, q) {
  const sr = r.sign(), sf = p.cmp(q);
  if (sf === 0) return sr; // f = 0
  if (sr === 0 || sr === sf) return sr === 0 ? sf : sr; // r = 0, or the same sign
  const B = r.mul(r).sub(p).sub(q);
  const pq = p.mul(q);
  const s = B.sign() >= 0 ? (B.sign() > 0 || pq.sign() > 0 ? 1 : 0) : Q.int(4).mul(pq).cmp(B.mul(B));
  return s === 0 ? 0 : sr * s;
}

/** Sign of U_i - U_j with U = sum/N + sqrt(a/N): exact, so 0 + sqrt(1/1) = 1/2 + sqrt(1/4) is a tie. */
function compareIndices(run, a, i, j) {
  const mean = (model) => new Q(run.sums[model], run.D * BigInt(run.counts[model]));
  const r = mean(i).sub(mean(j));
  return signOfRootDifference(r, a.div(Q.int(run.counts[i])), a.div(Q.int(run.counts[j])));
}

function ucbE(run, a) {
  // warm-up: one batch, every model on position 0 of its order (SyUCB-E: all on the same query)
  ask(run, allModels(run.K).flatMap((model) => positions(run, model, 0, 1)));
  for (let step = 0; step < run.n - run.K; step++) {
    // the largest index among the models with queries left; equal indices: earlier in the priority
    let best = null;
    for (const model of allModels(run.K)) {
      if (run.counts[model] >= run.L) continue;
      if (best === null) { best = model; continue; }
      const sign = compareIndices(run, a, model, best);
      if (sign > 0 || (sign === 0 && run.rank[model] < run.rank[best])) best = model;
    }
    if (best === null) break; // every model has seen every query (cannot happen since n <= K L)
    ask(run, positions(run, best, run.counts[best], run.counts[best] + 1));
  }
  return outcome(run, byMean(run, allModels(run.K)));
}

function algorithmCase(input) {
  const algorithm = input.algorithm;
  if (algorithm === "ucbe-lrf") return { unsupported: "UCB-E-LRF (floating-point ALS fits) is not implemented here" };
  if (!Object.hasOwn(ALGORITHMS, algorithm)) return { unsupported: `no algorithm ${JSON.stringify(algorithm)} here` };
  // the checks in the order instance, params, budget, draw
  const instance = readInstance(input, true);
  const params = readParams(algorithm, input.params, instance.K);
  const n = readBudget(input.budget, instance.K, instance.L);
  const draw = readDraw(input.draw, ALGORITHMS[algorithm].synchronized, instance.K, instance.L);
  const run = newRun(instance, n, draw);
  switch (algorithm) {
    case "us": case "syus": return { output: uniformSampling(run) };
    case "sr": case "sysrs": return { output: successiveRejects(run) };
    case "ucbe": case "syucbe": return { output: ucbE(run, params.a) };
    default: return { output: successiveAcceptsRejects(run, params.m) };
  }
}

// ============================================================================================
// Hardness (contracts section 14): population variances over the queries, everything exact.
// ============================================================================================

function hardnessCase(input) {
  const { S, K } = readInstance(input, false);
  const average = (values) => sumQ(values).div(Q.int(values.length));
  const mu = S.map(average);
  const mean = average(mu); // every row has L scores: the mean of the K L scores
  const covariance = (i, k) => average(S[i].map((x, j) => x.sub(mu[i]).mul(S[k][j].sub(mu[k]))));
  // decreasing mean, equal means by increasing row index
  const sorted = allModels(K).sort((i, k) => mu[k].cmp(mu[i]) || i - k);
  const best = sorted[0], muStar = mu[best];
  const gap = (model) => muStar.sub(mu[model]);
  const deltas = sorted.map((_, position) => gap(sorted[Math.max(position, 1)])); // Delta_1 = Delta_2
  const out = { best_mean: muStar, mean, deltas };
  if (deltas[1].isZero()) { // a tied best model: every H is infinite
    return { ...out, H1: null, H2: null, H3: null, H3_prime: null, arms: null };
  }
  const inverseSquare = (d) => ONE.div(d.mul(d));
  const H1 = sumQ(deltas.map(inverseSquare));
  const H2 = maxQ(deltas.slice(1).map((d, index) => Q.int(index + 2).mul(inverseSquare(d))));
  const varBest = covariance(best, best);
  const twoThirds = new Q(2n, 3n), two = Q.int(2);
  const arms = sorted.slice(1).map((model) => {
    const delta = gap(model), V = covariance(model, model), cov = covariance(best, model);
    const vStar = varBest.add(V).sub(two.mul(cov));
    const bias = twoThirds.mul(ONE.add(delta)).mul(delta); // 2/3 (1 + Delta) Delta
    const denominator = mu[model].mul(ONE.sub(muStar)); // (mu* - Delta_i)(1 - mu*)
    // N = -Delta^2/3 + Delta mu* - Delta/3 - mu*^2 + mu* - 1/4 (Proposition thm:theta-star)
    const N = ZERO.sub(delta.mul(delta).div(Q.int(3))).add(delta.mul(muStar)).sub(delta.div(Q.int(3)))
      .sub(muStar.mul(muStar)).add(muStar).sub(new Q(1n, 4n));
    return {
      model,
      delta,
      var: V,
      cov,
      v_star: vStar,
      theta: denominator.isZero() ? null : cov.div(denominator),
      theta_star: denominator.isZero() ? null : N.div(denominator),
      H2_i: inverseSquare(delta),
      H3_i: two.mul(vStar).add(bias).div(delta.mul(delta)),
    };
  });
  // H'_{3,i} = (2 Var(S_{i*J}) + 2 V_i + 2/3 (1 + Delta_i) Delta_i) / Delta_i^2 (not in the output)
  const h3Prime = arms.map((arm) => two.mul(varBest).add(two.mul(arm.var))
    .add(twoThirds.mul(ONE.add(arm.delta)).mul(arm.delta)).div(arm.delta.mul(arm.delta)));
  // H3 = max_{i=2..K} i H_{3,(i)}, the models with equal means placed by decreasing H_{3,i} (which
  // gives the smallest value); H3' likewise with H'_{3,i}, independently.
  const worstCase = (terms) => {
    const placed = arms.map((arm, index) => ({ mean: mu[arm.model], term: terms[index] }))
      .sort((x, y) => y.mean.cmp(x.mean) || y.term.cmp(x.term));
    return maxQ(placed.map((arm, index) => Q.int(index + 2).mul(arm.term)));
  };
  return { ...out, H1, H2, H3: worstCase(arms.map((arm) => arm.H3_i)), H3_prime: worstCase(h3Prime), arms };
}

/** Rationals become "p/q" texts, compared exactly by the runner; everything else is kept. */
function exactTexts(value) {
  if (value instanceof Q) return value.toString();
  if (Array.isArray(value)) return value.map(exactTexts);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, x]) => [key, exactTexts(x)]));
  }
  return value;
}

// ============================================================================================
// The protocol (contracts section 15).
// ============================================================================================

function answer(request) {
  const { family, id, input } = request;
  try {
    if (input === null || typeof input !== "object") return { id, error: "the case has no input object" };
    switch (family) {
      case "algorithms": return { id, ...algorithmCase(input) };
      case "schedules": return { id, output: scheduleCase(input) };
      case "budgets": return { id, output: budgetFromPercentage(input) };
      case "hardness": return { id, output: exactTexts(hardnessCase(input)) };
      default: return { id, unsupported: `this implementation has no family ${family}` };
    }
  } catch (error) {
    if (error instanceof Refusal) {
      if (process.env.SYSRS_JS_VERBOSE) process.stderr.write(`${id}: refused (${error.kind}): ${error.message}\n`);
      return { id, refused: error.kind }; // a reply is closed: no other key
    }
    return { id, error: String(error && error.stack ? error.stack : error) };
  }
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  let reply;
  try {
    reply = answer(JSON.parse(line));
  } catch (error) {
    reply = { id: null, error: `not a JSON case: ${error.message}` };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
