import type { MoveLedger, WorkBudget } from '../place/ledger.js';
import { costOf, type Band } from './relink.js';
import type { Problem } from '../model/problem.js';
import type { Placement } from '../place/placement.js';

/** Bins an ejected item is tried on, the roomiest: a work cap (every bin would make a step quadratic). */
export const EJECTION_BINS = 8;

/** One planned move: `item` goes to bin `to`. */
export interface Move {
  readonly item: number;
  readonly to: number;
}

/** What {@link shedCheapest} planned, and how much of the need it left open. */
export interface Shedding {
  readonly moves: Move[];
  /** Moved weight the plan costs (free moves count 0). */
  readonly cost: number;
  /** What is still to shed; at or below the stop the plan closed the need. */
  readonly left: number;
}

/**
 * Sheds `need` off `bin` one item at a time, each to the bin `targetOf(item)` names (-1: none), picked
 * by {@link preferred}, until at most `stopAt` is left or nothing more fits. Takes each item's weight off
 * `room` at its target as it plans, so `targetOf` sees the room left. Shared by the repair and the
 * orphan placement, which differ only in where an item may go.
 */
export function shedCheapest(
  ledger: MoveLedger,
  weight: Float64Array,
  list: ReadonlyArray<number>,
  bin: number,
  need: number,
  stopAt: number,
  room: Float64Array,
  budget: WorkBudget,
  targetOf: (item: number) => number,
): Shedding {
  const taken = new Set<number>();
  const moves: Move[] = [];
  let cost = 0;
  let left = need;
  while (left > stopAt && budget.remaining > 0) {
    budget.remaining -= list.length;
    let pick = -1;
    let pickTo = -1;
    let pickCost = Infinity;
    let pickCloses = false;
    for (const item of list) {
      if (taken.has(item)) continue;
      const to = targetOf(item);
      if (to < 0) continue;
      const c = costOf(ledger, weight, item, bin, to);
      const w = weight[item]!;
      const closes = w >= left;
      if (pick < 0 || preferred(c, w, closes, pickCost, weight[pick]!, pickCloses)) {
        pick = item;
        pickTo = to;
        pickCost = c;
        pickCloses = closes;
      }
    }
    if (pick < 0) break;
    taken.add(pick);
    moves.push({ item: pick, to: pickTo });
    room[pickTo] = room[pickTo]! - weight[pick]!;
    cost += Math.max(0, pickCost);
    left -= weight[pick]!;
  }
  return { moves, cost, left };
}

/**
 * True when a candidate (its moved weight `cost`, its weight, whether it closes the gap alone) beats the
 * current pick: free ones first (heaviest), then the lightest that closes the gap, then the heaviest.
 */
export function preferred(
  cost: number,
  weight: number,
  closes: boolean,
  pickCost: number,
  pickWeight: number,
  pickCloses: boolean,
): boolean {
  if (cost <= 0) return pickCost > 0 || weight > pickWeight;
  if (pickCost <= 0) return false;
  return closes ? !pickCloses || weight < pickWeight : !pickCloses && weight > pickWeight;
}

/** The {@link EJECTION_BINS} bins other than `bin` with the most room below the band's top, ties by index. */
export function roomiestBins(problem: Problem, walk: Placement, bin: number, band: Band): number[] {
  const { binCount, capacity } = problem;
  const room = (b: number): number => band.maxTarget * capacity[b]! - walk.load[b]!;
  return Array.from({ length: binCount }, (_, b) => b)
    .filter((b) => b !== bin)
    .sort((a, b) => room(b) - room(a) || a - b)
    .slice(0, EJECTION_BINS);
}
