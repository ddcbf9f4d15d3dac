import { evenLevel, type Problem } from './problem.js';
import { waterLevel } from './base-load.js';

/** What the bound reads of a {@link Problem}: the items' weights and groups, and the bins. */
export type BoundProblem = Pick<
  Problem,
  'binCount' | 'capacity' | 'baseLoad' | 'weight' | 'group' | 'groupBins' | 'eligible'
>;

/** Above this many (set × item) steps, the per-set pigeonhole bounds are skipped (sums stay). */
const SET_PIGEONHOLE_WORK = 4_000_000;
/** Above this many (set × set × bin) steps, each set only counts its own items (still a bound). */
const SUBSET_WORK = 4_000_000;

/**
 * A lower bound on the busiest bin's load per unit of capacity over every placement: the largest of
 * - the level of a perfect split on the bins' base loads, and any bin's base load itself;
 * - each group's heaviest item on the eligible bin where it would weigh least;
 * - the pigeonhole bounds: among the j·k+1 heaviest items on k bins some bin holds j+1, so at least the j+1
 *   lightest of those, over the largest capacity;
 * - the same level and pigeonhole bounds on each group's eligible bins, counting every item that can only
 *   go there (a topic only two instances subscribe to must fit on those two).
 */
export function lowerBound(problem: BoundProblem): number {
  const { binCount, capacity, baseLoad, weight, group, groupBins, eligible } = problem;
  if (binCount === 0) return 0;
  let bound = evenLevel(problem);
  let largest = 0;
  for (let b = 0; b < binCount; b++) {
    bound = Math.max(bound, baseLoad[b]! / capacity[b]!);
    largest = Math.max(largest, capacity[b]!);
  }
  bound = Math.max(bound, pigeonhole(weight, binCount, largest));

  const groupCount = groupBins.length;
  const { groupWeight, heaviest } = groupTotals(weight, group, groupCount);
  for (let g = 0; g < groupCount; g++) {
    let lightest = Infinity;
    for (const b of groupBins[g]!) lightest = Math.min(lightest, (baseLoad[b]! + heaviest[g]!) / capacity[b]!);
    if (heaviest[g]! >= 0) bound = Math.max(bound, lightest);
  }

  const within = subsets(groupBins, eligible, binCount);
  const pigeonholePerSet = groupCount * weight.length <= SET_PIGEONHOLE_WORK;
  // Only groups short of some bins take a pigeonhole bound of their own.
  const restricted = groupBins.some((bins) => bins.length < binCount);
  const own = pigeonholePerSet && restricted ? weightsByGroup(weight, group, groupCount) : undefined;
  for (let g = 0; g < groupCount; g++) {
    const bins = groupBins[g]!;
    let setLargest = 0;
    for (const b of bins) setLargest = Math.max(setLargest, capacity[b]!);
    const inside = within[g]!;
    let load = 0;
    for (const h of inside) load += groupWeight[h]!;
    bound = Math.max(bound, waterLevel(capacity, baseLoad, bins, load));
    if (pigeonholePerSet && bins.length < binCount) {
      const weights = inside.length === 1 ? own![inside[0]!]! : weightsOf(weight, group, inside, groupCount);
      bound = Math.max(bound, pigeonhole(weights, bins.length, setLargest));
    }
  }
  return roundUpForIntegers(capacity, baseLoad, weight, bound);
}

/**
 * Each group's total weight and its heaviest item's (-1 for none). A function of its own: compiled on-stack
 * inside `lowerBound`, the code after the loop lacked type feedback and every later call deopted there.
 */
function groupTotals(
  weight: ArrayLike<number>,
  group: ArrayLike<number>,
  groupCount: number,
): { groupWeight: Float64Array; heaviest: Float64Array } {
  const groupWeight = new Float64Array(groupCount);
  const heaviest = new Float64Array(groupCount).fill(-1);
  for (let item = 0; item < weight.length; item++) {
    const g = group[item]!;
    groupWeight[g] = groupWeight[g]! + weight[item]!;
    if (heaviest[g]! < 0) heaviest[g] = weight[item]!;
  }
  return { groupWeight, heaviest };
}

/**
 * With integer weights and equal capacities every load is an integer, so the bound rounds up (755 on two
 * instances cannot beat 378): the search then stops at a proven optimum instead of chasing 377.5.
 */
