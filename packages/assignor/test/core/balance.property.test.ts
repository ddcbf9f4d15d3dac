import fc from 'fast-check';
import {
  balance,
  type BalanceMember,
  type BalanceOptions,
  type BalanceResult,
  type TopicPartition,
  type WeightedPartition,
} from '@load-aware/assignor';
import { keyOf, uniqueMembersArb, withShuffledCopies } from './fixtures';

const RUNS = { numRuns: 200 };
const INSTANCE_POOL = ['i0', 'i1', 'i2', 'I3', 'i4'];
const TOPIC_POOL = ['t0', 't1', 't2', 'T3'];
/** Nobody ever subscribes to this one; members may also leave pool topics unsubscribed. */
const ORPHAN_TOPIC = 'orphan';

const weightArb: fc.Arbitrary<number | null | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, -0, Number.MAX_VALUE, 1e300),
  fc.double(),
  fc.double({ min: -1000, max: 1000, noNaN: true }),
  fc.integer({ min: 0, max: 1000 }),
);

const memberArb: fc.Arbitrary<BalanceMember> = fc.record(
  {
    memberId: fc.string({ minLength: 1, maxLength: 6 }),
    instanceId: fc.constantFrom(...INSTANCE_POOL),
    topics: fc.subarray(TOPIC_POOL),
    capacity: fc.constantFrom(1, 2, 3, 0.5, 0, -1, Number.NaN, undefined),
  },
  { requiredKeys: ['memberId', 'instanceId', 'topics'] },
);

const membersArb = fc.uniqueArray(memberArb, { minLength: 1, maxLength: 30, selector: (m) => m.memberId });

const partitionArb: fc.Arbitrary<WeightedPartition> = fc.record(
  {
    topic: fc.constantFrom(...TOPIC_POOL, ORPHAN_TOPIC),
    partition: fc.nat({ max: 24 }),
    weight: weightArb,
  },
  { requiredKeys: ['topic', 'partition'] },
);

/** Up to 300 entries over ~125 distinct partitions, so duplicates are common. */
const partitionsArb = fc.array(partitionArb, { maxLength: 300 });

const optionsArb: fc.Arbitrary<BalanceOptions> = fc.oneof(
  fc.constant({}),
  fc.record({ defaultWeight: fc.constantFrom(0, 0.25, 1, 7) }),
);

/** A group plus the same group with members and partitions in another order. */
const shuffledGroupArb = withShuffledCopies(fc.tuple(membersArb, partitionsArb));

/** The documented notion of a usable weight, restated here rather than imported from the core. */
function isUsableWeight(weight: unknown): weight is number {
  return typeof weight === 'number' && Number.isFinite(weight) && weight >= 0;
}

/** The weight `balance()` should use for each distinct partition: its largest usable weight, else the default. */
function expectedWeights(partitions: ReadonlyArray<WeightedPartition>, defaultWeight: number): Map<string, number> {
  const best = new Map<string, number | undefined>();
  for (const p of partitions) {
    const key = keyOf(p);
    const current = best.get(key);
    if (isUsableWeight(p.weight)) best.set(key, current === undefined ? p.weight : Math.max(current, p.weight));
    else if (!best.has(key)) best.set(key, undefined);
  }
  return new Map([...best].map(([key, w]) => [key, w ?? defaultWeight]));
}

function subscribedTopics(members: ReadonlyArray<BalanceMember>): Set<string> {
  return new Set(members.flatMap((m) => m.topics));
}

/** Equal up to floating-point summation order. */
function close(actual: number, expected: number): boolean {
  if (actual === expected) return true;
  return Math.abs(actual - expected) <= 1e-9 * Math.max(Math.abs(actual), Math.abs(expected));
}

function allAssigned(result: BalanceResult): TopicPartition[] {
  return [...result.assignments.values()].flat();
}

