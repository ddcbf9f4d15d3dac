import { noiseAt } from '../structures/numbers.js';
import type { Problem } from '../model/problem.js';
import { extremes, indexItems, moveItem, type Placement } from '../place/placement.js';
import { moveDelta, type MoveLedger, type WorkBudget } from '../place/ledger.js';
import { bestMoveOffTop, bestMoveOntoBottom, levelOf, type SearchContext, type Step } from '../improve/moves.js';
import { bestSwapOffTop, bestSwapOntoBottom } from '../improve/swaps.js';
import { bestResplitOffTop } from '../improve/resplit.js';
import { findChain, hasRestrictedGroups, type Chain } from '../improve/chains.js';
import { createCrossings, recordCrossing } from '../improve/crossings.js';
import { createSpread, recordSpread } from '../improve/spread.js';

/** What the search aims for; it stops once both hold, when nothing improves, or out of budget. */
export interface SearchGoal {
  /** Lower the busiest bin (load per unit of capacity) until it is at most this. */
  readonly maxTarget: number;
  /** Then raise the least busy bin until it is at least this. */
  readonly minTarget: number;
  /** Also re-split pairs of bins optimally when moves and swaps are stuck (many moves at once). */
  readonly resplit: boolean;
  /**
   * Finally level out every bin, not only the extremes: while some bin can hand load to others
   * (by a move or a chain) so that every bin involved ends below its old level, do it. The
   * levels sorted from the top then cannot be made lexicographically smaller by any such step.
   */
  readonly level: boolean;
}

/**
 * Rounds of "lower the maximum, then raise the minimum". Raising the minimum can open new ways to
 * lower the maximum, but rarely more than once or twice; the cap bounds the worst case.
 */
const MAX_ROUNDS = 8;

/**
 * Local search on a complete placement. First the busiest bin sheds load: the best single move
 * to another bin, else the best swap, else (when subscriptions differ and no levelling follows)
 * the shortest chain of moves along subscriptions, else (when the goal allows) the best optimal
 * re-split of it and a lighter bin, while that lowers the pair's larger level. Then the least
 * busy bin takes load from the busiest bins the same way, as long as both stay strictly between
 * their old levels (so the maximum never rises). When the goal asks, every bin is then levelled
 * out from the busiest down ({@link SearchGoal.level}). Each step strictly improves a finite
 * ordering of placements, so the search terminates; the budget and round cap bound how long it
 * can take.
 *
 * Deterministic: candidates are scanned in index order and only a strictly better one replaces
 * the current best. Returns the number of steps taken. A placement that already meets the goal
 * returns at once ({@link nothingToDo}), without setting the search up.
 */
export function improve(
  problem: Problem,
  placement: Placement,
  goal: SearchGoal,
  ledger: MoveLedger,
  budget: WorkBudget,
): number {
  const scale = extremes(problem, placement).max;
  if (problem.binCount < 2 || !(scale > 0)) return 0;
  if (nothingToDo(problem, placement, goal, budget)) return 0;
  return search(problem, placement, goal, ledger, budget);
}

/**
 * {@link improve} without its shortcut: the search itself, always set up in full. Exported for
 * the tests that check the shortcut against it.
 */
export function search(
  problem: Problem,
  placement: Placement,
  goal: SearchGoal,
  ledger: MoveLedger,
  budget: WorkBudget,
): number {
  const scale = extremes(problem, placement).max;
  if (problem.binCount < 2 || !(scale > 0)) return 0;
  const ctx: SearchContext = {
    problem,
    placement,
    items: placement.items ?? indexItems(problem, placement),
    ledger,
    budget,
    eps: noiseAt(scale),
    crossings: createCrossings(problem, placement, ledger),
    spread: createSpread(problem, placement),
  };
  const chains = hasRestrictedGroups(ctx);
  // Levelling tries chains off every bin, the busiest first, once moves are exhausted; trying
  // them off the top here as well would search the graph twice for the same chains.
  const chainsOffTop = chains && !goal.level;
  let steps = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    steps += lowerTop(ctx, goal, chainsOffTop);
    const raised = raiseBottom(ctx, goal.minTarget);
    steps += raised;
    if (raised === 0) break;
  }
  if (goal.level) steps += levelOut(ctx, chains);
  return steps;
}

/**
 * True when the search would stop at its first look: the busiest bin already meets the target,
 * the least busy one too, and (when levelling) no bin could take even the lightest item and stay
 * below the busiest level, so no move or chain can level anything. The greedy placement of a
 * large group usually ends here, and then building the search's item lists, two-way tallies and
 * spread counts (a pass over every item each) would be all the search costs. Charges the budget
 * what those first looks would have, so later levels see the same budget either way.
 */
export function nothingToDo(problem: Problem, placement: Placement, goal: SearchGoal, budget: WorkBudget): boolean {
  const { binCount, capacity } = problem;
  const { load } = placement;
  let top = 0;
  let bottom = 0;
  for (let b = 1; b < binCount; b++) {
    const level = load[b]! / capacity[b]!;
    if (level > load[top]! / capacity[top]!) top = b;
    if (level < load[bottom]! / capacity[bottom]!) bottom = b;
  }
  const max = load[top]! / capacity[top]!;
  const min = load[bottom]! / capacity[bottom]!;
  const eps = noiseAt(max);
  if (max > goal.maxTarget + eps) return false;
  if (min < goal.minTarget - noiseAt(goal.minTarget)) return false;
  if (goal.level && someBinCanLevel(problem, placement)) return false;
  // What lowerTop and raiseBottom charge before they find nothing to do.
  if (budget.remaining > 0) budget.remaining -= binCount;
  if (budget.remaining > 0) budget.remaining -= binCount;
  if (goal.level) chargeIdleLevelling(problem, budget);
  return true;
}

