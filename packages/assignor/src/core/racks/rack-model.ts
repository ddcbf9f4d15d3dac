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

/** Flag of `buildRackModel`'s masks: the partition is listed with racks. */
const LISTED = 1 << 30;

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
  // Bit 30 marks a partition listed with racks (the masks use bits 0 to 29). Gathered by
  // canonical position, which input order follows, then written to model order in one pass.
  const maskAt = new Int32Array(model.partitionCount);
  const bits = Math.min(width, 30);
  const cursor = new CanonicalCursor(model);
  const partitions = input.partitions;
  // Replicas name a few racks: the last name is checked first, then (with few racks) each in turn.
  const rackOf =
    width <= 8
      ? (name: string): number | undefined => {
          for (let r = 0; r < width; r++) if (racks[r] === name) return r;
          return undefined;
        }
      : (name: string): number | undefined => rackIndex.get(name);
  let lastName = '';
  let lastAt: number | undefined;
  for (let e = 0; e < partitions.length; e++) {
    const p = partitions[e]!;
    const given: unknown = p.racks;
    // Plain-JavaScript callers may pass anything here: only an array of strings counts.
    if (!Array.isArray(given) || given.length === 0) continue;
    const at = cursor.positionOf(p.topic, p.partition);
    if (at < 0) continue;
    let mask = 0;
    for (let k = 0; k < given.length; k++) {
      const r: unknown = given[k];
      if (typeof r !== 'string') continue;
      if (r !== lastName) {
        lastName = r;
        lastAt = rackOf(r);
      }
      if (lastAt !== undefined && lastAt < bits) mask |= 1 << lastAt;
    }
    maskAt[at] = maskAt[at]! | mask | LISTED;
  }
  const maskOf = new Int32Array(model.partitionCount);
  for (let c = 0; c < maskAt.length; c++) maskOf[model.canonical[c]!] = maskAt[c]!;

  const full = bits === 31 ? -1 : (1 << bits) - 1;
  const setIds = new Map<number, number>();
  const localRows: number[] = [];
  const setOf = new Int32Array(model.partitionCount).fill(-1);
  let active = false;
  // Set ids are numbered in partition order. With few racks every mask has a slot in `dense`
  // (-1 until its set is numbered), which saves a map lookup per partition.
  const dense = bits <= 12 ? new Int32Array(1 << bits).fill(-1) : undefined;
  for (let p = 0; p < model.partitionCount; p++) {
    if ((maskOf[p]! & LISTED) === 0) continue;
    const mask = maskOf[p]! & ~LISTED;
    let id = dense === undefined ? (setIds.get(mask) ?? -1) : dense[mask]!;
    if (id < 0) {
      if (setIds.size >= MAX_RACK_SETS) continue;
      id = setIds.size;
      setIds.set(mask, id);
      if (dense !== undefined) dense[mask] = id;
      for (let r = 0; r < width; r++) localRows.push(r < bits && mask & (1 << r) ? 1 : 0);
      if (mask !== 0 && (mask !== full || bits < width)) active = true;
    }
    setOf[p] = id;
  }
  return { racks, instanceRack, setOf, local: Uint8Array.from(localRows), setCount: setIds.size, active };
}

/**
 * Looks up canonical positions of partitions (-1 when the model has no such placeable
 * partition). Each topic's partitions are kept in partition order and callers list them that way
 * too, so the position after a topic's last hit is tried first; a binary search among the topic's
 * partitions otherwise. A class rather than a closure: V8 inlines its method into the loop over
 * 100k partitions, where a closure call per partition was most of that loop's cost.
 */
class CanonicalCursor {
  private readonly next: Int32Array;
  private lastTopic = '';
  /** Index of the last topic looked up, -1 when the model has none such with subscribers. */
  private t = -1;
  /** End of that topic's canonical positions. */
  private end = 0;

  constructor(private readonly model: BalanceModel) {
    this.next = model.topicStart.slice(0, -1);
  }

  positionOf(topic: string, partition: number): number {
    const { model } = this;
    if (topic !== this.lastTopic) {
      this.lastTopic = topic;
      const found = model.topicIndex.get(topic);
      this.t = found === undefined || model.subscribersOf[found] === undefined ? -1 : found;
      this.end = this.t < 0 ? 0 : model.topicStart[this.t + 1]!;
    }
    const t = this.t;
    if (t < 0) return -1;
    const numberAt = model.canonicalPartition;
    const end = this.end;
    let at = this.next[t]!;
    if (!(at < end && numberAt[at] === partition)) {
      let lo = model.topicStart[t]!;
      let hi = end;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (numberAt[mid]! < partition) lo = mid + 1;
        else hi = mid;
      }
      if (!(lo < end && numberAt[lo] === partition)) return -1;
      at = lo;
    }
    this.next[t] = at + 1;
    return at;
  }
}

/** True when partition `p` on instance `i` is fetched from another rack. */
export function isCrossRack(rm: RackModel, p: number, i: number): boolean {
  const set = rm.setOf[p]!;
  const rack = rm.instanceRack[i]!;
  return set >= 0 && rack >= 0 && rm.local[set * rm.racks.length + rack] === 0;
}
