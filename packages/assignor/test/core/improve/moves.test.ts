import { oneTopicProblem } from '../fixtures';
import { bestMoveOffTop, type SearchContext } from '../../../src/core/improve/moves.js';
import { placementOf } from '../../../src/core/place/placement.js';
import type { MoveLedger } from '../../../src/core/place/ledger.js';

/**
 * Three instances of capacity 1. Instance 0 took a homeless partition of 20 and holds its own
 * 5 and 4 (slot 0) and 1 (slot 1); instances 1 and 2 hold 20 each. Slot 1 keeps the least, so
 * it is where the instance should shed from: its members then refill that slot with the newcomer.
 * The best move anywhere is the 5 (the busiest drops from 30 to 25, a gain of 5); the best off
 * slot 1 is the 1 (to 29, a gain of 1, a fifth of that).
 */
function contextOf(): SearchContext {
  const problem = oneTopicProblem([20, 20, 20, 5, 4, 1], 3);
  const placement = placementOf(problem, Int32Array.from([0, 1, 2, 0, 0, 0]));
  const ledger: MoveLedger = {
    home: Int32Array.from([-1, 1, 2, 0, 0, 0]),
    counted: Uint8Array.from([0, 1, 1, 1, 1, 1]),
    slot: Int32Array.from([-1, 0, 0, 0, 0, 1]),
    limit: Number.POSITIVE_INFINITY,
    used: 0,
  };
  return {
    problem,
    placement,
    items: [[0, 3, 4, 5], [1], [2]],
    ledger,
    budget: { remaining: 1_000_000 },
    eps: 1e-9,
    crossings: undefined,
    spread: undefined,
  };
}

describe('bestMoveOffTop and the preferred slot', () => {
  it('takes the slot move whenever it lowers the busiest instance, even where another gains more', () => {
    expect(bestMoveOffTop(contextOf(), 0)?.item).toBe(5);
  });
});
