import { moveItem } from '../place/placement.js';
import { moveDelta } from '../place/ledger.js';
import { bestMoveOffTop, levelOf, type SearchContext, type Step } from '../improve/moves.js';
import { findChain, type Chain } from '../improve/chains.js';
import { recordCrossing } from '../improve/crossings.js';
import { recordSpread } from '../improve/spread.js';

/* The search's last stage (`SearchGoal.level`), and how a step is applied, which the search shares. */

/**
 * Levels out every bin, busiest first: the first that can shed load by a move (the pair's larger
 * level drops) does, and the scan restarts; only when none can, by a chain (every bin on it ends
 * below the giver's old level). With unit weights on equal capacities this ends with no partition
 * able to move to a subscribed bin holding two or more fewer (the lexicographic optimum).
 * Moves first: a chain search is a pass over the whole graph, costly per giver on mixed
 * subscriptions, and rarely finds what a later move would not.
 */
export function levelOut(ctx: SearchContext, chains: boolean): number {
  const { problem, budget } = ctx;
  const lightest = problem.weight[problem.weight.length - 1] ?? 0;
  const settled = new Uint8Array(problem.binCount);
  let steps = 0;
  while (budget.remaining > 0) {
    if (levelByMove(ctx, lightest, settled)) {
      steps++;
    } else if (chains && levelByChain(ctx, lightest)) {
      settled.fill(0);
      steps++;
    } else {
      break;
    }
  }
  return steps;
}

/**
 * The best move off the busiest bin that has one: true when it took one. `settled` marks bins known
 * to have no move, so later sweeps recheck only bins a step could have changed ({@link unsettle}).
 */
function levelByMove(ctx: SearchContext, lightest: number, settled: Uint8Array): boolean {
  for (;;) {
    const giver = busiestExcept(ctx, settled);
    if (giver < 0 || ctx.budget.remaining <= 0) return false;
    if (!someBinCanTake(ctx, giver, lightest)) {
      // Givers come busiest first: in one part, none after this one has a taker either.
      if (ctx.problem.partCount <= 1) return false;
      settled[giver] = 1;
      continue;
    }
    const step = bestMoveOffTop(ctx, giver);
    if (step === undefined) {
      settled[giver] = 1;
      continue;
    }
    const counted = ctx.ledger.counted[step.item] === 1;
    apply(ctx, step);
    unsettle(ctx, settled, giver, step.to, counted);
    return true;
  }
}

/**
 * The shortest chain off the busiest bin that has one, if any: true when it took one. The same sweep
 * as {@link levelByMove}, written out again: a shared loop taking a callback, or one more call per
 * giver, made levelling a fifth slower on large groups.
 */
function levelByChain(ctx: SearchContext, lightest: number): boolean {
  // Givers come busiest first, so a bin no chain can leave stays so for the sweep; a failed search
  // (findChain) marks its giver too.
  const dead = new Uint8Array(ctx.problem.binCount);
  for (;;) {
    const giver = busiestExcept(ctx, dead);
    if (giver < 0 || ctx.budget.remaining <= 0) return false;
    if (!someBinCanTake(ctx, giver, lightest)) {
      if (ctx.problem.partCount <= 1) return false;
      dead[giver] = 1;
      continue;
    }
    const chain = findChain(ctx, giver, dead);
    if (chain === undefined) continue;
    applyChain(ctx, chain);
    return true;
  }
}

/**
 * The busiest bin not `marked` (ties by index), or -1. A pass per giver beats sorting: a sweep
 * usually stops after a few givers.
 */
function busiestExcept(ctx: SearchContext, marked: Uint8Array): number {
  let best = -1;
  let bestLevel = -Infinity;
  for (let b = 0; b < ctx.problem.binCount; b++) {
    if (marked[b] === 1) continue;
    const level = levelOf(ctx, b);
    if (level > bestLevel) {
      best = b;
      bestLevel = level;
    }
  }
  ctx.budget.remaining -= ctx.problem.binCount;
  return best;
}

/**
 * After a move from `giver` to `taker`, unmarks the bins that may have a new move: the two, and any
 * holding a partition eligible for the lighter giver that fits below its own level there (the
 * taker only got busier). A counted move changes the ledger and two-way tally: then all are.
 */
function unsettle(ctx: SearchContext, settled: Uint8Array, giver: number, taker: number, counted: boolean): void {
  if (counted) {
    settled.fill(0);
    return;
  }
  settled[giver] = 0;
  settled[taker] = 0;
  const { problem, placement } = ctx;
  const { binCount, capacity, eligible, group, weight } = problem;
  const loadGiver = placement.load[giver]!;
  const capGiver = capacity[giver]!;
  for (let b = 0; b < binCount; b++) {
    if (settled[b] === 0) continue;
    const ceiling = levelOf(ctx, b) - ctx.eps;
    const list = ctx.items[b]!;
    // Lightest first: once a partition no longer fits under the ceiling, heavier ones do not either.
    for (let k = list.length - 1; k >= 0; k--) {
      const item = list[k]!;
      if ((loadGiver + weight[item]!) / capGiver >= ceiling) break;
      if (eligible[group[item]! * binCount + giver] === 1) {
        settled[b] = 0;
        break;
      }
    }
  }
}

/** True when another bin of `giver`'s part could take the lightest item and stay below `giver`. */
function someBinCanTake(ctx: SearchContext, giver: number, lightest: number): boolean {
  const { problem, placement } = ctx;
  const { partOf } = problem;
  const ceiling = levelOf(ctx, giver) - ctx.eps;
  for (let b = 0; b < problem.binCount; b++) {
    if (b === giver || partOf[b] !== partOf[giver]) continue;
    if ((placement.load[b]! + lightest) / problem.capacity[b]! < ceiling) return true;
  }
  return false;
}

/** Applies a move, or a swap when `step.other` is set. */
export function apply(ctx: SearchContext, step: Step): void {
  const from = ctx.placement.bin[step.item]!;
  move(ctx, step.item, step.to);
  if (step.other >= 0) move(ctx, step.other, from);
}

/** Applies every move of a chain. */
export function applyChain(ctx: SearchContext, chain: Chain): void {
  chain.items.forEach((item, k) => {
    move(ctx, item, chain.to[k]!);
  });
}

/** Moves one item, keeping the ledger's count and the per-topic tallies in step. */
export function move(ctx: SearchContext, item: number, to: number): void {
  const { problem, placement, ledger } = ctx;
  const from = placement.bin[item]!;
  ledger.used += moveDelta(ledger, item, from, to);
  if (ctx.crossings !== undefined) recordCrossing(ctx.crossings, problem, ledger, item, from, to);
  if (ctx.spread !== undefined) recordSpread(ctx.spread, problem, item, from, to);
  moveItem(problem, placement, item, to);
}
