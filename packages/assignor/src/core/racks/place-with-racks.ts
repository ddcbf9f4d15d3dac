import type { BalanceModel } from '../model/model.js';
import { hasInstance } from '../model/subscribers.js';
import type { PreviousOwners } from '../model/previous.js';
import {
  instanceLowerBound,
  placeOnInstances,
  placeIdleOnInstances,
  placeOnInstancesBelow,
  type LevelSettings,
  type MoveAllowance,
} from '../solve/levels.js';
import { inRackModel } from './in-rack-model.js';
import { matchIdle, matchingWork, matchRacks } from './rack-pass.js';
import { placeByCounts } from './count-racks.js';
import { noiseAt } from '../structures/numbers.js';
import { instanceLoads } from './rack-floor.js';
import { bandTerms, keepsKafkaRule, levels, withinBand, withinBound, type BandTerms } from './band.js';
import { spillFromBusiest, spillOver } from './spill.js';
import { isCrossRack, type RackModel } from './rack-model.js';

/**
 * The instance of every partition when racks can matter, and the lower bound of the instance
 * level without racks (what `placeOnInstances` reports). On Kafka's terms with every instance
 * subscribed to every topic, balance is a count and {@link placeByCounts} solves it exactly (the
 * fewest cross-rack partitions, then moves); the steps below are for everything else, or when
 * that placement needs more moves than `maxMovesPerRebalance` allows:
 *
 * 1. Solve the instance level with racks as eligibility ({@link inRackModel}): every partition
 *    that has an in-rack subscriber goes to one. Its own search budget, so the load search
 *    cannot starve it; sticky to the previous owners where they are in-rack. Where its lower
 *    bound alone rules out the band of step 2 (a rack with more partitions than its instances can
 *    take at that level: after a leave, with equal weights), it is not searched.
 * 2. Keep that if its balance is within the band of the placement found without racks and its
 *    moves fit `maxMovesPerRebalance`: cross-rack weight is then the least possible (only
 *    partitions without an in-rack subscriber cross). When it is within the band's part that
 *    needs no such placement (no busier than the lower bound plus the tolerance, no less busy
 *    than the mean less the tolerance), the search without racks does not run at all: it is
 *    most of the cost of matching racks on a large group.
 * 3. Otherwise solve without racks (`byLoad`) and improve its locality inside the band
 *    ({@link matchRacks}).
 * 4. Off Kafka's terms, try the in-rack placement once more with what over-full racks must let
 *    go free to cross ({@link spillCandidate}), and keep it, matched in turn, if it moves no
 *    more weight than step 3 and fetches less across racks.
 *
 * Updates `settings.moves` to the moves the choice makes.
 */
export function placeWithRacks(
  model: BalanceModel,
  rm: RackModel,
  previous: PreviousOwners,
  settings: LevelSettings,
  searchBudget: number,
): { readonly instance: Int32Array; readonly lowerBound: number } {
  const terms = bandTerms(model, settings.tolerance);
  if (terms.kafka) {
    const counted = placeByCounts(model, rm, previous, settings.moves.limit);
    if (counted !== undefined) {
      settings.moves.used = counted.moves;
      return { instance: counted.instance, lowerBound: instanceLowerBound(model) };
    }
  }
  const search = inRackSearch(model, rm, previous, settings, searchBudget);
  const lowerBound = instanceLowerBound(model);
  const t = terms.tolerance;
  const bandTop = (max: number): number => max + noiseAt(max);
  let inRack = search?.below(bandTop(lowerBound * (1 + t)));
  if (inRack !== undefined && withinBound(model, rm, inRack, lowerBound, terms)) {
    settings.moves.used = search!.moves.used;
    return { instance: inRack, lowerBound };
  }
  const byLoad = placeOnInstances(model, previous, settings);
  if (search !== undefined && inRack === undefined) {
    // Above the bound's band, but maybe within the placement's: search it only if it can be.
    const reference = levels(model, byLoad.instance, terms.split, false).max;
    inRack = search.below(bandTop(Math.max(reference, lowerBound * (1 + t))));
  }
  if (inRack !== undefined && withinBand(model, rm, inRack, byLoad, terms)) {
    settings.moves.used = search!.moves.used;
    return { instance: inRack, lowerBound };
  }
  const home = previous.instance;
  const counted = new Uint8Array(model.partitionCount);
  for (let p = 0; p < model.partitionCount; p++) counted[p] = previous.member[p]! >= 0 && home[p]! >= 0 ? 1 : 0;
  const unmatched = byLoad.instance.slice();
  const movesUnmatched = settings.moves.used;
  matchAndSettle(model, rm, byLoad.instance, previous, { home, counted }, settings, byLoad.lowerBound);
  // Trades keep the counts but not which topics each instance holds: on Kafka's terms one can hand
  // a partition to an instance that a subscriber holding two fewer could take it from. Kafka's
  // rule comes before locality, so such a match is dropped.
  if (terms.kafka && !keepsKafkaRule(model, byLoad.instance)) {
    byLoad.instance.set(unmatched);
    settings.moves.used = movesUnmatched;
    return byLoad;
  }
  if (terms.kafka) return byLoad;
  const spilled = spillCandidate(model, rm, previous, settings, searchBudget, terms, {
    instance: unmatched,
    lowerBound: byLoad.lowerBound,
  });
  if (spilled === undefined) return byLoad;
  // Matching from there brings back in-rack what the packing left room for.
  const spilledMoves = { limit: settings.moves.limit, used: spilled.moves };
  const spilledLevel = { ...settings, moves: spilledMoves };
  matchAndSettle(model, rm, spilled.instance, previous, { home, counted }, spilledLevel, byLoad.lowerBound);
  // Moves rank before cross-rack traffic in the objective: the spill wins only by moving no more
  // weight than the match and fetching less across racks.
  const spilledMoved = movedWeight(model, spilled.instance, home, counted);
  const matchedMoved = movedWeight(model, byLoad.instance, home, counted);
  if (spilledMoved > matchedMoved + noiseAt(matchedMoved)) return byLoad;
  if (crossWeight(model, rm, spilled.instance) >= crossWeight(model, rm, byLoad.instance)) return byLoad;
  settings.moves.used = spilledMoves.used;
  return { instance: spilled.instance, lowerBound: byLoad.lowerBound };
}

