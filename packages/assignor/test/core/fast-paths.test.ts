/**
 * The shortcuts of the core against the general code they stand in for, on random inputs: each
 * must give exactly what the general path gives (same bins, same loads to the bit, same budget
 * charged), so that `balance()` is as good and as sticky with them as without.
 */
import fc from 'fast-check';
import { buildProblem, type Problem } from '../../src/core/model/problem.js';
import { emptyPlacement, type Placement } from '../../src/core/place/placement.js';
import { placeByScan, placeGreedily, tournamentsPay } from '../../src/core/place/fast-greedy.js';
import { atomsOf } from '../../src/core/place/loser-trees.js';
import { improve, nothingToDo, search, type SearchGoal } from '../../src/core/solve/search.js';
import { freeLedger } from '../../src/core/place/ledger.js';
import { lowerBound } from '../../src/core/model/lower-bound.js';
import { evenLevel } from '../../src/core/model/problem.js';
import { orderHeaviestFirst } from '../../src/core/structures/heaviest-first.js';
import { resolveCatalog } from '../../src/core/model/catalog.js';
import { weightTable } from '../../src/core/model/weights.js';
import { compareStrings } from '../../src/core/structures/order.js';

const RUNS = { numRuns: 150 };

interface ProblemShape {
  readonly bins: number;
  readonly weights: number[];
  readonly capacities: number[];
  readonly topics: number[];
  /**
   * Bins each topic may go to: all (`none`); all but the last for topic 2 (`one`); even bins for
   * topics 0 and 2, odd ones for topic 1 (`parts`: two parts no item moves between, as racks make).
   */
  readonly restricted: 'none' | 'one' | 'parts';
  readonly baseLoad: number[] | undefined;
}

const shapeArb: fc.Arbitrary<ProblemShape> = fc
  .record({
    bins: fc.integer({ min: 1, max: 12 }),
    count: fc.integer({ min: 0, max: 300 }),
    weightKind: fc.constantFrom('equal', 'small-int', 'log-normal-ish', 'tiny-and-huge'),
    equalCapacity: fc.boolean(),
    restricted: fc.constantFrom('none' as const, 'one' as const, 'parts' as const),
    withBase: fc.boolean(),
    seed: fc.integer(),
  })
  .map(({ bins, count, weightKind, equalCapacity, restricted, withBase, seed }) => {
    let state = seed >>> 0;
    const next = (): number => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state / 2 ** 32;
    };
    const draw = (): number => {
      switch (weightKind) {
        case 'equal':
          return 2.5;
        case 'small-int':
          return 1 + Math.floor(next() * 4);
        case 'log-normal-ish':
          return Math.exp(3 * next());
        default:
          return next() < 0.5 ? 1e-9 : 1e9;
      }
    };
    const weights = Array.from({ length: count }, draw).sort((a, b) => b - a);
    return {
      bins,
      weights,
      capacities: Array.from({ length: bins }, () => (equalCapacity ? 1 : [1, 2, 4][Math.floor(next() * 3)]!)),
      topics: weights.map(() => Math.floor(next() * 3)),
      restricted,
      baseLoad: withBase ? Array.from({ length: bins }, () => Math.floor(next() * 3)) : undefined,
    };
  });

function problemOf(shape: ProblemShape): Problem {
  const all = Int32Array.from({ length: shape.bins }, (_, b) => b);
  return buildProblem({
    capacity: Float64Array.from(shape.capacities),
    weight: Float64Array.from(shape.weights),
    tieWeight: 1,
    ...(shape.baseLoad === undefined ? {} : { baseLoad: Float64Array.from(shape.baseLoad) }),
    topic: Int32Array.from(shape.topics),
    topicCount: 3,
    binsOf: (t) => {
      if (shape.bins < 2 || shape.restricted === 'none') return all;
      if (shape.restricted === 'one') return t === 2 ? all.subarray(0, shape.bins - 1) : all;
      return all.filter((b) => b % 2 === t % 2);
    },
  });
}

function snapshot(p: Placement): { bin: number[]; load: number[]; tie: number[] } {
  return { bin: Array.from(p.bin), load: Array.from(p.load), tie: Array.from(p.tie) };
}

/**
 * The placement rule written out with nothing skipped: both keys of every eligible bin computed,
 * divided by the capacity, for every item. What `placeByScan` must match bit for bit.
 */
function placeByRule(problem: Problem, placement: Placement): void {
  const { weight, tieWeight, capacity, group, groupBins } = problem;
  const { bin, load, tie } = placement;
  for (let item = 0; item < weight.length; item++) {
    if (bin[item] !== -1) continue;
    let best = groupBins[group[item]!]![0]!;
    let bestPrimary = Infinity;
    let bestSecondary = Infinity;
    for (const b of groupBins[group[item]!]!) {
      const primary = (load[b]! + weight[item]!) / capacity[b]!;
      const secondary = (tie[b]! + tieWeight) / capacity[b]!;
      if (primary < bestPrimary || (primary === bestPrimary && secondary < bestSecondary)) {
        best = b;
        bestPrimary = primary;
        bestSecondary = secondary;
      }
    }
    bin[item] = best;
    load[best] = load[best]! + weight[item]!;
    tie[best] = tie[best]! + tieWeight;
  }
}

