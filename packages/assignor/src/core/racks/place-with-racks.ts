import type { BalanceModel } from '../model/model.js';
import type { PreviousOwners } from '../model/previous.js';
import { placeOnInstances, type LevelSettings } from '../solve/levels.js';
import { inRackModel } from './in-rack-model.js';
import { matchRacks } from './rack-pass.js';
import type { RackModel } from './rack-model.js';
import { equalTerms } from './terms.js';

/**
 * The instance of every partition when racks can matter, given the placement the load search
 * found without them (`byLoad`, whose moves `settings.moves` already counts):
 *
 * 1. Solve the instance level again with racks as eligibility ({@link inRackModel}): every
 *    partition that has an in-rack subscriber goes to one. Its own search budget, so the first
 *    solve's cannot starve it; sticky to the previous owners where they are in-rack.
 * 2. Keep that if its balance is within the band of `byLoad` (see {@link withinBand}) and its
 *    moves fit `maxMovesPerRebalance`: cross-rack weight is then the least possible (only
 *    partitions without an in-rack subscriber cross).
 * 3. Otherwise keep `byLoad` and improve its locality inside the band ({@link matchRacks}).
 *
 * Returns the chosen instances; updates `settings.moves` to the moves the choice makes.
 */
export function placeWithRacks(
  model: BalanceModel,
  rm: RackModel,
  previous: PreviousOwners,
  settings: LevelSettings,
  byLoad: { readonly instance: Int32Array; readonly lowerBound: number },
  searchBudget: number,
): Int32Array {
  const restricted = inRackModel(model, rm);
  // Owners outside every in-rack subscriber cannot be homes of the restricted problem: those
  // partitions move whatever happens, each a counted move when its owner is still valid.
  const member = Int32Array.from(previous.member);
  const instance = Int32Array.from(previous.instance);
  let forced = 0;
  for (let p = 0; p < model.partitionCount; p++) {
    const home = instance[p]!;
    if (home < 0 || eligible(restricted, p, home)) continue;
    if (member[p]! >= 0) forced++;
    member[p] = -1;
    instance[p] = -1;
  }
  const moves = { limit: settings.moves.limit, used: forced };
  const inRack =
    forced > moves.limit
      ? undefined
      : placeOnInstances(
          restricted,
          { ...previous, member, instance },
          { tolerance: settings.tolerance, budget: { remaining: searchBudget }, moves },
        );
  if (inRack !== undefined && withinBand(model, inRack.instance, byLoad, settings.tolerance)) {
    settings.moves.used = moves.used;
    return inRack.instance;
  }
  const home = previous.instance;
  const counted = Uint8Array.from(previous.member, (m, p) => (m >= 0 && home[p]! >= 0 ? 1 : 0));
  matchRacks(model, rm, byLoad.instance, { home, counted }, settings, byLoad.lowerBound);
  return byLoad.instance;
}

/** True when instance `i` may take partition `p` in `model`. */
function eligible(model: BalanceModel, p: number, i: number): boolean {
  const list = model.subscribersOf[model.topicOf[p]!]!.instances;
  for (let k = 0; k < list.length; k++) if (list[k] === i) return true;
  return false;
}

/**
 * True when `candidate` is as balanced as `reference` by the rule rack matching keeps: its
 * busiest instance (combined load per unit of capacity) no higher than the larger of the
 * reference's and the lower bound plus the tolerance, its least busy no lower than the smaller
 * of the reference's less half the tolerance and the mean less the tolerance (the band the next
 * rebalance's search accepts as it is). On equal terms (equal weights and capacities, no base
 * loads) the band is the reference's own levels, and zero-weight partitions, placed by count,
 * must keep the reference's count levels in any case.
 */
function withinBand(
  model: BalanceModel,
  candidate: Int32Array,
  reference: { readonly instance: Int32Array; readonly lowerBound: number },
  tolerance: number,
): boolean {
  const bins = model.instanceIds.length;
  const capacity = model.instanceCapacity;
  let split = model.partitionCount;
  while (split > 0 && !(model.weight[split - 1]! > 0)) split--;
  const levels = (bin: Int32Array, from: number, to: number, unit: boolean): { max: number; min: number } => {
    const load = unit ? new Float64Array(bins) : Float64Array.from(model.instanceBaseLoad);
    for (let p = from; p < to; p++) load[bin[p]!] = load[bin[p]!]! + (unit ? 1 : model.weight[p]!);
    let max = Number.NEGATIVE_INFINITY;
    let min = Number.POSITIVE_INFINITY;
    for (let b = 0; b < bins; b++) {
      const level = load[b]! / capacity[b]!;
      if (level > max) max = level;
      if (level < min) min = level;
    }
    return { max, min };
  };
  const equal = equalTerms(model, split);
  const ref = levels(reference.instance, 0, split, false);
  const got = levels(candidate, 0, split, false);
  const eps = 1e-9 * Math.max(1, Math.abs(ref.max));
  let mean = 0;
  let totalCapacity = 0;
  for (let b = 0; b < bins; b++) {
    mean += model.instanceBaseLoad[b]!;
    totalCapacity += capacity[b]!;
  }
  for (let p = 0; p < split; p++) mean += model.weight[p]!;
  mean /= totalCapacity;
  const t = equal ? 0 : tolerance;
  const ceiling = Math.max(ref.max, reference.lowerBound * (1 + t));
  const floor = Math.min(ref.min * (1 - t / 2), mean * (1 - t));
  if (got.max > ceiling + eps || got.min < floor - eps) return false;
  if (split === model.partitionCount) return true;
  // Counts include the weighted partitions, as the zero-weight phase counts them.
  const refCount = levels(reference.instance, 0, model.partitionCount, true);
  const gotCount = levels(candidate, 0, model.partitionCount, true);
  return gotCount.max <= refCount.max + 1e-9 && gotCount.min >= refCount.min - 1e-9;
}
