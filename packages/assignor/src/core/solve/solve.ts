import { noiseAt } from '../structures/numbers.js';
import { hasEqualTerms, highestMinimum, type Problem } from '../model/problem.js';
import { emptyPlacement, extremes, place, placementOf, type Placement } from '../place/placement.js';
import { placeGreedily } from '../place/fast-greedy.js';
import { countMoves, freeLedger, limitedLedger, anyItem, type MoveLedger, type WorkBudget } from '../place/ledger.js';
import { improve, type SearchGoal } from './search.js';
import { searchExactly } from '../improve/exact.js';
import { searchFewestMoves } from '../improve/fewest-moves.js';
import { reachByWeight, settleOrphans, type Extremes } from './by-weight.js';
import type { StickyPolicy } from './policy.js';

/**
 * Searches stop once the busiest level is this close to the lower bound (and the least busy this
 * close to the mean): 0.01% is far below what weights can measure, and chasing it costs most of
 * the time on large groups.
 */
const GOOD_ENOUGH = 1e-4;

/** A solved level: the bin of every item and the lower bound it was judged against. */
export interface Solution {
  readonly bin: Int32Array;
  readonly lowerBound: number;
}

/**
 * Places every item of one level. Without homes in the ledger this is the from-scratch
 * placement ({@link fromScratch}). With homes:
 *
 * 1. Start from the homes, place the homeless greedily and level them out by moving only them.
 * 2. Keep that if it is provably within `tolerance` of anything possible: its busiest level
 *    within tolerance of the lower bound and its least busy one (where judged, see `leavesIdle`)
 *    within tolerance of the mean; on the instance level, shed its busiest to the aim first and
 *    place the homeless where the members need not trade to take them ({@link settleOrphans}).
 * 3. Otherwise solve from scratch and keep the sticky start if it is within tolerance of that.
 * 4. Otherwise take the cheapest way into the tolerance by moved weight ({@link reachByWeight}).
 *
 * The least busy level matters as well as the busiest: in a large group a new instance lowers
 * the maximum by less than the tolerance, yet must not be left idle. `bound` is the problem's
 * lower bound (`lowerBound` of model/lower-bound.ts): its caller needs it first, to tell whether
 * to solve at all.
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
  // The least busy bin is judged only where some bin holds nothing from before (a member or an
  // instance that just joined): an idle bin wastes a consumer. Otherwise the objective ranks the
  // busiest instance first and never the least busy one: a lighter bin costs no latency, and
  // lifting it moves partitions for nothing. After a leave the others sit at (n − 1) ÷ n of the
  // new mean, so in a group of fewer than 20 instances judging the least busy against the mean
  // moved sticky partitions after every leave (leave sweep seed 8: 2.94 times what the instance
  // held, 1.21 without it). With equal weights Kafka's count contract holds regardless.
  const floor = leavesIdle(problem, ledger) ? mean : 0;

  const settle: SearchGoal = {
    maxTarget: bound * (1 + tolerance * policy.aim),
    minTarget: floor * (1 - tolerance * policy.aim),
    resplit: false,
    level: false,
  };
  const sticky = stickyStart(problem, ledger, settle, budget);
  const start = extremes(problem, sticky);
  // Float noise is allowed relative to the levels compared: the maxima near the bound, the minima
  // near their own target. One allowance scaled by the busiest level would let a dominant bin
  // (1e10 next to 6) excuse an idle one.
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
  if (reached.searched) return { bin: trimMoves(problem, reached.placement, ledger, budget), lowerBound: bound };
  return { bin: reached.placement.bin, lowerBound: bound };
}

/**
 * A sticky start within the tolerance of `reference`: kept (with the fewest moves that keep its
 * levels), or, on the instance level when this rebalance placed homeless items, settled
 * ({@link settleOrphans}: its busiest shed down to the aim, the homeless placed where the members
 * need not trade to take them).
 */
function keepOrShed(
  problem: Problem,
  sticky: Placement,
  reference: Extremes,
  policy: StickyPolicy,
  ledger: MoveLedger,
  budget: WorkBudget,
): Int32Array {
  const settled =
    policy.aimsCloser === true ? settleOrphans(problem, sticky, reference, policy, ledger, budget) : undefined;
  return trimMoves(problem, settled ?? sticky, ledger, budget);
}

/**
 * The bins of `placement`, or on a small problem those of a placement with fewer counted moves
 * and every level between its least busy and busiest ones ({@link searchFewestMoves}): the same
 * balance by the measures the tolerance judges, for less disruption. Updates `ledger.used`.
 */
function trimMoves(problem: Problem, placement: Placement, ledger: MoveLedger, budget: WorkBudget): Int32Array {
  const found = searchFewestMoves(problem, ledger, placement, budget);
  if (found === undefined) return placement.bin;
  ledger.used -= countMoves(ledger, placement.bin) - countMoves(ledger, found);
  return found;
}

/**
 * Equal terms (docs/architecture.md, "Equal weights"): Kafka's contract, with no tolerance. The
 * homes stay, the homeless are placed and levelled for free, then counted moves and chains level
 * the rest until no item could move to another eligible bin holding two or more fewer. Each
 * counted step takes one item from a bin above the final level to one below it, so this moves
 * what the balanced shape needs rather than adopting a from-scratch placement and renaming it.
 */
function levelFromHomes(problem: Problem, ledger: MoveLedger, goal: SearchGoal, budget: WorkBudget): Placement {
  const placement = stickyStart(problem, ledger, goal, budget);
  improve(problem, placement, goal, ledger, budget);
  return placement;
}

/**
 * The from-scratch placement: the reference greedy, local search down to the lower bound, and,
 * when the goal asks for a thorough search, an exact search on small problems if that did not
 * reach it.
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
 * Homes first, then the homeless greedily; then the homeless are moved around for free (a
 * ledger view that allows no counted move). Counted moves are left to the stages after it, which
 * weigh them.
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
 * True when some bin holds no item from before and nothing an earlier phase placed: it would be
 * left idle if none came to it. In the count phase a bin's `baseTie` is the weight the load phase
 * gave it (zero in the load phase itself): a bin holding weighted partitions is busy whether or
 * not it held an idle one before. Judged on idle partitions alone, every instance that held none
 * counted as idle, and an unchanged group placed again moved idle partitions to lift them to the
 * mean count (60 groups with racks, a tenth of their partitions idle: 556 partitions moved in 16 groups before, 506 in 9 after; `settleIdle` in place-with-racks.ts answers the rest).
 */
function leavesIdle(problem: Problem, ledger: MoveLedger): boolean {
  const held = new Uint8Array(problem.binCount);
  for (let b = 0; b < problem.binCount; b++) if (problem.baseTie[b]! > 0) held[b] = 1;
  for (let k = 0; k < ledger.home.length; k++) if (ledger.home[k]! >= 0) held[ledger.home[k]!] = 1;
  return held.includes(0);
}
