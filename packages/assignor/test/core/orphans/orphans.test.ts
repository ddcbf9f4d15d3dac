import { oneTopicProblem } from '../fixtures';
import { placeOrphans } from '../../../src/core/orphans/orphans.js';
import { placementOf } from '../../../src/core/place/placement.js';
import type { MoveLedger } from '../../../src/core/place/ledger.js';

describe('placeOrphans: where a newcomer too heavy for any room goes', () => {
  /**
   * Instance 0 has two members (4 and 1 each), instance 1 one member (4, 4, 1, 1): 10 each. An
   * orphan of 8 fits in neither below the band's top of 14.35, and either makes room for it by
   * shedding a 4 to the other. On instance 0 the member that takes the 8 would then hold 9
   * against its partner's 5, more than its 10% tolerance allows, so the members would move a
   * partition between them as well; instance 1's single member takes it as it is.
   */
  it('counts the moves the receiving members must make among themselves', () => {
    const problem = oneTopicProblem([8, 4, 4, 4, 4, 1, 1, 1, 1], 2);
    const ledger: MoveLedger = {
      home: Int32Array.from([-1, 0, 0, 1, 1, 0, 0, 1, 1]),
      counted: Uint8Array.from([0, 1, 1, 1, 1, 1, 1, 1, 1]),
      slot: Int32Array.from([-1, 0, 1, 0, 0, 0, 1, 0, 0]),
      limit: Number.POSITIVE_INFINITY,
      used: 0,
    };
    const sticky = placementOf(problem, Int32Array.from([0, 0, 0, 1, 1, 0, 0, 1, 1]));
    const band = { maxTarget: 14.35, minTarget: 13.3 };
    const placed = placeOrphans(problem, sticky, ledger, band, { remaining: 1_000_000 }, 0.1);
    expect(placed.bin[0]).toBe(1);
    // Instance 1 made the room: one of its 4s went to instance 0.
    expect(Array.from(placed.load)).toEqual([14, 14]);
  });
});
