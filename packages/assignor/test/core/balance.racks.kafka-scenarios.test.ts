import { balance, type BalanceMember, type WeightedPartition } from '@load-aware/assignor';
import { countImbalances, invalidPlacements } from './group-rules';
import { consumers, kafkaPartitions, nullRacks, owned, rackMismatches, racks, withoutRackTallies } from './kafka-racks';

/**
 * The rack-aware scenarios of Apache Kafka's AbstractStickyAssignorTest and RangeAssignorTest
 * (testRackAwareAssignmentWith...), restated as properties of balance() with weight 1 and every
 * consumer its own instance. Kafka's exact lists depend on its tie-breaks; what must hold is
 * theirs: a valid placement, Kafka's count balance (no partition could move to a subscriber
 * holding two or more fewer), at most as many rack mismatches as Kafka's assignor reaches, the
 * rack logic off (byte-identical output) where it cannot help, misaligned owners improved, and
 * nothing moved when the owners already match racks.
 */

const SIZES = [
  ['t1', 6],
  ['t2', 7],
  ['t3', 2],
] as const;
const ALL = ['t1', 't2', 't3'];
const UNIFORM = [ALL, ALL, ALL];
const NON_EQUAL = [ALL, ALL, ['t1', 't3']];

function placed(
  members: BalanceMember[],
  partitions: WeightedPartition[],
  previous?: Map<string, never[]> | ReturnType<typeof owned>,
) {
  const input = previous === undefined ? { members, partitions } : { members, partitions, previous };
  const result = balance(input);
  expect(invalidPlacements(input, result)).toEqual([]);
  expect(countImbalances(input, result)).toEqual([]);
  return { result, mismatches: rackMismatches(members, partitions, result.assignments) };
}

/** The same call with every rack removed: today's placement. */
function withoutRacks(members: BalanceMember[], partitions: WeightedPartition[], previous?: ReturnType<typeof owned>) {
  const bare = members.map(({ rack: _rack, ...m }) => m);
  const plain = partitions.map(({ racks: _racks, ...p }) => p);
  return balance(
    previous === undefined ? { members: bare, partitions: plain } : { members: bare, partitions: plain, previous },
  );
}

