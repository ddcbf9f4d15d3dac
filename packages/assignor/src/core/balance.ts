import type { BalanceInput, BalanceOptions, BalanceResult, InstanceLoad, MemberLoad, TopicPartition } from './types.js';
import { buildModel, type BalanceModel } from './model.js';
import { comparePartitions, compareStrings } from './order.js';
import { emptyTallies, placeGreedy, type Tallies } from './greedy.js';

/**
 * Places every partition on exactly one subscribed member so that instance loads (per unit of
 * capacity) come out even: heaviest partition first onto the least-loaded eligible instance, then
 * onto that instance's least-loaded subscribed member.
 *
 * Pure and deterministic: no I/O, clock or randomness, and the same input in any order gives the
 * same result. Unusable weights (missing, NaN, ±Infinity, negative) count as
 * `options.defaultWeight` (1) and are reported in `defaultedCount`.
 *
 * @throws {@link InvalidBalanceInputError} when member ids are empty or duplicated.
 *
 * @example
 * ```ts
 * const { assignments } = balance({
 *   members: [
 *     { memberId: 'a-1', instanceId: 'pod-a', topics: ['orders'] },
 *     { memberId: 'b-1', instanceId: 'pod-b', topics: ['orders'] },
 *   ],
 *   partitions: [
 *     { topic: 'orders', partition: 0, weight: 900 },
 *     { topic: 'orders', partition: 1, weight: 50 },
 *     { topic: 'orders', partition: 2, weight: 40 },
 *   ],
 * });
 * // pod-a gets partition 0 alone; pod-b gets partitions 1 and 2.
 * ```
 */
export function balance(input: BalanceInput, options: BalanceOptions = {}): BalanceResult {
  const model = buildModel(input, options);
  const tallies = emptyTallies(model);
  const owner = placeGreedy(model, tallies);
  return summarize(model, owner, tallies);
}

/** Builds the public result from the owner array and the tallies that produced it. */
function summarize(model: BalanceModel, owner: Int32Array, tallies: Tallies): BalanceResult {
  const lists: TopicPartition[][] = model.memberIds.map(() => []);
  let totalWeight = 0;
  let defaultedCount = 0;
  let zeroWeightCount = 0;
  let heaviestWeight = 0;
  model.partitions.forEach((p, index) => {
    lists[owner[index]!]!.push({ topic: p.topic, partition: p.partition });
    totalWeight += p.weight;
    if (p.defaulted) defaultedCount++;
    if (p.weight === 0) zeroWeightCount++;
    heaviestWeight = Math.max(heaviestWeight, p.weight);
  });

  const assignments = new Map<string, TopicPartition[]>();
  model.memberIds.forEach((id, m) => {
    // Sorted lists make the assignment bytes identical for identical placements.
    assignments.set(id, lists[m]!.sort(comparePartitions));
  });

  const instances: InstanceLoad[] = model.instanceIds.map((instanceId, i) => ({
    instanceId,
    capacity: model.instanceCapacity[i]!,
    load: tallies.instanceLoad[i]!,
    partitionCount: tallies.instanceCount[i]!,
    memberIds: Array.from(model.instanceMembers[i]!, (m) => model.memberIds[m]!),
  }));
  const members: MemberLoad[] = model.memberIds.map((memberId, m) => ({
    memberId,
    instanceId: model.instanceIds[model.memberInstance[m]!]!,
    load: tallies.memberLoad[m]!,
    partitionCount: tallies.memberCount[m]!,
  }));
  const totalCapacity = model.instanceCapacity.reduce((sum, c) => sum + c, 0);
  const maxInstanceLoad = instances.reduce((max, i) => Math.max(max, i.load / i.capacity), 0);
  return {
    assignments,
    instances,
    members,
    partitionCount: model.partitions.length,
    totalWeight,
    defaultedCount,
    zeroWeightCount,
    unassignable: model.unassignable.map((p) => ({ topic: p.topic, partition: p.partition })),
    heaviestWeight,
    maxInstanceLoad,
    idealLoad: totalCapacity > 0 ? totalWeight / totalCapacity : 0,
    medianMeasuredWeight: median(model.partitions.filter((p) => !p.defaulted).map((p) => p.weight)),
    restrictedTopics: restrictedTopics(model),
  };
}

/** Median of a list of numbers, undefined for an empty list. */
function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = values.sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Topics whose subscribers live on fewer than all instances. */
function restrictedTopics(model: BalanceModel): string[] {
  const topics = new Set<string>();
  model.partitions.forEach((p, index) => {
    if (model.subscribers[index]!.instances.length < model.instanceIds.length) topics.add(p.topic);
  });
  return [...topics].sort(compareStrings);
}
