import { RELATIVE_EPS } from '../structures/numbers.js';
import type { BalanceResult, InstanceLoad, MemberLoad, TopicPartition } from '../types.js';
import type { BalanceModel } from '../model/model.js';
import type { PreviousOwners } from '../model/previous.js';
import { waterLevel } from '../model/base-load.js';
import { sharedPartitions } from '../structures/partition-pool.js';
import { presizedLists } from '../structures/presized-lists.js';

/**
 * Builds the public result from each partition's owner. Tallies are summed afresh in model order, not taken
 * from the search's running sums, so they do not depend on the path the search took.
 */
export function summarize(
  model: BalanceModel,
  owner: Int32Array,
  lowerBound: number,
  previous: PreviousOwners | undefined,
): Omit<BalanceResult, 'crossRackWeight' | 'crossRackPartitions' | 'crossRackLowerBound' | 'crossRackForcedWeight'> {
  const { instanceLoad, memberLoad, memberCount, instanceCount, ...counts } = tally(model, owner, previous);
  const { totalWeight } = counts;
  const assignments = assignmentLists(model, owner, memberCount);
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
  // Lower bounds this close above the achieved maximum are summation-order noise, not a bound.
  const bound =
    lowerBound > maxCombinedLoad && lowerBound <= maxCombinedLoad * (1 + RELATIVE_EPS) ? maxCombinedLoad : lowerBound;
  return {
    assignments,
    instances,
    members,
    partitionCount: model.partitionCount,
    totalWeight,
    defaultedCount: counts.defaultedCount,
    zeroWeightCount: counts.zeroWeightCount,
    unassignable: model.unassignable.map((p) => sharedPartitions.get(p.topic, p.partition)),
    heaviestWeight: counts.heaviestWeight,
    maxInstanceLoad,
    idealLoad: totalCapacity > 0 ? totalWeight / totalCapacity : 0,
    maxCombinedLoad,
    idealCombinedLoad: idealCombinedLoad(model, totalWeight),
    medianMeasuredWeight: medianMeasured(model),
    restrictedTopics: restrictedTopics(model),
    lowerBound: bound,
    optimalityRatio: bound > 0 ? maxCombinedLoad / bound : 1,
    movedCount: counts.movedCount,
    forcedMoveCount: counts.forcedMoveCount,
    previouslyOwnedCount: counts.previouslyOwnedCount,
    weightScale: model.weightScale,
  };
}

/**
 * Loads, counts and moves of a placement in one pass, model order. A function of its own: a hot loop inside a
 * function called once per balance() is compiled on-stack and thrown away when the rest of it first runs.
 */
function tally(model: BalanceModel, owner: Int32Array, previous: PreviousOwners | undefined) {
  const instanceLoad = new Float64Array(model.instanceIds.length);
  const instanceCount = new Int32Array(model.instanceIds.length);
  const memberLoad = new Float64Array(model.memberIds.length);
  const memberCount = new Int32Array(model.memberIds.length);
  let totalWeight = 0;
  let defaultedCount = 0;
  let zeroWeightCount = 0;
  let heaviestWeight = 0;
  let movedCount = 0;
  let forcedMoveCount = 0;
  let previouslyOwnedCount = 0;
  const { weight, defaulted, memberInstance } = model;
  for (let p = 0; p < model.partitionCount; p++) {
    const m = owner[p]!;
    const i = memberInstance[m]!;
    const w = weight[p]!;
    memberLoad[m] = memberLoad[m]! + w;
    memberCount[m] = memberCount[m]! + 1;
    instanceLoad[i] = instanceLoad[i]! + w;
    instanceCount[i] = instanceCount[i]! + 1;
    totalWeight += w;
    if (defaulted[p] === 1) defaultedCount++;
    if (w === 0) zeroWeightCount++;
    heaviestWeight = Math.max(heaviestWeight, w);
    if (previous?.listed[p] === 1) {
      previouslyOwnedCount++;
      const before = previous.member[p]!;
      if (before < 0) forcedMoveCount++;
      if (before !== m) movedCount++;
    }
  }
  return {
    instanceLoad,
    instanceCount,
    memberLoad,
    memberCount,
    totalWeight,
    defaultedCount,
    zeroWeightCount,
    heaviestWeight,
    movedCount,
    forcedMoveCount,
    previouslyOwnedCount,
  };
}

/**
 * Each member's partitions by topic then partition, so identical placements give identical bytes; walking
 * partitions in that order fills every list sorted. Objects come from {@link sharedPartitions} (see why there).
 */
function assignmentLists(
  model: BalanceModel,
  owner: Int32Array,
  memberCount: Int32Array,
): Map<string, TopicPartition[]> {
  const lists = presizedLists<TopicPartition>(memberCount);
  const filled = new Int32Array(memberCount.length);
  for (let t = 0; t < model.topics.length; t++) {
    const topic = model.topics[t]!;
    // Looked up once per topic; a stale array after a pool reset still holds valid objects.
    const slots = sharedPartitions.slotsOf(topic);
    for (let k = model.topicStart[t]!; k < model.topicStart[t + 1]!; k++) {
      const p = model.canonical[k]!;
      const partition = model.partitionOf[p]!;
      // A non-number partition (possible from untyped callers) must not find a number's object.
      const known = typeof partition === 'number' ? slots[partition] : undefined;
      const m = owner[p]!;
      lists[m]![filled[m]!++] = known ?? sharedPartitions.get(topic, partition);
    }
  }
  const assignments = new Map<string, TopicPartition[]>();
  model.memberIds.forEach((id, m) => assignments.set(id, lists[m]!));
  return assignments;
}

/** The median of the measured (not defaulted) weights, read off the model's heaviest-first order. */
function medianMeasured(model: BalanceModel): number | undefined {
  let measured = 0;
  for (let p = 0; p < model.partitionCount; p++) if (model.defaulted[p] === 0) measured++;
  if (measured === 0) return undefined;
  if (measured === model.partitionCount) return middleOfDescending(model.weight, measured);
  const values = new Float64Array(measured);
  for (let p = 0, k = 0; p < model.partitionCount; p++) if (model.defaulted[p] === 0) values[k++] = model.weight[p]!;
  return middleOfDescending(values, measured);
}

/** `median()` of the first `count` values of a non-increasing array. */
function middleOfDescending(values: Float64Array, count: number): number {
  // Ascending position j is descending position count - 1 - j.
  const mid = count >> 1;
  const at = (j: number): number => values[count - 1 - j]!;
  return count % 2 === 1 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
}

/** Topics whose subscribers live on fewer than all instances, sorted (topics are). */
function restrictedTopics(model: BalanceModel): string[] {
  const topics: string[] = [];
  model.subscribersOf.forEach((subs, t) => {
    const present = model.topicStart[t + 1]! > model.topicStart[t]!;
    if (present && subs !== undefined && subs.instances.length < model.instanceIds.length)
      topics.push(model.topics[t]!);
  });
  return topics;
}

/** See `BalanceResult.idealCombinedLoad`. */
function idealCombinedLoad(model: BalanceModel, totalWeight: number): number {
  const { instanceCapacity, instanceBaseLoad } = model;
  const all = Int32Array.from(instanceCapacity.keys());
  let highestBase = 0;
  for (const i of all) highestBase = Math.max(highestBase, instanceBaseLoad[i]! / instanceCapacity[i]!);
  return Math.max(highestBase, waterLevel(instanceCapacity, instanceBaseLoad, all, totalWeight));
}
