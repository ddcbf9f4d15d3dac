import type { BalanceInput, WeightedPartition } from '../types.js';
import type { BalanceModel } from '../model/model.js';
import type { ListedRacks } from '../model/catalog.js';
import { rackMask, type RackNames } from '../model/rack-mask.js';
import { compareStrings } from '../structures/order.js';

/**
 * The racks of a `balance()` call in index form. Members of one instance share a rack (the smallest one its
 * members report, so input order cannot matter). A partition's racks reduce to a *rack set*: which of the
 * instances' racks hold one of its replicas. Sets are few (at most 2^racks), so per-set tables stay small.
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
  /** True when some partition has a replica in some but not all instances' racks; else placement ignores racks. */
  readonly active: boolean;
}

/** Rack sets beyond this many are left out (they count as no preference): bounds the tables. */
const MAX_RACK_SETS = 4096;

/** Flag of `buildRackModel`'s masks: the partition is listed with racks. */
const LISTED = 1 << 30;

/** The members' racks, resolved first so the catalog's pass can read partitions' racks ({@link rackMask}). */
export interface MemberRacks extends RackNames {
  /** Each instance's rack: the smallest its members report, so input order cannot matter. */
  readonly rackOfInstance: ReadonlyMap<string, string>;
}

/** The members' racks of `input`; undefined when no member has one (one pass over the members). */
export function memberRacksOf(input: BalanceInput): MemberRacks | undefined {
  const rackOfInstance = new Map<string, string>();
  for (const m of input.members) {
    if (typeof m.rack !== 'string' || m.rack === '') continue;
    const seen = rackOfInstance.get(m.instanceId);
    if (seen === undefined || compareStrings(m.rack, seen) < 0) rackOfInstance.set(m.instanceId, m.rack);
  }
  if (rackOfInstance.size === 0) return undefined;
  const racks = [...new Set(rackOfInstance.values())].sort(compareStrings);
  const rackIndex = new Map(racks.map((r, i) => [r, i]));
  return { racks, rackIndex, bits: Math.min(racks.length, 30), rackOfInstance };
}

/** Resolves the partitions' racks (read by the catalog, or looked up) against `members`' racks. */
export function buildRackModel(model: BalanceModel, input: BalanceInput, members: MemberRacks): RackModel {
  const { racks, bits } = members;
  const instanceRack = Int32Array.from(model.instanceIds, (id) => {
    const rack = members.rackOfInstance.get(id);
    return rack === undefined ? -1 : members.rackIndex.get(rack)!;
  });
  const width = racks.length;
  const sets =
    (model.listedRacks === undefined ? undefined : setsOfListed(model, model.listedRacks, bits)) ??
    setsOfMasks(gatherMasks(model, input.partitions, members), bits);

  const full = (1 << bits) - 1;
  const localRows: number[] = [];
  let active = false;
  for (const mask of sets.maskOfSet) {
    for (let r = 0; r < width; r++) localRows.push(r < bits && mask & (1 << r) ? 1 : 0);
    if (mask !== 0 && (mask !== full || bits < width)) active = true;
  }
  const { setOf, maskOfSet } = sets;
  return { racks, instanceRack, setOf, local: Uint8Array.from(localRows), setCount: maskOfSet.length, active };
}

/** Each model partition's rack set (-1: none), and each set's mask over the members' racks. */
interface RackSets {
  readonly setOf: Int32Array;
  readonly maskOfSet: ReadonlyArray<number>;
}

/** Rack sets numbered in model order from {@link gatherMasks}'s masks, in place; past {@link MAX_RACK_SETS}: -1. */
function setsOfMasks(maskOf: Int32Array, bits: number): RackSets {
  const setIds = new Map<number, number>();
  const maskOfSet: number[] = [];
  const setOf = maskOf;
  const dense = bits <= 12 ? new Int32Array(1 << bits).fill(-1) : undefined;
  for (let p = 0; p < maskOf.length; p++) {
    const listed = maskOf[p]!;
    setOf[p] = -1;
    if ((listed & LISTED) === 0) continue;
    const mask = listed & ~LISTED;
    setOf[p] = setIdOf(mask, setIds, dense, maskOfSet);
  }
  return { setOf, maskOfSet };
}

/**
 * The set id of `mask`, numbering it next if new; -1 once {@link MAX_RACK_SETS} sets are numbered. With few
 * racks every mask has a slot in `dense` (-1 until numbered), saving a map lookup per partition.
 */
function setIdOf(
  mask: number,
  setIds: Map<number, number>,
  dense: Int32Array | undefined,
  maskOfSet: number[],
): number {
  const known = dense === undefined ? (setIds.get(mask) ?? -1) : dense[mask]!;
  if (known >= 0 || setIds.size >= MAX_RACK_SETS) return known;
  const id = setIds.size;
  setIds.set(mask, id);
  if (dense !== undefined) dense[mask] = id;
  maskOfSet.push(mask);
  return id;
}

