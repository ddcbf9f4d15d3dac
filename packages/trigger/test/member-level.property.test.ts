import fc from 'fast-check';
import { createThresholdTrigger, type Evaluation, type Observation } from '@load-aware/trigger';

/**
 * The member level must never make the trigger fire in a loop: once the plan the trigger judged
 * against is applied (what the leader's rebalance produces), the member ratio is exactly 1 — the
 * sticky `balance()` of each instance keeps the leader's own member placement — for any group,
 * weights and move tolerance.
 */

const group = fc
  .record({
    instances: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }),
    weights: fc.array(fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constant(undefined)), {
      minLength: 1,
      maxLength: 24,
    }),
    seed: fc.array(fc.nat(), { minLength: 24, maxLength: 24 }),
  })
  .map(({ instances, weights, seed }): Observation => {
    const ids = instances.flatMap((count, i) =>
      Array.from({ length: count }, (_, k) => [`m${String(i)}-${String(k)}`, `pod-${String(i)}`] as const),
    );
    const assigned = new Map(ids.map(([id]) => [id, [] as number[]]));
    // Any current placement, hot members included.
    weights.forEach((_, p) => assigned.get(ids[seed[p]! % ids.length]![0])!.push(p));
    return {
      state: 'Stable',
      members: ids.map(([memberId, instanceId]) => ({
        memberId,
        instanceId,
        topics: ['t'],
        assigned: assigned.get(memberId)!.map((partition) => ({ topic: 't', partition })),
      })),
      partitions: weights.map((weight, partition) =>
        weight === undefined ? { topic: 't', partition } : { topic: 't', partition, weight },
      ),
    };
  });

function applied(observation: Observation, e: Evaluation): Observation {
  return {
    ...observation,
    members: observation.members.map((m) => ({ ...m, assigned: e.plan!.assignments.get(m.memberId) ?? [] })),
  };
}

describe('the member level after a rebalance', () => {
  it('is exactly 1 once the plan is applied', () => {
    fc.assert(
      fc.property(group, fc.constantFrom(0, 0.05, 0.2), (observation, moveTolerance) => {
        const options = { minViolatedChecks: 1, moveTolerance };
        const first = createThresholdTrigger(options).evaluate(observation);
        // No usable weight: nothing judged, no plan.
        if (first.plan === undefined) return;
        const after = createThresholdTrigger(options).evaluate(applied(observation, first));
        expect(after.level).not.toBe('member');
        expect(after.memberRatio).toBe(1);
      }),
      { numRuns: 500 },
    );
  });
});