type PlaceAll = (problem: Problem, placement: Placement) => void;

/** Places `problem` from empty both ways and expects the very same bins, loads and tallies. */
function expectSamePlacement(problem: Problem, fast: PlaceAll, reference: PlaceAll): void {
  const placed = emptyPlacement(problem);
  fast(problem, placed);
  const expected = emptyPlacement(problem);
  reference(problem, expected);
  expect(snapshot(placed)).toEqual(snapshot(expected));
}

/**
 * 2,000 distinct weights (no float ties) on 600 equal bins, item k of topic k mod the topic count,
 * each topic on its own bins: large enough for the tournaments, placed like the literal scan.
 */
function expectGroupsPlaceLikeScan(binsOfTopic: ReadonlyArray<Int32Array>): Problem {
  const weights = Array.from({ length: 2000 }, (_, k) => Math.exp(Math.sin(k * 12.9898) * 3)).sort((a, b) => b - a);
  const problem = buildProblem({
    capacity: new Float64Array(600).fill(1),
    weight: Float64Array.from(weights),
    tieWeight: 1,
    topic: Int32Array.from(weights, (_, k) => k % binsOfTopic.length),
    topicCount: binsOfTopic.length,
    binsOf: (t) => binsOfTopic[t]!,
  });
  expect(problem.groupBins).toHaveLength(binsOfTopic.length);
  expectSamePlacement(problem, placeGreedily, placeByScan);
  return problem;
}

