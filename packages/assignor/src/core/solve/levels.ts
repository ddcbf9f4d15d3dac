import type { BalanceModel, TopicSubscribers } from '../model/model.js';
import type { PreviousOwners } from '../model/previous.js';
import { buildProblem, eligibilityTable, type Problem } from '../model/problem.js';
import { solve, type CoreVersion } from './solve.js';
import { lowerBound } from '../model/lower-bound.js';
import type { MoveLedger, WorkBudget } from '../place/ledger.js';

/** Moves allowed and made across every level of one `balance()` call. */
export interface MoveAllowance {
  readonly limit: number;
  used: number;
}

/** What every level needs besides its own items. */
export interface LevelSettings {
  readonly tolerance: number;
  readonly budget: WorkBudget;
  readonly moves: MoveAllowance;
  /** Which core reaches the tolerance (see `CoreVersion`). */
  readonly core: CoreVersion;
}

/**
 * How each level is searched. Instance balance is the objective: the tolerance as given, a
 * rebalance that must place homeless partitions may spend half a move per homeless partition to
 * place them well, and the expensive neighbourhoods run when cheap ones are stuck. Members share
 * their instance's process (one event loop), so their balance is secondary and worth neither as
 * much churn nor as much time: twice the tolerance, no extra moves, moves and swaps only.
 */
const POLICY = {
  instances: { toleranceFactor: 1, homelessAllowance: 0.5, thorough: true },
  members: { toleranceFactor: 2, homelessAllowance: 0, thorough: false },
} as const;

type Level = keyof typeof POLICY;

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
  const spec: LevelSpec = {
    capacity: model.instanceCapacity,
    baseLoad: model.instanceBaseLoad,
    binsOf: (t) => model.subscribersOf[t]!.instances,
  };
  const all = new Int32Array(count);
  for (let p = 0; p < count; p++) all[p] = p;
  const phases = placeInPhases(model, all, spec, settings, 'instances', instance, { home, counted, slot }, ceiling);
  return phases.placed
    ? { instance, lowerBound: phases.lowerBound }
    : { instance: undefined, lowerBound: phases.lowerBound };
}

/**
 * The lower bound {@link placeOnInstances} reports, without placing anything: that of the
 * weighted partitions on the instances.
 */
