import type { BalanceModel, TopicSubscribers } from '../model/model.js';
import type { PreviousOwners } from '../model/previous.js';
import { buildProblem, eligibilityTable } from '../model/problem.js';
import { lowerBound } from '../model/lower-bound.js';
import { placeByCount, placeInPhases, type Homes, type LevelSettings, type LevelSpec } from './phases.js';
import { weightedCount } from '../model/weights.js';

export type { LevelSettings, MoveAllowance } from './phases.js';

/**
 * Places partitions (indexes into the model's partitions) onto instances, then zero-weight ones
 * by count on top (counts include the weighted partitions, as in the reference). Returns the
 * instance of each partition and the lower bound of the weighted placement.
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
 * {@link placeOnInstances}, unless the lower bound of the weighted partitions on the instances
 * is above `ceiling`: then nothing is searched, no move is counted, and the answer is undefined
 * with that bound. Rack matching asks this of the in-rack placement, which it would reject
 * anyway above a busiest level it can tell before the search.
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
 * Places the zero-weight partitions on the instances again by count ({@link placeByCount}), the
 * weighted ones staying where `instance` has them, and rewrites `instance`. For rack matching,
 * whose trades of weighted partitions change the counts the zero-weight phase levelled against:
 * without this, an unchanged group placed again moved idle partitions to level the counts anew.
 * Their moves replace the ones counted in `settings.moves` for the placement they leave. Returns
 * the highest count per unit of capacity the zero-weight phase keeps ({@link placeByCount}).
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
 * Each partition's previous instance as its home on the instance level, whether leaving it counts
 * as a move (it had a member), and its member's slot where every member of that instance takes
 * every topic the instance does.
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

/**
 * The lower bound {@link placeOnInstances} reports, without placing anything: that of the
 * weighted partitions on the instances.
 */
export function instanceLowerBound(model: BalanceModel): number {
  const split = weightedCount(model.weight);
  const weight = model.weight.subarray(0, split);
  const shared = split > 0 ? sharedSubscribers(model) : undefined;
  if (shared !== undefined) {
    // One eligibility group: the bound needs no per-partition grouping (rack matching asks this
    // of every large group, where a grouping pass and two arrays were a tenth of its extra cost).
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
 * 1 for each instance whose members all subscribe to the same topics. Only there does a member
 * emptied by the instance level take whatever homeless partitions the instance gets, so only
 * there is shedding from one member first worth it (see {@link MoveLedger.slot}).
 */
function membersAlike(model: BalanceModel): Uint8Array {
  const alike = new Uint8Array(model.instanceIds.length).fill(1);
  // Topics with equal subscribers share one object (model/subscribers.ts): each is checked once,
  // not once per topic (a hundred topics of a thousand instances were 3% of a from-scratch call).
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
 * Places the partitions of each instance onto its subscribed members, the same way: by load,
 * then zero-weight partitions by count. A partition whose previous owner is a member of the same
 * instance prefers to stay with it; leaving it counts as a move. One that changed instance was
 * already counted.
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
    // One member an instance (one consumer a pod, the common deployment): nothing to place, and
    // grouping the partitions by instance first was 5–8% of a from-scratch call on 100k of them.
    // Every entry is written here, so the array needs no -1 fill first. A plain loop: `map`
    // would call a closure per partition.
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
 * `order[start[i] .. start[i + 1])`. One array for all, as a thousand small ones cost a thousand
 * allocations outside the heap.
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
