import { noiseAt } from '../structures/numbers.js';
import { hasEqualTerms, highestMinimum, type Problem } from '../model/problem.js';
import { emptyPlacement, extremes, place, type Placement } from '../place/placement.js';
import { placeGreedily } from '../place/fast-greedy.js';
import { countMoves, freeLedger, limitedLedger, type MoveLedger, type WorkBudget } from '../place/ledger.js';
import { improve, type SearchGoal } from './search.js';
import { relabel } from '../place/relabel.js';
import { searchExactly } from '../improve/exact.js';
import { untangle } from '../improve/untangle.js';
import { searchFewestMoves } from '../improve/fewest-moves.js';
import { reachByWeight, shedToAim, type Extremes } from './by-weight.js';
import { HOMELESS_AIM, type StickyPolicy } from './policy.js';

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
 * 1. Start from the homes, place the homeless greedily and improve their placement: first by
 *    moving only them, then with the policy's small allowance of other moves.
 * 2. Keep that if it is provably within `tolerance` of anything possible: its busiest level
 *    within tolerance of the lower bound and its least busy one within tolerance of the mean.
 * 3. Otherwise solve from scratch and keep the sticky start if it is within tolerance of that.
 * 4. Otherwise (`cascade` core) improve the sticky start (moves counted by the ledger) towards
 *    half the tolerance, so the next rebalance does not start right at the edge.
 * 5. If even that cannot get within tolerance, adopt the from-scratch placement with its bins
 *    renamed to keep as many items home as possible and equally heavy two-way pairs traded or
 *    sent home (no load changes), if the ledger's limit allows.
 *
 * The `by-weight` core replaces steps 4 and 5 with {@link reachByWeight}.
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
  const slotFirst = policy.core === 'by-weight';
  const tight: SearchGoal = {
    maxTarget: bound * (1 + GOOD_ENOUGH),
    minTarget: mean * (1 - GOOD_ENOUGH),
    resplit: policy.thorough && !equal,
    level: true,
    slotFirst,
  };
  if (!anyHome(ledger.home)) {
    return { bin: fromScratch(problem, tight, bound, budget).bin, lowerBound: bound };
  }
  if (equal) return { bin: levelFromHomes(problem, ledger, tight, budget).bin, lowerBound: bound };
  // What the least busy bin is held to from here: nothing on a level that only guards idle bins.
  const floor = policy.idleOnly === true && !leavesIdle(problem, ledger) ? 0 : mean;

  const settle: SearchGoal = {
    maxTarget: bound * (1 + tolerance * HOMELESS_AIM),
    minTarget: floor * (1 - tolerance * HOMELESS_AIM),
    resplit: false,
    level: false,
    slotFirst,
  };
  const sticky = stickyStart(problem, ledger, settle, policy.homelessAllowance, budget);
  const start = extremes(problem, sticky);
  // Float noise is allowed relative to the levels compared: the maxima near the bound, the minima
  // near their own target. One allowance scaled by the busiest level would let a dominant bin
  // (1e10 next to 6) excuse an idle one.
  const eps = noiseAt(Math.max(bound, start.max));
  if (start.max <= bound * (1 + tolerance) + eps && start.min >= floor * (1 - tolerance) - noiseAt(floor)) {
    return { bin: keepOrShed(problem, sticky, { max: bound, min: floor }, policy, ledger, budget), lowerBound: bound };
  }

  const best = fromScratch(problem, tight, bound, budget);
  const target = { max: extremes(problem, best).max, min: floor === 0 ? 0 : extremes(problem, best).min };
  const within = (e: Extremes): boolean =>
    e.max <= target.max * (1 + tolerance) + eps && e.min >= target.min * (1 - tolerance) - noiseAt(target.min);
  if (within(start)) return { bin: keepOrShed(problem, sticky, target, policy, ledger, budget), lowerBound: bound };

  if (policy.core === 'by-weight') {
    const reached = reachByWeight(problem, sticky, best.bin, target, policy, ledger, budget, within);
    if (reached.searched) return { bin: trimMoves(problem, reached.placement, ledger, budget), lowerBound: bound };
    return { bin: reached.placement.bin, lowerBound: bound };
  }

  const halfway: SearchGoal = {
    maxTarget: target.max * (1 + tolerance / 2),
    minTarget: target.min * (1 - tolerance / 2),
    resplit: false,
    level: false,
    slotFirst,
  };
  improve(problem, sticky, halfway, ledger, budget);
  const improved = extremes(problem, sticky);
  if (within(improved)) return { bin: trimMoves(problem, sticky, ledger, budget), lowerBound: bound };

  // Still outside the tolerance: the from-scratch placement is worth its moves if it is better
  // by more than the tolerance on the maximum, or as good on the maximum and better on the minimum.
  const betterMax = target.max * (1 + tolerance) + eps < improved.max;
  const betterMin =
    target.max <= improved.max + eps && target.min * (1 - tolerance) - noiseAt(target.min) > improved.min;
  if (betterMax || betterMin) {
    // Untangling changes no load: the adopted placement is exactly as much better.
    const adopted = adopt(problem, best.bin, ledger);
    if (adopted !== undefined) return { bin: adopted.bin, lowerBound: bound };
  }
  return { bin: trimMoves(problem, sticky, ledger, budget), lowerBound: bound };
}

