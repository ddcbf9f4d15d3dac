import fc from 'fast-check';
import {
  balance,
  referenceBalance,
  type BalanceMember,
  type BalanceResult,
  type TopicPartition,
  type WeightedPartition,
} from '@load-aware/assignor/internal';
import { keyOf } from './fixtures';

const RUNS = { numRuns: 150 };
const INSTANCE_POOL = ['i0', 'i1', 'i2', 'I3', 'i4'];
const TOPIC_POOL = ['t0', 't1', 't2'];

const weightArb: fc.Arbitrary<number | null | undefined> = fc.oneof(
  { weight: 4, arbitrary: fc.double({ min: 0, max: 1000, noNaN: true }) },
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 50 }) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, null, Number.NaN, -1, 0, 1e-9, 1e9) },
);

const memberArb: fc.Arbitrary<BalanceMember> = fc.record({
  memberId: fc.string({ minLength: 1, maxLength: 4 }),
  instanceId: fc.constantFrom(...INSTANCE_POOL),
  topics: fc.subarray(TOPIC_POOL, { minLength: 1 }),
  capacity: fc.constantFrom(1, 1, 2, 3, 0.5),
});

const groupArb = fc.record({
  members: fc.uniqueArray(memberArb, { minLength: 1, maxLength: 12, selector: (m) => m.memberId }),
  partitions: fc.array(
    fc.record({ topic: fc.constantFrom(...TOPIC_POOL), partition: fc.nat({ max: 30 }), weight: weightArb }),
    { maxLength: 80 },
  ),
});

/** A previous assignment with every kind of junk: unknown members, vanished partitions, duplicates. */
function previousArb(members: ReadonlyArray<BalanceMember>): fc.Arbitrary<Map<string, TopicPartition[]>> {
  const ids = [...members.map((m) => m.memberId), 'ghost-1', 'ghost-2'];
  return fc
    .array(
      fc.record({
        memberId: fc.constantFrom(...ids),
        topic: fc.constantFrom(...TOPIC_POOL, 'gone'),
        partition: fc.nat({ max: 34 }),
      }),
      { maxLength: 120 },
    )
    .map((entries) => {
      const previous = new Map<string, TopicPartition[]>();
      for (const e of entries) {
        const list = previous.get(e.memberId) ?? [];
        list.push({ topic: e.topic, partition: e.partition });
        previous.set(e.memberId, list);
      }
      return previous;
    });
}

const withPreviousArb = groupArb.chain((g) => fc.tuple(fc.constant(g), previousArb(g.members)));

function expectValid(
  result: BalanceResult,
  members: ReadonlyArray<BalanceMember>,
  partitions: ReadonlyArray<WeightedPartition>,
): void {
  const subscribed = new Set(members.flatMap((m) => m.topics));
  const expected = new Set(partitions.filter((p) => subscribed.has(p.topic)).map(keyOf));
  const assigned = [...result.assignments.values()].flat().map(keyOf);
  expect(assigned.length).toBe(expected.size);
  expect(new Set(assigned)).toEqual(expected);
  for (const m of members)
    for (const p of result.assignments.get(m.memberId) ?? []) expect(m.topics).toContain(p.topic);
}

/** The best max instance load (per capacity) over every placement of the partitions on instances. */
function bruteForce(members: ReadonlyArray<BalanceMember>, partitions: ReadonlyArray<WeightedPartition>): number {
  const instances = [...new Set(members.map((m) => m.instanceId))];
  const capacity = instances.map((id) =>
    Math.max(...members.filter((m) => m.instanceId === id).map((m) => m.capacity ?? 1)),
  );
  const unique = new Map(partitions.map((p) => [keyOf(p), p]));
  const items = [...unique.values()];
  const load = instances.map(() => 0);
  let best = Infinity;
  const visit = (k: number): void => {
    if (k === items.length) {
      best = Math.min(best, Math.max(0, ...load.map((l, i) => l / capacity[i]!)));
      return;
    }
    const p = items[k]!;
    instances.forEach((id, i) => {
      if (!members.some((m) => m.instanceId === id && m.topics.includes(p.topic))) return;
      load[i]! += p.weight ?? 0;
      visit(k + 1);
      load[i]! -= p.weight ?? 0;
    });
  };
  visit(0);
  return best;
}

