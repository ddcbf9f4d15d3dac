import type { BalanceModel } from '../model/model.js';
import { buildProblem, hasEqualTerms, type Problem } from '../model/problem.js';
import { solve } from './solve.js';
import { lowerBound } from '../model/lower-bound.js';
import type { MoveLedger, WorkBudget } from '../place/ledger.js';

/* One level placed in two phases, weighted then zero-weight by count; levels.ts says which and where. */

/** Moves allowed and made across every level of one `balance()` call. */
export interface MoveAllowance {
  readonly limit: number;
  used: number;
}

/** What every level needs besides its own items. */
export interface LevelSettings {
  readonly tolerance: number;
  /** See `BalanceOptions.orphanAim`: the instances' aim after homeless items are placed. */
  readonly aim: number;
  readonly budget: WorkBudget;
  readonly moves: MoveAllowance;
}

/**
 * How each level is searched. Instance balance is the objective: the tolerance as given, thorough.
 * Members share one process (event loop), so their balance is worth less churn and time.
 */
export const POLICY = {
  instances: { toleranceFactor: 1, thorough: true },
  members: { toleranceFactor: 2, thorough: false },
} as const;

/** A level: the instances, or the members inside one instance. */
export type Level = keyof typeof POLICY;

/** The bins of one level: their capacities, base loads and eligibility. */
export interface LevelSpec {
  readonly capacity: Float64Array;
  /** Load each bin carries from elsewhere; only the weighted phase counts it (counts are this group's). */
  readonly baseLoad?: Float64Array;
  /** Eligible bins of the partitions of topic `t`, ascending. */
  readonly binsOf: (t: number) => Int32Array;
}

/**
 * Where each partition (model index) starts: home bin or -1, whether leaving it counts, and on the
 * instance level its member's slot there ({@link MoveLedger.slot}).
 */
export interface Homes {
  readonly home: Int32Array;
  readonly counted: Uint8Array;
  readonly slot?: Int32Array;
}

/**
 * Runs both phases of one level over `partitions` (model order), writing each bin into `out[p]`.
 * Returns the weighted lower bound; nothing is placed when it is above `ceiling`.
 */
export function placeInPhases(
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
  const weights = gather(model.weight, weighted);
  const topics = gather(model.topicOf, weighted);

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
  if (zero.length > 0) placeByCount(model, zero, spec, settings, level, out, homes, { counts, loads });
  return { placed: true, lowerBound: byLoad.lowerBound };
}

/**
 * The zero-weight phase alone: places `zero` by count on top of `base` (each bin's weighted count
 * and load) into `out`. Rack matching reruns it after moving weighted partitions, so an unchanged
 * group placed again keeps what it leaves. Returns the highest count per unit of capacity the phase
 * would keep if placed again from here (0: only the levels it reached).
 */
export function placeByCount(
  model: BalanceModel,
  zero: Int32Array,
  spec: LevelSpec,
  settings: LevelSettings,
  level: Level,
  out: Int32Array,
  homes: Homes,
  base: { readonly counts: Float64Array; readonly loads: Float64Array },
): number {
  const countProblem = buildProblem({
    capacity: spec.capacity,
    weight: new Float64Array(zero.length).fill(1),
    tieWeight: 0,
    baseLoad: base.counts,
    baseTie: base.loads,
    topic: gather(model.topicOf, zero),
    topicCount: model.topics.length,
    binsOf: spec.binsOf,
  });
  const bound = lowerBound(countProblem);
  const byCount = solvePhase(countProblem, zero, settings, level, homes, bound);
  for (let k = 0; k < zero.length; k++) out[zero[k]!] = byCount.bin[k]!;
  // Placed again, it keeps any count up to the bound and tolerance; on Kafka's terms it levels fully.
  return hasEqualTerms(countProblem) ? 0 : bound * (1 + settings.tolerance * POLICY[level].toleranceFactor);
}

/**
 * Writes each item's bin into `out[partition]`; returns each bin's count and load. Its own function
 * so the loop is optimized whole, not on the stack of one called once per level.
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
    home: gather(homes.home, partitions),
    counted: gather(homes.counted, partitions),
    slot: homes.slot === undefined ? undefined : gather(homes.slot, partitions),
    limit: settings.moves.limit - settings.moves.used,
    used: 0,
  };
  const policy = {
    tolerance: settings.tolerance * POLICY[level].toleranceFactor,
    thorough: POLICY[level].thorough,
    slotTolerance: level === 'instances' ? settings.tolerance * POLICY.members.toleranceFactor : undefined,
    aimsCloser: level === 'instances',
    aim: settings.aim,
  };
  const solution = solve(problem, ledger, policy, settings.budget, bound);
  settings.moves.used += ledger.used;
  return solution;
}

/**
 * `source[indexes[k]]` for every k. On the instance level the indexes are a range, so a view of the
 * source saves a full copy per array and phase. Nothing downstream writes to these arrays.
 */
function gather<T extends Float64Array | Int32Array | Uint8Array>(source: T, indexes: Int32Array): T {
  const from = rangeStart(indexes);
  if (from >= 0) return source.subarray(from, from + indexes.length) as T;
  const out = new (source.constructor as new (length: number) => T)(indexes.length);
  for (let k = 0; k < indexes.length; k++) out[k] = source[indexes[k]!]!;
  return out;
}

/**
 * {@link rangeStart} per array, as a phase gathers from one up to five times; index arrays are
 * never written after creation, so this cannot go stale.
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
