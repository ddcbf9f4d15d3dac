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
 * The instance of every partition when racks can matter, and the lower bound of the instance level without
 * racks. On Kafka's terms with every instance subscribed to every topic, {@link placeByCounts} solves it
 * exactly; the steps below are for everything else, or when that needs more moves than allowed:
 *
 * 1. Solve the instance level with racks as eligibility ({@link inRackModel}), on its own search budget so
 *    the load search cannot starve it, sticky to in-rack previous owners. Not searched where its lower bound
 *    alone rules out the band of step 2 (a rack with more partitions than its instances can take).
 * 2. Keep that if it is within the band of the placement without racks and its moves fit
 *    `maxMovesPerRebalance`: cross-rack weight is then the least possible. Within the band's part that needs
 *    no such placement ({@link withinBound}), the search without racks, most of the cost on a large group,
 *    does not run at all.
 * 3. Otherwise solve without racks (`byLoad`) and improve its locality inside the band ({@link matchRacks}).
 * 4. Off Kafka's terms, search in-rack again with what over-full racks must let go free to cross
 *    ({@link spillCandidate}); keep it, matched in turn, if it moves no more weight than step 3 and fetches
 *    less across racks.
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
  // Trades keep counts but not which topics each instance holds, so they can break Kafka's rule, which comes
  // before locality: such a match is dropped.
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
  // Moves rank before cross-rack traffic: the spill must move no more weight and fetch less across racks.
  const spilledMoved = movedWeight(model, spilled.instance, home, counted);
  const matchedMoved = movedWeight(model, byLoad.instance, home, counted);
  if (spilledMoved > matchedMoved + noiseAt(matchedMoved)) return byLoad;
  if (crossWeight(model, rm, spilled.instance) >= crossWeight(model, rm, byLoad.instance)) return byLoad;
  settings.moves.used = spilledMoves.used;
  return { instance: spilled.instance, lowerBound: byLoad.lowerBound };
}

/**
 * The in-rack placement again, with what over-full racks let go ({@link spillOver}) free to go anywhere:
 * matching one trade at a time stops short of the least that must cross. Where what stays does not pack,
 * each instance over the band's top lets go the lightest partitions covering the overflow
 * ({@link spillFromBusiest}) and the search runs again, at most {@link SPILL_ROUNDS} times. Undefined unless
 * it lands within the band of `reference` (the placement without racks) within `maxMovesPerRebalance`.
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
 * Most in-rack searches of {@link spillCandidate}, letting go more each time: a cap on work, not a fitted
 * value (docs/racks.md, "Measured": more than two rounds found no more).
 */
const SPILL_ROUNDS = 4;

/**
 * {@link matchRacks} rerun from its own result while it fetches less across racks, at most
 * {@link MATCH_PASSES} times, within one pass's work: a pass judges trades against the levels it started
 * from, so one pass leaves a placement it would not leave alone, and an unchanged group would move again.
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
 * {@link matchToStable}, then zero-weight partitions placed by count again on what it left
 * ({@link placeIdleOnInstances}) and matched by count ({@link matchIdle}): the count phase then keeps the
 * result, so an unchanged group placed again moves nothing.
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
 * Most passes of {@link matchToStable}: a cap beside its shared work budget, not a fitted value
 * (docs/racks.md, "Measured": the swept groups settled within 11).
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
 * The in-rack problem ({@link inRackModel}, `free` partitions let go anywhere) searched below a busiest level
 * (`below`: undefined, unsearched, where its lower bound is above it), on its own budget and moves. Undefined
 * when the homes it drops already exceed `maxMovesPerRebalance`.
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
 * The previous owners as homes of the in-rack problem: an owner that is not an in-rack subscriber cannot be
 * one, so its partition moves, a counted move (`forced`) when the owner is still valid. The arrays are copied
 * only when some home is dropped.
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
