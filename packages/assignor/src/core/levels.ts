import type { BalanceModel, TopicSubscribers } from './model.js';
import type { PreviousOwners } from './previous.js';
import { buildProblem, type Problem } from './problem.js';
import { solve } from './solve.js';
import type { MoveLedger, WorkBudget } from './ledger.js';

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
 * Places partitions (indexes into `model.partitions`) onto instances, then zero-weight ones by
 * count on top (counts include the weighted partitions, as in the reference). Returns the
 * instance of each partition and the lower bound of the weighted placement.
 */
export function placeOnInstances(
  model: BalanceModel,
  previous: PreviousOwners,
  settings: LevelSettings,
): { instance: Int32Array; lowerBound: number } {
  const instance = new Int32Array(model.partitions.length).fill(-1);
  const all = Int32Array.from(model.partitions.keys());
  const spec = {
    capacity: model.instanceCapacity,
    baseLoad: model.instanceBaseLoad,
    keyOf: (p: number) => model.subscribers[p]!,
    binsOf: (subs: TopicSubscribers) => subs.instances,
  };
  const lowerBound = placeInPhases(model, all, spec, settings, 'instances', instance, (p) => ({
    home: previous.instance[p]!,
    counted: previous.member[p]! >= 0,
  }));
  return { instance, lowerBound };
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
  const owner = new Int32Array(model.partitions.length).fill(-1);
  // One scratch array for every instance: each writes only its own partitions' entries.
  const slots = new Int32Array(model.partitions.length);
  const byInstance: number[][] = model.instanceIds.map(() => []);
  instanceOf.forEach((i, p) => byInstance[i]!.push(p));
  model.instanceMembers.forEach((members, i) => {
    const partitions = Int32Array.from(byInstance[i]!);
    if (partitions.length === 0) return;
    if (members.length === 1) {
      for (const p of partitions) owner[p] = members[0]!;
      return;
    }
    const local = new Map(Array.from(members, (m, slot) => [m, slot]));
    const spec = {
      capacity: new Float64Array(members.length).fill(1),
      keyOf: (p: number) => model.subscribers[p]!,
      binsOf: (subs: TopicSubscribers) =>
        Int32Array.from(subs.membersByInstance[subs.instances.indexOf(i)]!, (m) => local.get(m)!),
    };
    placeInPhases(model, partitions, spec, settings, 'members', slots, (p) => {
      const home = local.get(previous.member[p]!) ?? -1;
      return { home, counted: home >= 0 };
    });
    for (const p of partitions) owner[p] = members[slots[p]!]!;
  });
  return owner;
}

interface LevelSpec {
  readonly capacity: Float64Array;
  /** Load each bin carries from elsewhere; only the weighted phase counts it (counts are this group's). */
  readonly baseLoad?: Float64Array;
  readonly keyOf: (p: number) => TopicSubscribers;
  readonly binsOf: (subs: TopicSubscribers) => Int32Array;
}

/**
 * Runs the weighted phase, then the zero-weight phase, of one level over `partitions` (model
 * order, so heaviest first) and writes each partition's bin into `out[p]`. Returns the weighted
 * phase's lower bound.
 */
function placeInPhases(
  model: BalanceModel,
  partitions: Int32Array,
  spec: LevelSpec,
  settings: LevelSettings,
  level: Level,
  out: Int32Array,
  homeOf: (p: number) => { home: number; counted: boolean },
): number {
  const weighted: number[] = [];
  const zero: number[] = [];
  for (const p of partitions) (model.partitions[p]!.weight > 0 ? weighted : zero).push(p);
  const binCount = spec.capacity.length;
  const weights = new Float64Array(weighted.length);
  weighted.forEach((p, k) => (weights[k] = model.partitions[p]!.weight));

  const loadProblem = buildProblem({
    capacity: spec.capacity,
    ...(spec.baseLoad === undefined ? {} : { baseLoad: spec.baseLoad }),
    weight: weights,
    tieWeight: 1,
    keyOf: (k) => spec.keyOf(weighted[k]!),
    binsOf: spec.binsOf,
  });
  const byLoad = solvePhase(loadProblem, weighted, settings, level, homeOf);
  const counts = new Float64Array(binCount);
  const loads = new Float64Array(binCount);
  for (let k = 0; k < weighted.length; k++) {
    const b = byLoad.bin[k]!;
    out[weighted[k]!] = b;
    counts[b] = counts[b]! + 1;
    loads[b] = loads[b]! + weights[k]!;
  }
  if (zero.length === 0) return byLoad.lowerBound;

  const countProblem = buildProblem({
    capacity: spec.capacity,
    weight: new Float64Array(zero.length).fill(1),
    tieWeight: 0,
    baseLoad: counts,
    baseTie: loads,
    keyOf: (k) => spec.keyOf(zero[k]!),
    binsOf: spec.binsOf,
  });
  const byCount = solvePhase(countProblem, zero, settings, level, homeOf);
  for (let k = 0; k < zero.length; k++) out[zero[k]!] = byCount.bin[k]!;
  return byLoad.lowerBound;
}

function solvePhase(
  problem: Problem,
  partitions: ReadonlyArray<number>,
  settings: LevelSettings,
  level: Level,
  homeOf: (p: number) => { home: number; counted: boolean },
): { bin: Int32Array; lowerBound: number } {
  const ledger: MoveLedger = {
    home: new Int32Array(partitions.length),
    counted: new Uint8Array(partitions.length),
    limit: settings.moves.limit - settings.moves.used,
    used: 0,
  };
  partitions.forEach((p, k) => {
    const { home, counted } = homeOf(p);
    ledger.home[k] = home;
    ledger.counted[k] = counted && home >= 0 ? 1 : 0;
  });
  const policy = {
    tolerance: settings.tolerance * POLICY[level].toleranceFactor,
    homelessAllowance: POLICY[level].homelessAllowance,
    thorough: POLICY[level].thorough,
  };
  const solution = solve(problem, ledger, policy, settings.budget);
  settings.moves.used += ledger.used;
  return solution;
}
