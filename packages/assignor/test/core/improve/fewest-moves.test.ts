import fc from 'fast-check';
import { buildProblem, type Problem } from '../../../src/core/model/problem.js';
import { searchFewestMoves } from '../../../src/core/improve/fewest-moves.js';
import { emptyPlacement, place, type Placement } from '../../../src/core/place/placement.js';
import type { MoveLedger } from '../../../src/core/place/ledger.js';

/** A small sticky problem: weights, bins, which bins each of two topics may use, homes and a current placement. */
interface Shape {
  readonly weights: number[];
  readonly capacities: number[];
  readonly topics: number[];
  readonly restricted: boolean;
  readonly homes: number[];
  readonly counted: boolean[];
  readonly current: number[];
}

const shapeArb: fc.Arbitrary<Shape> = fc
  .record({
    items: fc.integer({ min: 1, max: 7 }),
    bins: fc.integer({ min: 2, max: 3 }),
    restricted: fc.boolean(),
  })
  .chain(({ items, bins, restricted }) =>
    fc.record({
      // Sorted heaviest first, as a Problem's items are.
      weights: fc
        .array(fc.integer({ min: 1, max: 20 }), { minLength: items, maxLength: items })
        .map((w) => w.sort((a, b) => b - a)),
      capacities: fc.array(fc.constantFrom(1, 2), { minLength: bins, maxLength: bins }),
      topics: fc.array(fc.integer({ min: 0, max: 1 }), { minLength: items, maxLength: items }),
      restricted: fc.constant(restricted),
      homes: fc.array(fc.integer({ min: -1, max: bins - 1 }), { minLength: items, maxLength: items }),
      counted: fc.array(fc.boolean(), { minLength: items, maxLength: items }),
      current: fc.array(fc.integer({ min: 0, max: bins - 1 }), { minLength: items, maxLength: items }),
    }),
  );

/** Topic 1 may use every bin but the last when `restricted`; topic 0 every bin. */
function problemOf(s: Shape): Problem {
  const bins = s.capacities.length;
  const all = Int32Array.from({ length: bins }, (_, b) => b);
  return buildProblem({
    capacity: Float64Array.from(s.capacities),
    weight: Float64Array.from(s.weights),
    tieWeight: 1,
    topic: Int32Array.from(s.topics),
    topicCount: 2,
    binsOf: (t) => (t === 1 && s.restricted ? all.subarray(0, bins - 1) : all),
  });
}

const eligible = (problem: Problem, item: number, bin: number): boolean =>
  problem.eligible[problem.group[item]! * problem.binCount + bin] === 1;

/** An eligible bin for every item: the drawn one, or the first eligible one. */
function validPlacement(problem: Problem, drawn: ReadonlyArray<number>): Int32Array {
  return Int32Array.from(drawn, (b, item) =>
    eligible(problem, item, b) ? b : problem.groupBins[problem.group[item]!]![0]!,
  );
}

function ledgerOf(problem: Problem, s: Shape): MoveLedger {
  const home = Int32Array.from(s.homes, (h, item) => (h >= 0 && eligible(problem, item, h) ? h : -1));
  const counted = Uint8Array.from(s.counted, (c, item) => (c && home[item]! >= 0 ? 1 : 0));
  return { home, counted, limit: Number.POSITIVE_INFINITY, used: 0 };
}

const movesOf = (ledger: MoveLedger, bin: ArrayLike<number>): number => {
  let n = 0;
  for (let item = 0; item < bin.length; item++) if (ledger.counted[item] === 1 && bin[item] !== ledger.home[item]) n++;
  return n;
};

function levels(problem: Problem, bin: ArrayLike<number>): number[] {
  const load = new Array<number>(problem.binCount).fill(0);
  for (let item = 0; item < bin.length; item++) load[bin[item]!]! += problem.weight[item]!;
  return load.map((l, b) => l / problem.capacity[b]!);
}

/** Levels every bin must end within. */
interface LevelBand {
  readonly low: number;
  readonly high: number;
}

/** `bin` as a placement of `problem`. */
function placementOf(problem: Problem, bin: Int32Array): Placement {
  const placement = emptyPlacement(problem);
  bin.forEach((b, item) => {
    place(problem, placement, item, b);
  });
  return placement;
}

const inBand = (problem: Problem, bin: ArrayLike<number>, band: LevelBand): boolean =>
  levels(problem, bin).every((l) => l >= band.low - 1e-9 && l <= band.high + 1e-9);

/** The fewest counted moves of any eligible placement inside `band`, by trying every one. */
function bruteForce(problem: Problem, ledger: MoveLedger, band: LevelBand): number {
  const n = problem.weight.length;
  const bin = new Int32Array(n);
  let best = Infinity;
  const visit = (k: number): void => {
    if (k === n) {
      if (inBand(problem, bin, band)) best = Math.min(best, movesOf(ledger, bin));
      return;
    }
    for (const b of problem.groupBins[problem.group[k]!]!) {
      bin[k] = b;
      visit(k + 1);
    }
  };
  visit(0);
  return best;
}

describe('searchFewestMoves', () => {
  it('finds the fewest moves that keep every level inside the band, or nothing when there are none fewer', () => {
    fc.assert(
      fc.property(shapeArb, (s) => {
        const problem = problemOf(s);
        const ledger = ledgerOf(problem, s);
        const current = validPlacement(problem, s.current);
        const now = levels(problem, current);
        const band = { low: Math.min(...now), high: Math.max(...now) };
        const moves = movesOf(ledger, current);
        const fewest = bruteForce(problem, ledger, band);
        const found = searchFewestMoves(problem, ledger, placementOf(problem, current), { remaining: 1e9 });
        if (fewest >= moves) {
          expect(found).toBeUndefined();
          return;
        }
        expect(found).toBeDefined();
        expect(movesOf(ledger, found!)).toBe(fewest);
        expect(inBand(problem, found!, band)).toBe(true);
        found!.forEach((b, item) => {
          expect(eligible(problem, item, b)).toBe(true);
        });
      }),
      { numRuns: 400 },
    );
  });

  it('charges the work budget and stops when it is spent', () => {
    const s: Shape = {
      weights: [9, 7, 5, 3],
      capacities: [1, 1],
      topics: [0, 0, 0, 0],
      restricted: false,
      homes: [0, 0, 1, 1],
      counted: [true, true, true, true],
      current: [1, 1, 0, 0],
    };
    const problem = problemOf(s);
    const ledger = ledgerOf(problem, s);
    // All four sent away, bins at 8 and 16: at home they are at 16 and 8, inside that band.
    const current = placementOf(problem, Int32Array.from(s.current));
    const budget = { remaining: 1e6 };
    expect(movesOf(ledger, searchFewestMoves(problem, ledger, current, budget)!)).toBe(0);
    expect(budget.remaining).toBeLessThan(1e6);
    expect(searchFewestMoves(problem, ledger, current, { remaining: 0 })).toBeUndefined();
  });
});
