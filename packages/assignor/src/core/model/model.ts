import type { BalanceInput, TopicPartition } from '../types.js';
import { compareStrings } from '../structures/order.js';
import { resolveCatalog, type ListedRacks, type PartitionCatalog } from './catalog.js';
import type { RackNames } from './rack-mask.js';
import { buildSubscribers, type TopicSubscribers } from './subscribers.js';
import { instanceCapacities } from './capacity.js';
import { resolveBaseLoads } from './base-load.js';
import { InvalidBalanceInputError } from '../../errors/errors.js';

export type { TopicSubscribers } from './subscribers.js';

/**
 * The balancing problem in index form, built once per `balance()` call: members and instances sorted by id,
 * partitions resolved, all in typed arrays so 100k partitions stay cheap. Partition `p` is a placeable one
 * (some member subscribes to its topic), numbered heaviest first, ties in (topic, partition) order: the
 * order every level places in.
 */
export interface BalanceModel {
  readonly memberIds: ReadonlyArray<string>;
  /** Instance index of each member. */
  readonly memberInstance: Int32Array;
  /** Position of each member among its instance's members (`instanceMembers[i][slot]`). */
  readonly memberSlot: Int32Array;
  readonly instanceIds: ReadonlyArray<string>;
  /** Capacity of each instance (positive). */
  readonly instanceCapacity: Float64Array;
  /** Load each instance carries from elsewhere (`BalanceInput.instanceBaseLoad`), scaled like the weights. */
  readonly instanceBaseLoad: Float64Array;
  /** Member indexes of each instance, ascending. */
  readonly instanceMembers: ReadonlyArray<Int32Array>;
  /** Names of every topic that has partitions, sorted; `topicOf` indexes this. */
  readonly topics: ReadonlyArray<string>;
  /** Index of each name of {@link topics}. */
  readonly topicIndex: ReadonlyMap<string, number>;
  /** Subscribers of each topic; undefined for topics nobody subscribes to. */
  readonly subscribersOf: ReadonlyArray<TopicSubscribers | undefined>;
  /** Number of placeable partitions. */
  readonly partitionCount: number;
  /** Topic of each partition. */
  readonly topicOf: Int32Array;
  /** Partition number of each partition. */
  readonly partitionOf: ArrayLike<number>;
  /** Effective (scaled) weight of each partition; non-increasing. */
  readonly weight: Float64Array;
  /** 1 when the partition's weight was defaulted. */
  readonly defaulted: Uint8Array;
  /** The partitions in (topic, partition) order, so each topic's are contiguous. */
  readonly canonical: Int32Array;
  /** Partition number at each `canonical` position, so a lookup by topic and number reads memory in order. */
  readonly canonicalPartition: ArrayLike<number>;
  /** `canonical` positions of topic `t`'s partitions: `[topicStart[t], topicStart[t + 1])`. */
  readonly topicStart: Int32Array;
  /** Partitions of topics nobody subscribes to, heaviest first. */
  readonly unassignable: ReadonlyArray<TopicPartition>;
  /** What every weight was multiplied by so that sums cannot overflow (see `weightScale`). */
  readonly weightScale: number;
  /**
   * The input's rack masks and each entry's `canonical` position: kept when some member has a rack, the input
   * is in the usual order and every partition is placeable.
   */
  readonly listedRacks: ListedRacks | undefined;
}

/**
 * Turns the caller's input into a {@link BalanceModel}. Throws {@link InvalidBalanceInputError} for input no
 * assignment can satisfy (a duplicated or empty member id). `defaultWeight` is already checked. With
 * `rackNames` the catalog's pass also reads the partitions' racks ({@link BalanceModel.listedRacks}).
 */