/**
 * The in-rack placement again, with the partitions over-full racks let go ({@link spillOver}) free
 * to go anywhere: where a rack's own partitions outweigh what its instances can take inside the
 * band, matching after the load search moves what it can one trade at a time, and stops short of
 * the least that must cross (300 log-normal partitions on 10/10/10 instances, RF 1: 1.76% across
 * racks against a bound of 1.34%). Letting go exactly the excess can leave a rack's instances too
 * little room to pack what stays: then each instance that overflows the band's top lets go the
 * lightest of its partitions that cover the overflow ({@link spillFromBusiest}), and the search
 * runs again, at most {@link SPILL_ROUNDS} times. Undefined unless it lands within the band of
 * `reference` (the placement without racks) for at most `maxMovesPerRebalance`.
 */
function spillCandidate(
  model: BalanceModel,
  rm: RackModel,
  previous: PreviousOwners,
  settings: LevelSettings,
  searchBudget: number,
  terms: BandTerms,
  reference: { readonly instance: Int32Array; readonly lowerBound: number },
): { instance: Int32Array; moves: number } | undefined {
  const ref = levels(model, reference.instance, terms.split, false);
  const ceiling = Math.max(ref.max, reference.lowerBound * (1 + terms.tolerance));
  const free = spillOver(model, rm, ceiling);
  for (let round = 0; round < SPILL_ROUNDS; round++) {
    const search = inRackSearch(model, rm, previous, settings, searchBudget, free);
    const placed = search?.below(ceiling + noiseAt(ceiling));
    if (placed === undefined) return undefined;
    if (withinBand(model, rm, placed, reference, terms)) return { instance: placed, moves: search!.moves.used };
    const load = instanceLoads(model, placed, terms.split, false);
    if (!spillFromBusiest(model, free, placed, load, ceiling + noiseAt(ceiling))) return undefined;
  }
  return undefined;
}

/**
 * At most this many searches of the in-rack problem in {@link spillCandidate}, letting go more
 * each time: a cap on the work, not a fitted value (more than two rounds have not found more;
 * docs/racks.md, "Measured").
 */
const SPILL_ROUNDS = 4;

/**
 * Rack matching ({@link matchRacks}) run again from its own result while it fetches less across
 * racks, at most {@link MATCH_PASSES} times, all within the work one pass may take: one pass
 * judges every trade against the levels it started from, so the placement it leaves is not one it
 * would leave alone, and an unchanged group placed again would match and move again.
 */