/**
 * A sticky start within the tolerance of `reference`: kept (with the fewest moves that keep its
 * levels), or, on the instance level of the by-weight core, its busiest shed down to the aim
 * when this rebalance placed homeless items ({@link shedToAim}).
 */
function keepOrShed(
  problem: Problem,
  sticky: Placement,
  reference: Extremes,
  policy: StickyPolicy,
  ledger: MoveLedger,
  budget: WorkBudget,
): Int32Array {
  const shed =
    policy.core === 'by-weight' && policy.aimsCloser === true
      ? shedToAim(problem, sticky, reference, policy.tolerance, ledger, budget)
      : undefined;
  return trimMoves(problem, shed ?? sticky, ledger, budget);
}

/**
 * The from-scratch placement with its bins renamed to keep as many items home as possible and
 * no two equally heavy partitions of a topic moved both ways between two bins, if the ledger's
 * limit allows its moves. Untangling changes no load, so the placement stays as good as it was.
 */
function adopt(problem: Problem, bin: Int32Array, ledger: MoveLedger): Placement | undefined {
  const untangled = untangle(problem, relabel(problem, bin, ledger), ledger);
  const moves = countMoves(ledger, untangled);
  if (moves > ledger.limit) return undefined;
  ledger.used = moves;
  const placement = emptyPlacement(problem);
  untangled.forEach((b, item) => {
    place(problem, placement, item, b);
  });
  return placement;
}

/**
 * The bins of `placement`, or on a small problem those of a placement with fewer counted moves
 * and every level between its least busy and busiest ones ({@link searchFewestMoves}): the same
 * balance by the measures the tolerance judges, for less disruption. Updates `ledger.used`.
 */
function trimMoves(problem: Problem, placement: Placement, ledger: MoveLedger, budget: WorkBudget): Int32Array {
  const found = searchFewestMoves(problem, ledger, placement, budget);
  if (found === undefined) return placement.bin;
  // A search cut short by its node cap may keep an equally heavy pair crossing both ways.
  const fewer = untangle(problem, found, ledger);
  ledger.used -= countMoves(ledger, placement.bin) - countMoves(ledger, fewer);
  return fewer;
}

/**
 * Equal terms (docs/architecture.md, "Equal weights"): Kafka's contract, with no tolerance. The
 * homes stay, the homeless are placed and levelled for free, then counted moves and chains level
 * the rest until no item could move to another eligible bin holding two or more fewer. Each
 * counted step takes one item from a bin above the final level to one below it, so this moves
 * what the balanced shape needs rather than adopting a from-scratch placement and renaming it.
 */
function levelFromHomes(problem: Problem, ledger: MoveLedger, goal: SearchGoal, budget: WorkBudget): Placement {
  const placement = stickyStart(problem, ledger, goal, 0, budget);
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
      const replaced = emptyPlacement(problem);
      exact.forEach((b, item) => {
        place(problem, replaced, item, b);
      });
      placement = replaced;
      // The exact search only minds the maximum: even out the rest again.
      improve(problem, placement, goal, free, budget);
    }
  }
  return placement;
}

/**
 * Homes first, then the homeless greedily; then the homeless are moved around for free (a
 * ledger view that allows no counted move), and finally a few counted moves, proportional to
 * the number of homeless items, may even out what they could not.
 */
function stickyStart(
  problem: Problem,
  ledger: MoveLedger,
  goal: SearchGoal,
  allowancePerItem: number,
  budget: WorkBudget,
): Placement {
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
    slotFirst: goal.slotFirst,
  };
  improve(problem, sticky, levelling, limitedLedger(ledger, 0), budget);
  // Rounded down, so the homeless and the moves they cause stay within 1 + allowance per item
  // of them; one at least, so a single heavy newcomer may still make room for itself.
  const allowance = allowancePerItem > 0 ? Math.max(1, Math.floor(homeless * allowancePerItem)) : 0;
  const limit = Math.min(ledger.limit, allowance);
  if (limit > 0) {
    const counting = limitedLedger(ledger, limit);
    improve(problem, sticky, goal, counting, budget);
    ledger.used += counting.used;
  }
  return sticky;
}

/** True when some bin holds no item from before: it would be left idle if none came to it. */
function leavesIdle(problem: Problem, ledger: MoveLedger): boolean {
  const held = new Uint8Array(problem.binCount);
  for (let k = 0; k < ledger.home.length; k++) if (ledger.home[k]! >= 0) held[ledger.home[k]!] = 1;
  return held.includes(0);
}

/** True when some item has a home: a plain loop, as `some` called a closure per item on 100k items. */
function anyHome(home: Int32Array): boolean {
  for (let k = 0; k < home.length; k++) if (home[k]! >= 0) return true;
  return false;
}
