import { extremes, placementOf, type Placement } from '../place/placement.js';
import { copyLedger, countMoves, anyItem, type MoveLedger, type WorkBudget } from '../place/ledger.js';
import type { Problem } from '../model/problem.js';
import { improve, type SearchGoal } from './search.js';
import { relabel } from '../place/relabel.js';
import { movedWeight, relink, type Band } from '../improve/relink.js';
import { repair } from '../improve/repair.js';
import { placeOrphans } from '../orphans/orphans.js';
import { unwind } from '../improve/unwind.js';
import { memberExcess } from '../orphans/slot-loads.js';
import { noiseAt } from '../structures/numbers.js';
import type { StickyPolicy } from './policy.js';

/** Levels of a placement that the tolerance is judged on. */
export interface Extremes {
  readonly max: number;
  readonly min: number;
}

/**
 * The core's way into the tolerance of `target` (the from-scratch levels) from a sticky start
 * outside it (docs/placement.md, "Few moves"). Candidates, aimed at half the tolerance so the next
 * drift moves nothing: the local search, the {@link repair}, the walk to the from-scratch placement
 * ({@link relink}), the homeless placed first ({@link placeOrphans}) then repaired, and with homeless
 * items two aimed at `policy.aim`. Of those within tolerance and the ledger's limit, the highest rung
 * wins, then the least moved weight plus the members' estimated trades ({@link memberExcess}); the
 * winner then takes back the moves it does not need ({@link takeBackUnneeded}). Updates `ledger.used`.
 */
export function reachByWeight(
  problem: Problem,
  sticky: Placement,
  best: Int32Array,
  target: Extremes,
  policy: {
    readonly tolerance: number;
    readonly slotTolerance?: number | undefined;
    readonly aimsCloser?: boolean | undefined;
    readonly aim: number;
  },
  ledger: MoveLedger,
  budget: WorkBudget,
  within: (e: Extremes) => boolean,
): Placement {
  const { tolerance } = policy;
  const halfway: SearchGoal = {
    maxTarget: target.max * (1 + tolerance / 2),
    minTarget: target.min * (1 - tolerance / 2),
    resplit: false,
    level: false,
  };
  const searchLedger = copyLedger(ledger);
  const searched = placementOf(problem, sticky.bin);
  improve(problem, searched, halfway, searchLedger, budget);
  const aimed = repair(problem, sticky, halfway, ledger, budget);
  const edge = { maxTarget: target.max * (1 + tolerance), minTarget: target.min * (1 - tolerance) };
  const repaired = within(extremes(problem, aimed)) ? aimed : repair(problem, sticky, edge, ledger, budget);
  const relinked = towardsBest(problem, sticky, best, halfway, ledger);
  // At the edge only when half the tolerance is out of reach: there the next drift moves everything.
  const settle = (band: Band): Placement =>
    repair(problem, placeOrphans(problem, sticky, ledger, band, budget, policy.slotTolerance), band, ledger, budget);
  const settled = [settle(halfway)];
  if (!settled.some((p) => within(extremes(problem, p)))) settled.push(settle(edge));
  const aimBudget = aimBudgetOf(problem, ledger);
  // Aimed closer only with homeless items: else a drift or join would pay for it with sticky moves.
  const close = target.max * (1 + tolerance * policy.aim);
  const closer = Number.isFinite(aimBudget)
    ? [
        settle({ maxTarget: close, minTarget: edge.minTarget }),
        repair(problem, sticky, { maxTarget: close, minTarget: halfway.minTarget }, ledger, budget),
      ]
    : [];
  // Rungs: 2, the aim within its budget (if `aimsCloser`); 1, half the tolerance within it; 0, the rest.
  const closeRung = policy.aimsCloser === true ? 2 : 1;
  const rungOf = (max: number, moved: number): number => {
    if (moved > aimBudget) return 0;
    if (max <= close + noiseAt(close)) return closeRung;
    return max <= halfway.maxTarget + noiseAt(halfway.maxTarget) ? 1 : 0;
  };
  let chosen: Placement | undefined;
  let cost = Infinity;
  let rung = -1;
  for (const candidate of [searched, repaired, relinked, ...settled, ...closer]) {
    if (candidate === undefined) continue;
    const levels = extremes(problem, candidate);
    if (!within(levels) || countMoves(ledger, candidate.bin) > ledger.limit) continue;
    // Trades rank within a rung: an estimate of the level below must not cost the busiest its aim.
    const across = movedWeight(problem, ledger, candidate.bin);
    const moved = across + memberExcess(problem, ledger, candidate.bin, policy.slotTolerance);
    const r = rungOf(levels.max, across);
    if (r < rung || (r === rung && moved >= cost)) continue;
    chosen = candidate;
    cost = moved;
    rung = r;
  }
  if (chosen !== undefined) chosen = takeBackUnneeded(problem, chosen, edge.minTarget, within, policy, ledger, budget);
  if (chosen === undefined || chosen === searched) {
    ledger.used = searchLedger.used;
    return searched;
  }
  ledger.used = countMoves(ledger, chosen.bin);
  return chosen;
}

