import type { BalanceModel } from '../model/model.js';
import type { RackModel } from './rack-model.js';

/** Racks (plus "no rack") beyond this many: the bound gives 0, leaving the caller's forced weight as the bound. */
const MAX_EXACT_SINKS = 10;

/**
 * No placement whose busiest instance carries at most `level` per unit of capacity (combined load, as
 * `maxCombinedLoad`) can fetch less weight across racks than this.
 *
 * The relaxation lets partitions split and forgets which instance in a rack takes them: each rack offers
 * `level × capacity − base load` over its instances, rackless instances form one more "rack" local to
 * everything, and a partition may go in-rack only to racks where an instance subscribes to its topic. The
 * most weight in-rack is a maximum flow, by max-flow/min-cut the least over sets T of racks of T's room plus
 * the weight with an in-rack choice outside T. Partitions are grouped by in-rack choices, so this costs
 * 4^racks, not the partition count.
 */
export function crossRackLowerBound(model: BalanceModel, rm: RackModel, level: number): number {
  const width = rm.racks.length;
  const sinks = width + 1;
  if (sinks > MAX_EXACT_SINKS) return 0;
  const room = rackRoom(model, rm, level);
  // In-rack choices (a mask over the sinks) per (topic, rack set), -1 until found; weights summed per mask.
  const sets = rm.setCount;
  const choicesOf = new Map<Int32Array, Int32Array>();
  const maskOfPair: Int32Array[] = [];
  const weightOf = new Float64Array(1 << sinks);
  const seen = new Uint8Array(1 << sinks);
  let racked = 0;
  for (let p = 0; p < model.partitionCount; p++) {
    const set = rm.setOf[p]!;
    const w = model.weight[p]!;
    if (set < 0 || !(w > 0)) continue;
    racked += w;
    const t = model.topicOf[p]!;
    let perSet = maskOfPair[t];
    if (perSet === undefined) {
      // Topics with equal subscribers share arrays, and so their masks.
      const subscribers = model.subscribersOf[t]!.instances;
      perSet = choicesOf.get(subscribers);
      if (perSet === undefined) choicesOf.set(subscribers, (perSet = new Int32Array(sets).fill(-1)));
      maskOfPair[t] = perSet;
    }
    let mask = perSet[set]!;
    if (mask < 0) {
      mask = 0;
      for (const b of model.subscribersOf[t]!.instances) {
        const rack = rm.instanceRack[b]!;
        if (rack < 0) mask |= 1 << width;
        else if (rm.local[set * width + rack] === 1) mask |= 1 << rack;
      }
      perSet[set] = mask;
    }
    weightOf[mask] = weightOf[mask]! + w;
    seen[mask] = 1;
  }
  if (racked === 0) return 0;
  const masks: number[] = [];
  const weights: number[] = [];
  for (let m = 0; m < seen.length; m++) {
    if (seen[m] === 0) continue;
    masks.push(m);
    weights.push(weightOf[m]!);
  }
  let inRack = Number.POSITIVE_INFINITY;
  for (let cut = 0; cut < 1 << sinks; cut++) {
    let cost = 0;
    for (let r = 0; r < sinks; r++) if (cut & (1 << r)) cost += room[r]!;
    for (let c = 0; c < masks.length; c++) if (masks[c]! & ~cut) cost += weights[c]!;
    if (cost < inRack) inRack = cost;
  }
  return Math.max(0, racked - inRack);
}

/** What each rack's instances can take at `level` per unit of capacity less base loads; last entry: no rack. */
export function rackRoom(model: BalanceModel, rm: RackModel, level: number): Float64Array {
  const width = rm.racks.length;
  const room = new Float64Array(width + 1);
  for (let b = 0; b < model.instanceIds.length; b++) {
    const rack = rm.instanceRack[b]! < 0 ? width : rm.instanceRack[b]!;
    room[rack] = room[rack]! + Math.max(0, level * model.instanceCapacity[b]! - model.instanceBaseLoad[b]!);
  }
  return room;
}
