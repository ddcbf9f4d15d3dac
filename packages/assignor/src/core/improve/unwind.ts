import { noiseAt } from '../structures/numbers.js';
import type { Problem } from '../model/problem.js';
import { placementOf, shiftItem, type Placement } from '../place/placement.js';
import { moveDelta, type MoveLedger, type WorkBudget } from '../place/ledger.js';
import { costOf, type Band } from './relink.js';
import { EJECTION_BINS, type Move } from './shed.js';

/** Moves that make way for an item coming home, and the moved weight they change in all (negative: less). */
interface Plan {
  readonly moves: ReadonlyArray<Move>;
  readonly cost: number;
}

/** Passes over the moved items; each pass only lowers the moved weight, and two or three settle it. */
const MAX_PASSES = 4;

/**
 * Takes back moves a placement does not need: every counted item away from home, heaviest first, goes
 * home where that keeps both bins in `band`; else it goes home while its home sends one of its items to
 * a bin with room (the one it came from, that item's own home, or the roomiest), where that lowers the
 * moved weight; with `deep`, where no such pair does, that item may overflow its new bin, which then
 * sends one of its own on the same way (never more partitions moved than before). Each step lowers the
 * moved weight and keeps every bin in the band, so the busiest level never rises above the band's top:
 * the objective's second term, with the first held as a constraint. Whatever stage reached the band,
 * the moves it made on the way and no longer needs go back. Returns a new placement; `start` is not
 * touched.
 */
export function unwind(
  problem: Problem,
  start: Placement,
  band: Band,
  ledger: MoveLedger,
  budget: WorkBudget,
  deep = true,
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
      const plan = cheapestMakeWay(item, home, at, overflow);
      if (plan === undefined) continue;
      shift(item, home);
      for (const move of plan.moves) shift(move.item, move.to);
      changed = true;
    }
    if (!changed) break;
  }
  walk.items = undefined;
  return walk;

  /**
   * The cheapest way for `home` to make `overflow` of room for `item` coming back from `at`: one of its
   * items moves on to `at`, to its own home or to the roomiest bin; failing any such pair, one that
   * overflows its bin in turn, which sends one of its items on the same way (a chain of three, a cycle
   * where it goes back to `at`), where that moves no more partitions than before. Only plans that move less
   * weight than `item` away does; undefined if none.
   */
  function cheapestMakeWay(item: number, home: number, at: number, overflow: number): Plan | undefined {
    const w = weight[item]!;
    let best: Plan | undefined;
    const consider = (moves: Move[], cost: number): void => {
      if (cost < -noiseAt(w) && (best === undefined || cost < best.cost)) best = { moves, cost };
    };
    // Load of `bin` once `item` has left `at`.
    const loadOf = (bin: number): number => walk.load[bin]! - (bin === at ? w : 0);
    const overflowing: Array<{ other: number; to: number; over: number; cost: number }> = [];
    const list = items[home]!;
    budget.remaining -= list.size;
    for (const other of list) {
      const wo = weight[other]!;
      if (wo < overflow || walk.load[home]! + w - wo < bottom(home)) continue;
      for (const to of onward(other, home, at)) {
        const cost = -w + costOf(ledger, weight, other, home, to);
        const over = loadOf(to) + wo - top(to);
        if (over <= 0) consider([{ item: other, to }], cost);
        else overflowing.push({ other, to, over, cost });
      }
    }
    if (best !== undefined || !deep) return best;
    // The cheapest pairs first, and only a few: each costs a look at every item of the bin it overflows.
    overflowing.sort((a, b) => a.cost - b.cost || a.over - b.over);
    for (const { other, to, over, cost } of overflowing.slice(0, EJECTION_BINS)) {
      const inTo = items[to]!;
      budget.remaining -= inTo.size;
      if (budget.remaining <= 0) break;
      const left = loadOf(to) + weight[other]!;
      for (const third of inTo) {
        const wt = weight[third]!;
        if (third === item || wt < over || left - wt < bottom(to)) continue;
        for (const next of onward(third, to, at)) {
          if (next === home || loadOf(next) + wt > top(next)) continue;
          // No more partitions moved than before: the item home (-1), the other two at most +1 between them.
          if (moveDelta(ledger, other, home, to) + moveDelta(ledger, third, to, next) > 1) continue;
          consider(
            [
              { item: other, to },
              { item: third, to: next },
            ],
            cost + costOf(ledger, weight, third, to, next),
          );
        }
      }
    }
    return best;
  }

  /** Where an item of `from` may move on: `at`, its own home, the roomiest bin; eligible, not `from`. */
  function onward(item: number, from: number, at: number): number[] {
    const bins = [at, ledger.home[item]!, roomiest(item, from)];
    return bins.filter((b, k) => b >= 0 && b !== from && fits(item, b) && bins.indexOf(b) === k);
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
