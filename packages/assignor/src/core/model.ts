import type { BalanceInput } from './types.js';
import { compareStrings } from './order.js';
import { resolvePartitions, type ResolvedPartition } from './weights.js';
import { instanceCapacities } from './capacity.js';
import { resolveBaseLoads } from './base-load.js';
import { InvalidBalanceInputError } from '../errors.js';

/** Members and instances of one topic's subscribers, as indexes into the model's arrays. */
export interface TopicSubscribers {
  /** Indexes of the instances with at least one subscribed member, ascending (= by instance id). */
  readonly instances: Int32Array;
  /** For each entry of `instances`, the subscribed member indexes of that instance, ascending. */
  readonly membersByInstance: ReadonlyArray<Int32Array>;
}

/**
 * The balancing problem in index form: members and instances sorted by id, partitions resolved
 * and ordered heaviest first. Built once per `balance()` call; placement works on plain arrays
 * so 100k partitions stay cheap.
 */
export interface BalanceModel {
  readonly memberIds: ReadonlyArray<string>;
  /** Instance index of each member. */
  readonly memberInstance: Int32Array;
  readonly instanceIds: ReadonlyArray<string>;
  /** Capacity of each instance (positive). */
  readonly instanceCapacity: Float64Array;
  /**
   * Load each instance carries from elsewhere (see `BalanceInput.instanceBaseLoad`), scaled by
   * `weightScale` like the weights; all zeros without base loads.
   */
  readonly instanceBaseLoad: Float64Array;
  /** Member indexes of each instance, ascending. */
  readonly instanceMembers: ReadonlyArray<Int32Array>;
  /** Partitions that some member subscribes to, heaviest first. */
  readonly partitions: ReadonlyArray<ResolvedPartition>;
  /** Subscribers of each entry of `partitions`' topic. */
  readonly subscribers: ReadonlyArray<TopicSubscribers>;
  /** Partitions of topics nobody subscribes to. */
  readonly unassignable: ReadonlyArray<ResolvedPartition>;
  /** What every weight was multiplied by so that sums cannot overflow (see `weightScale`). */
  readonly weightScale: number;
}

/**
 * Turns the caller's input into a {@link BalanceModel}. Throws {@link InvalidBalanceInputError}
 * for input no assignment can satisfy (a duplicated member id, an empty id). `defaultWeight` is
 * the already-checked weight of partitions without a usable one.
 */
export function buildModel(input: BalanceInput, defaultWeight: number): BalanceModel {
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
  const instanceMembers = instanceIds.map((_, i) => indexesWhere(memberInstance, i));
  const capacityById = instanceCapacities(members);
  const instanceCapacity = Float64Array.from(instanceIds, (id) => capacityById.get(id)!);

  const subscribersByTopic = buildSubscribers(
    members.map((m) => m.topics),
    memberInstance,
  );
  const placeable: ResolvedPartition[] = [];
  const subscribers: TopicSubscribers[] = [];
  const unassignable: ResolvedPartition[] = [];
  const baseLoad = resolveBaseLoads(instanceIds, input.instanceBaseLoad);
  // Base loads are summed with the weights, so they take part in choosing the overflow scale.
  const resolved = resolvePartitions(input.partitions, defaultWeight, {
    heaviest: baseLoad.reduce((max, b) => Math.max(max, b), 0),
    count: baseLoad.reduce((n, b) => (b > 0 ? n + 1 : n), 0),
  });
  const instanceBaseLoad = resolved.scale === 1 ? baseLoad : baseLoad.map((b) => b * resolved.scale);
  for (const p of resolved.partitions) {
    const subs = subscribersByTopic.get(p.topic);
    if (subs === undefined) {
      unassignable.push(p);
    } else {
      placeable.push(p);
      subscribers.push(subs);
    }
  }
  return {
    memberIds: members.map((m) => m.memberId),
    memberInstance,
    instanceIds,
    instanceCapacity,
    instanceBaseLoad,
    instanceMembers,
    partitions: placeable,
    subscribers,
    unassignable,
    weightScale: resolved.scale,
  };
}

function indexesWhere(values: Int32Array, wanted: number): Int32Array {
  const out: number[] = [];
  values.forEach((v, i) => {
    if (v === wanted) out.push(i);
  });
  return Int32Array.from(out);
}

/** Groups subscribed members by topic, then by instance; members arrive sorted by id. */
function buildSubscribers(
  topicsOfMember: ReadonlyArray<ReadonlyArray<string>>,
  memberInstance: Int32Array,
): Map<string, TopicSubscribers> {
  const byTopic = new Map<string, Map<number, number[]>>();
  topicsOfMember.forEach((topics, member) => {
    for (const topic of new Set(topics)) {
      let byInstance = byTopic.get(topic);
      if (byInstance === undefined) byTopic.set(topic, (byInstance = new Map<number, number[]>()));
      const inst = memberInstance[member]!;
      const list = byInstance.get(inst);
      if (list === undefined) byInstance.set(inst, [member]);
      else list.push(member);
    }
  });
  const result = new Map<string, TopicSubscribers>();
  for (const [topic, byInstance] of byTopic) {
    const instances = Int32Array.from([...byInstance.keys()].sort((a, b) => a - b));
    result.set(topic, {
      instances,
      membersByInstance: Array.from(instances, (i) => Int32Array.from(byInstance.get(i)!)),
    });
  }
  return result;
}
