import { oneTopicProblem } from '../fixtures';
import { makeRoom, roomCosts } from '../../../src/core/orphans/make-room.js';
import { placementOf } from '../../../src/core/place/placement.js';
import type { MoveLedger } from '../../../src/core/place/ledger.js';

describe('makeRoom: passing an item on', () => {
  /**
   * Band top 10, one bin a member each. Bin 0 holds a 6 and must make 5 of room; the 6 fits in no
   * other bin's room, so it must be passed on to a bin that makes room for it in turn. Eight bins
   * hold 5.5 + 3 (room 1.5): the roomiest, but neither of their items fits anywhere, so none can
   * take the 6. Bin 9 holds 3 + 1.5 + five 1s (room 0.5): the least room, but its light items fit
   * in the eight rooms of 1.5, and shedding 5.5 of them leaves room for the 6.
   */
  const weights = [6, ...Array.from({ length: 8 }, () => [5.5, 3]).flat(), 3, 1.5, 1, 1, 1, 1, 1];
  const bins = [0, ...Array.from({ length: 8 }, (_, d) => [d + 1, d + 1]).flat(), 9, 9, 9, 9, 9, 9, 9];

  it('passes it to the bin where making room costs least, not to the roomiest', () => {
    const problem = oneTopicProblem(weights, 10);
    const ledger: MoveLedger = {
      home: Int32Array.from(bins),
      counted: new Uint8Array(weights.length).fill(1),
      slot: new Int32Array(weights.length),
      limit: Number.POSITIVE_INFINITY,
      used: 0,
    };
    const walk = placementOf(problem, Int32Array.from(bins));
    const items: number[][] = Array.from({ length: 10 }, () => []);
    bins.forEach((bin, item) => items[bin]!.push(item));
    const band = { maxTarget: 10, minTarget: 0 };
    const room = Float64Array.from(walk.load, (load) => band.maxTarget - load);
    const plan = makeRoom(
      problem,
      ledger,
      walk,
      items,
      room,
      band,
      0,
      5,
      { remaining: 1_000_000 },
      -1,
      roomCosts(problem, items, room),
    );
    expect(plan).toBeDefined();
    // The 6 goes to bin 9, which sheds 1.5 and four 1s onto the roomy bins, one each.
    expect(plan!.moves.find((m) => m.item === 0)?.to).toBe(9);
    const loads = Array.from(walk.load);
    for (const move of plan!.moves) {
      loads[ledger.home[move.item]!]! -= weights[move.item]!;
      loads[move.to]! += weights[move.item]!;
    }
    expect(Math.max(...loads)).toBeLessThanOrEqual(10 + 1e-9);
    expect(plan!.cost).toBeCloseTo(6 + 1.5 + 4, 9);
  });
});
