#!/usr/bin/env node
// A minimal, independent implementation of SySRs (the paper's Algorithm 1) behind the sysrs-ref
// conformance protocol, written from the paper and docs/contracts.md only: no dependencies, Node.js >= 18.
//
//   python -m sysrs_ref conform --family algorithms --family schedules --family budgets \
//       --case 'sysrs-*' --case 'schedule-*' --case 'budget-*' -- node examples/conformance/sysrs.js
//
// Protocol: one JSON case per line on stdin, {"family", "id", "input"}; one JSON answer per line
// on stdout, {"id", "output"} or {"id", "unsupported": why}. Arithmetic is exact (BigInt): scores
// are read from "scores_exact" ("p/q" strings) and put over one common denominator, so equal means
// are equal sums and a tie is a true tie.
//
// SYSRS_JS_MUTANT=ties-by-index or =schedule-floor makes it subtly wrong on purpose (the tests of
// the conformance runner check that the vectors catch both).
"use strict";

const readline = require("readline");
const MUTANT = process.env.SYSRS_JS_MUTANT || "";

function gcd(a, b) {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

function ceilDiv(a, b) { // a, b > 0n
  return (a + b - 1n) / b;
}

// logbar(K) = 1/2 + sum_{i=2}^{K} 1/i, as [numerator, denominator].
function logbar(K) {
  let num = 1n, den = 2n;
  for (let i = 2n; i <= BigInt(K); i++) {
    num = num * i + den;
    den = den * i;
    const g = gcd(num, den);
    num /= g; den /= g;
  }
  return [num, den];
}

// The paper's eq. (budget-schedule): n_k = ceil((n - K) / (logbar(K) (K + 1 - k))), k = 1 .. K-1.
function paperSchedule(K, n) {
  const [num, den] = logbar(K);
  const out = [];
  for (let k = 1; k < K; k++) {
    const top = BigInt(n - K) * den, bottom = num * BigInt(K + 1 - k);
    out.push(MUTANT === "schedule-floor" ? top / bottom : (top === 0n ? 0n : ceilDiv(top, bottom)));
  }
  return out;
}

function spend(lengths) {
  return lengths.reduce((a, b) => a + b, 0n) + lengths[lengths.length - 1];
}

// min(L, ceil(U / (K + 1 - k))) for k = 1 .. K-1: the schedule at level U.
function levels(K, L, U) {
  const out = [];
  for (let k = 1; k < K; k++) {
    const value = U === 0n ? 0n : ceilDiv(U, BigInt(K + 1 - k));
    out.push(value < BigInt(L) ? value : BigInt(L));
  }
  return out;
}

// docs/contracts.md: when the paper's n_{K-1} exceeds L (or n = K L), cap at L and raise every
// phase by the largest common factor that keeps the spend within n: the largest level U >= U0.
function schedule(K, L, n) {
  const paper = paperSchedule(K, n);
  if (paper[paper.length - 1] <= BigInt(L) && n !== K * L) return { lengths: paper, paper };
  const [num, den] = logbar(K);
  let low = BigInt(n - K) * den === 0n ? 0n : ceilDiv(BigInt(n - K) * den, num);
  let high = BigInt(K * L);
  if (spend(levels(K, L, high)) <= BigInt(n)) return { lengths: levels(K, L, high), paper };
  while (high - low > 1n) { // spend(low) <= n < spend(high)
    const middle = (low + high) / 2n;
    if (spend(levels(K, L, middle)) <= BigInt(n)) low = middle; else high = middle;
  }
  return { lengths: levels(K, L, low), paper };
}

function parseRational(text) {
  const [p, q] = text.includes("/") ? text.split("/") : [text, "1"];
  return [BigInt(p), BigInt(q)];
}

function sysrs(input) {
  const { K, L, budget, draw } = input;
  const rationals = input.scores_exact.map((row) => row.map(parseRational));
  let common = 1n; // one denominator for every score: sums of numerators compare exactly
  for (const row of rationals) for (const [, q] of row) common = (common / gcd(common, q)) * q;
  const scores = rationals.map((row) => row.map(([p, q]) => p * (common / q)));
  const order = draw.query_orders[0];
  const rank = new Array(K);
  draw.arm_priority.forEach((model, position) => { rank[model] = position; });
  const { lengths } = schedule(K, L, budget);
  let active = [...Array(K).keys()];
  const sums = new Array(K).fill(0n);
  const batches = [], eliminated = [];
  let seen = 0;
  for (const nk of lengths.map(Number)) {
    const batch = [];
    for (const model of active) {
      for (let position = seen; position < nk; position++) {
        batch.push([model, order[position]]);
        sums[model] += scores[model][order[position]];
      }
    }
    if (batch.length > 0) batches.push(batch);
    seen = nk;
    // eliminate the smallest sum; among equal sums the model latest in the arm priority
    let worst = active[0];
    for (const model of active) {
      const later = MUTANT === "ties-by-index" ? model > worst : rank[model] > rank[worst];
      if (sums[model] < sums[worst] || (sums[model] === sums[worst] && later)) worst = model;
    }
    active = active.filter((model) => model !== worst);
    eliminated.push(worst);
  }
  const ranking = [active[0], ...eliminated.reverse()];
  const spent = batches.reduce((total, batch) => total + batch.length, 0);
  return { chosen: active[0], ranking, spent, batches };
}

function budgetFromPercentage(input) {
  const text = input.percentage.replace("%", "");
  const [whole, fraction = ""] = text.split(".");
  const numerator = BigInt(whole + fraction), denominator = 10n ** BigInt(fraction.length) * 100n;
  return { budget: Number((numerator * BigInt(input.K) * BigInt(input.L)) / denominator) };
}

function answer(request) {
  const { family, id, input } = request;
  if (family === "algorithms" && input.algorithm === "sysrs") return { id, output: sysrs(input) };
  if (family === "schedules") {
    const { lengths, paper } = schedule(input.K, input.L, input.budget);
    const capped = lengths.some((value, index) => value !== paper[index]);
    return { id, output: { n_k: lengths.map(Number), spend: Number(spend(lengths)), capped, paper_n_k: paper.map(Number) } };
  }
  if (family === "budgets") return { id, output: budgetFromPercentage(input) };
  const what = family === "algorithms" ? `algorithm ${input.algorithm}` : `family ${family}`;
  return { id, unsupported: `this minimal implementation has no ${what}` };
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  const request = JSON.parse(line);
  process.stdout.write(JSON.stringify(answer(request)) + "\n");
});