/**
 * `placement` with the moves it does not need taken back ({@link unwind}, once by pairs and once with
 * chains of three): no bin above its busiest level, none below its least busy or `floor` (whichever is
 * lower), the levels kept `within`. The one that moves least wins, the members' estimated trades
 * included ({@link memberExcess}: an item back on its instance may still cost its members a trade);
 * `placement` itself if neither moves less. Each stage reaches the band its own way, and may move
 * more than it needs on the way.
 */
function takeBackUnneeded(
  problem: Problem,
  placement: Placement,
  floor: number,
  within: (e: Extremes) => boolean,
  policy: { readonly slotTolerance?: number | undefined },
  ledger: MoveLedger,
  budget: WorkBudget,
): Placement {
  const levels = extremes(problem, placement);
  const band = { maxTarget: levels.max, minTarget: Math.min(levels.min, floor) };
  const before = movedWithTrades(problem, ledger, placement, policy.slotTolerance);
  let best = placement;
  let least = before - noiseAt(before);
  // Pairs only, then chains of three too: taken greedily, a chain can block pairs that move less in all.
  for (const deep of [false, true]) {
    // At most half the work left, so the stages after it (the members' level) never starve.
    const share = budget.remaining / 2;
    const view = { remaining: share };
    const unwound = unwind(problem, placement, band, ledger, view, deep);
    budget.remaining -= share - view.remaining;
    const c = movedWithTrades(problem, ledger, unwound, policy.slotTolerance);
    if (within(extremes(problem, unwound)) && c < least) {
      best = unwound;
      least = c;
    }
  }
  return best;
}

/** Moved weight of `placement` plus the trades its members are estimated to make ({@link memberExcess}). */
function movedWithTrades(
  problem: Problem,
  ledger: MoveLedger,
  placement: Placement,
  slotTolerance: number | undefined,
): number {
  return movedWeight(problem, ledger, placement.bin) + memberExcess(problem, ledger, placement.bin, slotTolerance);
}

/**
 * The most weight a placement may move beyond the homeless and still win for the aim: their own, so
 * placing an orphaned load W moves at most about 2W (docs/placement.md, "The aim, and what it may
 * cost"). Unbounded when nothing is homeless: the aim then comes first.
 */
function aimBudgetOf(problem: Problem, ledger: MoveLedger): number {
  let homeless = 0;
  for (let k = 0; k < ledger.home.length; k++) if (ledger.home[k]! < 0) homeless += problem.weight[k]!;
  return homeless > 0 ? homeless : Number.POSITIVE_INFINITY;
}

/**
 * The sticky placement walked ({@link relink}) towards the best one renamed onto the homes (a
 * shorter walk); undefined when that needs more moves than the ledger allows.
 */
function towardsBest(
  problem: Problem,
  sticky: Placement,
  best: Int32Array,
  band: SearchGoal,
  ledger: MoveLedger,
): Placement | undefined {
  const renamed = relabel(problem, best, ledger);
  const walked = relink(problem, sticky, renamed, band, ledger);
  return countMoves(ledger, walked.bin) > ledger.limit ? undefined : walked;
}

/**
 * The instance level's last stage for a sticky start within tolerance after placing homeless items:
 * {@link shedToAim}, then {@link placeForMembers}. Neither raises the least busy (sticky moves for no
 * gain on the busiest). Undefined, nothing counted, when nothing was homeless (a drift alone stays
 * within what `moveTolerance` promises) or neither changes the start.
 */
