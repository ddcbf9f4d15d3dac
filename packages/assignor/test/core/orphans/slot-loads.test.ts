import { oneTopicProblem } from '../fixtures';
import { memberExcess, slotLoads } from '../../../src/core/orphans/slot-loads.js';
import type { MoveLedger } from '../../../src/core/place/ledger.js';

/**
 * Two instances: the first has two members holding 5 each (a 5 in slot 0; a 3 and a 2 in slot 1),
 * the second one member holding a 4. The members' tolerance is 10%.
 */
function loadsOf() {
  const problem = oneTopicProblem([5, 4, 3, 2], 2);
  const ledger: MoveLedger = {
    home: Int32Array.from([0, 1, 0, 0]),
    counted: Uint8Array.from([1, 1, 1, 1]),
    slot: Int32Array.from([0, 0, 1, 1]),
    limit: Number.POSITIVE_INFINITY,
    used: 0,
  };
  return { slots: slotLoads(problem, ledger, 0.1)!, binOf: Int32Array.from([0, 1, 0, 0]) };
}

describe('slotLoads: what the members of a receiving instance must move', () => {
  it('is how far the member that takes a newcomer ends above its tolerance', () => {
    const { slots, binOf } = loadsOf();
    // A 6 on a member holding 5: 11 against 1.1 × max(6, 16 / 2) = 8.8.
    expect(slots.excess(0, 6, [], binOf)).toBeCloseTo(2.2, 6);
    expect(slots.takes(0, 6)).toBe(false);
    // A 1 fits: 6 against 1.1 × max(1, 11 / 2) = 6.05.
    expect(slots.takes(0, 1)).toBe(true);
  });

  it('counts the sheds of the plan first, and leaves the loads as they were', () => {
    const { slots, binOf } = loadsOf();
    // The 2 leaves slot 1 (now 3), which takes the 6: 9 against 1.1 × max(6, 14 / 2) = 7.7.
    expect(slots.excess(0, 6, [{ item: 3, to: 1 }], binOf)).toBeCloseTo(1.3, 6);
    expect(slots.excess(0, 6, [], binOf)).toBeCloseTo(2.2, 6);
    // A single member takes anything.
    expect(slots.excess(1, 6, [{ item: 3, to: 1 }], binOf)).toBe(0);
  });
});

describe('memberExcess: what the members of every instance must trade to take what came in', () => {
  // The instance of loadsOf(): slot 0 holds the 5, slot 1 the 3 and the 2; a 6 comes in.
  const problem = oneTopicProblem([6, 5, 4, 3, 2], 2);
  const ledger: MoveLedger = {
    home: Int32Array.from([-1, 0, 1, 0, 0]),
    counted: Uint8Array.from([0, 1, 1, 1, 1]),
    slot: Int32Array.from([-1, 0, 0, 1, 1]),
    limit: Number.POSITIVE_INFINITY,
    used: 0,
  };

  it('is how far each member of an instance ends above its tolerance of an even split', () => {
    // The 6 goes to one of the two members (5 each): 11 against 1.1 × max(6, 16 / 2) = 8.8.
    expect(memberExcess(problem, ledger, Int32Array.from([0, 0, 1, 0, 0]), 0.1)).toBeCloseTo(2.2, 6);
    // On the instance of one member there is nobody to trade with.
    expect(memberExcess(problem, ledger, Int32Array.from([1, 0, 1, 0, 0]), 0.1)).toBe(0);
  });

  it('is 0 when a second newcomer evens the members out', () => {
    // The 4 comes over too: the 6 goes to one member (11), the 4 to the other (9), within
    // 1.1 × max(6, 20 / 2) = 11. Newcomers spread one an instance each tip a member over.
    expect(memberExcess(problem, ledger, Int32Array.from([0, 0, 0, 0, 0]), 0.1)).toBe(0);
  });

  it('is 0 without slots or a tolerance for the level below', () => {
    const bins = Int32Array.from([0, 0, 1, 0, 0]);
    expect(memberExcess(problem, { ...ledger, slot: undefined }, bins, 0.1)).toBe(0);
    expect(memberExcess(problem, ledger, bins, undefined)).toBe(0);
  });
});
