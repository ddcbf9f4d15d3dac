import type { WeightedPartition } from '../types.js';
import { compareStrings, isAscending } from '../structures/order.js';
import { isUsableWeight, weightScale } from './weights.js';
import { orderHeaviestFirst } from '../structures/heaviest-first.js';
import { rackMask, type RackNames } from './rack-mask.js';

/**
 * The caller's partitions resolved once, in index form: each distinct partition once with its effective
 * weight, in two orders. Arrays, not an object per partition: at 100k, small objects and the string
 * comparisons sorting them cost more than everything placement does with them.
 */
export interface PartitionCatalog {
  /** Topic names, sorted by code unit. `topic[c]` indexes this. */
  readonly topics: ReadonlyArray<string>;
  /** Index of each name of {@link topics}. */
  readonly topicIndex: ReadonlyMap<string, number>;
  /** Topic of each partition, in canonical order (topic, then partition number). */
  readonly topic: Int32Array;
  /** Partition number of each partition, canonical order. */
  readonly partition: ArrayLike<number>;
  /** Effective weight of each partition (defaulted ones included, scaled), canonical order. */
  readonly weight: Float64Array;
  /** 1 when the partition had no usable weight and got the default. */
  readonly defaulted: Uint8Array;
  /** Canonical positions of topic `t`'s partitions: `[topicStart[t], topicStart[t + 1])`. */
  readonly topicStart: Int32Array;
  /** Canonical positions heaviest first, ties in canonical order: the order placement uses. */
  readonly heaviestFirst: Int32Array;
  /** See {@link weightScale}; 1 unless the weights' sum would overflow. */
  readonly scale: number;
  /** See {@link ListedRacks}; undefined unless asked for and the input is in the usual order. */
  readonly listedRacks: ListedRacks | undefined;
}

/**
 * Each input entry's rack mask ({@link rackMask}: -1 for none) and canonical position, read in the catalog's
 * pass so rack matching need not visit the input again. Kept only for the usual input (each topic's
 * partitions one ascending run), where positions need no lookup.
 */
export interface ListedRacks {
  readonly masks: Int32Array;
  /** Canonical position of entry `e`. */
  readonly position: Int32Array;
}

/**
 * Resolves every partition's effective weight by the rule of `PartitionWeightTable` (the largest usable one,
 * else `defaultWeight`) and orders them canonically and heaviest first, so nothing downstream depends on the
 * caller's order. Where the sum could overflow, all are scaled by {@link weightScale}; `alsoSummed` describes
 * other values summed with them (base loads), which the scale must cover too. Input listing each topic's
 * partitions once in ascending order, often with one weight for all, is detected: no map or sort runs then.
 */
