import fc from 'fast-check';
import { balance, type BalanceMember, type TopicPartition, type WeightedPartition } from '@load-aware/assignor';
import { createRandom } from '@load-aware/test-support';
import { invalidPlacements } from './group-rules';
import { withShuffledCopies } from './fixtures';
import { withoutRackTallies } from './kafka-racks';

const RUNS = { numRuns: 150 };
const RACKS = ['a', 'b', 'c'];
const INSTANCES = ['i0', 'i1', 'i2', 'i3', 'i4', 'i5'];
const TOPICS = ['t0', 't1', 't2'];

const memberArb = fc.record(
  {
    memberId: fc.string({ minLength: 1, maxLength: 5 }),
    instanceId: fc.constantFrom(...INSTANCES),
    topics: fc.subarray(TOPICS, { minLength: 1 }),
    capacity: fc.constantFrom(1, 2, undefined),
    rack: fc.constantFrom(...RACKS, undefined),
  },
  { requiredKeys: ['memberId', 'instanceId', 'topics'] },
);
const membersArb = fc.uniqueArray(memberArb, { minLength: 1, maxLength: 12, selector: (m) => m.memberId });

const partitionArb = fc.record(
  {
    topic: fc.constantFrom(...TOPICS),
    partition: fc.nat({ max: 30 }),
    weight: fc.oneof(fc.constant(1), fc.constant(0), fc.double({ min: 0.01, max: 1000, noNaN: true })),
    racks: fc.subarray([...RACKS, 'z']),
  },
  { requiredKeys: ['topic', 'partition'] },
);
const partitionsArb = fc.array(partitionArb, { maxLength: 120 });

/** Members of one instance share a rack: the smallest their members report counts. */
function instanceRacks(members: ReadonlyArray<BalanceMember>): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of members) {
    if (m.rack === undefined) continue;
    const seen = out.get(m.instanceId);
    if (seen === undefined || m.rack < seen) out.set(m.instanceId, m.rack);
  }
  return out;
}

/**
 * Cross-rack count and weight, restated from the documented rule rather than read from the core:
 * a partition listed twice has the union of its racks and the larger of its weights, a missing
 * weight (the default, 1) counting only when no entry has one.
 */
function crossRack(
  members: ReadonlyArray<BalanceMember>,
  partitions: ReadonlyArray<WeightedPartition>,
  assignments: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
): { count: number; weight: number } {
  const rackOf = instanceRacks(members);
  const instanceOf = new Map(members.map((m) => [m.memberId, m.instanceId]));
  const racksOf = new Map<string, Set<string>>();
  const weightOf = new Map<string, number>();
  for (const p of partitions) {
    const key = `${p.topic}\u0000${String(p.partition)}`;
    const set = racksOf.get(key) ?? new Set<string>();
    for (const r of p.racks ?? []) set.add(r);
    racksOf.set(key, set);
    if (typeof p.weight === 'number') weightOf.set(key, Math.max(weightOf.get(key) ?? 0, p.weight));
  }
  let count = 0;
  let weight = 0;
  for (const [memberId, list] of assignments) {
    const rack = rackOf.get(instanceOf.get(memberId)!);
    if (rack === undefined) continue;
    for (const p of list) {
      const key = `${p.topic}\u0000${String(p.partition)}`;
      const held = racksOf.get(key)!;
      if (held.size === 0 || held.has(rack)) continue;
      count++;
      weight += weightOf.get(key) ?? 1;
    }
  }
  return { count, weight };
}

function stripRacks(members: ReadonlyArray<BalanceMember>, partitions: ReadonlyArray<WeightedPartition>) {
  return {
    members: members.map(({ rack: _r, ...m }) => m),
    partitions: partitions.map(({ racks: _r, ...p }) => p),
  };
}

/**
 * Groups with racks: two or three racks of one to four instances (one or two members each, every
 * member subscribed to every topic), 10–120 partitions weighing what `weight` draws, each with
 * its replicas in one or two racks.
 */