describe('core fast paths give what the general path gives', () => {
  it('placeByScan (no division on unit capacities, tie key only on ties) places exactly by the rule', () => {
    fc.assert(
      fc.property(shapeArb, (shape) => {
        expectSamePlacement(problemOf(shape), placeByScan, placeByRule);
      }),
      RUNS,
    );
  });

  it('placeGreedily (dealing equal items in turn) places exactly like the literal scan', () => {
    fc.assert(
      fc.property(shapeArb, (shape) => {
        expectSamePlacement(problemOf(shape), placeGreedily, placeByScan);
      }),
      RUNS,
    );
  });

  it('the single-group tournament places a large group like the literal scan', () => {
    // Large enough for the tournament (items × bins ≥ 1M); distinct weights, so no float tie.
    const weights = Array.from({ length: 2000 }, (_, k) => Math.exp(Math.sin(k * 12.9898) * 3)).sort((a, b) => b - a);
    const problem = problemOf({
      bins: 600,
      weights,
      capacities: new Array<number>(600).fill(1),
      topics: weights.map((_, k) => k % 3),
      restricted: 'none',
      baseLoad: undefined,
    });
    expectSamePlacement(problem, placeGreedily, placeByScan);
  });

  it.each([
    ['disjoint groups (racks with one replica)', (t: number) => [t]],
    ['overlapping groups (racks with two replicas)', (t: number) => [t, (t + 1) % 3]],
  ])('the tournaments of several groups place like the literal scan: %s', (_, racksOf) => {
    // Three "racks" of 200 bins; each topic's partitions may go to the bins of its racks.
    expectGroupsPlaceLikeScan(
      [0, 1, 2].map((t) =>
        Int32Array.from(
          racksOf(t)
            .flatMap((r) => Array.from({ length: 200 }, (_, k) => r * 200 + k))
            .sort((a, b) => a - b),
        ),
      ),
    );
  });

  it('the tournaments of groups made of many atoms (a tree per group) place like the literal scan', () => {
    // Five topics; bin b is in the groups of the bits of its mask ((7b mod 31) + 1): 31 classes of
    // equal membership, 16 in each group, more than the atoms' path takes, while each bin sits in
    // 2.5 groups on average, few enough that the trees pay (not the scan).
    const problem = expectGroupsPlaceLikeScan(
      Array.from({ length: 5 }, (_, t) =>
        Int32Array.from({ length: 600 }, (_, b) => b).filter((b) => ((((b * 7) % 31) + 1) >> t) & 1),
      ),
    );
    expect(tournamentsPay(problem)).toBe(true);
    expect(atomsOf(problem)).toBeUndefined();
  });

  it('improve() with its shortcut takes the very steps and budget of the full search', () => {
    fc.assert(
      fc.property(shapeArb, fc.boolean(), fc.constantFrom(0, 1e-4, 0.05), (shape, level, slack) => {
        const problem = problemOf(shape);
        const bound = lowerBound(problem);
        const mean = evenLevel(problem);
        const goal: SearchGoal = {
          maxTarget: bound * (1 + slack),
          minTarget: mean * (1 - slack),
          resplit: false,
          level,
        };
        const start = emptyPlacement(problem);
        placeGreedily(problem, start);
        const copy = (): Placement => ({
          bin: Int32Array.from(start.bin),
          load: Float64Array.from(start.load),
          tie: Float64Array.from(start.tie),
          items: undefined,
        });
        const viaImprove = copy();
        const improveBudget = { remaining: 1_000_000 };
        const steps = improve(problem, viaImprove, goal, freeLedger(shape.weights.length), improveBudget);
        const viaSearch = copy();
        const searchBudget = { remaining: 1_000_000 };
        const searchSteps = search(problem, viaSearch, goal, freeLedger(shape.weights.length), searchBudget);
        expect(steps).toBe(searchSteps);
        expect(snapshot(viaImprove)).toEqual(snapshot(viaSearch));
        expect(improveBudget.remaining).toBe(searchBudget.remaining);
        // And the shortcut is only ever taken when the search would take no step.
        if (nothingToDo(problem, copy(), goal, { remaining: 1_000_000 })) expect(searchSteps).toBe(0);
      }),
      RUNS,
    );
  });

  it('the shortcut is taken on the greedy of a large uniform group (the case it exists for)', () => {
    const problem = problemOf({
      bins: 10,
      weights: new Array<number>(1000).fill(1),
      capacities: new Array<number>(10).fill(1),
      topics: new Array<number>(1000).fill(0),
      restricted: 'none',
      baseLoad: undefined,
    });
    const placement = emptyPlacement(problem);
    placeGreedily(problem, placement);
    const goal: SearchGoal = {
      maxTarget: lowerBound(problem),
      minTarget: evenLevel(problem),
      resplit: true,
      level: true,
    };
    expect(nothingToDo(problem, placement, goal, { remaining: 100 })).toBe(true);
  });

  it('orderHeaviestFirst (radix) orders like the comparison sort, ties by position', () => {
    const weightArb = fc.oneof(
      fc.constantFrom(0, 1, 2, 5e-324, 1e-300, 1e300, Number.MAX_VALUE),
      fc.integer({ min: 0, max: 5 }),
      fc.double({ min: 0, max: 1e6, noNaN: true }),
    );
    fc.assert(
      fc.property(fc.array(weightArb, { maxLength: 400 }), (list) => {
        // Resolved weights are never -0.
        const weights = Float64Array.from(list, (w) => (w === 0 ? 0 : w));
        const expected = Array.from(weights.keys()).sort((a, b) => weights[b]! - weights[a]! || a - b);
        expect(Array.from(orderHeaviestFirst(weights))).toEqual(expected);
      }),
      RUNS,
    );
    // Past a few thousand weights the radix sort runs: integer, tiny, huge and equal ones.
    for (const draw of [
      (k: number) => k % 7,
      (k: number) => Math.exp(Math.sin(k) * 40),
      (k: number) => [0, 5e-324, 1e-300, 1, Number.MAX_VALUE][k % 5]!,
      (k: number) => (k % 3) * 0.1 + Math.cos(k),
      // Weights sharing their high word but not their low one: a few (settled by comparison)...
      (k: number) => (k % 500 === 0 ? 1 + ((k * 7919) % 13) * 2 ** -40 : Math.exp(Math.sin(k) * 5)),
      // ...and so many that the full four-pass sort takes over.
      (k: number) => 1 + ((k * 7919) % 9000) * 2 ** -45,
    ]) {
      const weights = Float64Array.from({ length: 9000 }, (_, k) => Math.max(0, draw(k)));
      const expected = Array.from(weights.keys()).sort((a, b) => weights[b]! - weights[a]! || a - b);
      expect(Array.from(orderHeaviestFirst(weights))).toEqual(expected);
    }
  });

  it('resolveCatalog resolves like PartitionWeightTable, canonically ordered, whatever the input order', () => {
    const entryArb = fc.record({
      topic: fc.constantFrom('a', 'b', 'B', 'a.b', ''),
      partition: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constantFrom(-0, 2 ** 31, 1.5)),
      weight: fc.constantFrom(undefined, null, Number.NaN, -1, 0, -0, 1, 2.5, 7, Number.POSITIVE_INFINITY),
    });
    fc.assert(
      fc.property(fc.array(entryArb, { maxLength: 60 }), fc.boolean(), (entries, ascending) => {
        const input = ascending
          ? [...entries].sort((x, y) => compareStrings(x.topic, y.topic) || x.partition - y.partition)
          : entries;
        const catalog = resolveCatalog(input, 3);
        const expected: Array<{ topic: string; partition: number; weight: number; defaulted: boolean }> = [];
        weightTable(entries).forEach((topic, partition, weight) => {
          expected.push({ topic, partition, weight: weight ?? 3, defaulted: weight === undefined });
        });
        expected.sort((x, y) => compareStrings(x.topic, y.topic) || x.partition - y.partition);
        const actual = Array.from(catalog.weight, (weight, c) => ({
          topic: catalog.topics[catalog.topic[c]!]!,
          partition: catalog.partition[c]!,
          weight,
          defaulted: catalog.defaulted[c] === 1,
        }));
        expect(actual).toEqual(expected);
        const heaviest = Array.from(catalog.heaviestFirst, (c) => actual[c]!);
        expect(heaviest).toEqual(
          [...actual].sort(
            (x, y) => y.weight - x.weight || compareStrings(x.topic, y.topic) || x.partition - y.partition,
          ),
        );
      }),
      RUNS,
    );
  });
});