describe('balance properties', () => {
  it('assigns every partition of a subscribed topic exactly once, only to subscribed members, and lists every member', () => {
    fc.assert(
      fc.property(membersArb, partitionsArb, optionsArb, (members, partitions, options) => {
        const result = balance({ members, partitions }, options);
        const subscribed = subscribedTopics(members);
        const expected = new Set(partitions.filter((p) => subscribed.has(p.topic)).map(keyOf));

        const assigned = allAssigned(result).map(keyOf);
        expect(assigned.length).toBe(expected.size);
        expect(new Set(assigned)).toEqual(expected);
        expect(result.partitionCount).toBe(expected.size);

        expect([...result.assignments.keys()].sort()).toEqual(members.map((m) => m.memberId).sort());
        for (const m of members) {
          for (const p of result.assignments.get(m.memberId) ?? []) expect(m.topics).toContain(p.topic);
        }
      }),
      RUNS,
    );
  });

  it('reports exactly the partitions of unsubscribed topics as unassignable, each once', () => {
    fc.assert(
      fc.property(membersArb, partitionsArb, (members, partitions) => {
        const result = balance({ members, partitions });
        const subscribed = subscribedTopics(members);
        const expected = new Set(partitions.filter((p) => !subscribed.has(p.topic)).map(keyOf));
        const unassignable = result.unassignable.map(keyOf);
        expect(unassignable.length).toBe(expected.size);
        expect(new Set(unassignable)).toEqual(expected);
        for (const p of result.unassignable) expect(p.topic === ORPHAN_TOPIC || !subscribed.has(p.topic)).toBe(true);
      }),
      RUNS,
    );
  });

  it('gives the same result whatever the order of members and partitions', () => {
    fc.assert(
      fc.property(
        shuffledGroupArb,
        optionsArb,
        ([members, partitions, shuffledMembers, shuffledPartitions], options) => {
          const original = balance({ members, partitions }, options);
          const shuffled = balance({ members: shuffledMembers, partitions: shuffledPartitions }, options);
          // Everything, `unassignable` included: it is ordered heaviest first, then by topic/partition.
          expect(shuffled).toEqual(original);
          expect([...shuffled.assignments.keys()]).toEqual([...original.assignments.keys()]);
        },
      ),
      RUNS,
    );
  });

  it('keeps load and count tallies equal to the weights and partitions actually assigned', () => {
    fc.assert(
      fc.property(membersArb, partitionsArb, optionsArb, (members, partitions, options) => {
        const defaultWeight = options.defaultWeight ?? 1;
        const result = balance({ members, partitions }, options);
        const weights = expectedWeights(partitions, defaultWeight);
        // Results are in balance()'s units: the weights times weightScale, a power of two that is
        // 1 unless the weights' sum could overflow, and then keeps it at most 1e290.
        const heaviest = Math.max(0, ...weights.values());
        if (heaviest * weights.size <= 1e290) {
          expect(result.weightScale).toBe(1);
        } else {
          expect(Number.isInteger(Math.log2(result.weightScale))).toBe(true);
          expect(heaviest * result.weightScale * weights.size).toBeLessThanOrEqual(1e290);
          expect(heaviest * result.weightScale * 2 * weights.size).toBeGreaterThan(1e290);
        }
        const weightOf = (p: TopicPartition): number => (weights.get(keyOf(p)) ?? Number.NaN) * result.weightScale;

        const instanceLoad = new Map<string, number>();
        const instanceCount = new Map<string, number>();
        for (const m of result.members) {
          const assigned = result.assignments.get(m.memberId) ?? [];
          const load = assigned.reduce((sum, p) => sum + weightOf(p), 0);
          expect(close(m.load, load)).toBe(true);
          expect(m.partitionCount).toBe(assigned.length);
          instanceLoad.set(m.instanceId, (instanceLoad.get(m.instanceId) ?? 0) + load);
          instanceCount.set(m.instanceId, (instanceCount.get(m.instanceId) ?? 0) + assigned.length);
        }
        for (const i of result.instances) {
          expect(close(i.load, instanceLoad.get(i.instanceId) ?? 0)).toBe(true);
          expect(i.partitionCount).toBe(instanceCount.get(i.instanceId) ?? 0);
        }

        const placed = allAssigned(result);
        expect(
          close(
            result.totalWeight,
            placed.reduce((sum, p) => sum + weightOf(p), 0),
          ),
        ).toBe(true);
        expect(result.heaviestWeight).toBe(placed.reduce((max, p) => Math.max(max, weightOf(p)), 0));
        const defaulted = placed.filter(
          (p) => !partitions.some((q) => keyOf(q) === keyOf(p) && isUsableWeight(q.weight)),
        );
        expect(result.defaultedCount).toBe(defaulted.length);
        expect(result.zeroWeightCount).toBe(placed.filter((p) => weightOf(p) === 0).length);
        expect(result.maxInstanceLoad).toBe(result.instances.reduce((max, i) => Math.max(max, i.load / i.capacity), 0));
      }),
      RUNS,
    );
  });

  it('keeps the max instance load within the ideal share plus the heaviest partition when everyone subscribes to one topic', () => {
    const positiveWeight = fc.oneof(
      fc.double({ min: 1e-6, max: 1e6, noNaN: true }),
      fc.integer({ min: 1, max: 100 }),
      fc.constantFrom(1, 1e-3),
    );
    const groupArb = fc.record({
      members: uniqueMembersArb(INSTANCE_POOL),
      weights: fc.array(positiveWeight, { maxLength: 300 }),
    });
    fc.assert(
      fc.property(groupArb, ({ members, weights }) => {
        const result = balance({
          members: members.map((m) => ({ ...m, topics: ['t'] })),
          partitions: weights.map((weight, partition) => ({ topic: 't', partition, weight })),
        });
        expect(result.partitionCount).toBe(weights.length);
        const bound = result.idealLoad + result.heaviestWeight;
        expect(result.maxInstanceLoad).toBeLessThanOrEqual(bound * (1 + 1e-12));
      }),
      RUNS,
    );
  });

  it('keeps instance and member partition counts within one of each other when all weights are equal and everyone subscribes to everything', () => {
    const groupArb = fc.record({
      members: uniqueMembersArb(INSTANCE_POOL),
      counts: fc.array(fc.nat({ max: 40 }), { minLength: TOPIC_POOL.length, maxLength: TOPIC_POOL.length }),
      weight: fc.constantFrom<number | undefined>(0, 1, 3.7, 1e-9, 123456.789, undefined, Number.NaN),
    });
    fc.assert(
      fc.property(groupArb, ({ members, counts, weight }) => {
        const result = balance({
          members: members.map((m) => ({ ...m, topics: TOPIC_POOL })),
          partitions: TOPIC_POOL.flatMap((topic, t) =>
            Array.from({ length: counts[t] ?? 0 }, (_, partition) => ({ topic, partition, weight })),
          ),
        });
        const instanceCounts = result.instances.map((i) => i.partitionCount);
        expect(Math.max(...instanceCounts) - Math.min(...instanceCounts)).toBeLessThanOrEqual(1);
        for (const instance of result.instances) {
          const memberCounts = result.members
            .filter((m) => m.instanceId === instance.instanceId)
            .map((m) => m.partitionCount);
          expect(Math.max(...memberCounts) - Math.min(...memberCounts)).toBeLessThanOrEqual(1);
        }
      }),
      RUNS,
    );
  });
});
