import type { BalanceModel } from '../model/model.js';
import { hasInstance } from '../model/subscribers.js';
import type { PreviousOwners } from '../model/previous.js';
import { instanceLowerBound, placeOnInstances, placeOnInstancesBelow, type LevelSettings } from '../solve/levels.js';
import { inRackModel } from './in-rack-model.js';
import { matchRacks } from './rack-pass.js';
import type { RackModel } from './rack-model.js';
import { equalTerms } from './terms.js';
import { placeByCounts } from './count-racks.js';
import { noiseAt } from '../structures/numbers.js';
import { aboveFloor, instanceLoads } from './rack-floor.js';

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
  const restricted = inRackModel(model, rm);
  const { homes, forced } = inRackHomes(restricted, previous);
  const moves = { limit: settings.moves.limit, used: forced };
  const inRackSettings = {
    tolerance: settings.tolerance,
    budget: { remaining: searchBudget },
    moves,
  };
  // The in-rack placement can only be kept below a busiest level; where its lower bound is above
  // that level it is not searched at all (its own budget and moves, so when it runs changes nothing).
  const solveInRack = (ceiling: number): Int32Array | undefined =>
    placeOnInstancesBelow(restricted, homes, inRackSettings, ceiling).instance;
  const lowerBound = instanceLowerBound(model);
  const t = terms.tolerance;
  const bandTop = (max: number): number => max + noiseAt(max);
  let inRack = forced > moves.limit ? undefined : solveInRack(bandTop(lowerBound * (1 + t)));
  const searched = inRack !== undefined || forced > moves.limit;
  if (inRack !== undefined && withinBound(model, rm, inRack, lowerBound, terms)) {
    settings.moves.used = moves.used;
    return { instance: inRack, lowerBound };
  }
  const byLoad = placeOnInstances(model, previous, settings);
  if (!searched) {
    // Above the bound's band, but maybe within the placement's: search it only if it can be.
    const reference = levels(model, byLoad.instance, terms.split, false).max;
    inRack = solveInRack(bandTop(Math.max(reference, lowerBound * (1 + t))));
  }
  if (inRack !== undefined && withinBand(model, rm, inRack, byLoad, terms)) {
    settings.moves.used = moves.used;
    return { instance: inRack, lowerBound };
  }
  const home = previous.instance;
  const counted = new Uint8Array(model.partitionCount);
  for (let p = 0; p < model.partitionCount; p++) counted[p] = previous.member[p]! >= 0 && home[p]! >= 0 ? 1 : 0;
  const unmatched = terms.kafka ? byLoad.instance.slice() : undefined;
  const movesUnmatched = settings.moves.used;
  matchRacks(model, rm, byLoad.instance, { home, counted }, settings, byLoad.lowerBound);
  // Trades keep the counts but not which topics each instance holds: on Kafka's terms one can hand
  // a partition to an instance that a subscriber holding two fewer could take it from. Kafka's
  // rule comes before locality, so such a match is dropped.
  if (unmatched !== undefined && !keepsKafkaRule(model, byLoad.instance)) {
    byLoad.instance.set(unmatched);
    settings.moves.used = movesUnmatched;
  }
  return byLoad;
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

/** What the bands are judged on, worked out once per call (each a pass over the partitions). */
interface BandTerms {
  /** Number of weighted partitions (see {@link weightedCount}). */
  readonly split: number;
  /** The tolerance the bands allow: none on equal terms, where counts are held exactly. */
  readonly tolerance: number;
  /**
   * Equal weights on equal capacities without base loads, every partition weighted or none:
   * Kafka's terms, whose balance rule ({@link keepsKafkaRule}) any placement must keep.
   */
  readonly kafka: boolean;
}

/** The {@link BandTerms} of `model` at the caller's `tolerance`. */
function bandTerms(model: BalanceModel, tolerance: number): BandTerms {
  const split = weightedCount(model);
  const equal = equalTerms(model, split);
  return {
    split,
    tolerance: equal ? 0 : tolerance,
    kafka: equal && (split === model.partitionCount || split === 0),
  };
}

/**
 * True when `candidate` is as balanced as `reference` by the rule rack matching keeps: its
 * busiest instance (combined load per unit of capacity) no higher than the larger of the
 * reference's and the lower bound plus the tolerance, its least busy no lower than the smaller
 * of the reference's less half the tolerance and the mean less the tolerance (the band the next
 * rebalance's search accepts as it is), or than its rack's mean less the tolerance
 * ({@link aboveFloor}). On equal terms (equal weights and capacities, no base loads) the band is
 * the reference's own levels, and zero-weight partitions, placed by count, must keep the
 * reference's count levels in any case.
 */
