import {
  balance,
  type BalanceInput,
  type BalanceMember,
  type BalanceResult,
  type TopicPartition,
} from '@load-aware/assignor';
import { keyOf, member, uniform } from './fixtures';
import { countImbalances, invalidPlacements, twoWayMoves } from './group-rules';

/**
 * The quota and stickiness scenarios of Kafka's AbstractStickyAssignorTest (owners at, above and
 * below the quota, members and topics added and removed, owned partitions kept), restated as
 * properties of balance() with unit weights, each member its own instance and the default
 * options: every result valid, balanced by Kafka's pairwise rule, max − min ≤ 1 where Kafka's
 * test asks for a fully balanced group, no two-way moves, and no more moves than Kafka makes.
 * Kafka's exact lists are not asserted: ties may fall differently, the shape may not.
 */

type Held = Readonly<Record<string, ReadonlyArray<number>>>;

interface Step {
  /** Partition count per topic. */
  readonly topics: Readonly<Record<string, number>>;
  /** Member id → subscribed topics. */
  readonly members: Readonly<Record<string, ReadonlyArray<string>>>;
}

function held(h: Held): TopicPartition[] {
  return Object.entries(h).flatMap(([topic, ids]) => ids.map((partition) => ({ topic, partition })));
}

function inputOf(step: Step, previous?: ReadonlyMap<string, ReadonlyArray<TopicPartition>>): BalanceInput {
  const members: BalanceMember[] = Object.entries(step.members).map(([id, topics]) => member(id, id, [...topics]));
  const partitions = Object.entries(step.topics).flatMap(([topic, count]) => uniform(topic, count, 1));
  return previous === undefined ? { members, partitions } : { members, partitions, previous };
}

/** Runs one rebalance and checks Kafka's rules on it; `maxMoves` is what Kafka moves there. */
function rebalance(
  step: Step,
  previous: ReadonlyMap<string, ReadonlyArray<TopicPartition>> | undefined,
  expected: { maxMoves: number; fullyBalanced: boolean },
): BalanceResult {
  const input = inputOf(step, previous);
  const result = balance(input);
  expect(invalidPlacements(input, result)).toEqual([]);
  expect(countImbalances(input, result)).toEqual([]);
  if (previous !== undefined) expect(twoWayMoves(previous, result)).toEqual([]);
  if (expected.fullyBalanced) {
    const counts = [...result.assignments.values()].map((ps) => ps.length);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  }
  expect(result.movedCount - result.forcedMoveCount).toBeLessThanOrEqual(expected.maxMoves);
  return result;
}

/** True when every partition `before[memberId]` held is still with it in `after`. */
function kept(
  before: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
  after: BalanceResult,
  memberId: string,
): boolean {
  const now = new Set((after.assignments.get(memberId) ?? []).map(keyOf));
  return (before.get(memberId) ?? []).every((p) => now.has(keyOf(p)));
}

