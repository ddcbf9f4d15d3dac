import { balance, type BalanceInput, type BalanceResult, type TopicPartition } from '@load-aware/assignor';
import { member, uniform } from './fixtures';
import { countImbalances, invalidPlacements, twoWayMoves } from './group-rules';

/**
 * Scenarios of the group coordinator's uniform assignors (Kafka's server-side assignment for the
 * consumer protocol: the homogeneous and heterogeneous builders), restated for balance() with
 * weight 1 and each member its own instance. Kafka's expected assignment is written down for
 * each, but only as a yardstick: ties may be broken differently, so the checks are that our
 * result is valid, balanced by Kafka's rule, free of two-way moves, gives the same sorted
 * partition counts (the balanced shape is unique in these cases), and moves no more partitions
 * than Kafka's does.
 */

/** Partitions per topic, as `{ topic: [partition, ...] }`. */
type Held = Readonly<Record<string, ReadonlyArray<number>>>;

interface Scenario {
  /** Partition count per topic (after any partitions were added). */
  readonly topics: Readonly<Record<string, number>>;
  readonly members: ReadonlyArray<{
    readonly id: string;
    readonly topics: ReadonlyArray<string>;
    readonly held?: Held;
  }>;
  /** Kafka's own answer, per member. */
  readonly kafka: Readonly<Record<string, Held>>;
}

function partitionsOf(held: Held | undefined): TopicPartition[] {
  return Object.entries(held ?? {}).flatMap(([topic, ids]) => ids.map((partition) => ({ topic, partition })));
}

/**
 * Partitions whose owner changed from one still in the group: what a rebalance costs. A partition
 * held by a member that no longer subscribes to its topic counts too (both sides must move it).
 */
function movesFrom(
  previous: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
  next: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
): number {
  const ownerBefore = new Map<string, string>();
  for (const [memberId, held] of previous)
    for (const p of held) ownerBefore.set(`${p.topic}:${String(p.partition)}`, memberId);
  let moves = 0;
  for (const [memberId, held] of next) {
    for (const p of held) {
      const before = ownerBefore.get(`${p.topic}:${String(p.partition)}`);
      if (before !== undefined && before !== memberId && next.has(before)) moves++;
    }
  }
  return moves;
}

function sortedCounts(assignments: ReadonlyMap<string, ReadonlyArray<TopicPartition>>): number[] {
  return [...assignments.values()].map((ps) => ps.length).sort((a, b) => a - b);
}

function run(scenario: Scenario): { result: BalanceResult; moves: number; kafkaMoves: number } {
  const previous = new Map(scenario.members.map((m) => [m.id, partitionsOf(m.held)]));
  const input: BalanceInput = {
    members: scenario.members.map((m) => member(m.id, m.id, [...m.topics])),
    partitions: Object.entries(scenario.topics).flatMap(([topic, count]) => uniform(topic, count, 1)),
    previous,
  };
  const result = balance(input);
  const kafka = new Map(scenario.members.map((m) => [m.id, partitionsOf(scenario.kafka[m.id])]));

  expect(invalidPlacements(input, result)).toEqual([]);
  expect(countImbalances(input, result)).toEqual([]);
  expect(twoWayMoves(previous, result)).toEqual([]);
  expect(sortedCounts(result.assignments)).toEqual(sortedCounts(kafka));
  const moves = movesFrom(previous, result.assignments);
  const kafkaMoves = movesFrom(previous, kafka);
  expect(moves).toBeLessThanOrEqual(kafkaMoves);
  return { result, moves, kafkaMoves };
}

