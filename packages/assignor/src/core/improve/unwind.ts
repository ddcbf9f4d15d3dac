import { noiseAt } from '../structures/numbers.js';
import type { Problem } from '../model/problem.js';
import { placementOf, shiftItem, type Placement } from '../place/placement.js';
import type { MoveLedger, WorkBudget } from '../place/ledger.js';
import { costOf, type Band } from './relink.js';

/** Passes over the moved items; each pass only lowers the moved weight, and two or three settle it. */
const MAX_PASSES = 4;

/**
 * Takes back moves a placement does not need: every counted item away from home, heaviest first, goes
 * home where that keeps both bins in `band`; else it goes home while its home sends one of its items to
 * a bin with room (the one it came from, that item's own home, or the roomiest), where that lowers the
 * moved weight. Each step lowers the moved weight and keeps every bin in the band, so the busiest level
 * never rises above the band's top: the objective's second term, with the first held as a constraint.
 * Whatever stage reached the band, the moves it made on the way and no longer needs go back. Returns a
 * new placement; `start` is not touched.
 */
export function unwind(
  problem: Problem,
  start: Placement,
  band: Band,
  ledger: MoveLedger,
  budget: WorkBudget,
): Placement {
  const { binCount, capacity, weight, eligible, group } = problem;
  const walk = placementOf(problem, start.bin);
  const items: Set<number>[] = Array.from({ length: binCount }, () => new Set<number>());
  walk.bin.forEach((b, item) => items[b]!.add(item));
  const top = (b: number): number => band.maxTarget * capacity[b]! + noiseAt(band.maxTarget * capacity[b]!);
  const bottom = (b: number): number => band.minTarget * capacity[b]! - noiseAt(band.minTarget * capacity[b]!);
  const fits = (item: number, b: number): boolean => eligible[group[item]! * binCount + b] === 1;
  const shift = (item: number, to: number): void => {
    items[walk.bin[item]!]!.delete(item);
    items[to]!.add(item);
    shiftItem(problem, walk, item, to);
  };
  for (let pass = 0; pass < MAX_PASSES && budget.remaining > 0; pass++) {
    const away: number[] = [];
    for (let item = 0; item < weight.length; item++)
      if (ledger.counted[item] === 1 && walk.bin[item] !== ledger.home[item]) away.push(item);
    away.sort((a, b) => weight[b]! - weight[a]! || a - b);
    let changed = false;
    for (const item of away) {
      if (budget.remaining <= 0) break;
      const home = ledger.home[item]!;
      const at = walk.bin[item]!;
      const w = weight[item]!;
      if (home < 0 || !fits(item, home) || walk.load[at]! - w < bottom(at)) continue;
      const overflow = walk.load[home]! + w - top(home);
      if (overflow <= 0) {
        shift(item, home);
        changed = true;
        continue;
      }
      const trade = cheapestMakeWay(item, home, at, overflow);
      if (trade === undefined) continue;
      shift(item, home);
      shift(trade.other, trade.to);
      changed = true;
    }
    if (!changed) break;
  }
  walk.items = undefined;
  return walk;

  /**
   * The item of `home` that makes way for `item` coming back from `at` (at least `overflow` heavy), and
   * where it goes, for the least moved weight; only if the pair moves less than `item` away does.
   */
  function cheapestMakeWay(
    item: number,
    home: number,
    at: number,
    overflow: number,
  ): { other: number; to: number; cost: number } | undefined {
    const w = weight[item]!;
    let best: { other: number; to: number; cost: number } | undefined;
    const list = items[home]!;
    budget.remaining -= list.size;
    for (const other of list) {
      const wo = weight[other]!;
      if (wo < overflow || walk.load[home]! + w - wo < bottom(home)) continue;
      const otherHome = ledger.home[other]!;
      for (const to of [at, otherHome, roomiest(other, home)]) {
        if (to < 0 || to === home || !fits(other, to)) continue;
        const load = walk.load[to]! + wo - (to === at ? w : 0);
        if (load > top(to)) continue;
        const cost = -w + costOf(ledger, weight, other, home, to);
        if (cost < -noiseAt(w) && (best === undefined || cost < best.cost)) best = { other, to, cost };
      }
    }
    return best;
  }

  /** The eligible bin other than `not` with the most room below the band's top, -1 if none. */
  function roomiest(item: number, not: number): number {
    let best = -1;
    budget.remaining -= binCount;
    for (let b = 0; b < binCount; b++) {
      if (b === not || !fits(item, b)) continue;
      if (best < 0 || top(b) - walk.load[b]! > top(best) - walk.load[best]!) best = b;
    }
    return best;
  }
}