/**
 * What {@link levelOut} charges when no bin has a taker: a sweep for moves, and one for chains
 * where they can help, each a pass over the bins per giver looked at. In one part the sweep
 * stops at the busiest bin, as no later giver has a taker either; with several it looks at
 * every giver and once more to find none left, unless the budget runs out first.
 */
function chargeIdleLevelling(problem: Problem, budget: WorkBudget): void {
  if (!(budget.remaining > 0)) return;
  const looks = problem.partCount <= 1 ? 1 : problem.binCount + 1;
  for (let sweep = 0; sweep < (problem.restricted ? 2 : 1); sweep++) {
    for (let k = 0; k < looks; k++) {
      budget.remaining -= problem.binCount;
      if (budget.remaining <= 0) break;
    }
  }
}

/**
 * True when some bin could take even the lightest item and stay below the busiest bin of its
 * connected part (see `Problem.partOf`): only then can levelling move anything, as no item goes
 * from one part to another. With one part (the usual case) that busiest bin is the busiest of all.
 */
function someBinCanLevel(problem: Problem, placement: Placement): boolean {
  const { binCount, capacity, weight, partOf, partCount } = problem;
  const { load } = placement;
  const lightest = weight[weight.length - 1] ?? 0;
  // The busiest bin of each part, ties to the lowest index.
  const busiest = new Int32Array(partCount).fill(-1);
  for (let b = 0; b < binCount; b++) {
    const p = partOf[b]!;
    const was = busiest[p]!;
    if (was < 0 || load[b]! / capacity[b]! > load[was]! / capacity[was]!) busiest[p] = b;
  }
  for (let b = 0; b < binCount; b++) {
    const head = busiest[partOf[b]!]!;
    if (b === head) continue;
    const ceiling = load[head]! / capacity[head]!;
    if ((load[b]! + lightest) / capacity[b]! < ceiling - noiseAt(ceiling)) return true;
  }
  return false;
}

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
function levelOut(ctx: SearchContext, chains: boolean): number {
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

/** The shortest chain off the busiest bin that has one, if any: true when it took one. */
function levelByChain(ctx: SearchContext, lightest: number): boolean {
  // Givers come busiest first, so a bin no chain could leave from stays so for the rest of the
  // sweep; a failed search marks its giver too.
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

/** Steps off the busiest bin until it is at or below the target or cannot improve. */
function lowerTop(ctx: SearchContext, goal: SearchGoal, chains: boolean): number {
  let steps = 0;
  while (ctx.budget.remaining > 0) {
    const top = argLevel(ctx, true);
    if (levelOf(ctx, top) <= goal.maxTarget + ctx.eps) break;
    const step = bestMoveOffTop(ctx, top) ?? bestSwapOffTop(ctx, top);
    const chain = step === undefined && chains ? findChain(ctx, top) : undefined;
    if (step !== undefined) {
      apply(ctx, step);
    } else if (chain !== undefined) {
      applyChain(ctx, chain);
    } else {
      const resplit = goal.resplit ? bestResplitOffTop(ctx, top) : undefined;
      if (resplit === undefined) break;
      resplit.items.forEach((item, k) => {
        move(ctx, item, resplit.to[k]!);
      });
    }
    steps++;
  }
  return steps;
}

/** Steps onto the least busy bin until it is at or above `target` or cannot improve. */
function raiseBottom(ctx: SearchContext, target: number): number {
  let steps = 0;
  while (ctx.budget.remaining > 0) {
    const bottom = argLevel(ctx, false);
    const level = levelOf(ctx, bottom);
    if (level >= target - noiseAt(target)) break;
    const step = bestMoveOntoBottom(ctx, bottom) ?? bestSwapOntoBottom(ctx, bottom);
    if (step === undefined) break;
    apply(ctx, step);
    steps++;
  }
  return steps;
}

/** The busiest (or least busy) bin, ties to the lowest index. */
function argLevel(ctx: SearchContext, highest: boolean): number {
  let chosen = 0;
  let chosenLevel = levelOf(ctx, 0);
  for (let b = 1; b < ctx.problem.binCount; b++) {
    const level = levelOf(ctx, b);
    if (highest ? level > chosenLevel : level < chosenLevel) {
      chosen = b;
      chosenLevel = level;
    }
  }
  ctx.budget.remaining -= ctx.problem.binCount;
  return chosen;
}

function apply(ctx: SearchContext, step: Step): void {
  const from = ctx.placement.bin[step.item]!;
  move(ctx, step.item, step.to);
  if (step.other >= 0) move(ctx, step.other, from);
}

function applyChain(ctx: SearchContext, chain: Chain): void {
  chain.items.forEach((item, k) => {
    move(ctx, item, chain.to[k]!);
  });
}

/** Moves one item, keeping the ledger's count and the per-topic tallies in step. */
function move(ctx: SearchContext, item: number, to: number): void {
  const { problem, placement, ledger } = ctx;
  const from = placement.bin[item]!;
  ledger.used += moveDelta(ledger, item, from, to);
  if (ctx.crossings !== undefined) recordCrossing(ctx.crossings, problem, ledger, item, from, to);
  if (ctx.spread !== undefined) recordSpread(ctx.spread, problem, item, from, to);
  moveItem(problem, placement, item, to);
}
