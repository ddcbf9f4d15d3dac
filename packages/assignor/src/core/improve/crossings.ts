import type { Problem } from '../model/problem.js';
import type { Placement } from '../place/placement.js';
import type { MoveLedger } from '../place/ledger.js';

/**
 * Counted items away from home, keyed by kind (topic), home bin and current bin, then by weight. It
 * keeps one rebalance from moving two equally heavy partitions of a topic both ways between two bins:
 * pure churn, as keeping both home gives the same loads (with unit weights, Kafka's "no two-way moves"
 * rule). Different weights may cross: such a trade changes both loads and is a useful exchange.
 */
export interface Crossings {
  readonly away: Map<number, Map<number, number>>;
}

/** The crossings of a placement, or undefined when no item has a counted home (nothing to guard). */
export function createCrossings(problem: Problem, placement: Placement, ledger: MoveLedger): Crossings | undefined {
  if (!ledger.counted.includes(1)) return undefined;
  const crossings: Crossings = { away: new Map() };
  placement.bin.forEach((at, item) => {
    if (at >= 0) recordCrossing(crossings, problem, ledger, item, -1, at);
  });
  return crossings;
}

/** Keeps the tally in step with `item` going from `from` (-1: newly placed) to `to`. */
export function recordCrossing(
  crossings: Crossings,
  problem: Problem,
  ledger: MoveLedger,
  item: number,
  from: number,
  to: number,
): void {
  if (ledger.counted[item] === 0) return;
  const home = ledger.home[item]!;
  const kind = problem.kind[item]!;
  const weight = problem.weight[item]!;
  if (from >= 0 && from !== home) bump(crossings, keyOf(problem, kind, home, from), weight, -1);
  if (to !== home) bump(crossings, keyOf(problem, kind, home, to), weight, 1);
}

/** True when `item` arriving at `to` makes a two-way pair: another of its kind and weight left `to` for its home. */
export function createsTwoWay(
  crossings: Crossings,
  problem: Problem,
  ledger: MoveLedger,
  item: number,
  to: number,
): boolean {
  if (ledger.counted[item] === 0) return false;
  const home = ledger.home[item]!;
  if (home === to) return false;
  return (crossings.away.get(keyOf(problem, problem.kind[item]!, to, home))?.get(problem.weight[item]!) ?? 0) > 0;
}

/** True when swapping `item` (to `to`) and `other` (to `from`) is itself a two-way pair (same topic and weight). */
export function swapIsTwoWay(
  problem: Problem,
  ledger: MoveLedger,
  item: number,
  from: number,
  to: number,
  other: number,
): boolean {
  return (
    ledger.counted[item] === 1 &&
    ledger.counted[other] === 1 &&
    problem.kind[item] === problem.kind[other] &&
    problem.weight[item] === problem.weight[other] &&
    ledger.home[item] === from &&
    ledger.home[other] === to
  );
}

function keyOf(problem: Problem, kind: number, home: number, at: number): number {
  const bins = problem.binCount;
  return (kind * bins + home) * bins + at;
}

function bump(crossings: Crossings, key: number, weight: number, by: number): void {
  let byWeight = crossings.away.get(key);
  if (byWeight === undefined) {
    byWeight = new Map();
    crossings.away.set(key, byWeight);
  }
  const next = (byWeight.get(weight) ?? 0) + by;
  if (next !== 0) byWeight.set(weight, next);
  else {
    byWeight.delete(weight);
    if (byWeight.size === 0) crossings.away.delete(key);
  }
}
