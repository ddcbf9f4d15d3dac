import type { BalanceModel, TopicSubscribers } from '../model/model.js';
import type { PreviousOwners } from '../model/previous.js';
import { buildProblem, eligibilityTable } from '../model/problem.js';
import { lowerBound } from '../model/lower-bound.js';
import { placeByCount, placeInPhases, type Homes, type LevelSettings, type LevelSpec } from './phases.js';
import { weightedCount } from '../model/weights.js';

export type { LevelSettings, MoveAllowance } from './phases.js';

/**
 * Places the model's partitions onto instances, zero-weight ones by count on top (counts include
 * the weighted, as in the reference). Returns each partition's instance and the weighted lower bound.
 */
export function placeOnInstances(
  model: BalanceModel,
  previous: PreviousOwners,
  settings: LevelSettings,
): { instance: Int32Array; lowerBound: number } {
  // No bound is above an infinite ceiling: the placement is always there.
  const { instance, lowerBound } = placeOnInstancesBelow(model, previous, settings, Number.POSITIVE_INFINITY);
  return { instance: instance!, lowerBound };
}

/**
 * {@link placeOnInstances}, unless the weighted lower bound is above `ceiling`: then nothing is
 * searched or counted (`instance` undefined). For rack matching, which would reject that anyway.
 */
export function placeOnInstancesBelow(
  model: BalanceModel,
  previous: PreviousOwners,
  settings: LevelSettings,
  ceiling: number,
): { instance: Int32Array; lowerBound: number } | { instance: undefined; lowerBound: number } {
  const count = model.partitionCount;
  const instance = new Int32Array(count).fill(-1);
  const all = new Int32Array(count);
  for (let p = 0; p < count; p++) all[p] = p;
  const homes = instanceHomes(model, previous);
  const phases = placeInPhases(model, all, instanceSpec(model), settings, 'instances', instance, homes, ceiling);
  return phases.placed
    ? { instance, lowerBound: phases.lowerBound }
    : { instance: undefined, lowerBound: phases.lowerBound };
}

/**
 * Re-places the zero-weight partitions in `instance` by count around the weighted ones, for rack
 * matching, whose trades change the counts (else an unchanged group placed again moves idle
 * partitions). Their moves replace those counted for the placement they leave. Returns as
 * {@link placeByCount}.
 */
export function placeIdleOnInstances(
  model: BalanceModel,
  instance: Int32Array,
  previous: PreviousOwners,
  settings: LevelSettings,
): number {
  const count = model.partitionCount;
  const split = weightedCount(model.weight);
  if (split === count) return 0;
  const binCount = model.instanceIds.length;
  const counts = new Float64Array(binCount);
  const loads = new Float64Array(binCount);
  for (let p = 0; p < split; p++) {
    const b = instance[p]!;
    counts[b] = counts[b]! + 1;
    loads[b] = loads[b]! + model.weight[p]!;
  }
  const homes = instanceHomes(model, previous);
  for (let p = split; p < count; p++) {
    if (homes.counted[p] === 1 && instance[p] !== homes.home[p]) settings.moves.used--;
  }
  const zero = new Int32Array(count - split);
  for (let k = 0; k < zero.length; k++) zero[k] = split + k;
  return placeByCount(model, zero, instanceSpec(model), settings, 'instances', instance, homes, { counts, loads });
}

/** The instance level as a {@link LevelSpec}: instances' capacities and base loads, topics' subscribers. */
function instanceSpec(model: BalanceModel): LevelSpec {
  return {
    capacity: model.instanceCapacity,
    baseLoad: model.instanceBaseLoad,
    binsOf: (t) => model.subscribersOf[t]!.instances,
  };
}

/**
 * Each partition's previous instance as its home, whether leaving counts (it had a member), and its
 * member's slot where that instance's members all take the same topics.
 */
function instanceHomes(model: BalanceModel, previous: PreviousOwners): Homes {
  const count = model.partitionCount;
  const home = new Int32Array(count);
  const counted = new Uint8Array(count);
  const slot = new Int32Array(count).fill(-1);
  const alike = membersAlike(model);
  for (let p = 0; p < count; p++) {
    const h = previous.instance[p]!;
    const m = previous.member[p]!;
    home[p] = h;
    counted[p] = m >= 0 && h >= 0 ? 1 : 0;
    if (counted[p] === 1 && alike[h] === 1) slot[p] = model.memberSlot[m]!;
  }
  return { home, counted, slot };
}

/** The lower bound {@link placeOnInstances} reports (weighted partitions), without placing anything. */
export function instanceLowerBound(model: BalanceModel): number {
  const split = weightedCount(model.weight);
  const weight = model.weight.subarray(0, split);
  const shared = split > 0 ? sharedSubscribers(model) : undefined;
  if (shared !== undefined) {
    // One eligibility group: skip the grouping, measurable as rack matching asks this of every group.
    const binCount = model.instanceIds.length;
    return lowerBound({
      binCount,
      capacity: model.instanceCapacity,
      baseLoad: model.instanceBaseLoad,
      weight,
      group: new Int32Array(split),
      groupBins: [shared],
      eligible: eligibilityTable([shared], binCount),
    });
  }
  return lowerBound(
    buildProblem({
      capacity: model.instanceCapacity,
      baseLoad: model.instanceBaseLoad,
      weight,
      tieWeight: 1,
      topic: model.topicOf.subarray(0, split),
      topicCount: model.topics.length,
      binsOf: (t) => model.subscribersOf[t]!.instances,
    }),
  );
}

