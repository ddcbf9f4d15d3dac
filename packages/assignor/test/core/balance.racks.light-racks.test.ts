import { balance, type BalanceMember, type WeightedPartition } from '@load-aware/assignor';

/**
 * Weighted racks where a rack carries less than its share, or one partition outweighs its rack's
 * share: the objective puts locality right after the busiest level, so neither may push
 * partitions across racks just to lift a light instance to the group's mean.
 */

const RACKS = ['a', 'b', 'c'];

/** Two instances (one member each) per rack. */
function members(perRack = 2): BalanceMember[] {
  return RACKS.flatMap((rack) =>
    Array.from({ length: perRack }, (_, k) => ({
      memberId: `${rack}-m${String(k)}`,
      instanceId: `${rack}-${String(k)}`,
      topics: ['t'],
      rack,
    })),
  );
}

/** Partitions of topic `t`, each homed in one rack (replication factor 1), in the order given. */
function homed(weights: ReadonlyArray<readonly [string, number]>): WeightedPartition[] {
  return weights.map(([rack, weight], partition) => ({ topic: 't', partition, weight, racks: [rack] }));
}

/** Load of each instance and the busiest, from the assignment. */
function loads(
  input: { members: BalanceMember[]; partitions: WeightedPartition[] },
  result: ReturnType<typeof balance>,
) {
  const weight = new Map(input.partitions.map((p) => [p.partition, p.weight as number]));
  const instanceOf = new Map(input.members.map((m) => [m.memberId, m.instanceId]));
  const load = new Map<string, number>();
  let placed = 0;
  for (const [memberId, list] of result.assignments) {
    for (const tp of list) {
      placed++;
      const instance = instanceOf.get(memberId)!;
      load.set(instance, (load.get(instance) ?? 0) + weight.get(tp.partition)!);
    }
  }
  expect(placed).toBe(input.partitions.length);
  return load;
}

const repeat = (rack: string, weight: number, n: number): Array<readonly [string, number]> =>
  Array.from({ length: n }, () => [rack, weight] as const);

describe('weighted racks: light racks keep their partitions', () => {
  it('a rack lighter than its share keeps every partition in-rack when the busiest allows it', () => {
    // Racks a and b carry 14 each, c only 10: the mean is 6.33 an instance, c's share 5. No
    // placement has a busiest below 7 (partitions of 2 and 3), and in-rack reaches 7; lifting c
    // to the mean less the tolerance would take partitions from a and b across racks. (Weights
    // differ, so Kafka's count rule, which comes before locality, does not apply.)
    const rack = (name: string, threes: number, twos: number) => [...repeat(name, 3, threes), ...repeat(name, 2, twos)];
    const input = {
      members: members(),
      partitions: homed([...rack('a', 2, 4), ...rack('b', 2, 4), ...rack('c', 2, 2)]),
    };
    const result = balance(input);
    expect(result.crossRackWeight).toBe(0);
    expect(Math.max(...loads(input, result).values())).toBe(7);
  });

  it('a partition heavier than its rack share sets no floor for its rack-mates', () => {
    // Rack a: one partition of 10 and two of 1. Its other instance can only hold the 2 in-rack;
    // the busiest level is 10 whatever happens, so nothing needs to cross.
    const input = {
      members: members(),
      partitions: homed([['a', 10], ...repeat('a', 1, 2), ...repeat('b', 1, 14), ...repeat('c', 1, 14)]),
    };
    const result = balance(input);
    expect(result.crossRackWeight).toBe(0);
    expect(Math.max(...loads(input, result).values())).toBe(10);
  });

  it('still gives a joiner its rack share', () => {
    // Rack c gains a third instance: it takes c's share (4) from its rack-mates, not nothing.
    const partitions = homed([...repeat('a', 2, 6), ...repeat('b', 2, 6), ...repeat('c', 1, 12)]);
    const before = balance({ members: members(), partitions });
    const joined = [...members(), { memberId: 'c-m2', instanceId: 'c-2', topics: ['t'], rack: 'c' }];
    const input = { members: joined, partitions, previous: before.assignments };
    const result = balance(input);
    expect(result.crossRackWeight).toBe(0);
    const load = loads(input, result);
    expect(load.get('c-2')).toBeGreaterThanOrEqual(4 * (1 - 0.05));
    expect(Math.max(...load.values())).toBeLessThanOrEqual(6);
  });
});