export function buildModel(input: BalanceInput, defaultWeight: number, rackNames?: RackNames): BalanceModel {
  const members = [...input.members].sort((a, b) => compareStrings(a.memberId, b.memberId));
  for (let i = 0; i < members.length; i++) {
    const member = members[i]!;
    if (member.memberId === '') throw new InvalidBalanceInputError('memberId', '""', 'a non-empty member id');
    if (i > 0 && members[i - 1]!.memberId === member.memberId) {
      throw new InvalidBalanceInputError('memberId', JSON.stringify(member.memberId), 'unique member ids');
    }
  }

  const instanceIds = [...new Set(members.map((m) => m.instanceId))].sort(compareStrings);
  const instanceIndex = new Map(instanceIds.map((id, i) => [id, i]));
  const memberInstance = Int32Array.from(members, (m) => instanceIndex.get(m.instanceId)!);
  const { instanceMembers, memberSlot } = groupMembers(memberInstance, instanceIds.length);
  const capacityById = instanceCapacities(members);
  const instanceCapacity = Float64Array.from(instanceIds, (id) => capacityById.get(id)!);

  const baseLoad = resolveBaseLoads(instanceIds, input.instanceBaseLoad);
  // Base loads are summed with the weights, so they take part in choosing the overflow scale.
  const catalog = resolveCatalog(
    input.partitions,
    defaultWeight,
    {
      heaviest: baseLoad.reduce((max, b) => Math.max(max, b), 0),
      count: baseLoad.reduce((n, b) => (b > 0 ? n + 1 : n), 0),
    },
    rackNames,
  );
  const subscribersOf = buildSubscribers(
    members.map((m) => m.topics),
    memberInstance,
    instanceIds.length,
    catalog.topicIndex,
  );

  const placed = placeablePartitions(catalog, subscribersOf);
  const instanceBaseLoad = catalog.scale === 1 ? baseLoad : baseLoad.map((b) => b * catalog.scale);
  // One literal, every field in one order: one hidden class, so the code reading it stays monomorphic.
  return {
    memberIds: members.map((m) => m.memberId),
    memberInstance,
    memberSlot,
    instanceIds,
    instanceCapacity,
    instanceBaseLoad,
    instanceMembers,
    topics: catalog.topics,
    topicIndex: catalog.topicIndex,
    subscribersOf,
    partitionCount: placed.topicOf.length,
    topicOf: placed.topicOf,
    partitionOf: placed.partitionOf,
    weight: placed.weight,
    defaulted: placed.defaulted,
    canonical: placed.canonical,
    canonicalPartition: placed.canonicalPartition,
    topicStart: placed.topicStart,
    unassignable: placed.unassignable,
    weightScale: catalog.scale,
    // Positions are the catalog's: they are the model's when every partition is placeable.
    listedRacks: placed.topicOf.length === catalog.topic.length ? catalog.listedRacks : undefined,
  };
}

/**
 * `model` with other topics (rack matching's (topic, rack set) pairs), every other field shared. Written out
 * in {@link buildModel}'s order, not spread: a spread copy gets a map of its own, and every optimized function
 * that saw it is thrown away when it dies.
 */
export function withTopics(
  model: BalanceModel,
  topics: ReadonlyArray<string>,
  topicOf: Int32Array,
  subscribersOf: ReadonlyArray<TopicSubscribers | undefined>,
): BalanceModel {
  return {
    memberIds: model.memberIds,
    memberInstance: model.memberInstance,
    memberSlot: model.memberSlot,
    instanceIds: model.instanceIds,
    instanceCapacity: model.instanceCapacity,
    instanceBaseLoad: model.instanceBaseLoad,
    instanceMembers: model.instanceMembers,
    topics,
    topicIndex: model.topicIndex,
    subscribersOf,
    partitionCount: model.partitionCount,
    topicOf,
    partitionOf: model.partitionOf,
    weight: model.weight,
    defaulted: model.defaulted,
    canonical: model.canonical,
    canonicalPartition: model.canonicalPartition,
    topicStart: model.topicStart,
    unassignable: model.unassignable,
    weightScale: model.weightScale,
    listedRacks: model.listedRacks,
  };
}

/** The model's partition arrays: see the fields of {@link BalanceModel} of the same names. */
type PlaceablePartitions = Pick<
  BalanceModel,
  | 'topicOf'
  | 'partitionOf'
  | 'weight'
  | 'defaulted'
  | 'canonical'
  | 'canonicalPartition'
  | 'topicStart'
  | 'unassignable'
>;