/** The instances of every subscribed topic when they are one and the same array, else undefined. */
function sharedSubscribers(model: BalanceModel): Int32Array | undefined {
  let shared: Int32Array | undefined;
  for (const subs of model.subscribersOf) {
    if (subs === undefined) continue;
    if (shared === undefined) shared = subs.instances;
    else if (subs.instances !== shared) return undefined;
  }
  return shared;
}

/**
 * 1 for each instance whose members all take the same topics: only there does a member emptied by
 * the instance level take any homeless partition it gets, so shedding from one member pays
 * ({@link MoveLedger.slot}).
 */
function membersAlike(model: BalanceModel): Uint8Array {
  const alike = new Uint8Array(model.instanceIds.length).fill(1);
  // Topics with equal subscribers share one object (model/subscribers.ts): check each once.
  const seen = new Set<TopicSubscribers>();
  for (const subs of model.subscribersOf) {
    if (subs === undefined || seen.has(subs)) continue;
    seen.add(subs);
    subs.instances.forEach((i, k) => {
      if (subs.membersByInstance[k]!.length !== model.instanceMembers[i]!.length) alike[i] = 0;
    });
  }
  return alike;
}

/**
 * Places each instance's partitions onto its subscribed members the same way, by load then count.
 * Leaving a previous owner in the same instance counts as a move; a change of instance was counted.
 */
export function placeOnMembers(
  model: BalanceModel,
  instanceOf: Int32Array,
  previous: PreviousOwners,
  settings: LevelSettings,
): Int32Array {
  const count = model.partitionCount;
  const sole = soleMembers(model.instanceMembers);
  if (sole !== undefined) {
    // One member an instance (the common deployment): skip the grouping, measurably slow on large
    // groups. Every entry is written, so no -1 fill; a plain loop, not a closure per partition.
    const owner = new Int32Array(count);
    for (let p = 0; p < count; p++) owner[p] = sole[instanceOf[p]!]!;
    return owner;
  }
  const owner = new Int32Array(count).fill(-1);
  // Scratch arrays shared by every instance: each writes only its own partitions' entries.
  const slots = new Int32Array(count);
  const home = new Int32Array(count);
  const counted = new Uint8Array(count);
  const byInstance = partitionsByInstance(instanceOf, model.instanceIds.length);
  model.instanceMembers.forEach((members, i) => {
    const partitions = byInstance.order.subarray(byInstance.start[i], byInstance.start[i + 1]);
    if (partitions.length === 0) return;
    if (members.length === 1) {
      for (let k = 0; k < partitions.length; k++) owner[partitions[k]!] = members[0]!;
      return;
    }
    for (let k = 0; k < partitions.length; k++) {
      const p = partitions[k]!;
      const m = previous.member[p]!;
      const h = m >= 0 && model.memberInstance[m] === i ? model.memberSlot[m]! : -1;
      home[p] = h;
      counted[p] = h >= 0 ? 1 : 0;
    }
    // Topics with the same subscribers share their member arrays, and so their local bins.
    const local = new Map<Int32Array, Int32Array>();
    const spec: LevelSpec = {
      capacity: new Float64Array(members.length).fill(1),
      binsOf: (t) => {
        const subs = model.subscribersOf[t]!;
        const subscribed = subs.membersByInstance[subs.instances.indexOf(i)]!;
        let bins = local.get(subscribed);
        if (bins === undefined) local.set(subscribed, (bins = subscribed.map((m) => model.memberSlot[m]!)));
        return bins;
      },
    };
    placeInPhases(model, partitions, spec, settings, 'members', slots, { home, counted }, Number.POSITIVE_INFINITY);
    for (let k = 0; k < partitions.length; k++) owner[partitions[k]!] = members[slots[partitions[k]!]!]!;
  });
  return owner;
}

/** Each instance's only member, when every instance has exactly one; else undefined. */
function soleMembers(instanceMembers: ReadonlyArray<Int32Array>): Int32Array | undefined {
  const sole = new Int32Array(instanceMembers.length);
  for (let i = 0; i < instanceMembers.length; i++) {
    const members = instanceMembers[i]!;
    if (members.length !== 1) return undefined;
    sole[i] = members[0]!;
  }
  return sole;
}

/**
 * The partitions of each instance, in model order (heaviest first): instance `i`'s are
 * `order[start[i] .. start[i + 1])`. One array, not one per instance, saves an allocation each.
 */
function partitionsByInstance(instanceOf: Int32Array, instanceCount: number): { order: Int32Array; start: Int32Array } {
  const start = new Int32Array(instanceCount + 1);
  for (let p = 0; p < instanceOf.length; p++) {
    const next = instanceOf[p]! + 1;
    start[next] = start[next]! + 1;
  }
  for (let i = 0; i < instanceCount; i++) start[i + 1] = start[i + 1]! + start[i]!;
  const order = new Int32Array(instanceOf.length);
  const filled = start.slice(0, instanceCount);
  for (let p = 0; p < instanceOf.length; p++) {
    const i = instanceOf[p]!;
    order[filled[i]!] = p;
    filled[i] = filled[i]! + 1;
  }
  return { order, start };
}