const rackGroupArb = (weight: fc.Arbitrary<number>) =>
  fc
    .record({
      sizes: fc.array(
        fc.record({ instances: fc.integer({ min: 1, max: 4 }), members: fc.integer({ min: 1, max: 2 }) }),
        {
          minLength: 2,
          maxLength: 3,
        },
      ),
      partitions: fc.array(
        fc.record({
          weight,
          racks: fc.subarray(RACKS, { minLength: 1, maxLength: 2 }),
        }),
        { minLength: 10, maxLength: 120 },
      ),
    })
    .map(({ sizes, partitions }) => {
      const members: BalanceMember[] = [];
      sizes.forEach(({ instances, members: perInstance }, r) => {
        for (let i = 0; i < instances; i++) {
          const instanceId = `${RACKS[r]!}${String(i)}`;
          for (let m = 0; m < perInstance; m++)
            members.push({ memberId: `${instanceId}-${String(m)}`, instanceId, topics: TOPICS, rack: RACKS[r]! });
        }
      });
      const placed: WeightedPartition[] = partitions.map(({ weight, racks }, k) => ({
        topic: TOPICS[k % TOPICS.length]!,
        partition: Math.floor(k / TOPICS.length),
        weight,
        racks,
      }));
      return { members, partitions: placed };
    });

const positiveWeight = fc.double({ min: 0.01, max: 100, noNaN: true });

/** {@link rackGroupArb} with every partition of positive weight. */
const weightedRackGroupArb = rackGroupArb(positiveWeight);

/** {@link rackGroupArb} with about a tenth of the partitions idle (weight 0), placed by count. */
const idleRackGroupArb = rackGroupArb(
  fc.oneof({ weight: 9, arbitrary: positiveWeight }, { weight: 1, arbitrary: fc.constant(0) }),
);

/** Each partition's owner (a single topic's partitions, by number). */
function ownerOf(assignments: ReadonlyMap<string, ReadonlyArray<TopicPartition>>): Map<number, string> {
  return new Map([...assignments].flatMap(([member, owned]) => owned.map((tp) => [tp.partition, member] as const)));
}

/**
 * A group of two or three racks of 3–10 instances of one or two members, 300 partitions of one
 * topic on one rack each, log-normal weights with a tenth idle, all drawn from `seed`.
 */
function largeIdleRackGroup(seed: number): { members: BalanceMember[]; partitions: WeightedPartition[] } {
  const random = createRandom(seed);
  const rackCount = 2 + random.int(2);
  const members: BalanceMember[] = [];
  for (let r = 0; r < rackCount; r++) {
    const instances = 3 + random.int(8);
    for (let i = 0; i < instances; i++) {
      const instanceId = `${RACKS[r]!}${String(i)}`;
      const memberCount = 1 + random.int(2);
      for (let m = 0; m < memberCount; m++)
        members.push({ memberId: `${instanceId}-${String(m)}`, instanceId, topics: ['t0'], rack: RACKS[r]! });
    }
  }
  const partitions: WeightedPartition[] = [];
  for (let p = 0; p < 300; p++) {
    const weight = random.next() < 0.1 ? 0 : random.logNormal(0, 1);
    partitions.push({ topic: 't0', partition: p, weight, racks: [RACKS[random.int(rackCount)]!] });
  }
  return { members, partitions };
}