function roundUpForIntegers(
  capacity: ArrayLike<number>,
  baseLoad: ArrayLike<number>,
  weight: ArrayLike<number>,
  bound: number,
): number {
  const cap = capacity[0]!;
  if (!(bound > 0)) return bound;
  for (let b = 0; b < capacity.length; b++) if (capacity[b] !== cap) return bound;
  // Sums are exact only below 2^53; beyond, a rounded-up total could overstate the bound.
  const total = integerSum(weight) + integerSum(baseLoad);
  if (!(total <= Number.MAX_SAFE_INTEGER)) return bound;
  // The tolerance keeps float noise in the mean (e.g. 15.000000000000002) from rounding up a whole unit.
  return Math.ceil(bound * cap - 1e-9 * Math.max(1, bound * cap)) / cap;
}

/**
 * The sum of `values` when all are integers, else NaN. A function of its own, as {@link groupTotals}: inlined
 * in a larger one, on-stack compilation left the code after the loop to deopt on every call.
 */
function integerSum(values: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isInteger(v)) return Number.NaN;
    total += v;
  }
  return total;
}

/**
 * The weights of the items whose group is in `groups`, heaviest first. A counted loop into a presized array:
 * with racks' many groups, a filter with a callback per item was most of the bound's cost.
 */
function weightsOf(
  weight: Float64Array,
  group: Int32Array,
  groups: ReadonlyArray<number>,
  groupCount: number,
): Float64Array {
  const member = new Uint8Array(groupCount);
  for (const h of groups) member[h] = 1;
  let n = 0;
  for (let item = 0; item < weight.length; item++) n += member[group[item]!]!;
  const out = new Float64Array(n);
  for (let item = 0, k = 0; item < weight.length; item++) if (member[group[item]!] === 1) out[k++] = weight[item]!;
  return out;
}

/**
 * Each group's own weights, heaviest first: views into one array counting-sorted by group (stable). One
 * allocation and flat writes: an array per group, written through a lookup per item, doubled the bound's cost.
 */
function weightsByGroup(weight: Float64Array, group: Int32Array, groupCount: number): Float64Array[] {
  const start = new Int32Array(groupCount + 1);
  for (let item = 0; item < weight.length; item++) start[group[item]! + 1] = start[group[item]! + 1]! + 1;
  for (let g = 0; g < groupCount; g++) start[g + 1] = start[g + 1]! + start[g]!;
  const flat = new Float64Array(weight.length);
  const next = start.slice(0, groupCount);
  for (let item = 0; item < weight.length; item++) {
    const g = group[item]!;
    flat[next[g]!] = weight[item]!;
    next[g] = next[g]! + 1;
  }
  return Array.from({ length: groupCount }, (_, g) => flat.subarray(start[g], start[g + 1]));
}

/** Pigeonhole bounds for items (heaviest first) on `binCount` bins: the j+1 lightest of the j·k+1 heaviest meet. */
function pigeonhole(weights: Float64Array, binCount: number, largestCapacity: number): number {
  const n = weights.length;
  const last = Math.floor((n - 1) / binCount);
  if (last < 1) return 0;
  // Ranks j·k−j .. j·k (0-based). Windows are summed directly (prefix-sum differences lose precision), so
  // only some j are tried: small ones up to linear work, large ones at halving steps (equal weights: the last).
  const tried = new Set<number>();
  for (let j = 1, work = 0; j <= last && work <= n; j++, work += j + 1) tried.add(j);
  for (let j = last; j >= 1; j = Math.floor(j / 2)) tried.add(j);
  let bound = 0;
  for (const j of tried) {
    let sum = 0;
    for (let r = j * binCount - j; r <= j * binCount; r++) sum += weights[r]!;
    bound = Math.max(bound, sum / largestCapacity);
  }
  return bound;
}

/** For each group, the groups whose eligible bins are a subset of its own (itself included). */
function subsets(
  groupBins: BoundProblem['groupBins'],
  eligible: BoundProblem['eligible'],
  binCount: number,
): number[][] {
  const count = groupBins.length;
  const work = count * count * binCount;
  return groupBins.map((_, g) => {
    if (work > SUBSET_WORK) return [g];
    const inside: number[] = [];
    for (let h = 0; h < count; h++) {
      if (groupBins[h]!.every((b) => eligible[g * binCount + b] === 1)) inside.push(h);
    }
    return inside;
  });
}
