import type { BalanceModel } from '../model/model.js';
import { setCrossesRack, type RackModel } from './rack-model.js';
import { rackRoom } from './rack-bound.js';

/**
 * The partitions over-full racks let go so the rest fits below `ceiling`: for each rack whose own partitions
 * (in-rack subscribers in that rack only) outweigh what its instances can take at `ceiling`, the lightest set
 * covering the excess, free to go anywhere (`inRackModel`'s `free`). The lower bound's relaxation
 * (rack-bound.ts) made whole: whole partitions cross rather than exactly the excess. Partitions with replicas
 * in two racks or more are left to the search, which has a choice of racks for them.
 */
export function spillOver(model: BalanceModel, rm: RackModel, ceiling: number): Uint8Array {
  const width = rm.racks.length;
  const room = rackRoom(model, rm, ceiling);
  const own: number[][] = Array.from({ length: width }, () => []);
  const demand = new Float64Array(width);
  for (let p = 0; p < model.partitionCount; p++) {
    if (!(model.weight[p]! > 0)) continue;
    const rack = onlyRackOf(model, rm, p);
    if (rack < 0) continue;
    own[rack]!.push(p);
    demand[rack] = demand[rack]! + model.weight[p]!;
  }
  const free = new Uint8Array(model.partitionCount);
  for (let r = 0; r < width; r++) {
    const excess = demand[r]! - room[r]!;
    if (!(excess > 0) || own[r]!.length === 0) continue;
    for (const p of lightestCover(model.weight, own[r]!, excess)) free[p] = 1;
  }
  return free;
}

/** The one rack holding every in-rack subscriber of `p`; -1 for none, two or more, or a rackless subscriber. */
function onlyRackOf(model: BalanceModel, rm: RackModel, p: number): number {
  const set = rm.setOf[p]!;
  if (set < 0) return -1;
  let only = -1;
  for (const b of model.subscribersOf[model.topicOf[p]!]!.instances) {
    const rack = rm.instanceRack[b]!;
    if (rack < 0) return -1;
    if (setCrossesRack(rm, set, rack)) continue;
    if (only >= 0 && only !== rack) return -1;
    only = rack;
  }
  return only;
}

/**
 * A light set of `items` weighing at least `excess`: the lightest until they cover it, then the heaviest of
 * those dropped while the rest still covers; or the lightest single cover, if lighter. (The lightest cover is
 * a knapsack problem; on many small items this is within one item of it.)
 */
function lightestCover(weight: Float64Array, items: ReadonlyArray<number>, excess: number): number[] {
  const ascending = [...items].sort((a, b) => weight[a]! - weight[b]! || a - b);
  const taken: number[] = [];
  let sum = 0;
  for (const p of ascending) {
    if (sum >= excess) break;
    taken.push(p);
    sum += weight[p]!;
  }
  for (let k = taken.length - 1; k >= 0; k--) {
    const w = weight[taken[k]!]!;
    if (sum - w >= excess) {
      sum -= w;
      taken.splice(k, 1);
    }
  }
  const single = ascending.find((p) => weight[p]! >= excess);
  return single !== undefined && weight[single]! < sum ? [single] : taken;
}

/**
 * Lets go more where what stays overflows: on each instance whose combined `load` per unit of capacity is
 * above `ceiling`, marks in `free` the lightest of its unfreed partitions covering the overflow. True if any.
 */
export function spillFromBusiest(
  model: BalanceModel,
  free: Uint8Array,
  instance: Int32Array,
  load: Float64Array,
  ceiling: number,
): boolean {
  const held: number[][] = Array.from({ length: load.length }, () => []);
  for (let p = 0; p < model.partitionCount; p++) {
    if (free[p] === 0 && model.weight[p]! > 0) held[instance[p]!]!.push(p);
  }
  let spilled = false;
  for (let b = 0; b < load.length; b++) {
    const overflow = load[b]! - ceiling * model.instanceCapacity[b]!;
    if (!(overflow > 0) || held[b]!.length === 0) continue;
    for (const p of lightestCover(model.weight, held[b]!, overflow)) free[p] = 1;
    spilled = true;
  }
  return spilled;
}
