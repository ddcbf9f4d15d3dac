import type { Problem } from '../model/problem.js';
import { presizedLists } from '../structures/presized-lists.js';
import { firstNotBelow } from '../structures/order.js';

/** A (partial) placement of a {@link Problem}'s items, with the tallies it implies. */
export interface Placement {
  /** Bin of each item, -1 while unplaced. */
  readonly bin: Int32Array;
  /** Load of each bin, base load included. */
  readonly load: Float64Array;
  /** Secondary tally of each bin, base included. */
  readonly tie: Float64Array;
  /** Each bin's items, ascending (heaviest first): set by {@link indexItems}, kept up to date by {@link moveItem}. */
  items: number[][] | undefined;
}

/** A placement with nothing placed: every bin carries its base load only. */
export function emptyPlacement(problem: Problem): Placement {
  return {
    bin: new Int32Array(problem.weight.length).fill(-1),
    load: Float64Array.from(problem.baseLoad),
    tie: Float64Array.from(problem.baseTie),
    items: undefined,
  };
}

/** A placement of every item to the bins given (a copy: `bin` is not kept). */
export function placementOf(problem: Problem, bin: Int32Array): Placement {
  const placement = emptyPlacement(problem);
  bin.forEach((b, item) => {
    place(problem, placement, item, b);
  });
  return placement;
}

/** Puts an unplaced item on a bin. */
export function place(problem: Problem, placement: Placement, item: number, bin: number): void {
  placement.bin[item] = bin;
  placement.load[bin] = placement.load[bin]! + problem.weight[item]!;
  placement.tie[bin] = placement.tie[bin]! + problem.tieWeight;
  placement.items = undefined;
}

/** Builds the per-bin item lists the search needs. */
export function indexItems(problem: Problem, placement: Placement): number[][] {
  const items = itemsByBin(placement.bin, problem.binCount);
  placement.items = items;
  return items;
}

/**
 * The items of each bin, ascending. Loops of their own for V8: compiled on-stack inside `indexItems`, they
 * left the store after them without type feedback in the code kept for later calls.
 */
function itemsByBin(bin: Int32Array, binCount: number): number[][] {
  // Counted first so each list is allocated once at its size.
  const sizes = new Int32Array(binCount);
  for (let item = 0; item < bin.length; item++) {
    const b = bin[item]!;
    if (b >= 0) sizes[b] = sizes[b]! + 1;
  }
  const items = presizedLists<number>(sizes);
  const filled = new Int32Array(binCount);
  for (let item = 0; item < bin.length; item++) {
    const b = bin[item]!;
    if (b >= 0) items[b]![filled[b]!++] = item;
  }
  return items;
}

/** Moves a placed item to another bin, keeping its bin and the tallies in step (not the item lists). */
export function shiftItem(problem: Problem, placement: Placement, item: number, to: number): void {
  const from = placement.bin[item]!;
  const w = problem.weight[item]!;
  placement.bin[item] = to;
  placement.load[from] = placement.load[from]! - w;
  placement.load[to] = placement.load[to]! + w;
  placement.tie[from] = placement.tie[from]! - problem.tieWeight;
  placement.tie[to] = placement.tie[to]! + problem.tieWeight;
}

/** Moves a placed item to another bin, keeping tallies and item lists in step. */
export function moveItem(problem: Problem, placement: Placement, item: number, to: number): void {
  const from = placement.bin[item]!;
  shiftItem(problem, placement, item, to);
  const items = placement.items;
  if (items === undefined) return;
  const source = items[from]!;
  source.splice(firstNotBelow(source, item), 1);
  const target = items[to]!;
  target.splice(firstNotBelow(target, item), 0, item);
}

/** Largest and smallest load per unit of capacity over all bins (0 and 0 without bins). */
export function extremes(problem: Problem, placement: Placement): { max: number; min: number } {
  if (problem.binCount === 0) return { max: 0, min: 0 };
  let max = -Infinity;
  let min = Infinity;
  for (let b = 0; b < problem.binCount; b++) {
    const l = placement.load[b]! / problem.capacity[b]!;
    if (l > max) max = l;
    if (l < min) min = l;
  }
  return { max, min };
}

/** The busiest and least busy bins (load per unit of capacity), ties to the lowest index. */
export function extremeBins(problem: Problem, placement: Placement): { top: number; bottom: number } {
  let top = 0;
  let bottom = 0;
  let max = placement.load[0]! / problem.capacity[0]!;
  let min = max;
  for (let b = 1; b < problem.binCount; b++) {
    const level = placement.load[b]! / problem.capacity[b]!;
    if (level > max) {
      top = b;
      max = level;
    }
    if (level < min) {
      bottom = b;
      min = level;
    }
  }
  return { top, bottom };
}
