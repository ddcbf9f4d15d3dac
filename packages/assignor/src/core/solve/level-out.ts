import { moveItem } from '../place/placement.js';
import { moveDelta } from '../place/ledger.js';
import { bestMoveOffTop, levelOf, type SearchContext, type Step } from '../improve/moves.js';
import { findChain, type Chain } from '../improve/chains.js';
import { recordCrossing } from '../improve/crossings.js';
import { recordSpread } from '../improve/spread.js';

/*
 * The search's last stage, when its goal asks for it (`SearchGoal.level` in search.ts):
 * every bin levelled out from the busiest down, by moves, then chains. Also the way a step is
 * applied, which the search shares.
 */

/**
 * Levels out every bin, busiest first: the first bin that can shed load by a move (the pair's
 * larger level drops) does, and the scan starts again. Only when no bin can, the first that can
 * shed load by a chain (every bin on it ends below the giver's old level) does, and moves are
 * tried again. With unit weights on equal capacities this ends with no partition able to move
 * to a subscribed bin holding two or more fewer, and no chain either, which is the lexicographic
 * optimum; with weights it is the same rule on loads.
 *
 * Moves first, because a chain search is a pass over the whole graph and most givers are left
 * level by a move: trying a chain for every giver a move could not help cost more than the rest
 * of the search on mixed subscriptions, while chains rarely find anything a later move would not.
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
 * The best move off the busiest bin that has one, if any: true when it took one. `settled`
 * marks bins known to have no move, so a sweep after a step looks again only at the bins that
 * step could have given a move (see {@link unsettle}): the steps are the same, the work is not.
 */
function levelByMove(ctx: SearchContext, lightest: number, settled: Uint8Array): boolean {
  return sweepGivers(ctx, lightest, settled, (giver) => {
    const step = bestMoveOffTop(ctx, giver);
    if (step === undefined) {
      settled[giver] = 1;
      return false;
    }
    const counted = ctx.ledger.counted[step.item] === 1;
    apply(ctx, step);
    unsettle(ctx, settled, giver, step.to, counted);
    return true;
  });
}

/** The shortest chain off the busiest bin that has one, if any: true when it took one. */
function levelByChain(ctx: SearchContext, lightest: number): boolean {
  // Givers come busiest first, so a bin no chain could leave from stays so for the rest of the
  // sweep; a failed search marks its giver too.
  const dead = new Uint8Array(ctx.problem.binCount);
  return sweepGivers(ctx, lightest, dead, (giver) => {
    const chain = findChain(ctx, giver, dead);
    if (chain === undefined) return false;
    applyChain(ctx, chain);
    return true;
  });
}

/**
 * Tries `step` on each giver not `marked`, busiest first, until one steps (true) or none is left
 * or the budget is spent (false). A giver no other bin of its part could take the lightest item
 * from is marked and passed over; `step` marks the givers it fails on.
 */
function sweepGivers(
  ctx: SearchContext,
  lightest: number,
  marked: Uint8Array,
  step: (giver: number) => boolean,
): boolean {
  for (;;) {
    const giver = busiestExcept(ctx, marked);
    if (giver < 0 || ctx.budget.remaining <= 0) return false;
    if (!someBinCanTake(ctx, giver, lightest)) {
      // Givers come busiest first: in one part, none after this one has a taker either.
      if (ctx.problem.partCount <= 1) return false;
      marked[giver] = 1;
      continue;
    }
    if (step(giver)) return true;
  }
}

/**
 * The busiest bin not marked in `marked` (ties by index), or -1. Picking the next giver this
 * way instead of sorting every bin costs one pass per giver tried, and a sweep stops at the
 * first giver that steps, usually after a few.
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
 * After a move from `giver` to `taker`: the two bins themselves may have new moves, and so may a
 * bin holding a partition that may go to the now lighter giver and would leave the bin's level
 * lowered there. Nothing else opened up: the taker only got busier. A counted move changes the
 * ledger and the two-way tally, which may let any bin's step through, so then every bin is
 * looked at again.
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

/**
 * True when some other bin of `giver`'s part (the only bins its items may go to) could take the
 * lightest item and stay below `giver`'s level.
 */
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

export function apply(ctx: SearchContext, step: Step): void {
  const from = ctx.placement.bin[step.item]!;
  move(ctx, step.item, step.to);
  if (step.other >= 0) move(ctx, step.other, from);
}

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