/** The catalog's partitions that some member subscribes to, heaviest first; the rest reported. */
function placeablePartitions(
  catalog: PartitionCatalog,
  subscribersOf: ReadonlyArray<TopicSubscribers | undefined>,
): PlaceablePartitions {
  const order = catalog.heaviestFirst;
  let placeable = 0;
  let identity = true;
  for (let k = 0; k < order.length; k++) {
    if (subscribersOf[catalog.topic[order[k]!]!] !== undefined) placeable++;
    if (order[k] !== k) identity = false;
  }
  if (identity && placeable === order.length) {
    // Heaviest first is canonical and everything placeable (equal weights): the catalog's arrays serve as is.
    return {
      topicOf: catalog.topic,
      partitionOf: catalog.partition,
      weight: catalog.weight,
      defaulted: catalog.defaulted,
      canonical: order,
      canonicalPartition: catalog.partition,
      topicStart: catalog.topicStart,
      unassignable: [],
    };
  }
  const topicOf = new Int32Array(placeable);
  // The same kind of array as the catalog's (see its `int32`).
  const source = catalog.partition;
  const partitionOf: Int32Array | Float64Array | number[] =
    source instanceof Int32Array
      ? new Int32Array(placeable)
      : source instanceof Float64Array
        ? new Float64Array(placeable)
        : new Array<number>(placeable);
  const weight = new Float64Array(placeable);
  const defaulted = new Uint8Array(placeable);
  const indexOfCanonical = new Int32Array(order.length).fill(-1);
  const unassignable: TopicPartition[] = [];
  let p = 0;
  for (let k = 0; k < order.length; k++) {
    const c = order[k]!;
    const t = catalog.topic[c]!;
    if (subscribersOf[t] === undefined) {
      unassignable.push({ topic: catalog.topics[t]!, partition: catalog.partition[c]! });
      continue;
    }
    topicOf[p] = t;
    partitionOf[p] = catalog.partition[c]!;
    weight[p] = catalog.weight[c]!;
    defaulted[p] = catalog.defaulted[c]!;
    indexOfCanonical[c] = p;
    p++;
  }
  // Everything placeable (the usual case): indexOfCanonical is the canonical order, topic starts still apply.
  if (placeable === order.length) {
    return {
      topicOf,
      partitionOf,
      weight,
      defaulted,
      canonical: indexOfCanonical,
      canonicalPartition: catalog.partition,
      topicStart: catalog.topicStart,
      unassignable,
    };
  }
  // The catalog's canonical order without the unassignable partitions.
  const canonical = new Int32Array(placeable);
  const canonicalPartition = Array.isArray(partitionOf) ? new Array<number>(placeable) : partitionOf.slice();
  const topicStart = new Int32Array(catalog.topics.length + 1);
  let at = 0;
  for (let t = 0; t < catalog.topics.length; t++) {
    topicStart[t] = at;
    for (let c = catalog.topicStart[t]!; c < catalog.topicStart[t + 1]!; c++) {
      const q = indexOfCanonical[c]!;
      if (q < 0) continue;
      canonical[at] = q;
      canonicalPartition[at++] = catalog.partition[c]!;
    }
  }
  topicStart[catalog.topics.length] = at;

  return { topicOf, partitionOf, weight, defaulted, canonical, canonicalPartition, topicStart, unassignable };
}

/** Member indexes of each instance (ascending) and each member's position among them. */
function groupMembers(
  memberInstance: Int32Array,
  instanceCount: number,
): { instanceMembers: Int32Array[]; memberSlot: Int32Array } {
  const sizes = new Int32Array(instanceCount);
  for (const i of memberInstance) sizes[i] = sizes[i]! + 1;
  const instanceMembers = Array.from(sizes, (size) => new Int32Array(size));
  const memberSlot = new Int32Array(memberInstance.length);
  const filled = new Int32Array(instanceCount);
  memberInstance.forEach((i, m) => {
    const slot = filled[i]!;
    instanceMembers[i]![slot] = m;
    memberSlot[m] = slot;
    filled[i] = slot + 1;
  });
  return { instanceMembers, memberSlot };
}
