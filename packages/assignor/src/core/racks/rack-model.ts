import type { BalanceInput } from '../types.js';
import type { BalanceModel } from '../model/model.js';
import { compareStrings } from '../structures/order.js';

/**
 * The racks of a `balance()` call in index form. Members of one instance share a rack (the
 * smallest one its members report, so the answer does not depend on input order). A partition's
 * racks are reduced to a *rack set*: which of the instances' racks hold one of its replicas.
 * Distinct sets are few (at most 2^racks), so per-set tables stay small whatever the partition count.
 */
export interface RackModel {
  /** The racks some instance is in, sorted; `instanceRack` indexes this. */
  readonly racks: ReadonlyArray<string>;
  /** Rack of each instance, -1 for an instance without a rack. */
  readonly instanceRack: Int32Array;
  /** Rack set of each model partition, -1 for a partition without racks (no preference). */
  readonly setOf: Int32Array;
  /** `local[set * racks.length + r]` is 1 when rack set `set` holds a replica in rack `r`. */
  readonly local: Uint8Array;
  /** Number of distinct rack sets. */
  readonly setCount: number;
  /**
   * True when matching racks can change anything: some partition has a replica in some but not
   * all of the instances' racks. False, placement is exactly what it is without racks.
   */
  readonly active: boolean;
}

/** Rack sets beyond this many are left out (they count as no preference): bounds the tables. */
const MAX_RACK_SETS = 4096;

/**
 * Resolves the racks of `input` against `model`; undefined when no member has a rack, which is
 * the common case and costs one pass over the members.
 */
export function buildRackModel(model: BalanceModel, input: BalanceInput): RackModel | undefined {
  const rackOfInstance = new Map<string, string>();
  for (const m of input.members) {
    if (typeof m.rack !== 'string' || m.rack === '') continue;
    const seen = rackOfInstance.get(m.instanceId);
    if (seen === undefined || compareStrings(m.rack, seen) < 0) rackOfInstance.set(m.instanceId, m.rack);
  }
  if (rackOfInstance.size === 0) return undefined;
  const racks = [...new Set(rackOfInstance.values())].sort(compareStrings);
  const rackIndex = new Map(racks.map((r, i) => [r, i]));
  const instanceRack = Int32Array.from(model.instanceIds, (id) => {
    const rack = rackOfInstance.get(id);
    return rack === undefined ? -1 : rackIndex.get(rack)!;
  });

  const width = racks.length;
  // Each partition's racks as a bit mask over the members' racks; duplicated partitions in the
  // input get the union, so input order cannot matter. Bits beyond 30 racks would not fit: past
  // that many member racks, the racks from the 31st on are treated as holding no replica.
  const maskOf = new Int32Array(model.partitionCount);
  const listed = new Uint8Array(model.partitionCount);
  const bits = Math.min(width, 30);
  for (const p of input.partitions) {
    const given: unknown = p.racks;
    // Plain-JavaScript callers may pass anything here: only an array of strings counts.
    if (!Array.isArray(given) || given.length === 0) continue;
    const index = modelIndex(model, p.topic, p.partition);
    if (index < 0) continue;
    let mask = 0;
    for (const r of given as unknown[]) {
      const at = typeof r === 'string' ? rackIndex.get(r) : undefined;
      if (at !== undefined && at < bits) mask |= 1 << at;
    }
    listed[index] = 1;
    maskOf[index] = maskOf[index]! | mask;
  }

  const full = bits === 31 ? -1 : (1 << bits) - 1;
  const setIds = new Map<number, number>();
  const localRows: number[] = [];
  const setOf = new Int32Array(model.partitionCount).fill(-1);
  let active = false;
  for (let p = 0; p < model.partitionCount; p++) {
    if (listed[p] === 0) continue;
    const mask = maskOf[p]!;
    let id = setIds.get(mask);
    if (id === undefined) {
      if (setIds.size >= MAX_RACK_SETS) continue;
      id = setIds.size;
      setIds.set(mask, id);
      for (let r = 0; r < width; r++) localRows.push(r < bits && mask & (1 << r) ? 1 : 0);
    }
    setOf[p] = id;
    if (mask !== 0 && (mask !== full || bits < width)) active = true;
  }
  return { racks, instanceRack, setOf, local: Uint8Array.from(localRows), setCount: setIds.size, active };
}

/**
 * The model index of `topic`/`partition`, or -1 when the model has no such placeable partition:
 * a binary search among the topic's partitions, which the model keeps in partition order.
 */
function modelIndex(model: BalanceModel, topic: string, partition: number): number {
  const t = model.topicIndex.get(topic);
  if (t === undefined || model.subscribersOf[t] === undefined) return -1;
  let lo = model.topicStart[t]!;
  let hi = model.topicStart[t + 1]!;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (model.partitionOf[model.canonical[mid]!]! < partition) lo = mid + 1;
    else hi = mid;
  }
  if (lo < model.topicStart[t + 1]! && model.partitionOf[model.canonical[lo]!] === partition)
    return model.canonical[lo]!;
  return -1;
}

/** True when partition `p` on instance `i` is fetched from another rack. */
export function isCrossRack(rm: RackModel, p: number, i: number): boolean {
  const set = rm.setOf[p]!;
  const rack = rm.instanceRack[i]!;
  return set >= 0 && rack >= 0 && rm.local[set * rm.racks.length + rack] === 0;
}