export function resolveCatalog(
  partitions: ReadonlyArray<WeightedPartition>,
  defaultWeight: number,
  alsoSummed: { readonly heaviest: number; readonly count: number } = { heaviest: 0, count: 0 },
  rackNames?: RackNames,
): PartitionCatalog {
  const entries = readEntries(partitions, rackNames);
  const { names } = entries;
  const rank = Array.from(names.keys()).sort((a, b) => compareStrings(names[a]!, names[b]!));
  const topics = rank.map((t) => names[t]!);

  const n = partitions.length;
  const out: CanonicalArrays = {
    topic: new Int32Array(n),
    partition: entries.int32 ? new Int32Array(n) : entries.numeric ? new Float64Array(n) : new Array<number>(n),
    raw: new Float64Array(n),
    count: 0,
  };
  const topicStart = new Int32Array(topics.length + 1);
  const grouped = entries.runStart === undefined ? groupEntries(entries, rank) : undefined;
  // Entry positions while every topic is one ascending run (copied one to one).
  let position = entries.rackMasks !== undefined && grouped === undefined ? new Int32Array(n) : undefined;
  for (let t = 0; t < topics.length; t++) {
    topicStart[t] = out.count;
    if (grouped === undefined) {
      // Each topic's entries are one run of the input: copy the run, or resolve it as a group.
      const start = entries.runStart![rank[t]!]!;
      const size = entries.size[rank[t]!]!;
      const at = out.count;
      if (copyAscendingRun(start, size, t, entries, out)) {
        if (position !== undefined) for (let k = 0; k < size; k++) position[start + k] = at + k;
      } else {
        position = undefined;
        appendUnique(
          Int32Array.from({ length: size }, (_, k) => start + k),
          t,
          entries,
          out,
        );
      }
    } else {
      appendUnique(grouped.entries.subarray(grouped.firstOf[t], grouped.firstOf[t + 1]), t, entries, out);
    }
  }
  const count = out.count;
  topicStart[topics.length] = count;

  // The raw weights become the effective ones in place (the raw array is not needed after).
  const weight = out.raw.subarray(0, count);
  const defaulted = new Uint8Array(count);
  for (let c = 0; c < count; c++) {
    if (weight[c]! < 0) {
      weight[c] = defaultWeight;
      defaulted[c] = 1;
    }
  }
  const heaviestFirst = orderHeaviestFirst(weight);
  const scale = weightScale(
    Math.max(count === 0 ? 0 : weight[heaviestFirst[0]!]!, alsoSummed.heaviest),
    count + alsoSummed.count,
  );
  // Defaulted weights are in the source's units too: they scale with the measured ones.
  if (scale !== 1) for (let c = 0; c < count; c++) weight[c] = weight[c]! * scale;
  return {
    topics,
    topicIndex: new Map(topics.map((name, t) => [name, t])),
    // Without duplicates (the usual input) the arrays are full: no copy.
    topic: count === n ? out.topic : out.topic.slice(0, count),
    partition: count === n ? out.partition : out.partition.slice(0, count),
    weight,
    defaulted,
    topicStart,
    heaviestFirst,
    scale,
    listedRacks: position === undefined ? undefined : { masks: entries.rackMasks!, position },
  };
}

/** The input read once into arrays, entries in arrival order. */
interface Entries {
  /** Topic names in order of first appearance; `topic` indexes this. */
  readonly names: string[];
  /** Entries per name. */
  readonly size: number[];
  readonly topic: Int32Array;
  /** Partition numbers (-0 as 0); a plain array if some entry's is not a number. */
  readonly partition: Float64Array | number[];
  readonly numeric: boolean;
  /**
   * Every partition number is a 32-bit integer (always, with Kafka): kept in an Int32Array, they reach the
   * result's objects as small integers, where a Float64Array would box each in a heap number.
   */
  readonly int32: boolean;
  /** Usable weight, or -1 for none. */
  readonly raw: Float64Array;
  /** First entry of each name when each name's entries are one run of the input, else undefined. */
  readonly runStart: number[] | undefined;
  /** Each entry's rack mask, when there are rack names to read them against. */
  readonly rackMasks: Int32Array | undefined;
}

/** Canonical arrays being filled, and how many entries they hold. */
interface CanonicalArrays {
  readonly topic: Int32Array;
  readonly partition: Int32Array | Float64Array | number[];
  readonly raw: Float64Array;
  count: number;
}

function readEntries(partitions: ReadonlyArray<WeightedPartition>, rackNames: RackNames | undefined): Entries {
  const n = partitions.length;
  const rackMasks = rackNames === undefined ? undefined : new Int32Array(n);
  // Lists of equal racks are often one shared array (the adapters share them): its mask is kept.
  let lastRacks: unknown;
  let lastMask = -1;
  const index = new Map<string, number>();
  const names: string[] = [];
  const size: number[] = [];
  const topic = new Int32Array(n);
  let numbers: Float64Array | number[] = new Float64Array(n);
  let numeric = true;
  let int32 = true;
  const raw = new Float64Array(n);
  // Consecutive entries usually share a topic: compare with the last one before hashing.
  let lastTopic = '';
  let last = -1;
  let runStart: number[] | undefined = [];
  for (let e = 0; e < n; e++) {
    const p = partitions[e]!;
    const name = p.topic;
    let t = last >= 0 && name === lastTopic ? last : index.get(name);
    if (t === undefined) {
      t = names.length;
      index.set(name, t);
      names.push(name);
      size.push(0);
      runStart?.push(e);
    } else if (t !== last) {
      runStart = undefined; // a topic listed again after another one
    }
    lastTopic = name;
    last = t;
    topic[e] = t;
    size[t] = size[t]! + 1;
    // -0 is usable but must not leak, as in PartitionWeightTable (a -0 partition number neither).
    const number = p.partition === 0 ? 0 : p.partition;
    if (numeric && typeof number !== 'number') {
      // Not what the types allow, but the result must still name the partition as given.
      numbers = Array.from(numbers);
      numeric = false;
    }
    numbers[e] = number;
    if (int32 && (number | 0) !== number) int32 = false;
    const w = p.weight;
    raw[e] = isUsableWeight(w) ? (w === 0 ? 0 : w) : -1;
    if (rackMasks !== undefined) {
      const given: unknown = p.racks;
      if (given !== lastRacks) {
        lastRacks = given;
        lastMask = rackMask(given, rackNames!);
      }
      rackMasks[e] = lastMask;
    }
  }
  return { names, size, topic, partition: numbers, numeric, int32, raw, runStart, rackMasks };
}

