import fc from 'fast-check';
import { roundRobin, type BalanceMember, type TopicPartition } from '@load-aware/assignor/internal';
import { keyOf, labels, member, uniform, withShuffledCopies } from '../fixtures';

describe('roundRobin', () => {
  it('gives a topic’s partitions only to members subscribed to it', () => {
    const members = [member('a', 'A', ['x']), member('b', 'B', ['x', 'y']), member('c', 'C', ['y'])];
    const result = roundRobin(members, [...uniform('x', 4, undefined), ...uniform('y', 4, undefined)]);
    // x cycles over [a, b] from turn 0; y continues the turn counter (4, 5, ...) over [b, c].
    expect(labels(result)).toEqual({
      a: ['x-0', 'x-2'],
      b: ['x-1', 'x-3', 'y-0', 'y-2'],
      c: ['y-1', 'y-3'],
    });
  });

  it('deals partitions in topic/partition order, cycling through subscribers in member-id order', () => {
    const members = [member('m-c', 'A', ['t']), member('m-a', 'A', ['t']), member('m-b', 'B', ['t'])];
    const partitions: TopicPartition[] = [5, 3, 1, 0, 4, 2].map((partition) => ({ topic: 't', partition }));
    expect(labels(roundRobin(members, partitions))).toEqual({
      'm-a': ['t-0', 't-3'],
      'm-b': ['t-1', 't-4'],
      'm-c': ['t-2', 't-5'],
    });
  });

  it('orders member ids and partition numbers by code unit and by number, not as locale strings', () => {
    const members = [member('a', 'A', ['t']), member('B', 'B', ['t'])];
    const partitions: TopicPartition[] = [10, 2].map((partition) => ({ topic: 't', partition }));
    // 'B' < 'a', and partition 2 comes before partition 10.
    expect(labels(roundRobin(members, partitions))).toEqual({ B: ['t-2'], a: ['t-10'] });
  });

  it('assigns a partition listed twice only once and leaves out topics nobody subscribes to', () => {
    const members = [member('a', 'A', ['t']), member('b', 'B', ['t'])];
    const partitions: TopicPartition[] = [
      { topic: 't', partition: 0 },
      { topic: 'ghost', partition: 0 },
      { topic: 't', partition: 0 },
      { topic: 't', partition: 1 },
    ];
    expect(labels(roundRobin(members, partitions))).toEqual({ a: ['t-0'], b: ['t-1'] });
  });

  it('lists every member, even members that receive nothing', () => {
    const members = [member('a', 'A', ['t']), member('b', 'B', ['t']), member('c', 'C', ['other'])];
    expect(labels(roundRobin(members, uniform('t', 1, 1)))).toEqual({ a: ['t-0'], b: [], c: [] });
    expect(labels(roundRobin(members, []))).toEqual({ a: [], b: [], c: [] });
    expect(roundRobin([], uniform('t', 3, 1)).size).toBe(0);
  });

  it('counts a topic subscribed twice by one member once', () => {
    const members = [member('a', 'A', ['t', 't']), member('b', 'B', ['t'])];
    expect(labels(roundRobin(members, uniform('t', 4, 1)))).toEqual({ a: ['t-0', 't-2'], b: ['t-1', 't-3'] });
  });

  const memberArb: fc.Arbitrary<BalanceMember> = fc.record({
    memberId: fc.string({ minLength: 1, maxLength: 6 }),
    instanceId: fc.constantFrom('i0', 'i1', 'i2'),
    topics: fc.subarray(['t0', 't1', 't2']),
  });
  const groupArb = withShuffledCopies(
    fc.tuple(
      fc.uniqueArray(memberArb, { maxLength: 20, selector: (m) => m.memberId }),
      fc.array(fc.record({ topic: fc.constantFrom('t0', 't1', 't2', 'orphan'), partition: fc.nat({ max: 30 }) }), {
        maxLength: 200,
      }),
    ),
  );

  it('assigns each subscribed partition exactly once, to a subscriber, whatever the input order', () => {
    fc.assert(
      fc.property(groupArb, ([members, partitions, shuffledMembers, shuffledPartitions]) => {
        const result = roundRobin(members, partitions);
        expect(roundRobin(shuffledMembers, shuffledPartitions)).toEqual(result);

        expect([...result.keys()].sort()).toEqual(members.map((m) => m.memberId).sort());
        const subscribed = new Set(members.flatMap((m) => m.topics));
        const expected = new Set(partitions.filter((p) => subscribed.has(p.topic)).map(keyOf));
        const assigned = [...result.values()].flat().map(keyOf);
        expect(assigned.length).toBe(expected.size);
        expect(new Set(assigned)).toEqual(expected);
        for (const m of members) {
          for (const p of result.get(m.memberId) ?? []) expect(m.topics).toContain(p.topic);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('keeps the partition counts of a topic’s subscribers within one of each other when everyone subscribes to one topic', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 20 }),
        fc.nat({ max: 100 }),
        (ids, count) => {
          const result = roundRobin(
            ids.map((id) => member(id, 'i', ['t'])),
            uniform('t', count, 1),
          );
          const counts = [...result.values()].map((list) => list.length);
          expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 100 },
    );
  });
});