describe("Kafka's quota and stickiness scenarios with unit weights", () => {
  const both = ['a', 'b'];

  it('gives the free partition to an owner at the minimum quota and moves nothing', () => {
    const previous = new Map([
      ['c1', held({ a: [0], b: [1] })],
      ['c2', held({ a: [1], b: [2] })],
    ]);
    const step = { topics: { a: 2, b: 3 }, members: { c1: both, c2: both } };
    const result = rebalance(step, previous, { maxMoves: 0, fullyBalanced: true });
    expect(kept(previous, result, 'c1') && kept(previous, result, 'c2')).toBe(true);
  });

  it('moves one partition when more owners are at the maximum quota than the group can keep there', () => {
    const previous = new Map([
      ['c1', held({ a: [0], b: [0] })],
      ['c2', held({ a: [1], b: [1] })],
      ['c3', []],
    ]);
    const step = { topics: { a: 2, b: 2 }, members: { c1: both, c2: both, c3: both } };
    const result = rebalance(step, previous, { maxMoves: 1, fullyBalanced: true });
    expect(result.movedCount).toBe(1);
  });

  it('fills owners under the minimum quota from the free partitions without moving any', () => {
    const previous = new Map([
      ['c1', held({ a: [0] })],
      ['c2', held({ a: [1] })],
      ['c3', []],
    ]);
    const step = { topics: { a: 2, b: 3 }, members: { c1: both, c2: both, c3: both } };
    rebalance(step, previous, { maxMoves: 0, fullyBalanced: true });
  });

  it('gives the one free partition to the empty member when the owners are filled to the quota', () => {
    const previous = new Map([
      ['c1', held({ t: [0, 1] })],
      ['c2', held({ t: [2] })],
      ['c3', []],
    ]);
    const step = { topics: { t: 4 }, members: { c1: ['t'], c2: ['t'], c3: ['t'] } };
    const result = rebalance(step, previous, { maxMoves: 0, fullyBalanced: true });
    expect(result.assignments.get('c3')).toEqual([{ topic: 't', partition: 3 }]);
  });

  it('gives a member without owned partitions only the free ones, taking nothing from the owners', () => {
    const all = ['t0', 't1', 't2', 't3'];
    const previous = new Map([
      ['c1', []],
      ['c2', held({ t0: [0], t2: [0], t1: [0] })],
      ['c3', held({ t3: [2], t2: [2], t1: [1] })],
      ['c4', held({ t3: [1], t0: [1, 2] })],
    ]);
    const step = { topics: { t0: 3, t1: 3, t2: 3, t3: 3 }, members: { c1: all, c2: all, c3: all, c4: all } };
    const result = rebalance(step, previous, { maxMoves: 0, fullyBalanced: true });
    expect(result.assignments.get('c1')!.map(keyOf).sort()).toEqual(
      held({ t1: [2], t2: [1], t3: [0] })
        .map(keyOf)
        .sort(),
    );
  });

  it('adds two members to two and removes the first two, moving only the joiners’ share (3 of 7, as Kafka)', () => {
    const two = { topics: { a: 3, b: 4 }, members: { c1: both, c2: both } };
    const first = rebalance(two, undefined, { maxMoves: 0, fullyBalanced: true });
    const four = { topics: two.topics, members: { c1: both, c2: both, c3: both, c4: both } };
    const second = rebalance(four, first.assignments, { maxMoves: 3, fullyBalanced: true });
    const last = { topics: two.topics, members: { c3: both, c4: both } };
    const third = rebalance(last, second.assignments, { maxMoves: 0, fullyBalanced: true });
    expect(kept(second.assignments, third, 'c3') && kept(second.assignments, third, 'c4')).toBe(true);
  });

  it('keeps each member’s partitions as a topic is added to both subscriptions and the first one removed', () => {
    const one = { topics: { t: 3 }, members: { c1: ['t'], c2: ['t'] } };
    const first = rebalance(one, undefined, { maxMoves: 0, fullyBalanced: true });
    const added = { topics: { t: 3, u: 3 }, members: { c1: ['t', 'u'], c2: ['t', 'u'] } };
    const second = rebalance(added, first.assignments, { maxMoves: 0, fullyBalanced: true });
    expect([...second.assignments.values()].map((ps) => ps.length)).toEqual([3, 3]);
    expect(kept(first.assignments, second, 'c1') && kept(first.assignments, second, 'c2')).toBe(true);
    const removed = { topics: { u: 3 }, members: { c1: ['u'], c2: ['u'] } };
    const third = rebalance(removed, second.assignments, { maxMoves: 0, fullyBalanced: true });
    for (const id of ['c1', 'c2']) {
      const before = new Set(second.assignments.get(id)!.map(keyOf));
      expect(third.assignments.get(id)!.every((p) => before.has(keyOf(p)))).toBe(true);
    }
  });

  it('keeps every remaining owner’s partition when an owner of one of three leaves four members', () => {
    const members = { c1: ['t'], c2: ['t'], c3: ['t'], c4: ['t'] };
    const first = rebalance({ topics: { t: 3 }, members }, undefined, { maxMoves: 0, fullyBalanced: true });
    const leaver = [...first.assignments].find(([, ps]) => ps.length === 1)![0];
    const rest = Object.fromEntries(Object.entries(members).filter(([id]) => id !== leaver));
    const second = rebalance({ topics: { t: 3 }, members: rest }, first.assignments, {
      maxMoves: 0,
      fullyBalanced: true,
    });
    for (const id of Object.keys(rest)) {
      expect(second.assignments.get(id)).toHaveLength(1);
      expect(kept(first.assignments, second, id)).toBe(true);
    }
  });

  it('moves nothing on a large uniform group when one member comes back without its owned partitions', () => {
    // Kafka's large-group scenario scaled down (there: 500 topics × 2,000 partitions, 2,000 members).
    const topics = Array.from({ length: 20 }, (_, t) => `t${String(t)}`);
    const members = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`c${String(i)}`, topics]));
    const step = { topics: Object.fromEntries(topics.map((t) => [t, 200])), members };
    const first = rebalance(step, undefined, { maxMoves: 0, fullyBalanced: true });
    const forgotten = new Map([...first.assignments].filter(([id]) => id !== 'c0'));
    rebalance(step, forgotten, { maxMoves: 0, fullyBalanced: true });
  });

  it('stays balanced by Kafka’s rule on a large group where one member reads a single topic', () => {
    const topics = Array.from({ length: 20 }, (_, t) => `t${String(t)}`);
    const members = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`c${String(i)}`, i === 299 ? topics.slice(0, 1) : topics]),
    );
    const step = { topics: Object.fromEntries(topics.map((t) => [t, 200])), members };
    const first = rebalance(step, undefined, { maxMoves: 0, fullyBalanced: true });
    const forgotten = new Map([...first.assignments].filter(([id]) => id !== 'c0'));
    rebalance(step, forgotten, { maxMoves: 0, fullyBalanced: true });
  });

  it('gives a member joining 100 on 10,000 partitions its 99 and leaves max − min ≤ 1 (issue 27: 3 before)', () => {
    const topics = Array.from({ length: 10 }, (_, t) => `t${String(t)}`);
    const ids = Array.from({ length: 101 }, (_, i) => `c${String(i).padStart(3, '0')}`);
    const sizes = Object.fromEntries(topics.map((t) => [t, 1000]));
    const hundred = { topics: sizes, members: Object.fromEntries(ids.slice(0, 100).map((id) => [id, topics])) };
    const first = rebalance(hundred, undefined, { maxMoves: 0, fullyBalanced: true });
    const joined = { topics: sizes, members: Object.fromEntries(ids.map((id) => [id, topics])) };
    const second = rebalance(joined, first.assignments, { maxMoves: 99, fullyBalanced: true });
    expect(second.movedCount).toBe(99);
  });
});
