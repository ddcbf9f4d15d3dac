import type { Problem } from '../model/problem.js';
import type { Placement } from '../place/placement.js';

/** Above this many bin × kind counters the spread tie-break is left out (memory, not time). */
const MAX_COUNTERS = 4_000_000;

/**
 * Items of each kind (topic) per bin, for the tie-break between equally good steps: take a topic from a
 * bin holding much of it to one holding little, so a joining member never receives all of one topic and
 * a topic's consumption stays spread when its load shifts later.
 */
export interface Spread {
  readonly count: Int32Array;
}

/** The per-bin kind counts of a placement, or undefined when there is nothing to break ties on. */
export function createSpread(problem: Problem, placement: Placement): Spread | undefined {
  const { binCount, kindCount, kind } = problem;
  if (kindCount < 2 || binCount * kindCount > MAX_COUNTERS) return undefined;
  const count = new Int32Array(binCount * kindCount);
  const { bin } = placement;
  // A plain loop: this runs over every partition once per search, on the hot path of balance().
  for (let item = 0; item < bin.length; item++) {
    const b = bin[item]!;
    if (b < 0) continue;
    const at = kind[item]! * binCount + b;
    count[at] = count[at]! + 1;
  }
  return { count };
}

/** Keeps the counts in step with `item` going from `from` to `to`. */
export function recordSpread(spread: Spread, problem: Problem, item: number, from: number, to: number): void {
  const row = problem.kind[item]! * problem.binCount;
  const { count } = spread;
  count[row + from] = count[row + from]! - 1;
  count[row + to] = count[row + to]! + 1;
}

/** How much moving `item` from `from` to `to` concentrates its kind: count at `to` minus at `from` (0 without). */
export function spreadCost(
  spread: Spread | undefined,
  problem: Problem,
  item: number,
  from: number,
  to: number,
): number {
  if (spread === undefined) return 0;
  const row = problem.kind[item]! * problem.binCount;
  return spread.count[row + to]! - spread.count[row + from]!;
}