function matchToStable(
  model: BalanceModel,
  rm: RackModel,
  instance: Int32Array,
  homes: { readonly home: Int32Array; readonly counted: Uint8Array },
  level: { readonly tolerance: number; readonly moves: MoveAllowance },
  lowerBound: number,
): void {
  // One budget for every pass: running to stable costs no more work than one pass may take.
  const work = matchingWork(model);
  let cross = crossWeight(model, rm, instance);
  for (let pass = 0; pass < MATCH_PASSES && work.remaining > 0; pass++) {
    matchRacks(model, rm, instance, homes, level, lowerBound, work);
    const after = crossWeight(model, rm, instance);
    if (!(after < cross - noiseAt(cross))) return;
    cross = after;
  }
}

/**
 * Matching to stable ({@link matchToStable}), then the zero-weight partitions placed by count
 * again on the counts it left ({@link placeIdleOnInstances}) and matched to racks by count
 * ({@link matchIdle}): the matched placement is then one the count phase keeps, and an unchanged
 * group placed again moves nothing.
 */
function matchAndSettle(
  model: BalanceModel,
  rm: RackModel,
  instance: Int32Array,
  previous: PreviousOwners,
  homes: { readonly home: Int32Array; readonly counted: Uint8Array },
  settings: LevelSettings,
  lowerBound: number,
): void {
  matchToStable(model, rm, instance, homes, settings, lowerBound);
  if (model.partitionCount === 0 || model.weight[model.partitionCount - 1]! > 0) return;
  const ceiling = placeIdleOnInstances(model, instance, previous, settings);
  matchIdle(model, rm, instance, homes, settings.moves, ceiling);
}

/**
 * At most this many passes of {@link matchToStable}, a cap beside its shared work budget, not a
 * fitted value: the sweep's groups, placed from scratch, again, after a leave and under noise,
 * reached a placement matching leaves alone within 11.
 */
const MATCH_PASSES = 16;

/** The weight of the partitions that leave a home they are counted on (`counted`) under `instance`. */
function movedWeight(model: BalanceModel, instance: Int32Array, home: Int32Array, counted: Uint8Array): number {
  let weight = 0;
  for (let p = 0; p < model.partitionCount; p++) {
    if (counted[p] === 1 && instance[p] !== home[p]) weight += model.weight[p]!;
  }
  return weight;
}

/** The weight of the partitions fetched across racks under `instance`. */
function crossWeight(model: BalanceModel, rm: RackModel, instance: Int32Array): number {
  let weight = 0;
  for (let p = 0; p < model.partitionCount; p++) if (isCrossRack(rm, p, instance[p]!)) weight += model.weight[p]!;
  return weight;
}

/**
 * The in-rack problem ({@link inRackModel}, with the `free` partitions let go anywhere) searched
 * below a busiest level (`below`: undefined, unsearched, where its lower bound is above that
 * level), on a budget and moves of its own, so that when it runs changes nothing else. Undefined
 * when the homes it drops are already more moves than `maxMovesPerRebalance` allows.
 */
function inRackSearch(
  model: BalanceModel,
  rm: RackModel,
  previous: PreviousOwners,
  settings: LevelSettings,
  searchBudget: number,
  free?: Uint8Array,
): { readonly moves: MoveAllowance; below(ceiling: number): Int32Array | undefined } | undefined {
  const restricted = inRackModel(model, rm, free);
  const { homes, forced } = inRackHomes(restricted, previous);
  if (forced > settings.moves.limit) return undefined;
  const moves = { limit: settings.moves.limit, used: forced };
  const inRackSettings = { ...settings, budget: { remaining: searchBudget }, moves };
  return { moves, below: (ceiling) => placeOnInstancesBelow(restricted, homes, inRackSettings, ceiling).instance };
}

/**
 * The previous owners as homes of the in-rack problem: an owner outside every in-rack subscriber
 * of its partition cannot be one, so that partition moves whatever happens, a counted move
 * (`forced`) when its owner is still valid. The caller's arrays are copied only when some home
 * is dropped: on a first assignment, or with racks already matched, none is.
 */
function inRackHomes(restricted: BalanceModel, previous: PreviousOwners): { homes: PreviousOwners; forced: number } {
  let member = previous.member;
  let instance = previous.instance;
  let forced = 0;
  for (let p = 0; p < restricted.partitionCount; p++) {
    const home = instance[p]!;
    if (home < 0 || hasInstance(restricted.subscribersOf[restricted.topicOf[p]!]!, home)) continue;
    if (member === previous.member) {
      member = member.slice();
      instance = instance.slice();
    }
    if (member[p]! >= 0) forced++;
    member[p] = -1;
    instance[p] = -1;
  }
  // Written out rather than spread, so the homes keep the shape (and map) of every other.
  const homes = member === previous.member ? previous : { member, instance, listed: previous.listed };
  return { homes, forced };
}
