import fc from 'fast-check';
import { AssignerProtocol, type GroupDescription } from 'kafkajs';
import { encodeUserData } from '@load-aware/assignor/internal';
import { createThresholdTrigger, electCoordinator, observeGroup } from '@load-aware/trigger/internal';

/**
 * What the trigger reads from DescribeGroups comes from every member of the group, including
 * other clients and corrupted ones: arbitrary metadata and assignment bytes, foreign userData,
 * odd topic names, weights from the whole zoo. Observing, electing and judging must never throw.
 */

const bytes = fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b));
const topic = fc.oneof(fc.constantFrom('t', 'constructor', '__proto__', ''), fc.string({ maxLength: 10 }));

const metadata = fc.oneof(
  bytes,
  fc
    .record({
      topics: fc.array(topic, { maxLength: 3 }),
      userData: fc.oneof(
        bytes,
        fc
          .record({
            instanceId: fc.string({ minLength: 1, maxLength: 10 }),
            capacity: fc.double({ min: 1e-9, max: 1e9, noNaN: true }),
            epoch: fc.nat({ max: 0xffffffff }),
          })
          .map((u) => encodeUserData(u)),
      ),
    })
    .map(({ topics, userData }) => AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData })),
);

const assignment = fc.oneof(
  bytes,
  fc
    .array(fc.tuple(topic, fc.array(fc.integer({ min: -5, max: 40 }), { maxLength: 6 })), { maxLength: 3 })
    .map((entries) => {
      const a = Object.create(null) as Record<string, number[]>;
      for (const [t, ps] of entries) a[t] = ps;
      return AssignerProtocol.MemberAssignment.encode({ version: 0, assignment: a, userData: Buffer.alloc(0) });
    }),
);

const group = fc.record({
  state: fc.constantFrom('Stable', 'PreparingRebalance', 'CompletingRebalance', 'Dead', 'Empty', ''),
  members: fc.uniqueArray(fc.record({ memberId: fc.string({ minLength: 1, maxLength: 12 }), metadata, assignment }), {
    selector: (m) => m.memberId,
    maxLength: 8,
  }),
  weights: fc.array(
    fc.oneof(fc.double(), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -1, 0, 1e308), fc.constant(undefined)),
    { maxLength: 40 },
  ),
});

describe('trigger on arbitrary DescribeGroups answers (fuzz)', () => {
  it('observes, elects and judges any group without throwing', () => {
    const trigger = createThresholdTrigger({ minViolatedChecks: 1, cooldownMs: 0 });
    fc.assert(
      fc.property(group, (g) => {
        const description = {
          groupId: 'g',
          state: g.state,
          protocol: 'LoadAwareAssigner',
          protocolType: 'consumer',
          members: g.members.map((m) => ({
            memberId: m.memberId,
            clientId: 'c',
            clientHost: '/127.0.0.1',
            memberMetadata: m.metadata,
            memberAssignment: m.assignment,
          })),
        } as unknown as GroupDescription;
        const observed = observeGroup(description);
        electCoordinator(observed);
        const held = observed.members.flatMap((m) => m.assigned);
        const partitions = held.map((p, i) => {
          const weight = g.weights[i % Math.max(1, g.weights.length)];
          return weight === undefined ? p : { ...p, weight };
        });
        const e = trigger.evaluate({ state: observed.state, members: observed.members, partitions });
        if (e.ratio !== undefined) expect(Number.isNaN(e.ratio)).toBe(false);
      }),
      { numRuns: 1500 },
    );
  });

  it('does not fire on weights whose sums overflow to Infinity (the ratio would be NaN)', () => {
    const trigger = createThresholdTrigger({ minViolatedChecks: 1, cooldownMs: 0 });
    const members = [
      {
        memberId: 'a',
        instanceId: 'pod-a',
        topics: ['t'],
        assigned: [0, 1].map((partition) => ({ topic: 't', partition })),
      },
      { memberId: 'b', instanceId: 'pod-b', topics: ['t'], assigned: [] },
    ];
    const partitions = [0, 1, 2].map((partition) => ({ topic: 't', partition, weight: 1e308 }));
    for (let i = 0; i < 3; i++) {
      expect(trigger.evaluate({ state: 'Stable', members, partitions }).outcome).not.toBe('fired');
    }
  });
});