/**
 * {@link setsOfMasks} from the catalog's rack masks in one pass, reading no input object again. Sets are
 * numbered in input order, then renumbered in model order if that differs. Undefined past
 * {@link MAX_RACK_SETS} sets, where which sets are left out would depend on that order.
 */
function setsOfListed(model: BalanceModel, listed: ListedRacks, bits: number): RackSets | undefined {
  const setOf = new Int32Array(model.partitionCount).fill(-1);
  const { masks, position } = listed;
  const canonical = model.canonical;
  const setIds = new Map<number, number>();
  const dense = bits <= 12 ? new Int32Array(1 << bits).fill(-1) : undefined;
  const maskOfSet: number[] = [];
  const first: number[] = [];
  let lastMask = -1;
  let lastId = -1;
  for (let e = 0; e < masks.length; e++) {
    const mask = masks[e]!;
    if (mask !== lastMask) {
      lastMask = mask;
      lastId = -1;
      if (mask >= 0) {
        lastId = setIdOf(mask, setIds, dense, maskOfSet);
        if (lastId < 0) return undefined;
        if (lastId === first.length) first.push(model.partitionCount);
      }
    }
    if (lastId < 0) continue;
    const p = canonical[position[e]!]!;
    setOf[p] = lastId;
    if (p < first[lastId]!) first[lastId] = p;
  }
  const order = maskOfSet.map((_, id) => id).sort((a, b) => first[a]! - first[b]!);
  if (order.every((id, k) => id === k)) return { setOf, maskOfSet };
  const renumbered = new Int32Array(order.length);
  order.forEach((id, k) => (renumbered[id] = k));
  for (let p = 0; p < setOf.length; p++) if (setOf[p]! >= 0) setOf[p] = renumbered[setOf[p]!]!;
  return { setOf, maskOfSet: order.map((id) => maskOfSet[id]!) };
}

/**
 * Each model partition's racks as a bit mask over the members' racks ({@link rackMask}), with {@link LISTED}
 * set where it is listed with racks at all; duplicates get the union, so input order cannot matter. For input
 * the catalog kept no masks of. A position is looked up by topic and number: the one after the topic's last
 * hit first (callers list partitions in order), else a binary search among the topic's partitions.
 * One loop with no closure of its own: optimized code that inlined a per-call closure was thrown away at every
 * full collection, and the loop then ran much slower.
 */
function gatherMasks(
  model: BalanceModel,
  partitions: ReadonlyArray<WeightedPartition>,
  members: MemberRacks,
): Int32Array {
  const maskOf = new Int32Array(model.partitionCount);
  const { canonical, canonicalPartition: numberAt, topicStart, topicIndex, subscribersOf } = model;
  const next = topicStart.slice(0, -1);
  let lastTopic = '';
  let t = -1;
  let end = 0;
  // Lists of equal racks are often one shared array (the adapters share them): its mask is kept.
  let lastGiven: unknown;
  let mask = -1;
  for (let e = 0; e < partitions.length; e++) {
    const p = partitions[e]!;
    const given: unknown = p.racks;
    if (given !== lastGiven) {
      lastGiven = given;
      mask = rackMask(given, members);
    }
    if (mask < 0) continue;
    if (p.topic !== lastTopic) {
      lastTopic = p.topic;
      const found = topicIndex.get(p.topic);
      t = found === undefined || subscribersOf[found] === undefined ? -1 : found;
      end = t < 0 ? 0 : topicStart[t + 1]!;
    }
    if (t < 0) continue;
    const partition = p.partition;
    let at = next[t]!;
    if (!(at < end && numberAt[at] === partition)) {
      let lo = topicStart[t]!;
      let hi = end;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (numberAt[mid]! < partition) lo = mid + 1;
        else hi = mid;
      }
      if (!(lo < end && numberAt[lo] === partition)) continue;
      at = lo;
    }
    next[t] = at + 1;
    const q = canonical[at]!;
    maskOf[q] = maskOf[q]! | mask | LISTED;
  }
  return maskOf;
}

/** True when partition `p` on instance `i` is fetched from another rack. */
export function isCrossRack(rm: RackModel, p: number, i: number): boolean {
  return setCrossesRack(rm, rm.setOf[p]!, rm.instanceRack[i]!);
}

/** True when rack set `set` is fetched across racks on an instance in `rack`; -1 (none) on either side never is. */
export function setCrossesRack(rm: RackModel, set: number, rack: number): boolean {
  return set >= 0 && rack >= 0 && rm.local[set * rm.racks.length + rack] === 0;
}
