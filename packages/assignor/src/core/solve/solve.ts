import { noiseAt } from '../structures/numbers.js';
import { hasEqualTerms, highestMinimum, type Problem } from '../model/problem.js';
import { emptyPlacement, extremes, place, placementOf, type Placement } from '../place/placement.js';
import { placeGreedily } from '../place/fast-greedy.js';
import { freeLedger, limitedLedger, anyItem, type MoveLedger, type WorkBudget } from '../place/ledger.js';
import { improve, type SearchGoal } from './search.js';
import { searchExactly } from '../improve/exact.js';
import { reachByWeight, settleOrphans, type Extremes } from './by-weight.js';
import type { StickyPolicy } from './policy.js';

/**
 * Searches stop once the busiest level is this close to the lower bound (the least busy, to the
 * mean): far below what weights can measure, and chasing it costs most of the time on large groups.
 */
const GOOD_ENOUGH = 1e-4;

/** A solved level: the bin of every item and the lower bound it was judged against. */
export interface Solution {
  readonly bin: Int32Array;
  readonly lowerBound: number;
}

/**
 * Places every item of one level: from scratch ({@link fromScratch}) without homes, by
 * {@link levelFromHomes} on equal terms, else from the homes ({@link stickyStart}), kept if within
 * `tolerance` of the lower bound (the least busy, of the mean where `leavesIdle`), settled on the
 * instance level ({@link settleOrphans}); else kept if within tolerance of the from-scratch
 * placement; else the cheapest way into the tolerance by moved weight ({@link reachByWeight}).
 * `bound` is the problem's lower bound, which the caller needs first to tell whether to solve.
 */
export function solve(
  problem: Problem,
  ledger: MoveLedger,
  policy: StickyPolicy,
  budget: WorkBudget,
  bound: number,
): Solution {
  const { tolerance } = policy;
  // What the least busy bin is judged against: the mean, unless some bins can never reach it.
  const mean = highestMinimum(problem);
  // On equal terms levelling alone reaches the optimum; re-splits and the exact search could only
  // spend the budget proving a lower bound that restricted subscriptions leave out of reach.
  const equal = hasEqualTerms(problem);
  const tight: SearchGoal = {
    maxTarget: bound * (1 + GOOD_ENOUGH),
    minTarget: mean * (1 - GOOD_ENOUGH),
    resplit: policy.thorough && !equal,
    level: true,
  };
  if (!anyItem(ledger.home, true)) {
    return { bin: fromScratch(problem, tight, bound, budget).bin, lowerBound: bound };
  }
  if (equal) return { bin: levelFromHomes(problem, ledger, tight, budget).bin, lowerBound: bound };
  // The least busy bin is judged only where some bin holds nothing from before (it just joined):
  // an idle bin wastes a consumer, but lifting a merely lighter one moves partitions for nothing,
  // as after any leave in a group under 20 instances (docs/placement.md, "The objective").
  const floor = leavesIdle(problem, ledger) ? mean : 0;

  const settle: SearchGoal = {
    maxTarget: bound * (1 + tolerance * policy.aim),
    minTarget: floor * (1 - tolerance * policy.aim),
    resplit: false,
    level: false,
  };
  const sticky = stickyStart(problem, ledger, settle, budget);
  const start = extremes(problem, sticky);
  // Float noise relative to the levels compared (maxima near the bound, minima near their target):
  // one allowance scaled by the busiest would let a dominant bin (1e10 next to 6) excuse an idle one.
  const eps = noiseAt(Math.max(bound, start.max));
  const withinOf =
    (t: Extremes) =>
    (e: Extremes): boolean =>
      e.max <= t.max * (1 + tolerance) + eps && e.min >= t.min * (1 - tolerance) - noiseAt(t.min);
  const bounds = { max: bound, min: floor };
  if (withinOf(bounds)(start))
    return { bin: keepOrShed(problem, sticky, bounds, policy, ledger, budget), lowerBound: bound };

  const best = fromScratch(problem, tight, bound, budget);
  const scratch = extremes(problem, best);
  const target = { max: scratch.max, min: floor === 0 ? 0 : scratch.min };
  const within = withinOf(target);
  if (within(start)) return { bin: keepOrShed(problem, sticky, target, policy, ledger, budget), lowerBound: bound };

  const reached = reachByWeight(problem, sticky, best.bin, target, policy, ledger, budget, within);
  return { bin: reached.bin, lowerBound: bound };
}

