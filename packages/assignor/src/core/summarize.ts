import { median, RELATIVE_EPS } from './numbers.js';
import type { BalanceResult, InstanceLoad, MemberLoad, TopicPartition } from './types.js';
import type { BalanceModel } from './model.js';
import type { PreviousOwners } from './previous.js';
import { comparePartitions, compareStrings } from './order.js';
import { waterLevel } from './base-load.js';

/** Lower bounds this close above the achieved maximum are summation-order noise, not a bound. */

/**
 * Builds the public result from the owner of each partition. Tallies are summed afresh in model
 * order (rather than carried over from the search's running sums) so they are exact and
 * independent of the path the search took.
 */
export function summarize(
  model: BalanceModel,
  owner: Int32Array,
  lowerBound: number,
  previous: PreviousOwners | undefined,
): BalanceResult {
  const instanceLoad = new Float64Array(model.instanceIds.length);
  const instanceCount = new Int32Array(model.instanceIds.length);
  const memberLoad = new Float64Array(model.memberIds.length);
  const memberCount = new Int32Array(model.memberIds.length);
  const lists: TopicPartition[][] = model.memberIds.map(() => []);
  let totalWeight = 0;
  let defaultedCount = 0;
  let zeroWeightCount = 0;
  let heaviestWeight = 0;
  let movedCount = 0;
  let forcedMoveCount = 0;
  let previouslyOwnedCount = 0;
  model.partitions.forEach((p, index) => {
    const m = owner[index]!;
    const i = model.memberInstance[m]!;
    lists[m]!.push({ topic: p.topic, partition: p.partition });
    memberLoad[m] = memberLoad[m]! + p.weight;
    memberCount[m] = memberCount[m]! + 1;
    instanceLoad[i] = instanceLoad[i]! + p.weight;
    instanceCount[i] = instanceCount[i]! + 1;
    totalWeight += p.weight;
    if (p.defaulted) defaultedCount++;
    if (p.weight === 0) zeroWeightCount++;
    heaviestWeight = Math.max(heaviestWeight, p.weight);
    if (previous?.listed[index] === 1) {
      previouslyOwnedCount++;
      const before = previous.member[index]!;
      if (before < 0) forcedMoveCount++;
      if (before !== m) movedCount++;
    }
  });

  const assignments = new Map<string, TopicPartition[]>();
  model.memberIds.forEach((id, m) => {
    // Sorted lists make the assignment bytes identical for identical placements.
    assignments.set(id, lists[m]!.sort(comparePartitions));
  });
  const instances: InstanceLoad[] = model.instanceIds.map((instanceId, i) => ({
    instanceId,
    capacity: model.instanceCapacity[i]!,
    load: instanceLoad[i]!,
    baseLoad: model.instanceBaseLoad[i]!,
    combinedLoad: model.instanceBaseLoad[i]! + instanceLoad[i]!,
    partitionCount: instanceCount[i]!,
    memberIds: Array.from(model.instanceMembers[i]!, (m) => model.memberIds[m]!),
  }));
  const members: MemberLoad[] = model.memberIds.map((memberId, m) => ({
    memberId,
    instanceId: model.instanceIds[model.memberInstance[m]!]!,
    load: memberLoad[m]!,
    partitionCount: memberCount[m]!,
  }));
  const totalCapacity = model.instanceCapacity.reduce((sum, c) => sum + c, 0);
  const maxInstanceLoad = instances.reduce((max, i) => Math.max(max, i.load / i.capacity), 0);
  const maxCombinedLoad = instances.reduce((max, i) => Math.max(max, i.combinedLoad / i.capacity), 0);
  const bound =
    lowerBound > maxCombinedLoad && lowerBound <= maxCombinedLoad * (1 + RELATIVE_EPS) ? maxCombinedLoad : lowerBound;
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
    maxCombinedLoad,
    idealCombinedLoad: idealCombinedLoad(model, totalWeight),
    medianMeasuredWeight: median(
      Float64Array.from(
        model.partitions.filter((p) => !p.defaulted),
        (p) => p.weight,
      ),
    ),
    restrictedTopics: restrictedTopics(model),
    lowerBound: bound,
    optimalityRatio: bound > 0 ? maxCombinedLoad / bound : 1,
    movedCount,
    forcedMoveCount,
    previouslyOwnedCount,
    weightScale: model.weightScale,
  };
}

/** See `BalanceResult.idealCombinedLoad`. */
function idealCombinedLoad(model: BalanceModel, totalWeight: number): number {
  const { instanceCapacity, instanceBaseLoad } = model;
  const all = Int32Array.from(instanceCapacity.keys());
  let highestBase = 0;
  for (const i of all) highestBase = Math.max(highestBase, instanceBaseLoad[i]! / instanceCapacity[i]!);
  return Math.max(highestBase, waterLevel(instanceCapacity, instanceBaseLoad, all, totalWeight));
}

/** Topics whose subscribers live on fewer than all instances. */
function restrictedTopics(model: BalanceModel): string[] {
  const topics = new Set<string>();
  model.partitions.forEach((p, index) => {
    if (model.subscribers[index]!.instances.length < model.instanceIds.length) topics.add(p.topic);
  });
  return [...topics].sort(compareStrings);
}
