import { waterLevel } from './base-load.js';
import { equalTerms } from './terms.js';

/**
 * One level of placement in index form: items (partitions) onto bins (the group's instances, or one
 * instance's members). The same search runs on both levels and both phases (by load, then zero-weight by count).
 */
export interface Problem {
  readonly binCount: number;
  /** Capacity of each bin (positive); loads are compared per unit of capacity. */
  readonly capacity: Float64Array;
  /** Load each bin carries before any item is placed, which no step may move. */
  readonly baseLoad: Float64Array;
  /** Secondary tally each bin starts with (ties of the greedy placement are broken on it). */
  readonly baseTie: Float64Array;
  /** Weight of each item; non-increasing, so index order is heaviest first. */
  readonly weight: Float64Array;
  /** What one item adds to a bin's secondary tally. */
  readonly tieWeight: number;
  /** Eligibility group of each item: items of one group may go to the same bins. */
  readonly group: Int32Array;
  /** Bins each group may go to, ascending. */
  readonly groupBins: ReadonlyArray<Int32Array>;
  /** `eligible[group * binCount + bin]` is 1 when the group may go to the bin. */
  readonly eligible: Uint8Array;
  /**
   * Key of each item (its topic), numbered by first appearance; finer than `group`. Only tie-breaks and the
   * two-way-move rule look at it.
   */
  readonly kind: Int32Array;
  /** Number of distinct kinds. */
  readonly kindCount: number;
  /** Connected part of each bin (joined where a group may go to both; no item moves between parts), in bin order. */
  readonly partOf: Int32Array;
  /** Number of connected parts. */
  readonly partCount: number;
  /**
   * True when some group may not go to every bin of its part. Only then can a chain of moves beat a single
   * move: otherwise a chain's first item could have gone straight to its last bin (so racks' parts need none).
   */
  readonly restricted: boolean;
}

/** How to phrase one level: its bins, and for each item its weight and its topic's eligible bins. */
export interface ProblemSpec {
  readonly capacity: Float64Array;
  readonly weight: Float64Array;
  readonly tieWeight: number;
  readonly baseLoad?: Float64Array | undefined;
  readonly baseTie?: Float64Array;
  /** Topic of each item, as an id below `topicCount`; items of one topic have the same eligible bins. */
  readonly topic: Int32Array;
  readonly topicCount: number;
  /** The eligible bins of a topic, ascending, asked once per topic; a shared array is grouped by reference. */
  readonly binsOf: (topic: number) => Int32Array;
}

/**
 * Builds a {@link Problem}. Topics with equal eligible bins share one group, so where everyone subscribes to
 * everything there is one group however many topics: the search works per group, not per topic.
 */
export function buildProblem(spec: ProblemSpec): Problem {
  const binCount = spec.capacity.length;
  const itemCount = spec.weight.length;
  // A topic's kind is its rank of first appearance, and `groupOfKind` maps it to its group.
  const kindOfTopic = new Int32Array(spec.topicCount).fill(-1);
  const groupOfKind: number[] = [];
  const groupOfArray = new Map<Int32Array, number>();
  const groupOfBins = new Map<string, number>();
  const groupBins: Int32Array[] = [];
  const group = new Int32Array(itemCount);
  const kind = new Int32Array(itemCount);
  for (let item = 0; item < itemCount; item++) {
    const t = spec.topic[item]!;
    let k = kindOfTopic[t]!;
    if (k < 0) {
      k = groupOfKind.length;
      kindOfTopic[t] = k;
      const bins = spec.binsOf(t);
      let g = groupOfArray.get(bins);
      if (g === undefined) {
        const signature = bins.join(',');
        g = groupOfBins.get(signature);
        if (g === undefined) {
          g = groupBins.length;
          groupBins.push(bins);
          groupOfBins.set(signature, g);
        }
        groupOfArray.set(bins, g);
      }
      groupOfKind.push(g);
    }
    kind[item] = k;
    group[item] = groupOfKind[k]!;
  }
  const eligible = eligibilityTable(groupBins, binCount);
  const { partOf, partCount, restricted } = connectedParts(binCount, groupBins);
  return {
    binCount,
    capacity: spec.capacity,
    baseLoad: spec.baseLoad ?? new Float64Array(binCount),
    baseTie: spec.baseTie ?? new Float64Array(binCount),
    weight: spec.weight,
    tieWeight: spec.tieWeight,
    group,
    groupBins,
    eligible,
    kind,
    kindCount: groupOfKind.length,
    partOf,
    partCount,
    restricted,
  };
}

