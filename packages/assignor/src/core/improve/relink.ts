import { noiseAt } from '../structures/numbers.js';
import type { Problem } from '../model/problem.js';
import { extremeBins, placementOf, shiftItem, type Placement } from '../place/placement.js';
import type { MoveLedger } from '../place/ledger.js';

/** The band every bin's level must end in: at most `maxTarget`, at least `minTarget`. */
export interface Band {
  readonly maxTarget: number;
  readonly minTarget: number;
}

/**
 * Walks from `start` towards `target` (a complete placement within `band`, typically the from-scratch
 * one renamed onto the homes) one item at a time, and stops as soon as every bin is within the band. Only
 * items whose bins differ move, each once and straight to its `target` bin, so the walk ends at `target`
 * at the latest. A bin above the band sheds, one below takes, each by the step that moves least weight
 * ({@link cheapest}): a sticky rebalance pays for balance in weight rather than adopt a new placement.
 * It reaches the band: a bin above it with nothing left to send away holds only items `target` puts
 * there, so its level is at most `target`'s (likewise below). Ties go to the lowest index. Returns a new
 * placement; `start` is not touched.
 */
export function relink(
  problem: Problem,
  start: Placement,
  target: Int32Array,
  band: Band,
  ledger: MoveLedger,
): Placement {
  const walk = placementOf(problem, start.bin);
  const { binCount, capacity } = problem;
  // The items each bin still has to send away, and those still to come to it.
  const leaving: number[][] = Array.from({ length: binCount }, () => []);
  const coming: number[][] = Array.from({ length: binCount }, () => []);
  let pending = 0;
  for (let item = 0; item < target.length; item++) {
    const from = walk.bin[item]!;
    const to = target[item]!;
    if (from === to) continue;
    leaving[from]!.push(item);
    coming[to]!.push(item);
    pending++;
  }
  const done = new Uint8Array(target.length);
  const step = (item: number): void => {
    shiftItem(problem, walk, item, target[item]!);
    done[item] = 1;
    pending--;
  };
  while (pending > 0) {
    const { top, bottom } = extremeBins(problem, walk);
    const topLevel = walk.load[top]! / capacity[top]!;
    const bottomLevel = walk.load[bottom]! / capacity[bottom]!;
    let item: number;
    if (topLevel > band.maxTarget + noiseAt(band.maxTarget)) {
      const excess = walk.load[top]! - band.maxTarget * capacity[top]!;
      item = cheapest(problem, ledger, walk, leaving[top]!, done, excess, target);
    } else if (bottomLevel < band.minTarget - noiseAt(band.minTarget)) {
      const deficit = band.minTarget * capacity[bottom]! - walk.load[bottom]!;
      item = cheapest(problem, ledger, walk, coming[bottom]!, done, deficit, target);
    } else {
      break;
    }
    // Nothing left to move off (or onto) the worst bin: only float noise keeps it outside.
    if (item < 0) break;
    step(item);
  }
  walk.items = undefined;
  return walk;
}

/**
 * Of the pending `candidates`, the step that closes `gap` (load to shed or take) for the least moved
 * weight: a free one first (homeless, not counted, or going home), heaviest first, as it closes the
 * most for free; else the lightest that closes the gap alone; else the heaviest. -1 when none is left.
 */
function cheapest(
  problem: Problem,
  ledger: MoveLedger,
  walk: Placement,
  candidates: ReadonlyArray<number>,
  done: Uint8Array,
  gap: number,
  target: Int32Array,
): number {
  const { weight } = problem;
  let free = -1;
  let closing = -1;
  let heaviest = -1;
  for (const item of candidates) {
    if (done[item] === 1) continue;
    const w = weight[item]!;
    if (costOf(ledger, weight, item, walk.bin[item]!, target[item]!) <= 0) {
      if (free < 0 || w > weight[free]!) free = item;
      continue;
    }
    if (w >= gap && (closing < 0 || w < weight[closing]!)) closing = item;
    if (heaviest < 0 || w > weight[heaviest]!) heaviest = item;
  }
  if (free >= 0) return free;
  return closing >= 0 ? closing : heaviest;
}

/** Moved weight an item adds by going from `from` to `to`: negative when it goes home. */
export function costOf(ledger: MoveLedger, weight: Float64Array, item: number, from: number, to: number): number {
  if (ledger.counted[item] === 0) return 0;
  const home = ledger.home[item]!;
  return weight[item]! * ((to !== home ? 1 : 0) - (from !== home ? 1 : 0));
}

/** Weight of the counted items a placement has away from home: what the rebalance moves. */
export function movedWeight(problem: Problem, ledger: MoveLedger, bin: Int32Array): number {
  let moved = 0;
  for (let item = 0; item < bin.length; item++) {
    if (ledger.counted[item] === 1 && bin[item] !== ledger.home[item]) moved += problem.weight[item]!;
  }
  return moved;
}
