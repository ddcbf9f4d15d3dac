import type { BalanceModel } from '../model/model.js';
import type { RackModel } from './rack-model.js';

/** Racks (plus "no rack") beyond this many: the bound falls back to the forced cross-rack weight. */
const MAX_EXACT_SINKS = 10;

/**
 * No placement whose busiest instance carries at most `level` per unit of capacity (combined
 * load, as `maxCombinedLoad`) can fetch less weight across racks than this.
 *
 * The relaxation lets partitions split at will and forgets which instance inside a rack takes
 * them: each rack offers `level × capacity − base load` summed over its instances, instances
 * without a rack form one more "rack" local to everything, and each partition may go in-rack
 * only to racks where an instance subscribes to its topic. The most weight that can go in-rack
 * is then a maximum flow from partitions to racks, which by max-flow/min-cut is the least, over
 * sets T of racks, of T's room plus the weight of the partitions with an in-rack choice outside
 * T. Partitions are grouped by their in-rack choices first, so this costs 4^racks, not the
 * partition count. Zero-weight partitions weigh nothing here.
 */
export function crossRackLowerBound(model: BalanceModel, rm: RackModel, level: number): number {
  const width = rm.racks.length;
  const sinks = width + 1;
  const room = new Float64Array(sinks);
  for (let b = 0; b < model.instanceIds.length; b++) {
    const rack = rm.instanceRack[b]!;
    const free = level * model.instanceCapacity[b]! - model.instanceBaseLoad[b]!;
    if (free > 0) room[rack < 0 ? width : rack] = room[rack < 0 ? width : rack]! + free;
  }
  // In-rack choices of each (subscribers, rack set) pair: topics with equal subscribers share arrays.
  const choicesOf = new Map<Int32Array, Map<number, number>>();
  const byChoices = new Map<number, number>();
  let racked = 0;
  for (let p = 0; p < model.partitionCount; p++) {
    const set = rm.setOf[p]!;
    const w = model.weight[p]!;
    if (set < 0 || !(w > 0)) continue;
    racked += w;
    const subscribers = model.subscribersOf[model.topicOf[p]!]!.instances;
    let perSet = choicesOf.get(subscribers);
    if (perSet === undefined) choicesOf.set(subscribers, (perSet = new Map<number, number>()));
    let mask = perSet.get(set);
    if (mask === undefined) {
      mask = 0;
      for (const b of subscribers) {
        const rack = rm.instanceRack[b]!;
        if (rack < 0) mask |= 1 << width;
        else if (rm.local[set * width + rack] === 1) mask |= 1 << rack;
      }
      perSet.set(set, mask);
    }
    byChoices.set(mask, (byChoices.get(mask) ?? 0) + w);
  }
  if (racked === 0) return 0;
  const masks = [...byChoices.keys()].sort((x, y) => x - y);
  const weights = masks.map((m) => byChoices.get(m)!);
  if (sinks > MAX_EXACT_SINKS) return byChoices.get(0) ?? 0;
  let inRack = Number.POSITIVE_INFINITY;
  for (let cut = 0; cut < 1 << sinks; cut++) {
    let cost = 0;
    for (let r = 0; r < sinks; r++) if (cut & (1 << r)) cost += room[r]!;
    for (let c = 0; c < masks.length; c++) if (masks[c]! & ~cut) cost += weights[c]!;
    if (cost < inRack) inRack = cost;
  }
  return Math.max(0, racked - inRack);
}