export function settleOrphans(
  problem: Problem,
  sticky: Placement,
  reference: Extremes,
  policy: StickyPolicy,
  ledger: MoveLedger,
  budget: WorkBudget,
): Placement | undefined {
  if (!anyItem(ledger.home, false)) return undefined;
  const start = extremes(problem, sticky);
  const minTarget = Math.min(start.min, reference.min * (1 - policy.tolerance));
  const shed = shedToAim(problem, sticky, start.max, minTarget, reference, policy, ledger, budget);
  return placeForMembers(problem, sticky, shed ?? sticky, minTarget, policy, ledger, budget) ?? shed;
}

/**
 * When the busiest instance (`startMax`) is above the aim (`policy.aim` of the tolerance above
 * `reference.max`), the repair sheds it to the aim, no bin below `minTarget`, within the aim's
 * budget ({@link aimBudgetOf}); failing that, to half the tolerance (or the aim, if looser) within
 * the ledger's limit. Undefined, nothing counted, when nothing is shed or neither is reached.
 */
function shedToAim(
  problem: Problem,
  sticky: Placement,
  startMax: number,
  minTarget: number,
  reference: Extremes,
  policy: StickyPolicy,
  ledger: MoveLedger,
  budget: WorkBudget,
): Placement | undefined {
  const { tolerance, aim } = policy;
  // The repair down to `top`, if it gets there within the ledger's limit.
  const shedTo = (top: number): { shed: Placement; moves: number; moved: number } | undefined => {
    if (startMax <= top + noiseAt(top)) return undefined;
    const shed = repair(problem, sticky, { maxTarget: top, minTarget }, ledger, budget);
    const moves = countMoves(ledger, shed.bin);
    if (extremes(problem, shed).max > top + noiseAt(top) || moves > ledger.limit) return undefined;
    return { shed, moves, moved: movedWeight(problem, ledger, shed.bin) };
  };
  // Where the aim is the looser, its repair is reused, not run again.
  const aimTop = reference.max * (1 + tolerance * aim);
  const aimed = shedTo(aimTop);
  let chosen = aimed !== undefined && aimed.moved <= aimBudgetOf(problem, ledger) ? aimed : undefined;
  if (chosen === undefined) {
    const fallbackTop = reference.max * (1 + tolerance * Math.max(aim, 1 / 2));
    chosen = fallbackTop === aimTop ? aimed : shedTo(fallbackTop);
  }
  if (chosen === undefined) return undefined;
  ledger.used = chosen.moves;
  return chosen.shed;
}

/**
 * The homeless placed again where each instance's members take them without trading
 * ({@link placeOrphans} with their tolerance), within the levels `kept` reached, no bin below
 * `minTarget`; only if cheaper than `kept`, members' trades included ({@link memberExcess}), else
 * undefined, nothing counted. The sticky start spreads the homeless one an instance, which can tip
 * a member of an even instance beyond its tolerance (docs/placement.md, "Few moves").
 */
function placeForMembers(
  problem: Problem,
  sticky: Placement,
  kept: Placement,
  minTarget: number,
  policy: StickyPolicy,
  ledger: MoveLedger,
  budget: WorkBudget,
): Placement | undefined {
  const members = policy.slotTolerance;
  if (members === undefined || ledger.slot === undefined) return undefined;
  const cost = (p: Placement): number => movedWithTrades(problem, ledger, p, members);
  const keptCost = cost(kept);
  // Nothing moved and nothing for the members to trade: nothing can cost less.
  if (keptCost <= 0) return undefined;
  const band: Band = { maxTarget: extremes(problem, kept).max, minTarget };
  const placed = placeOrphans(problem, sticky, ledger, band, budget, members);
  const filled = repair(problem, placed, band, ledger, budget);
  const levels = extremes(problem, filled);
  const moves = countMoves(ledger, filled.bin);
  const inBand =
    levels.max <= band.maxTarget + noiseAt(band.maxTarget) && levels.min >= band.minTarget - noiseAt(band.minTarget);
  if (!inBand || moves > ledger.limit) return undefined;
  if (cost(filled) >= keptCost - noiseAt(keptCost)) return undefined;
  ledger.used = moves;
  return filled;
}