/** Entries grouped by topic in sorted topic order (`rank`), each topic's in arrival order. */
function groupEntries(entries: Entries, rank: ReadonlyArray<number>): { entries: Int32Array; firstOf: Int32Array } {
  const topicCount = rank.length;
  const firstOf = new Int32Array(topicCount + 1);
  rank.forEach((t, sorted) => (firstOf[sorted + 1] = firstOf[sorted]! + entries.size[t]!));
  const sortedOf = new Int32Array(topicCount);
  rank.forEach((t, sorted) => (sortedOf[t] = sorted));
  const grouped = new Int32Array(entries.topic.length);
  const filled = firstOf.slice(0, topicCount);
  for (let e = 0; e < entries.topic.length; e++) {
    const t = sortedOf[entries.topic[e]!]!;
    grouped[filled[t]!] = e;
    filled[t] = filled[t]! + 1;
  }
  return { entries: grouped, firstOf };
}

/**
 * Appends entries `start .. start + size` as topic `t` by block copies when their partition
 * numbers are strictly ascending (so also unique), the usual input; false when they are not.
 */
function copyAscendingRun(start: number, size: number, t: number, entries: Entries, out: CanonicalArrays): boolean {
  // Fields are read before the loop: compiled on-stack there, reads after it lacked type feedback and deopted.
  const { partition: numbers, raw } = entries;
  const { topic, partition, raw: outRaw } = out;
  const at = out.count;
  const end = start + size;
  if (!isAscending(numbers, start, end)) return false;
  topic.fill(t, at, at + size);
  if (numbers instanceof Float64Array && !Array.isArray(partition)) {
    partition.set(numbers.subarray(start, end), at);
  } else {
    for (let e = start; e < end; e++) partition[at + e - start] = numbers[e]!;
  }
  outRaw.set(raw.subarray(start, end), at);
  out.count = at + size;
  return true;
}

/**
 * Appends one topic's entries (`group`, arrival order), each partition once and ascending, with
 * the largest raw weight listed for it. Strictly ascending input (the usual case) is copied.
 */
function appendUnique(group: Int32Array, t: number, entries: Entries, out: CanonicalArrays): void {
  const numbers = entries.partition;
  let ascending = true;
  for (let k = 1; k < group.length && ascending; k++) ascending = numbers[group[k - 1]!]! < numbers[group[k]!]!;
  if (ascending) {
    for (let k = 0; k < group.length; k++) {
      const e = group[k]!;
      out.topic[out.count] = t;
      out.partition[out.count] = numbers[e]!;
      out.raw[out.count] = entries.raw[e]!;
      out.count++;
    }
    return;
  }
  const best = new Map<number, number>();
  for (const e of group) {
    const existing = best.get(numbers[e]!);
    if (existing === undefined || existing < entries.raw[e]!) best.set(numbers[e]!, entries.raw[e]!);
  }
  for (const number of [...best.keys()].sort((a, b) => a - b)) {
    out.topic[out.count] = t;
    out.partition[out.count] = number;
    out.raw[out.count] = best.get(number)!;
    out.count++;
  }
}
