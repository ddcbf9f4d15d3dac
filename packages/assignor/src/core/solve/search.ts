import { noiseAt } from '../structures/numbers.js';
import type { Problem } from '../model/problem.js';
import { extremeBins, extremes, indexItems, type Placement } from '../place/placement.js';
import { type MoveLedger, type WorkBudget } from '../place/ledger.js';
import { bestMoveOffTop, bestMoveOntoBottom, levelOf, type SearchContext } from '../improve/moves.js';
import { bestSwapOffTop, bestSwapOntoBottom } from '../improve/swaps.js';
import { bestResplitOffTop } from '../improve/resplit.js';
import { findChain } from '../improve/chains.js';
import { createCrossings } from '../improve/crossings.js';
import { createSpread } from '../improve/spread.js';
import { apply, applyChain, levelOut, move } from './level-out.js';

/** What the search aims for; it stops once both hold, when nothing improves, or out of budget. */
export interface SearchGoal {
  /** Lower the busiest bin (load per unit of capacity) until it is at most this. */
  readonly maxTarget: number;
  /** Then raise the least busy bin until it is at least this. */
  readonly minTarget: number;
  /** Also re-split pairs of bins optimally when moves and swaps are stuck (many moves at once). */
  readonly resplit: boolean;
  /**
   * Finally level out every bin: while a move or chain leaves every bin it touches below the
   * giver's old level, take it (then no such step makes the sorted levels lexicographically smaller).
   */
  readonly level: boolean;
}

/** Rounds of lowering the maximum, then raising the minimum; more than two rarely help. */
const MAX_ROUNDS = 8;

/**
 * Local search on a complete placement. The busiest bin sheds load by the best move, else swap,
 * else (subscriptions differ, no levelling follows) shortest chain, else (goal allows) optimal
 * re-split with a lighter bin, while the pair's larger level drops. Then the least busy bin takes
 * load the same way while both stay strictly between their old levels (the maximum never rises),
 * then, if asked, every bin is levelled ({@link SearchGoal.level}). Each step strictly improves a
 * finite ordering, so it terminates. Deterministic: index order, only a strictly better candidate
 * replaces the best. Returns the steps taken; at once if {@link nothingToDo}.
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

/** {@link improve} without its shortcut, always set up in full; exported to test the shortcut. */
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
  // A chain can do what a single move cannot only where eligibility is restricted.
  const chains = ctx.problem.restricted;
  // Levelling tries chains off every bin once moves are exhausted; trying them off the top here
  // too would search the graph twice for the same chains.
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
 * True when the search would stop at its first look (both extremes at target; when levelling, no
 * bin can take the lightest item and stay below the busiest), as for most large greedy placements,
 * where setting the search up would be all it costs. Charges the budget those first looks, so later
 * levels see the same budget either way.
 */
export function nothingToDo(problem: Problem, placement: Placement, goal: SearchGoal, budget: WorkBudget): boolean {
  const { binCount, capacity } = problem;
  const { load } = placement;
  const { top, bottom } = extremeBins(problem, placement);
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
 * What {@link levelOut} charges when no bin has a taker: a sweep for moves (and chains, where they
 * can help), a pass over the bins per giver: one giver in one part, else every giver and one more.
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
 * connected part (`Problem.partOf`; no item crosses parts): only then can levelling move anything.
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

/** The busiest (or least busy) bin, ties to the lowest index ({@link extremeBins}), for its budget. */
function argLevel(ctx: SearchContext, highest: boolean): number {
  const { top, bottom } = extremeBins(ctx.problem, ctx.placement);
  ctx.budget.remaining -= ctx.problem.binCount;
  return highest ? top : bottom;
}