describe('balance quality properties', () => {
  it('is never worse than the reference greedy on the max instance load', () => {
    fc.assert(
      fc.property(groupArb, ({ members, partitions }) => {
        const ours = balance({ members, partitions }).maxInstanceLoad;
        const greedy = referenceBalance({ members, partitions }).maxInstanceLoad;
        expect(ours).toBeLessThanOrEqual(greedy * (1 + 1e-9));
      }),
      RUNS,
    );
  });

  it('reports a lower bound the result never beats, so the optimality ratio is at least 1', () => {
    fc.assert(
      fc.property(groupArb, ({ members, partitions }) => {
        const result = balance({ members, partitions });
        expect(result.lowerBound).toBeGreaterThanOrEqual(0);
        expect(result.maxInstanceLoad).toBeGreaterThanOrEqual(result.lowerBound);
        expect(result.optimalityRatio).toBeGreaterThanOrEqual(1);
      }),
      RUNS,
    );
  });

  it('finds the optimum of tiny groups, and its lower bound never exceeds it', () => {
    const tinyArb = fc.record({
      members: fc.uniqueArray(memberArb, { minLength: 1, maxLength: 4, selector: (m) => m.memberId }),
      partitions: fc.array(
        fc.record({
          topic: fc.constantFrom(...TOPIC_POOL),
          partition: fc.nat({ max: 30 }),
          weight: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.double({ min: 0, max: 30, noNaN: true })),
        }),
        { maxLength: 7 },
      ),
    });
    fc.assert(
      fc.property(tinyArb, ({ members, partitions }) => {
        const subscribed = new Set(members.flatMap((m) => m.topics));
        const placeable = partitions.filter((p) => subscribed.has(p.topic));
        // Duplicates keep their largest weight: resolve them the same way before brute force.
        const largest = new Map<string, WeightedPartition>();
        for (const p of placeable) if ((largest.get(keyOf(p))?.weight ?? -1) < p.weight) largest.set(keyOf(p), p);
        const optimum = bruteForce(members, [...largest.values()]);
        const result = balance({ members, partitions });
        expect(result.lowerBound).toBeLessThanOrEqual(optimum * (1 + 1e-9));
        expect(result.maxInstanceLoad).toBeLessThanOrEqual(optimum * (1 + 1e-9));
      }),
      RUNS,
    );
  });

  it('keeps instance and member counts within one for equal weights even with the search on', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({
            memberId: fc.string({ minLength: 1, maxLength: 4 }),
            instanceId: fc.constantFrom(...INSTANCE_POOL),
          }),
          {
            minLength: 1,
            maxLength: 15,
            selector: (m) => m.memberId,
          },
        ),
        fc.nat({ max: 60 }),
        (members, count) => {
          const result = balance({
            members: members.map((m) => ({ ...m, topics: ['t'] })),
            partitions: Array.from({ length: count }, (_, partition) => ({ topic: 't', partition, weight: 2 })),
          });
          const counts = result.instances.map((i) => i.partitionCount);
          expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
        },
      ),
      RUNS,
    );
  });
});