export function instanceLowerBound(model: BalanceModel): number {
  let split = model.partitionCount;
  while (split > 0 && !(model.weight[split - 1]! > 0)) split--;
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

interface LevelSpec {
  readonly capacity: Float64Array;
  /** Load each bin carries from elsewhere; only the weighted phase counts it (counts are this group's). */
  readonly baseLoad?: Float64Array;
  /** Eligible bins of the partitions of topic `t`, ascending. */
  readonly binsOf: (t: number) => Int32Array;
}

/**
 * Where each partition (model index) starts: its home bin or -1, whether leaving it counts, and
 * on the instance level its member's slot in that instance (see {@link MoveLedger.slot}).
 */
interface Homes {
  readonly home: Int32Array;
  readonly counted: Uint8Array;
  readonly slot?: Int32Array;
}

/**
 * Runs the weighted phase, then the zero-weight phase, of one level over `partitions` (model
 * order, so heaviest first) and writes each partition's bin into `out[p]`. Returns the weighted
 * phase's lower bound, and whether anything was placed: nothing is when that bound is above
 * `ceiling`.
 */
function placeInPhases(
  model: BalanceModel,
  partitions: Int32Array,
  spec: LevelSpec,
  settings: LevelSettings,
  level: Level,
  out: Int32Array,
  homes: Homes,
  ceiling: number,
): { placed: boolean; lowerBound: number } {
  // Model order is heaviest first, so the zero-weight partitions are a suffix.
  let split = partitions.length;
  while (split > 0 && !(model.weight[partitions[split - 1]!]! > 0)) split--;
  const weighted = partitions.subarray(0, split);
  const zero = partitions.subarray(split);
  const binCount = spec.capacity.length;
  const weights = gatherFloat(model.weight, weighted);
  const topics = gatherInt(model.topicOf, weighted);

  const loadProblem = buildProblem({
    capacity: spec.capacity,
    baseLoad: spec.baseLoad,
    weight: weights,
    tieWeight: 1,
    topic: topics,
    topicCount: model.topics.length,
    binsOf: spec.binsOf,
  });
  const bound = lowerBound(loadProblem);
  if (bound > ceiling) return { placed: false, lowerBound: bound };
  const byLoad = solvePhase(loadProblem, weighted, settings, level, homes, bound);
  const { counts, loads } = writeBins(byLoad.bin, weighted, weights, binCount, out);
  if (zero.length === 0) return { placed: true, lowerBound: byLoad.lowerBound };

  const countProblem = buildProblem({
    capacity: spec.capacity,
    weight: new Float64Array(zero.length).fill(1),
    tieWeight: 0,
    baseLoad: counts,
    baseTie: loads,
    topic: gatherInt(model.topicOf, zero),
    topicCount: model.topics.length,
    binsOf: spec.binsOf,
  });
  const byCount = solvePhase(countProblem, zero, settings, level, homes, lowerBound(countProblem));
  for (let k = 0; k < zero.length; k++) out[zero[k]!] = byCount.bin[k]!;
  return { placed: true, lowerBound: byLoad.lowerBound };
}

/**
 * Writes each item's bin into `out[partition]` and returns each bin's item count and load. A
 * function of its own so the loop is compiled whole rather than on the stack of a function
 * called once per level.
 */
function writeBins(
  bin: Int32Array,
  partitions: Int32Array,
  weights: Float64Array,
  binCount: number,
  out: Int32Array,
): { counts: Float64Array; loads: Float64Array } {
  const counts = new Float64Array(binCount);
  const loads = new Float64Array(binCount);
  for (let k = 0; k < partitions.length; k++) {
    const b = bin[k]!;
    out[partitions[k]!] = b;
    counts[b] = counts[b]! + 1;
    loads[b] = loads[b]! + weights[k]!;
  }
  return { counts, loads };
}

/** One phase of one level solved (see `solve`), `bound` being its problem's lower bound. */
function solvePhase(
  problem: Problem,
  partitions: Int32Array,
  settings: LevelSettings,
  level: Level,
  homes: Homes,
  bound: number,
): { bin: Int32Array; lowerBound: number } {
  const ledger: MoveLedger = {
    home: gatherInt(homes.home, partitions),
    counted: gatherByte(homes.counted, partitions),
    slot: homes.slot === undefined ? undefined : gatherInt(homes.slot, partitions),
    limit: settings.moves.limit - settings.moves.used,
    used: 0,
  };
  // The by-weight core places the homeless by its repair, which weighs every move: it needs no
  // allowance of moves made before it looks at what they cost.
  const policy = {
    tolerance: settings.tolerance * POLICY[level].toleranceFactor,
    homelessAllowance: settings.core === 'by-weight' ? 0 : POLICY[level].homelessAllowance,
    thorough: POLICY[level].thorough,
    core: settings.core,
    slotTolerance: level === 'instances' ? settings.tolerance * POLICY.members.toleranceFactor : undefined,
  };
  const solution = solve(problem, ledger, policy, settings.budget, bound);
  settings.moves.used += ledger.used;
  return solution;
}

/**
 * `source[indexes[k]]` for every k. On the instance level the indexes are a range of every
 * partition in model order: the source's own memory is shared then (a view), which saves a copy
 * of 100k entries per array and phase. Nothing downstream writes to these arrays.
 */
function gatherFloat(source: Float64Array, indexes: Int32Array): Float64Array {
  const from = rangeStart(indexes);
  if (from >= 0) return source.subarray(from, from + indexes.length);
  const out = new Float64Array(indexes.length);
  for (let k = 0; k < indexes.length; k++) out[k] = source[indexes[k]!]!;
  return out;
}

/** {@link gatherFloat} for integers. */
function gatherInt(source: Int32Array, indexes: Int32Array): Int32Array {
  const from = rangeStart(indexes);
  if (from >= 0) return source.subarray(from, from + indexes.length);
  const out = new Int32Array(indexes.length);
  for (let k = 0; k < indexes.length; k++) out[k] = source[indexes[k]!]!;
  return out;
}

/** {@link gatherFloat} for bytes. */
function gatherByte(source: Uint8Array, indexes: Int32Array): Uint8Array {
  const from = rangeStart(indexes);
  if (from >= 0) return source.subarray(from, from + indexes.length);
  const out = new Uint8Array(indexes.length);
  for (let k = 0; k < indexes.length; k++) out[k] = source[indexes[k]!]!;
  return out;
}

/**
 * What {@link rangeStart} found for each array it scanned: one phase gathers from the same index
 * array up to five times, and on the instance level each scan read all 100k entries. Nothing
 * writes to these index arrays after they are made, so the answer cannot go stale.
 */
const rangeStarts = new WeakMap<Int32Array, number>();

/** The first index when `indexes` counts up by one from it (a range), else -1. */
function rangeStart(indexes: Int32Array): number {
  let from = rangeStarts.get(indexes);
  if (from === undefined) {
    from = scanRangeStart(indexes);
    rangeStarts.set(indexes, from);
  }
  return from;
}

/** {@link rangeStart} by reading every entry. */
function scanRangeStart(indexes: Int32Array): number {
  if (indexes.length === 0) return 0;
  const first = indexes[0]!;
  if (indexes[indexes.length - 1] !== first + indexes.length - 1) return -1;
  for (let k = 1; k < indexes.length; k++) if (indexes[k] !== first + k) return -1;
  return first;
}
