import { waterLevel } from './base-load.js';

/**
 * One level of placement in index form: items (partitions) onto bins (the instances of the
 * group, or the members of one instance). The same search runs on both levels and on both
 * phases (weighted partitions by load, then zero-weight partitions by count), so it only ever
 * sees this shape.
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
   * Key of each item (its topic), numbered in order of first appearance. Finer than `group`:
   * topics with the same subscribers share a group but not a kind. Only tie-breaks and the
   * two-way-move rule look at it; loads never do.
   */
  readonly kind: Int32Array;
  /** Number of distinct kinds. */
  readonly kindCount: number;
}

/** How to phrase one level: its bins, and for each item its weight and its topic's eligible bins. */
export interface ProblemSpec {
  readonly capacity: Float64Array;
  readonly weight: Float64Array;
  readonly tieWeight: number;
  readonly baseLoad?: Float64Array;
  readonly baseTie?: Float64Array;
  /** Topic of each item, as an id below `topicCount`; items of one topic have the same eligible bins. */
  readonly topic: Int32Array;
  readonly topicCount: number;
  /**
   * The eligible bins of a topic, ascending; asked once per topic present. Topics with equal bins
   * may return the same array: they are then grouped without comparing contents.
   */
  readonly binsOf: (topic: number) => Int32Array;
}

/**
 * Builds a {@link Problem}. Items whose topics differ but whose eligible bins are equal share one
 * group, so a group where everyone subscribes to everything is a single group however many
 * topics it has: the search then works per group rather than per topic.
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
  const eligible = new Uint8Array(groupBins.length * binCount);
  groupBins.forEach((bins, g) => {
    for (const b of bins) eligible[g * binCount + b] = 1;
  });
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
  };
}

/**
 * The level of a perfect split: the water level of every item's weight poured over all bins on
 * top of their base loads (see {@link waterLevel}). Without base loads it is the mean load per
 * unit of capacity. No placement can keep its busiest bin below it, and none can lift its least
 * busy bin above it, so it is the target of both ends of the search.
 */
export function evenLevel(problem: Problem): number {
  let amount = 0;
  for (let i = 0; i < problem.weight.length; i++) amount += problem.weight[i]!;
  const all = Int32Array.from({ length: problem.binCount }, (_, b) => b);
  return waterLevel(problem.capacity, problem.baseLoad, all, amount);
}

/**
 * True when the problem is on Kafka's terms: every item equally heavy, every bin equally big and
 * carrying the same base load. Levelling then reaches the lexicographic optimum by moves and
 * chains alone (docs/architecture.md, "Equal weights"), so neither the move tolerance nor the
 * expensive neighbourhoods have anything to add. Items are sorted heaviest first, so equal
 * weights means the first equals the last.
 */
export function hasEqualTerms(problem: Problem): boolean {
  const { weight, capacity, baseLoad, binCount } = problem;
  if (weight.length > 0 && weight[0] !== weight[weight.length - 1]) return false;
  for (let b = 1; b < binCount; b++) {
    if (capacity[b] !== capacity[0] || baseLoad[b] !== baseLoad[0]) return false;
  }
  return true;
}