describe('balance() with racks (properties)', () => {
  it('places every partition validly and reports its cross-rack count honestly, above the bound', () => {
    fc.assert(
      fc.property(membersArb, partitionsArb, (members, partitions) => {
        const input = { members, partitions };
        const result = balance(input);
        expect(invalidPlacements(input, result)).toEqual([]);
        const restated = crossRack(members, partitions, result.assignments);
        expect(result.crossRackPartitions).toBe(restated.count);
        expect(result.crossRackWeight).toBeCloseTo(restated.weight, 6);
        expect(result.crossRackLowerBound).toBeLessThanOrEqual(result.crossRackWeight);
        expect(result.crossRackLowerBound).toBeGreaterThanOrEqual(0);
      }),
      RUNS,
    );
  });

  it('keeps the busiest instance within the tolerance of the placement without racks', () => {
    fc.assert(
      fc.property(membersArb, partitionsArb, (members, partitions) => {
        const plain = balance(stripRacks(members, partitions));
        const racked = balance({ members, partitions });
        const ceiling = Math.max(plain.maxCombinedLoad, plain.lowerBound * 1.05);
        expect(racked.maxCombinedLoad).toBeLessThanOrEqual(ceiling * (1 + 1e-9) + 1e-9);
      }),
      RUNS,
    );
  });

  it('never fetches more weight across racks than the placement without racks', () => {
    fc.assert(
      fc.property(membersArb, partitionsArb, (members, partitions) => {
        const plain = balance(stripRacks(members, partitions));
        const racked = balance({ members, partitions });
        const before = crossRack(members, partitions, plain.assignments).weight;
        expect(racked.crossRackWeight).toBeLessThanOrEqual(before * (1 + 1e-9) + 1e-9);
      }),
      RUNS,
    );
  });

  it('gives the same placement whatever the order of members, partitions and their racks', () => {
    fc.assert(
      fc.property(withShuffledCopies(fc.tuple(membersArb, partitionsArb)), ([m1, p1, m2, p2]) => {
        const reversed = p2.map((p) => (p.racks === undefined ? p : { ...p, racks: [...p.racks].reverse() }));
        expect(withoutRackTallies(balance({ members: m1, partitions: p1 }))).toEqual(
          withoutRackTallies(balance({ members: m2, partitions: reversed })),
        );
      }),
      RUNS,
    );
  });

  it('gives the same result whether equal rack lists are one shared array or one array each', () => {
    fc.assert(
      fc.property(membersArb, partitionsArb, (members, partitions) => {
        const shared = new Map<string, ReadonlyArray<string>>();
        const sharing = partitions.map((p) => {
          if (p.racks === undefined) return p;
          const key = p.racks.join(',');
          const racks = shared.get(key) ?? p.racks;
          shared.set(key, racks);
          return { ...p, racks };
        });
        const copied = partitions.map((p) => (p.racks === undefined ? p : { ...p, racks: [...p.racks] }));
        expect(balance({ members, partitions: sharing })).toEqual(balance({ members, partitions: copied }));
      }),
      RUNS,
    );
  });

  // Placed again once, a group can still move a partition: the band an in-rack placement is
  // judged in depends on the placement it is compared with, which is the from-scratch one the
  // first time and the group's own after that (fast-check: 13 light partitions on racks of 4/1/1
  // instances, one partition moved once). It must not keep moving. Idle partitions are placed by
  // count on top of the weighted ones; rack matching used to change those counts after the count
  // phase had levelled against them, and every later placement moved idle partitions anew.
  it.each([
    ['weighted', weightedRackGroupArb],
    ['with idle partitions', idleRackGroupArb],
  ])('settles (%s): an unchanged group placed twice more moves nothing the second time', (_, groupArb) => {
    fc.assert(
      fc.property(groupArb, ({ members, partitions }) => {
        const first = balance({ members, partitions });
        const second = balance({ members, partitions, previous: first.assignments });
        const third = balance({ members, partitions, previous: second.assignments });
        expect(third.movedCount).toBe(0);
      }),
      RUNS,
    );
  });

  it('moves no idle partition of an unchanged group unless a weighted one moves', () => {
    // Larger groups than the other properties, drawn from a seed by a generator of their own
    // (log-normal weights, a tenth idle, each partition on one rack): the defect showed on racks
    // of 3–10 instances of one or two members, 300 partitions (556 idle partitions moved over 60
    // such groups placed again).
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
        const { members, partitions } = largeIdleRackGroup(seed);
        const first = balance({ members, partitions });
        const second = balance({ members, partitions, previous: first.assignments });
        const before = ownerOf(first.assignments);
        const after = ownerOf(second.assignments);
        const moved = partitions.filter((p) => before.get(p.partition) !== after.get(p.partition));
        if (moved.every((p) => p.weight === 0)) expect(moved).toEqual([]);
      }),
      { numRuns: 30 },
    );
  });

  it('is byte-identical to the placement without racks when every partition is on every member rack', () => {
    fc.assert(
      fc.property(membersArb, partitionsArb, (members, partitions) => {
        const everywhere = partitions.map((p) => ({ ...p, racks: [...RACKS] }));
        const plain = stripRacks(members, partitions);
        expect(withoutRackTallies(balance({ members, partitions: everywhere }))).toEqual(
          withoutRackTallies(balance(plain)),
        );
        expect(withoutRackTallies(balance({ members: plain.members, partitions }))).toEqual(
          withoutRackTallies(balance(plain)),
        );
      }),
      RUNS,
    );
  });
});
