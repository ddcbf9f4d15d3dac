import type { BalanceModel } from '../model/model.js';
import { noiseAt } from '../structures/numbers.js';
import type { RackModel } from './rack-model.js';
import { aboveFloor, instanceLoads } from './rack-floor.js';
import { equalTerms } from '../model/terms.js';
import { weightedCount } from '../model/weights.js';

/* The band a placement with racks must stay in: as balanced as without (docs/racks.md, "How placement chooses"). */

/** What the bands are judged on, worked out once per call (each a pass over the partitions). */
export interface BandTerms {
  /** Number of weighted partitions (see {@link weightedCount}). */
  readonly split: number;
  /** The tolerance the bands allow: none on equal terms, where counts are held exactly. */
  readonly tolerance: number;
  /** Equal weights, capacities and base loads, all partitions weighted or none: {@link keepsKafkaRule} must hold. */
  readonly kafka: boolean;
}

/** The {@link BandTerms} of `model` at the caller's `tolerance`. */
export function bandTerms(model: BalanceModel, tolerance: number): BandTerms {
  const split = weightedCount(model.weight);
  const equal = equalTerms(model.weight, split, model.instanceCapacity, model.instanceBaseLoad);
  return {
    split,
    tolerance: equal ? 0 : tolerance,
    kafka: equal && (split === model.partitionCount || split === 0),
  };
}

/**
 * True when `candidate` is as balanced as `reference`: its busiest instance (combined load per unit of
 * capacity) no higher than the larger of the reference's and the lower bound plus the tolerance; its least
 * busy no lower than the smaller of the reference's less half the tolerance and the mean less the tolerance,
 * or than its rack's mean less the tolerance ({@link aboveFloor}). On equal terms the band is the reference's
 * own levels. Where every partition weighs zero the candidate must keep the reference's count levels; else
 * the load band alone is the balance.
 */
export function withinBand(
  model: BalanceModel,
  rm: RackModel,
  candidate: Int32Array,
  reference: { readonly instance: Int32Array; readonly lowerBound: number },
  terms: BandTerms,
): boolean {
  const { split, tolerance: t } = terms;
  const ref = levels(model, reference.instance, split, false);
  const ceiling = Math.max(ref.max, reference.lowerBound * (1 + t)) + noiseAt(ref.max);
  const floor = Math.min(ref.min * (1 - t / 2), meanLevel(model, split) * (1 - t));
  if (!inBand(model, rm, candidate, ceiling, floor, terms)) return false;
  if (split > 0) return true;
  // Every partition weighs zero: balance is the count.
  const refCount = levels(model, reference.instance, model.partitionCount, true);
  const gotCount = levels(model, candidate, model.partitionCount, true);
  return gotCount.max <= refCount.max + 1e-9 && gotCount.min >= refCount.min - 1e-9;
}

/**
 * The part of {@link withinBand} that needs no reference: busiest within the tolerance of the lower bound,
 * least busy within it of the mean (or its rack's mean). Every reference's band contains this one. Never true
 * where every partition weighs zero, whose band is the reference's counts.
 */
export function withinBound(
  model: BalanceModel,
  rm: RackModel,
  candidate: Int32Array,
  lowerBound: number,
  terms: BandTerms,
): boolean {
  const { split, tolerance: t } = terms;
  if (split === 0) return false;
  const ceiling = lowerBound * (1 + t) + noiseAt(lowerBound);
  return inBand(model, rm, candidate, ceiling, meanLevel(model, split) * (1 - t), terms);
}

/**
 * True when `candidate`'s busiest instance is at most `ceiling` (noise included), every instance
 * is above `floor` ({@link aboveFloor}) and, on Kafka's terms, the counts keep Kafka's rule.
 */
function inBand(
  model: BalanceModel,
  rm: RackModel,
  candidate: Int32Array,
  ceiling: number,
  floor: number,
  terms: BandTerms,
): boolean {
  const load = instanceLoads(model, candidate, terms.split, false);
  if (levelsOf(load, model.instanceCapacity).max > ceiling) return false;
  if (!aboveFloor(model, rm, load, floor, terms.tolerance)) return false;
  return !terms.kafka || keepsKafkaRule(model, candidate);
}

/**
 * Kafka's balance rule on the instances: no instance holds a partition that another subscriber of its topic,
 * holding two or more fewer, could take. Racks as eligibility can break it; such a placement is not kept.
 */
export function keepsKafkaRule(model: BalanceModel, instance: Int32Array): boolean {
  const count = instanceLoads(model, instance, model.partitionCount, true);
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

/**
 * The highest and lowest level (per unit of capacity) of the instances under `bin` for
 * partitions `[0, to)`: combined load, or with `unit` partition counts (base loads left out).
 */
export function levels(model: BalanceModel, bin: Int32Array, to: number, unit: boolean): { max: number; min: number } {
  return levelsOf(instanceLoads(model, bin, to, unit), model.instanceCapacity);
}

/** The highest and lowest of `load` per unit of `capacity`, instance by instance. */
export function levelsOf(load: Float64Array, capacity: Float64Array): { max: number; min: number } {
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