function withinBand(
  model: BalanceModel,
  rm: RackModel,
  candidate: Int32Array,
  reference: { readonly instance: Int32Array; readonly lowerBound: number },
  terms: BandTerms,
): boolean {
  const { split, tolerance: t } = terms;
  const ref = levels(model, reference.instance, split, false);
  const gotLoad = instanceLoads(model, candidate, split, false);
  const got = levelsOf(model, gotLoad);
  const eps = noiseAt(ref.max);
  const ceiling = Math.max(ref.max, reference.lowerBound * (1 + t));
  const floor = Math.min(ref.min * (1 - t / 2), meanLevel(model, split) * (1 - t));
  if (got.max > ceiling + eps || !aboveFloor(model, rm, gotLoad, floor, t)) return false;
  if (terms.kafka && !keepsKafkaRule(model, candidate)) return false;
  if (split === model.partitionCount) return true;
  // Counts include the weighted partitions, as the zero-weight phase counts them.
  const refCount = levels(model, reference.instance, model.partitionCount, true);
  const gotCount = levels(model, candidate, model.partitionCount, true);
  return gotCount.max <= refCount.max + 1e-9 && gotCount.min >= refCount.min - 1e-9;
}

/**
 * The part of {@link withinBand} that needs no reference placement: busiest instance within the
 * tolerance of the lower bound, least busy within it of the mean (or of its rack's mean, as
 * there). Whatever the reference, its band contains this one. Never true with zero-weight
 * partitions, whose band is the reference's counts.
 */
function withinBound(
  model: BalanceModel,
  rm: RackModel,
  candidate: Int32Array,
  lowerBound: number,
  terms: BandTerms,
): boolean {
  const { split, tolerance: t } = terms;
  if (split < model.partitionCount) return false;
  const load = instanceLoads(model, candidate, split, false);
  const eps = noiseAt(lowerBound);
  if (levelsOf(model, load).max > lowerBound * (1 + t) + eps) return false;
  if (!aboveFloor(model, rm, load, meanLevel(model, split) * (1 - t), t)) return false;
  return !terms.kafka || keepsKafkaRule(model, candidate);
}

/**
 * Kafka's balance rule on the instances: no instance holds a partition that another subscriber
 * of its topic, holding two or more fewer, could take. Matching racks as eligibility levels
 * counts only among in-rack subscribers, which can break it; such a placement is not kept.
 */
function keepsKafkaRule(model: BalanceModel, instance: Int32Array): boolean {
  const count = new Int32Array(model.instanceIds.length);
  for (let p = 0; p < model.partitionCount; p++) count[instance[p]!] = count[instance[p]!]! + 1;
  const fewest = model.subscribersOf.map((subs) => {
    if (subs === undefined) return 0;
    let least = Number.POSITIVE_INFINITY;
    for (const i of subs.instances) least = Math.min(least, count[i]!);
    return least;
  });
  for (let p = 0; p < model.partitionCount; p++) {
    if (count[instance[p]!]! >= fewest[model.topicOf[p]!]! + 2) return false;
  }
  return true;
}

/** Number of weighted partitions: model order is heaviest first, so they are a prefix. */
function weightedCount(model: BalanceModel): number {
  let split = model.partitionCount;
  while (split > 0 && !(model.weight[split - 1]! > 0)) split--;
  return split;
}

/**
 * The highest and lowest level (per unit of capacity) of the instances under `bin` for
 * partitions `[0, to)`: combined load, or with `unit` partition counts (base loads left out).
 */
function levels(model: BalanceModel, bin: Int32Array, to: number, unit: boolean): { max: number; min: number } {
  return levelsOf(model, instanceLoads(model, bin, to, unit));
}

/** The highest and lowest of `load` per unit of capacity. */
function levelsOf(model: BalanceModel, load: Float64Array): { max: number; min: number } {
  const capacity = model.instanceCapacity;
  let max = Number.NEGATIVE_INFINITY;
  let min = Number.POSITIVE_INFINITY;
  for (let b = 0; b < load.length; b++) {
    const level = load[b]! / capacity[b]!;
    if (level > max) max = level;
    if (level < min) min = level;
  }
  return { max, min };
}

/** The mean combined load per unit of capacity of the first `split` partitions and the base loads. */
function meanLevel(model: BalanceModel, split: number): number {
  let mean = 0;
  let totalCapacity = 0;
  for (let b = 0; b < model.instanceIds.length; b++) {
    mean += model.instanceBaseLoad[b]!;
    totalCapacity += model.instanceCapacity[b]!;
  }
  for (let p = 0; p < split; p++) mean += model.weight[p]!;
  return mean / totalCapacity;
}