describe('balance stickiness properties', () => {
  it('moves nothing when given its own result for the same input', () => {
    fc.assert(
      fc.property(groupArb, fc.constantFrom(0, 0.01, 0.05, 0.3), ({ members, partitions }, moveTolerance) => {
        const first = balance({ members, partitions }, { moveTolerance });
        const again = balance({ members, partitions, previous: first.assignments }, { moveTolerance });
        expect(again.movedCount).toBe(0);
        expect(again.assignments).toEqual(first.assignments);
      }),
      RUNS,
    );
  });

  it('assigns every partition exactly once to a subscriber, whatever junk the previous holds', () => {
    fc.assert(
      fc.property(withPreviousArb, ([{ members, partitions }, previous]) => {
        const result = balance({ members, partitions, previous });
        expectValid(result, members, partitions);
        expect(result.forcedMoveCount).toBeLessThanOrEqual(result.movedCount);
        expect(result.movedCount).toBeLessThanOrEqual(result.previouslyOwnedCount);
      }),
      RUNS,
    );
  });

  it('never moves more partitions away from a still-valid owner than maxMovesPerRebalance', () => {
    fc.assert(
      fc.property(withPreviousArb, fc.nat({ max: 5 }), ([{ members, partitions }, previous], limit) => {
        const result = balance({ members, partitions, previous }, { maxMovesPerRebalance: limit, moveTolerance: 0 });
        expect(result.movedCount - result.forcedMoveCount).toBeLessThanOrEqual(limit);
      }),
      RUNS,
    );
  });

  it('gives the same result whatever the order of members, partitions and previous entries', () => {
    const shuffledArb = withPreviousArb.chain(([group, previous]) =>
      fc.tuple(
        fc.constant(group),
        fc.constant(previous),
        fc.shuffledSubarray(group.members, { minLength: group.members.length, maxLength: group.members.length }),
        fc.shuffledSubarray(group.partitions, {
          minLength: group.partitions.length,
          maxLength: group.partitions.length,
        }),
        fc.shuffledSubarray([...previous], { minLength: previous.size, maxLength: previous.size }),
      ),
    );
    fc.assert(
      fc.property(shuffledArb, ([{ members, partitions }, previous, members2, partitions2, previous2]) => {
        const original = balance({ members, partitions, previous });
        const shuffled = balance({ members: members2, partitions: partitions2, previous: new Map(previous2) });
        expect(shuffled).toEqual(original);
      }),
      RUNS,
    );
  });

  // Placing an orphaned load W needs about 2W of movement at most: the orphans, plus what a
  // receiver sheds to make room. Weights are lumpy, so a receiver may have to shed up to one
  // partition more than that: the bound allows the heaviest partition on top.
  const leaveProperty = () =>
    fc.property(leaveArb, ({ members, partitions, departed }) => {
      const first = balance({ members, partitions });
      const gone = new Set(members.filter((m) => m.instanceId === departed).map((m) => m.memberId));
      const weightOf = new Map(partitions.map((p) => [`${p.topic}:${String(p.partition)}`, p.weight!]));
      const ownerBefore = new Map<string, string>();
      for (const [m, ps] of first.assignments)
        for (const p of ps) ownerBefore.set(`${p.topic}:${String(p.partition)}`, m);
      let held = 0;
      let heldCount = 0;
      for (const [key, owner] of ownerBefore) {
        if (!gone.has(owner)) continue;
        held += weightOf.get(key)!;
        heldCount++;
      }
      const stayed = members.filter((m) => !gone.has(m.memberId));
      const result = balance({ members: stayed, partitions, previous: first.assignments });
      let moved = 0;
      for (const [m, ps] of result.assignments) {
        for (const p of ps) {
          const key = `${p.topic}:${String(p.partition)}`;
          if (ownerBefore.get(key) !== m) moved += weightOf.get(key)!;
        }
      }
      expect(result.forcedMoveCount).toBe(heldCount);
      expect(moved).toBeLessThanOrEqual(2 * held + result.heaviestWeight + 1e-9 * held);
    });

  it('moves at most twice the weight a departed instance held, plus one partition', () => {
    fc.assert(leaveProperty(), { numRuns: 60 });
  });

  it('keeps that bound on the regression seeds', () => {
    for (const seed of LEAVE_REGRESSION_SEEDS) fc.assert(leaveProperty(), { numRuns: 60, seed });
  });
});

/**
 * Seeds of {@link leaveArb} kept as regression cases: 27 was the suite's pinned seed, whose
 * seventh group moved 31 partitions for 20 orphans (moved weight within the bound).
 */
const LEAVE_REGRESSION_SEEDS = [27];

/**
 * 8 to 30 instances of one to four members on two topics, 20 to 40 partitions per instance,
 * weights spread over a factor of e⁴ ≈ 55 (log-uniform, drawn from a seed so that a failure
 * shrinks to a few numbers), and the instance that leaves. With three or four members an instance
 * holds few partitions per member, and its own level's moves come on top of the instance level's.
 */
const leaveArb = fc
  .record({
    instances: fc.integer({ min: 8, max: 30 }),
    membersPerInstance: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 30, maxLength: 30 }),
    perInstance: fc.integer({ min: 20, max: 40 }),
    departed: fc.nat(),
    seed: fc.integer(),
  })
  .map(({ instances, membersPerInstance, perInstance, departed, seed }) => {
    const id = (i: number): string => `i${String(i).padStart(2, '0')}`;
    const members: BalanceMember[] = [];
    for (let i = 0; i < instances; i++) {
      for (let k = 0; k < membersPerInstance[i]!; k++) {
        members.push({ memberId: `m${String(k)}-${id(i)}`, instanceId: id(i), topics: ['a', 'b'] });
      }
    }
    const next = mulberry32(seed);
    const partitions: WeightedPartition[] = Array.from({ length: instances * perInstance }, (_, p) => ({
      topic: p % 2 === 0 ? 'a' : 'b',
      partition: p >> 1,
      weight: Math.exp(4 * next() - 2),
    }));
    return { members, partitions, departed: id(departed % instances) };
  });

/** A small seeded PRNG with values in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