/** {@link Problem.eligible} of `groupBins` over `binCount` bins. */
export function eligibilityTable(groupBins: ReadonlyArray<Int32Array>, binCount: number): Uint8Array {
  const eligible = new Uint8Array(groupBins.length * binCount);
  groupBins.forEach((bins, g) => {
    for (const b of bins) eligible[g * binCount + b] = 1;
  });
  return eligible;
}

/**
 * The level of a perfect split: every item's weight poured over all bins on their base loads
 * ({@link waterLevel}). No placement keeps its busiest bin below it or lifts its least busy above it.
 */
export function evenLevel(problem: Pick<Problem, 'binCount' | 'capacity' | 'baseLoad' | 'weight'>): number {
  let amount = 0;
  for (let i = 0; i < problem.weight.length; i++) amount += problem.weight[i]!;
  const all = Int32Array.from({ length: problem.binCount }, (_, b) => b);
  return waterLevel(problem.capacity, problem.baseLoad, all, amount);
}

/**
 * The highest level the least busy bin can reach: the lowest {@link evenLevel} of any connected part
 * ({@link Problem.partOf}) with its own items; {@link evenLevel} itself with one part. With several (disjoint
 * subscriptions, racks), the overall mean is out of reach below, and aiming for it would waste the budget.
 */
export function highestMinimum(problem: Problem): number {
  const { binCount, groupBins, weight, group, partOf, partCount } = problem;
  if (partCount <= 1) return evenLevel(problem);
  // Summed per group first (a group is in one part): one array read per item rather than three.
  const groupAmount = new Float64Array(groupBins.length);
  for (let i = 0; i < weight.length; i++) groupAmount[group[i]!] = groupAmount[group[i]!]! + weight[i]!;
  const amount = new Float64Array(partCount);
  for (let g = 0; g < groupBins.length; g++) {
    if (groupBins[g]!.length === 0) continue;
    const p = partOf[groupBins[g]![0]!]!;
    amount[p] = amount[p]! + groupAmount[g]!;
  }
  const binsOf: number[][] = Array.from({ length: partCount }, () => []);
  for (let b = 0; b < binCount; b++) binsOf[partOf[b]!]!.push(b);
  let lowest = Infinity;
  for (let p = 0; p < partCount; p++) {
    lowest = Math.min(lowest, waterLevel(problem.capacity, problem.baseLoad, binsOf[p]!, amount[p]!));
  }
  return lowest;
}

/** Bins numbered by connected part (see {@link Problem.partOf}), and {@link Problem.restricted}. */
function connectedParts(
  binCount: number,
  groupBins: ReadonlyArray<Int32Array>,
): { readonly partOf: Int32Array; readonly partCount: number; readonly restricted: boolean } {
  const parent = Int32Array.from({ length: binCount }, (_, b) => b);
  const root = (b: number): number => {
    while (parent[b] !== b) {
      parent[b] = parent[parent[b]!]!;
      b = parent[b]!;
    }
    return b;
  };
  for (const bins of groupBins) {
    if (bins.length === 0) continue;
    const first = root(bins[0]!);
    for (let k = 1; k < bins.length; k++) {
      const r = root(bins[k]!);
      if (r !== first) parent[r] = first;
    }
  }
  const partOf = new Int32Array(binCount);
  const number = new Int32Array(binCount).fill(-1);
  let partCount = 0;
  for (let b = 0; b < binCount; b++) {
    const r = root(b);
    if (number[r]! < 0) number[r] = partCount++;
    partOf[b] = number[r]!;
  }
  const partSize = new Int32Array(partCount);
  for (let b = 0; b < binCount; b++) partSize[partOf[b]!] = partSize[partOf[b]!]! + 1;
  // A group with no bin at all counts as restricted, as it always has.
  const restricted = groupBins.some(
    (bins) => bins.length < (bins.length === 0 ? binCount : partSize[partOf[bins[0]!]!]!),
  );
  return { partOf, partCount, restricted };
}

/**
 * True on Kafka's terms ({@link equalTerms}): moves and chains alone reach the lexicographic optimum
 * (docs/architecture.md, "Equal weights"), so the tolerance and costly neighbourhoods add nothing.
 */
export function hasEqualTerms(problem: Problem): boolean {
  return equalTerms(problem.weight, problem.weight.length, problem.capacity, problem.baseLoad);
}