describe.each([
  ['uniform subscription', UNIFORM],
  ['non-equal subscription', NON_EQUAL],
])("Kafka's rack-aware scenarios, %s", (_name, subscriptions) => {
  it.each([
    ['brokers without racks', nullRacks(3), racks(3)],
    ['consumers without racks', racks(3), nullRacks(3)],
    ['consumer racks no broker is in', racks(3), ['d', 'e', 'f']],
    ['one consumer without a rack, the others in no broker rack', racks(3), [null, 'e', 'f']],
    ['every partition on every consumer rack', racks(3), racks(3)],
  ])(
    'turns rack matching off where it cannot help (%s): the placement is byte-identical',
    (_case, brokerRacks, consumerRacks) => {
      const members = consumers(subscriptions, consumerRacks);
      const partitions = kafkaPartitions(SIZES, 3, brokerRacks);
      expect(withoutRackTallies(placed(members, partitions).result)).toEqual(
        withoutRackTallies(withoutRacks(members, partitions)),
      );
    },
  );

  it.each([
    // [replication factor, Kafka StickyAssignor's mismatches]. RangeAssignor reaches fewer with
    // non-equal subscriptions (2) only by giving up the count balance (6, 6 and 3 partitions).
    [1, subscriptions === UNIFORM ? 0 : 4],
    [2, 0],
  ])('aligns racks for replication factor %i at least as well as Kafka, keeping the count balance', (rf, sticky) => {
    const members = consumers(subscriptions, racks(3));
    const { result, mismatches } = placed(members, kafkaPartitions(SIZES, rf, racks(3)));
    expect(mismatches).toBeLessThanOrEqual(sticky);
    expect(result.crossRackPartitions).toBe(mismatches);
  });

  it('matches every partition with four broker racks and replication factor 3, as Kafka does', () => {
    const members = consumers(subscriptions, racks(3));
    expect(placed(members, kafkaPartitions(SIZES, 3, racks(4))).mismatches).toBe(0);
  });

  it('still gives a consumer in a rack with no replicas its share', () => {
    const members = consumers(subscriptions, racks(3));
    const partitions = kafkaPartitions(SIZES, 3, racks(2));
    const { result, mismatches } = placed(members, partitions);
    const counts = result.members.map((m) => m.partitionCount);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    // Rack c holds no replica: c2's share (5 partitions) is fetched across racks, as in Kafka, and
    // nothing else is.
    expect(mismatches).toBe(result.assignments.get('c2')!.length);
    expect(mismatches).toBe(5);
    expect(result.crossRackPartitions).toBe(5);
    expect(result.crossRackLowerBound).toBe(5);
  });

  it('improves misaligned owned partitions', () => {
    const members = consumers(subscriptions, racks(3));
    const partitions = kafkaPartitions(SIZES, 1, racks(3));
    const previous = owned([
      't1-0, t1-1, t1-2, t1-3, t1-4',
      't1-5, t2-0, t2-1, t2-2, t2-3',
      subscriptions === UNIFORM ? 't2-4, t2-5, t2-6, t3-0, t3-1' : 't3-0, t3-1',
    ]);
    const before = rackMismatches(members, partitions, previous);
    const { mismatches } = placed(members, partitions, previous);
    expect(mismatches).toBeLessThan(before);
    // Kafka's StickyAssignor reaches 0 and 4 here.
    expect(mismatches).toBeLessThanOrEqual(subscriptions === UNIFORM ? 0 : 4);
  });

  it('keeps every owner when racks already match', () => {
    const members = consumers(subscriptions, racks(3));
    const partitions = kafkaPartitions(SIZES, subscriptions === UNIFORM ? 1 : 2, racks(3));
    const first = placed(members, partitions).result;
    const again = placed(members, partitions, new Map(first.assignments)).result;
    expect(again.movedCount).toBe(0);
    expect(again.crossRackPartitions).toBe(first.crossRackPartitions);
  });
});

describe("Kafka's RangeAssignor rack scenarios with uniform partitions", () => {
  const sizes = [
    ['t1', 5],
    ['t2', 5],
    ['t3', 5],
  ] as const;

  // RangeAssignor keeps co-partitioning first (6, 6 and 3 partitions here) and then matches what
  // racks it can; balance() keeps the count balance first and must still do no worse on racks.
  // The last column is the optimum at that balance, worked out by hand: 5 when rack c holds no
  // replica (c2's share), 4 with c2 reading only t1 and t3 (rack c holds 3 partitions c2 may
  // take and 2 of t2 it may not, while c2 must take 5).
  it.each([
    // [subscriptions, replication factor, broker racks, RangeAssignor's mismatches, optimum]
    ['uniform', UNIFORM, 1, racks(3), 10, 0],
    ['uniform', UNIFORM, 2, racks(3), 5, 0],
    ['uniform', UNIFORM, 3, racks(2), 3, 5],
    ['non-equal', NON_EQUAL, 1, racks(3), 9, 4],
    ['non-equal', NON_EQUAL, 2, racks(3), 0, 0],
  ])(
    '%s subscription (replication factor and racks as in Kafka): the fewest mismatches the count balance allows',
    (_n, subs, rf, brokerRacks, range, optimum) => {
      const members = consumers(subs, racks(3));
      const { result, mismatches } = placed(members, kafkaPartitions(sizes, rf, brokerRacks));
      expect(mismatches).toBe(result.crossRackPartitions);
      expect(mismatches).toBe(optimum);
      expect(result.crossRackLowerBound).toBeLessThanOrEqual(mismatches);
      if (brokerRacks.length === 3) expect(mismatches).toBeLessThanOrEqual(range);
    },
  );
});