describe("the group coordinator's uniform-assignor scenarios", () => {
  it('first assignment: two members, two topics, one shared', () => {
    run({
      topics: { t1: 3, t3: 6 },
      members: [
        { id: 'a', topics: ['t1', 't3'] },
        { id: 'b', topics: ['t3'] },
      ],
      kafka: { a: { t1: [0, 1, 2], t3: [4] }, b: { t3: [0, 1, 2, 3, 5] } },
    });
  });

  it('first assignment: more subscribers than partitions leaves one member empty', () => {
    const { result } = run({
      topics: { t1: 1, t3: 2 },
      members: [
        { id: 'a', topics: ['t3'] },
        { id: 'b', topics: ['t3'] },
        { id: 'c', topics: ['t1'] },
      ],
      kafka: { a: { t3: [0] }, b: { t3: [1] }, c: { t1: [0] } },
    });
    expect(result.assignments.get('c')).toEqual([{ topic: 't1', partition: 0 }]);
  });

  it('first assignment: a member without subscriptions gets nothing', () => {
    const { result } = run({
      topics: { t1: 3 },
      members: [
        { id: 'a', topics: ['t1'] },
        { id: 'b', topics: [] },
      ],
      kafka: { a: { t1: [0, 1, 2] }, b: {} },
    });
    expect(result.assignments.get('b') ?? []).toEqual([]);
  });

  it('rebalances an unbalanced previous assignment over three topics and nested subscriptions', () => {
    run({
      topics: { t1: 6, t2: 4, t3: 4 },
      members: [
        { id: 'a', topics: ['t1'], held: { t1: [0, 1, 2] } },
        { id: 'b', topics: ['t1', 't2'], held: { t1: [3], t2: [0] } },
        { id: 'c', topics: ['t1', 't2', 't3'], held: { t1: [4, 5], t2: [1, 2, 3], t3: [0, 1, 2, 3] } },
      ],
      kafka: {
        a: { t1: [0, 1, 2, 5] },
        b: { t1: [3], t2: [0, 1, 2, 3] },
        c: { t1: [4], t3: [0, 1, 2, 3] },
      },
    });
  });

  it('places partitions added to three topics without moving any existing one', () => {
    const { moves } = run({
      topics: { t1: 6, t2: 5, t3: 3, t4: 3 },
      members: [
        { id: 'a', topics: ['t1', 't3'], held: { t1: [0, 1, 2, 3], t3: [0, 1] } },
        { id: 'b', topics: ['t1', 't2', 't3', 't4'], held: { t2: [0, 1, 2], t4: [0, 1, 2] } },
      ],
      kafka: { a: { t1: [0, 1, 2, 3, 4, 5], t3: [0, 1, 2] }, b: { t2: [0, 1, 2, 3, 4], t4: [0, 1, 2] } },
    });
    expect(moves).toBe(0);
  });

  it('gives a joining member its share while partitions are added and a subscription narrows', () => {
    run({
      topics: { t1: 6, t2: 7 },
      members: [
        // a no longer subscribes to t2 but still holds t2:0.
        { id: 'a', topics: ['t1'], held: { t1: [0, 2], t2: [0] } },
        { id: 'b', topics: ['t1', 't2'], held: { t1: [1], t2: [1, 2] } },
        { id: 'c', topics: ['t1', 't2'] },
      ],
      kafka: {
        a: { t1: [0, 2, 3, 4, 5] },
        b: { t1: [1], t2: [1, 2, 6] },
        c: { t2: [0, 3, 4, 5] },
      },
    });
  });

  it('hands a removed member’s partitions to their only subscribers', () => {
    const { moves } = run({
      topics: { t1: 3, t2: 8, t3: 3 },
      members: [
        { id: 'a', topics: ['t1', 't3'], held: { t1: [0, 1, 2], t3: [0, 1] } },
        { id: 'b', topics: ['t2'], held: { t2: [3, 4, 5, 6] } },
      ],
      kafka: { a: { t1: [0, 1, 2], t3: [0, 1, 2] }, b: { t2: [0, 1, 2, 3, 4, 5, 6, 7] } },
    });
    expect(moves).toBe(0);
  });

  it('moves a dropped subscription’s partitions and rebalances the rest', () => {
    run({
      topics: { t1: 3, t2: 5 },
      members: [
        { id: 'a', topics: ['t1'], held: { t1: [0, 2], t2: [1, 3] } },
        { id: 'b', topics: ['t1', 't2'], held: { t1: [1], t2: [0, 2, 4] } },
      ],
      kafka: { a: { t1: [0, 1, 2] }, b: { t2: [0, 1, 2, 3, 4] } },
    });
  });

  it('balances a new member in when one member held everything (topics run out before they spread)', () => {
    run({
      topics: { t1: 2, t2: 2, t3: 2 },
      members: [
        { id: 'a', topics: ['t1', 't2', 't3'], held: { t1: [0, 1], t2: [0, 1], t3: [0, 1] } },
        { id: 'b', topics: ['t1', 't2', 't3'] },
      ],
      kafka: { a: { t2: [0], t3: [0, 1] }, b: { t1: [0, 1], t2: [1] } },
    });
  });

  it('is valid and balanced for 49 members on 99 topics of 3 partitions (homogeneous)', () => {
    const topics = Array.from({ length: 99 }, (_, i) => `topic-${String(i + 1)}`);
    const input: BalanceInput = {
      members: Array.from({ length: 49 }, (_, i) => member(`member${String(i + 1)}`, `member${String(i + 1)}`, topics)),
      partitions: topics.flatMap((t) => uniform(t, 3, 1)),
    };
    const result = balance(input);
    expect(invalidPlacements(input, result)).toEqual([]);
    expect(countImbalances(input, result)).toEqual([]);
    // 297 partitions over 49 members: 6 or 7 each.
    expect(new Set(sortedCounts(result.assignments))).toEqual(new Set([6, 7]));
  });
});
