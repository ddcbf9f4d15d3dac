import fc from 'fast-check';
import { oneTopicProblem } from '../fixtures';
import { unwind } from '../../../src/core/improve/unwind.js';
import { movedWeight } from '../../../src/core/improve/relink.js';
import { extremes, placementOf } from '../../../src/core/place/placement.js';
import type { MoveLedger } from '../../../src/core/place/ledger.js';

/** Every item counted, at home in `homes`. */
function ledgerOf(homes: ReadonlyArray<number>): MoveLedger {
  return {
    home: Int32Array.from(homes),
    counted: new Uint8Array(homes.length).fill(1),
    slot: undefined,
    limit: Number.POSITIVE_INFINITY,
    used: 0,
  };
}

const BUDGET = (): { remaining: number } => ({ remaining: 1_000_000 });

describe('unwind: taking back moves a placement does not need', () => {
  it('sends an item home where its home has room', () => {
    // Item 1 (weight 4) moved from bin 0 to bin 1 for nothing: bin 0 can take it back under the top of 10.
    const problem = oneTopicProblem([5, 4, 3], 2);
    const ledger = ledgerOf([0, 0, 1]);
    const start = placementOf(problem, Int32Array.from([0, 1, 1]));
    const back = unwind(problem, start, { maxTarget: 10, minTarget: 0 }, ledger, BUDGET());
    expect(Array.from(back.bin)).toEqual([0, 0, 1]);
    expect(Array.from(start.bin)).toEqual([0, 1, 1]);
  });

  it('trades a heavy item home for a lighter one where the home lacks room', () => {
    // Top 8. The 5 of bin 0 sits in bin 1 (5 + 3); bin 0 holds 3 + 2 and has 3 of room, 2 short of the 5.
    // Bin 0 takes the 5 back and sends its 2 to bin 1: 2 moved instead of 5, both bins at or under 8.
    const problem = oneTopicProblem([5, 3, 3, 2], 2);
    const ledger = ledgerOf([0, 0, 1, 0]);
    const start = placementOf(problem, Int32Array.from([1, 0, 1, 0]));
    const back = unwind(problem, start, { maxTarget: 8, minTarget: 0 }, ledger, BUDGET());
    expect(Array.from(back.bin)).toEqual([0, 0, 1, 1]);
    expect(movedWeight(problem, ledger, back.bin)).toBe(2);
  });

  it("swaps two items home where each fills the other's place", () => {
    const problem = oneTopicProblem([5, 5, 3, 3], 2);
    const ledger = ledgerOf([0, 1, 0, 1]);
    const start = placementOf(problem, Int32Array.from([1, 0, 0, 1]));
    const back = unwind(problem, start, { maxTarget: 8, minTarget: 0 }, ledger, BUDGET());
    expect(Array.from(back.bin)).toEqual([0, 1, 0, 1]);
  });

  it('makes way through a third instance where no pair can', () => {
    // Top 6. The 6 (home: bin 1) sits in bin 0; the 4 and the 2 (home: bin 0) sit in bin 1; bin 2 holds a 1.
    // No single partition of bin 1 or bin 0 can make way alone. Deeper: the 4 goes home, the 6 goes home
    // to bin 1 (6 + 2 is over the top, so the 2 moves on to bin 2, which has room), then the 2 goes home.
    const problem = oneTopicProblem([6, 4, 2, 1], 3);
    const ledger = ledgerOf([1, 0, 0, 2]);
    const start = placementOf(problem, Int32Array.from([0, 1, 1, 2]));
    const band = { maxTarget: 6, minTarget: 0 };
    expect(Array.from(unwind(problem, start, band, ledger, BUDGET(), false).bin)).toEqual([0, 1, 1, 2]);
    expect(Array.from(unwind(problem, start, band, ledger, BUDGET()).bin)).toEqual([1, 0, 0, 2]);
  });

  it('leaves a move that the band needs', () => {
    // Bin 0 held 6 + 4; the 4 moved to bin 1 to bring bin 0 under the top of 7. Bringing it back would break it.
    const problem = oneTopicProblem([6, 4], 2);
    const ledger = ledgerOf([0, 0]);
    const start = placementOf(problem, Int32Array.from([0, 1]));
    const back = unwind(problem, start, { maxTarget: 7, minTarget: 0 }, ledger, BUDGET());
    expect(Array.from(back.bin)).toEqual([0, 1]);
  });

  /**
   * Random placements of random weights over random homes (a new seed each run; fast-check prints it on
   * failure): the result stays in the band the start was in, moves no more weight and no more items.
   */
  it('never leaves the band and never moves more', () => {
    const caseArb = fc
      .record({
        bins: fc.integer({ min: 2, max: 8 }),
        weights: fc.array(fc.double({ min: 0.01, max: 100, noNaN: true }), { minLength: 1, maxLength: 40 }),
      })
      .chain(({ bins, weights }) =>
        fc.record({
          bins: fc.constant(bins),
          weights: fc.constant([...weights].sort((a, b) => b - a)),
          homes: fc.array(fc.integer({ min: 0, max: bins - 1 }), {
            minLength: weights.length,
            maxLength: weights.length,
          }),
          now: fc.array(fc.integer({ min: 0, max: bins - 1 }), {
            minLength: weights.length,
            maxLength: weights.length,
          }),
        }),
      );
    fc.assert(
      fc.property(caseArb, fc.boolean(), ({ bins, weights, homes, now }, deep) => {
        const problem = oneTopicProblem(weights, bins);
        const ledger = ledgerOf(homes);
        const start = placementOf(problem, Int32Array.from(now));
        const band = extremes(problem, start);
        const back = unwind(problem, start, { maxTarget: band.max, minTarget: band.min }, ledger, BUDGET(), deep);
        const levels = extremes(problem, back);
        const noise = 1e-9 * band.max;
        expect(levels.max).toBeLessThanOrEqual(band.max + noise);
        expect(levels.min).toBeGreaterThanOrEqual(band.min - noise);
        expect(movedWeight(problem, ledger, back.bin)).toBeLessThanOrEqual(
          movedWeight(problem, ledger, start.bin) + noise,
        );
        const away = (bin: Int32Array): number => bin.filter((b, item) => b !== homes[item]).length;
        expect(away(back.bin)).toBeLessThanOrEqual(away(start.bin));
        // Loads stay the sums of what each bin holds.
        const sums = new Array<number>(bins).fill(0);
        back.bin.forEach((b, item) => {
          sums[b] = sums[b]! + weights[item]!;
        });
        sums.forEach((sum, b) => {
          expect(back.load[b]).toBeCloseTo(sum, 6);
        });
      }),
      { numRuns: 300 },
    );
  });
});
