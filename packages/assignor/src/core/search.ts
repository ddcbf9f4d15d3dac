import { noiseAt } from './numbers.js';
import type { Problem } from './problem.js';
import { extremes, indexItems, moveItem, type Placement } from './placement.js';
import { moveDelta, type MoveLedger, type WorkBudget } from './ledger.js';
import { bestMoveOffTop, bestMoveOntoBottom, levelOf, type SearchContext, type Step } from './moves.js';
import { bestSwapOffTop, bestSwapOntoBottom } from './swaps.js';
import { bestResplitOffTop } from './resplit.js';

/** What the search aims for; it stops once both hold, when nothing improves, or out of budget. */
export interface SearchGoal {
  /** Lower the busiest bin (load per unit of capacity) until it is at most this. */
  readonly maxTarget: number;
  /** Then raise the least busy bin until it is at least this. */
  readonly minTarget: number;
  /** Also re-split pairs of bins optimally when moves and swaps are stuck (many moves at once). */
  readonly resplit: boolean;
}

/**
 * Rounds of "lower the maximum, then raise the minimum". Raising the minimum can open new ways to
 * lower the maximum, but rarely more than once or twice; the cap bounds the worst case.
 */
const MAX_ROUNDS = 8;

/**
 * Local search on a complete placement. First the busiest bin sheds load: the best single move
 * to another bin, else the best swap, else (when the goal allows) the best optimal re-split of
 * it and a lighter bin, while that lowers the pair's larger level. Then the least
 * busy bin takes load from the busiest bins the same way, as long as both stay strictly between
 * their old levels (so the maximum never rises). Each step strictly improves a finite ordering
 * of placements, so the search terminates; the budget and round cap bound how long it can take.
 *
 * Deterministic: candidates are scanned in index order and only a strictly better one replaces
 * the current best. Returns the number of steps taken.
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
  const ctx: SearchContext = {
    problem,
    placement,
    items: placement.items ?? indexItems(problem, placement),
    ledger,
    budget,
    eps: noiseAt(scale),
  };
  let steps = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    steps += lowerTop(ctx, goal);
    const raised = raiseBottom(ctx, goal.minTarget);
    steps += raised;
    if (raised === 0) break;
  }
  return steps;
}

/** Steps off the busiest bin until it is at or below the target or cannot improve. */
function lowerTop(ctx: SearchContext, goal: SearchGoal): number {
  let steps = 0;
  while (ctx.budget.remaining > 0) {
    const top = argLevel(ctx, true);
    if (levelOf(ctx, top) <= goal.maxTarget + ctx.eps) break;
    const step = bestMoveOffTop(ctx, top) ?? bestSwapOffTop(ctx, top);
    if (step !== undefined) {
      apply(ctx, step);
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

/** Moves one item, keeping the ledger's count in step. */
function move(ctx: SearchContext, item: number, to: number): void {
  const { problem, placement, ledger } = ctx;
  ledger.used += moveDelta(ledger, item, placement.bin[item]!, to);
  moveItem(problem, placement, item, to);
}
