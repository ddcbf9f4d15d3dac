import type { BalanceModel } from '../model/model.js';
import { crossRackLowerBound } from './rack-bound.js';
import { isCrossRack, type RackModel } from './rack-model.js';

/** How much of a placement is fetched across racks (see the `BalanceResult` fields of the same names). */
export interface RackTally {
  readonly crossRackWeight: number;
  readonly crossRackPartitions: number;
  readonly crossRackLowerBound: number;
  readonly crossRackForcedWeight: number;
}

/** Nothing crosses racks: no member has a rack. */
export const NO_RACKS: RackTally = Object.freeze({
  crossRackWeight: 0,
  crossRackPartitions: 0,
  crossRackLowerBound: 0,
  crossRackForcedWeight: 0,
});

/** Counts the cross-rack partitions and their weight, and the least cross-rack weight possible at `level`. */
export function tallyRacks(model: BalanceModel, rm: RackModel, instance: Int32Array, level: number): RackTally {
  let crossRackWeight = 0;
  let crossRackPartitions = 0;
  let crossRackForcedWeight = 0;
  for (let p = 0; p < model.partitionCount; p++) {
    if (!isCrossRack(rm, p, instance[p]!)) continue;
    crossRackWeight += model.weight[p]!;
    crossRackPartitions++;
    if (!hasInRackSubscriber(model, rm, p)) crossRackForcedWeight += model.weight[p]!;
  }
  // Summed in another order, the bound is capped at what was reached; the flow is skipped when only the
  // forced weight crosses, as nothing can beat that.
  const bound =
    crossRackWeight <= crossRackForcedWeight
      ? crossRackWeight
      : Math.min(crossRackWeight, Math.max(crossRackForcedWeight, crossRackLowerBound(model, rm, level)));
  return { crossRackWeight, crossRackPartitions, crossRackLowerBound: bound, crossRackForcedWeight };
}

/** True when an instance in a rack of `p`'s replicas, or one without a rack, subscribes to its topic. */
function hasInRackSubscriber(model: BalanceModel, rm: RackModel, p: number): boolean {
  for (const i of model.subscribersOf[model.topicOf[p]!]!.instances) if (!isCrossRack(rm, p, i)) return true;
  return false;
}
