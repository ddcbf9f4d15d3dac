import type { BalanceInput } from '../types.js';
import type { BalanceModel } from '../model.js';
import { compareStrings } from '../order.js';

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

  // Duplicated partitions in the input: the union of their racks, so input order cannot matter.
  const racksByPartition = new Map<string, Map<number, Set<string>>>();
  for (const p of input.partitions) {
    // Plain-JavaScript callers may pass anything here: only an array of strings counts.
    const listed: unknown = p.racks;
    if (!Array.isArray(listed) || listed.length === 0) continue;
    let byNumber = racksByPartition.get(p.topic);
    if (byNumber === undefined) racksByPartition.set(p.topic, (byNumber = new Map<number, Set<string>>()));
    let set = byNumber.get(p.partition);
    if (set === undefined) byNumber.set(p.partition, (set = new Set()));
    for (const r of listed as unknown[]) if (typeof r === 'string') set.add(r);
  }

  const width = racks.length;
  const setIds = new Map<string, number>();
  const localRows: number[] = [];
  const setOf = new Int32Array(model.partitionCount).fill(-1);
  let active = false;
  for (let p = 0; p < model.partitionCount; p++) {
    const held = racksByPartition.get(model.topics[model.topicOf[p]!]!)?.get(model.partitionOf[p]!);
    if (held === undefined || held.size === 0) continue;
    let mask = '';
    let count = 0;
    for (let r = 0; r < width; r++) {
      const has = held.has(racks[r]!);
      mask += has ? '1' : '0';
      if (has) count++;
    }
    let id = setIds.get(mask);
    if (id === undefined) {
      if (setIds.size >= MAX_RACK_SETS) continue;
      id = setIds.size;
      setIds.set(mask, id);
      for (let r = 0; r < width; r++) localRows.push(mask[r] === '1' ? 1 : 0);
    }
    setOf[p] = id;
    if (count > 0 && count < width) active = true;
  }
  return { racks, instanceRack, setOf, local: Uint8Array.from(localRows), setCount: setIds.size, active };
}

/** True when partition `p` on instance `i` is fetched from another rack. */
export function isCrossRack(rm: RackModel, p: number, i: number): boolean {
  const set = rm.setOf[p]!;
  const rack = rm.instanceRack[i]!;
  return set >= 0 && rack >= 0 && rm.local[set * rm.racks.length + rack] === 0;
}
