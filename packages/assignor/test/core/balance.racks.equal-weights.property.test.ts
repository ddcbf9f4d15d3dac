import fc from 'fast-check';
import { balance, type BalanceMember, type TopicPartition, type WeightedPartition } from '@load-aware/assignor';
import { countImbalances, invalidPlacements } from './group-rules';

/**
 * Equal weights, one replica per partition, every member its own instance and subscribed to
 * everything: Kafka's rack-aware StickyAssignor's ground. Its count contract comes first (no
 * member two or more partitions above another), and within it the fewest partitions fetched
 * across racks that those counts allow. That least count is known in closed form, so every step
 * of a random join/leave sequence must reach it exactly, whichever instances carry the extra
 * partition and however the previous step left the owners.
 */

const RACKS = ['a', 'b', 'c'];
const RUNS = { numRuns: 120 };

interface Layout {
  /** Members per rack at each step. */
  readonly steps: ReadonlyArray<readonly [number, number, number]>;
  /** Partitions per rack (replica rack), spread over two topics. */
  readonly perRack: readonly [number, number, number];
}

const countsArb = fc.tuple(
  fc.integer({ min: 1, max: 5 }),
  fc.integer({ min: 1, max: 5 }),
  fc.integer({ min: 1, max: 5 }),
);
const layoutArb: fc.Arbitrary<Layout> = fc.record({
  steps: fc.array(countsArb, { minLength: 2, maxLength: 4 }),
  perRack: fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 })),
});

/** Members `<rack><k>` for the first `count` of each rack: a step adds or removes the last ones. */
function membersOf(counts: readonly [number, number, number]): BalanceMember[] {
  return RACKS.flatMap((rack, r) =>
    Array.from({ length: counts[r]! }, (_, k) => ({
      memberId: `${rack}${String(k)}`,
      instanceId: `${rack}${String(k)}`,
      topics: ['t0', 't1'],
      rack,
    })),
  );
}

/** Partitions with their one replica in rack a, b or c, `perRack` of each, over topics t0 and t1. */
function partitionsOf(perRack: readonly [number, number, number]): WeightedPartition[] {
  const out: WeightedPartition[] = [];
  const next = [0, 0];
  RACKS.forEach((rack, r) => {
    for (let k = 0; k < perRack[r]!; k++) {
      const topic = k % 2;
      out.push({ topic: `t${String(topic)}`, partition: next[topic]!++, weight: 1, racks: [rack] });
    }
  });
  return out;
}

/**
 * The fewest partitions fetched across racks at Kafka's counts: every member holds `base` or
 * `base + 1`, exactly `extra` of them the larger, and each extra slot is worth one partition in a
 * rack short of room (at most one per member there).
 */
function leastCrossRack(counts: readonly [number, number, number], perRack: readonly [number, number, number]): number {
  const members = counts[0] + counts[1] + counts[2];
  const total = perRack[0] + perRack[1] + perRack[2];
  const base = Math.floor(total / members);
  const extra = total % members;
  let inRack = 0;
  let usable = 0;
  for (let r = 0; r < 3; r++) {
    inRack += Math.min(perRack[r]!, base * counts[r]!);
    usable += Math.min(Math.max(0, perRack[r]! - base * counts[r]!), counts[r]!);
  }
  return total - inRack - Math.min(extra, usable);
}

function crossRackCount(
  assignments: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
  partitions: WeightedPartition[],
): number {
  const rackOf = new Map(partitions.map((p) => [`${p.topic}:${String(p.partition)}`, p.racks![0]!]));
  let count = 0;
  for (const [member, list] of assignments) {
    for (const p of list) if (rackOf.get(`${p.topic}:${String(p.partition)}`) !== member[0]) count++;
  }
  return count;
}

/** Members with their own instances, mixed subscriptions and racks; partitions on one or two racks. */
const mixedArb = fc.record({
  members: fc.uniqueArray(
    fc.record({
      memberId: fc.constantFrom('m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7'),
      topics: fc.subarray(['t0', 't1', 't2'], { minLength: 1 }),
      rack: fc.constantFrom(...RACKS),
    }),
    { minLength: 1, maxLength: 8, selector: (m) => m.memberId },
  ),
  partitions: fc.array(
    fc.tuple(fc.constantFrom('t0', 't1', 't2'), fc.subarray(RACKS, { minLength: 1, maxLength: 2 })),
    {
      maxLength: 60,
    },
  ),
});

describe('balance() with racks and equal weights, through joins and leaves', () => {
  it("keeps Kafka's balance rule whatever the subscriptions, before and after a change", () => {
    fc.assert(
      fc.property(mixedArb, mixedArb, ({ members, partitions }, next) => {
        const placed = partitions.map(([topic, racks], k) => ({ topic, partition: k, weight: 1, racks }));
        const asMembers = (list: typeof members): BalanceMember[] =>
          list.map((m) => ({ memberId: m.memberId, instanceId: m.memberId, topics: m.topics, rack: m.rack }));
        const first = { members: asMembers(members), partitions: placed };
        const before = balance(first);
        expect(invalidPlacements(first, before)).toEqual([]);
        expect(countImbalances(first, before)).toEqual([]);
        const second = { members: asMembers(next.members), partitions: placed, previous: before.assignments };
        const after = balance(second);
        expect(invalidPlacements(second, after)).toEqual([]);
        expect(countImbalances(second, after)).toEqual([]);
      }),
      RUNS,
    );
  });

  it("drops a rack match that breaks Kafka's rule (fast-check seed -349830567, shrunk)", () => {
    const partitions = (
      [
        ['t1', ['a', 'b']],
        ['t2', ['a', 'c']],
        ['t0', ['b', 'c']],
        ['t0', ['c']],
        ['t2', ['a']],
      ] as const
    ).map(([topic, racks], k) => ({ topic, partition: k, weight: 1, racks: [...racks] }));
    const member = (memberId: string, topics: string[], rack: string): BalanceMember => ({
      memberId,
      instanceId: memberId,
      topics,
      rack,
    });
    const first = { members: [member('m6', ['t0', 't2'], 'a'), member('m0', ['t2'], 'a')], partitions };
    const second = {
      members: [
        member('m6', ['t0', 't1', 't2'], 'a'),
        member('m4', ['t1'], 'a'),
        member('m5', ['t2'], 'b'),
        member('m0', ['t0', 't1'], 'b'),
      ],
      partitions,
      previous: balance(first).assignments,
    };
    // Matching racks by trades once left m6 with t1-0 and two partitions while m4, which
    // subscribes to t1, held none.
    const after = balance(second);
    expect(invalidPlacements(second, after)).toEqual([]);
    expect(countImbalances(second, after)).toEqual([]);
  });

  it("keeps Kafka's counts and fetches across racks exactly the least those counts allow, at every step", () => {
    fc.assert(
      fc.property(layoutArb, ({ steps, perRack }) => {
        const partitions = partitionsOf(perRack);
        let previous = new Map<string, ReadonlyArray<TopicPartition>>();
        for (const counts of steps) {
          const input = { members: membersOf(counts), partitions, previous };
          const result = balance(input);
          expect(invalidPlacements(input, result)).toEqual([]);
          expect(countImbalances(input, result)).toEqual([]);
          const least = leastCrossRack(counts, perRack);
          expect(crossRackCount(result.assignments, partitions)).toBe(least);
          expect(result.crossRackPartitions).toBe(least);
          previous = new Map(result.assignments);
        }
      }),
      RUNS,
    );
  });
});