/** A sticky start within tolerance, settled where `aimsCloser` ({@link settleOrphans}). */
function keepOrShed(
  problem: Problem,
  sticky: Placement,
  reference: Extremes,
  policy: StickyPolicy,
  ledger: MoveLedger,
  budget: WorkBudget,
): Int32Array {
  if (policy.aimsCloser !== true) return sticky.bin;
  return (settleOrphans(problem, sticky, reference, policy, ledger, budget) ?? sticky).bin;
}

/**
 * Equal terms (docs/architecture.md, "Equal weights"): no tolerance. After the sticky start, counted
 * moves and chains level the rest, each from above the final level to below it: only what must move.
 */
function levelFromHomes(problem: Problem, ledger: MoveLedger, goal: SearchGoal, budget: WorkBudget): Placement {
  const placement = stickyStart(problem, ledger, goal, budget);
  improve(problem, placement, goal, ledger, budget);
  return placement;
}

/**
 * The from-scratch placement: the reference greedy, local search down to the lower bound, and,
 * when the goal allows re-splits, an exact search on small problems if that did not reach it.
 */
function fromScratch(problem: Problem, goal: SearchGoal, bound: number, budget: WorkBudget): Placement {
  const free = freeLedger(problem.weight.length);
  let placement = emptyPlacement(problem);
  placeGreedily(problem, placement);
  improve(problem, placement, goal, free, budget);
  const reached = extremes(problem, placement).max;
  if (goal.resplit && reached > goal.maxTarget) {
    const exact = searchExactly(problem, reached, bound, budget);
    if (exact !== undefined) {
      placement = placementOf(problem, exact);
      // The exact search only minds the maximum: even out the rest again.
      improve(problem, placement, goal, free, budget);
    }
  }
  return placement;
}

/**
 * Homes first, then the homeless greedily and levelled by moving only them (a ledger view that
 * allows no counted move): counted moves are left to the later stages, which weigh them.
 */
function stickyStart(problem: Problem, ledger: MoveLedger, goal: SearchGoal, budget: WorkBudget): Placement {
  const sticky = emptyPlacement(problem);
  let homeless = 0;
  ledger.home.forEach((home, item) => {
    if (home >= 0) place(problem, sticky, item, home);
    else homeless++;
  });
  if (homeless === 0) return sticky;
  placeGreedily(problem, sticky);
  // Moving only the homeless costs nothing, so they may level out every bin, not just the extremes.
  const levelling: SearchGoal = {
    maxTarget: goal.maxTarget,
    minTarget: goal.minTarget,
    resplit: goal.resplit,
    level: true,
  };
  improve(problem, sticky, levelling, limitedLedger(ledger, 0), budget);
  return sticky;
}

/**
 * True when some bin holds no item from before and nothing an earlier phase placed, so it would be
 * left idle. In the count phase `baseTie` is the weight the load phase gave a bin (zero in the load
 * phase): a bin holding weighted partitions is busy even if it held no idle one, else an unchanged
 * group placed again moves idle partitions to lift such bins to the mean count (docs/racks.md, "Measured").
 */
function leavesIdle(problem: Problem, ledger: MoveLedger): boolean {
  const held = new Uint8Array(problem.binCount);
  for (let b = 0; b < problem.binCount; b++) if (problem.baseTie[b]! > 0) held[b] = 1;
  for (let k = 0; k < ledger.home.length; k++) if (ledger.home[k]! >= 0) held[ledger.home[k]!] = 1;
  return held.includes(0);
}
