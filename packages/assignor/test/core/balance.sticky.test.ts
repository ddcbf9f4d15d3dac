import {
  balance,
  type BalanceMember,
  type BalanceResult,
  type TopicPartition,
  type WeightedPartition,
} from '@load-aware/assignor';
import { keyOf, labels, member, uniform, weighted } from './fixtures';

/** A reproducible spread of weights: 1 to 40, uneven but not random. */
function spread(count: number): number[] {
  return Array.from({ length: count }, (_, i) => 1 + ((i * 7919) % 40));
}

/** Partitions of topic `t`, by number: a previous assignment's list. */
function tp(...ps: number[]): TopicPartition[] {
  return ps.map((partition) => ({ topic: 't', partition }));
}

/** `instances` instances of `perInstance` members each, all subscribed to `t`. */
function group(instances: number, perInstance: number): BalanceMember[] {
  return Array.from({ length: instances * perInstance }, (_, m) =>
    member(`m${String(m).padStart(3, '0')}`, `i${String(m % instances).padStart(2, '0')}`, ['t']),
  );
}

/** Partitions whose owner differs between two assignments, among those in `before`. */
function changed(
  before: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
  after: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
): number {
  const owner = new Map<string, string>();
  for (const [m, ps] of after) for (const p of ps) owner.set(keyOf(p), m);
  let n = 0;
  for (const [m, ps] of before) for (const p of ps) if (owner.get(keyOf(p)) !== m) n++;
  return n;
}

/** Scales every weight by a factor in [0.9, 1.1), from a fixed sequence. */
function noisy(partitions: ReadonlyArray<WeightedPartition>, seed: number): WeightedPartition[] {
  return partitions.map((p, i) => ({
    ...p,
    weight: (p.weight ?? 1) * (0.9 + (0.2 * (((i + 1) * seed * 2654435761) % 1000)) / 1000),
  }));
}

describe('balance with a previous assignment', () => {
  const members = group(6, 2);
  const partitions = weighted('t', spread(120));
  const first = balance({ members, partitions });

  it('moves nothing when nothing changed', () => {
    const again = balance({ members, partitions, previous: first.assignments });
    expect(again.movedCount).toBe(0);
    expect(again.forcedMoveCount).toBe(0);
    expect(again.previouslyOwnedCount).toBe(120);
    expect(labels(again.assignments)).toEqual(labels(first.assignments));
  });

  it('moves at most a few partitions under ±10% weight noise', () => {
    for (const seed of [3, 5, 7]) {
      const result = balance({ members, partitions: noisy(partitions, seed), previous: first.assignments });
      expect(result.movedCount).toBe(changed(first.assignments, result.assignments));
      expect(result.movedCount).toBeLessThanOrEqual(6);
      expect(result.optimalityRatio).toBeLessThan(1.06);
    }
  });

  it('when an instance leaves, moves mostly its partitions', () => {
    const gone = new Set(members.filter((m) => m.instanceId === 'i03').map((m) => m.memberId));
    const own = [...first.assignments].filter(([m]) => gone.has(m)).reduce((n, [, ps]) => n + ps.length, 0);
    const result = balance({
      members: members.filter((m) => !gone.has(m.memberId)),
      partitions,
      previous: first.assignments,
    });
    expect(result.forcedMoveCount).toBe(own);
    expect(result.movedCount - result.forcedMoveCount).toBeLessThan(own);
    expect(result.optimalityRatio).toBeLessThan(1.05);
  });

  it('gives a joining instance its share instead of leaving it idle, with few moves', () => {
    const joined = [...members, member('new-1', 'i99', ['t']), member('new-2', 'i99', ['t'])];
    const result = balance({ members: joined, partitions, previous: first.assignments });
    const newcomer = result.instances.find((i) => i.instanceId === 'i99')!;
    expect(newcomer.load).toBeGreaterThan(0.9 * result.idealLoad);
    // About a seventh of the load has to move; heavy partitions go first, so fewer partitions do.
    expect(result.movedCount).toBeLessThanOrEqual(120 / 7);
    expect(result.forcedMoveCount).toBe(0);
  });

  it('keeps an imbalance of weights within the tolerance rather than move, and fixes one beyond it', () => {
    // The previous assignment puts 11 on A and 9 on B: 10% above the even 10.
    const pair = [member('a', 'A', ['t']), member('b', 'B', ['t'])];
    const partitions = weighted('t', [2, ...Array.from({ length: 18 }, () => 1)]);
    const previous = new Map([
      ['a', partitions.slice(0, 10)],
      ['b', partitions.slice(10)],
    ]);
    expect(balance({ members: pair, partitions, previous }, { moveTolerance: 0.15 }).movedCount).toBe(0);
    const tight = balance({ members: pair, partitions, previous }, { moveTolerance: 0.05 });
    expect(tight.movedCount).toBe(1);
    expect(tight.maxInstanceLoad).toBe(10);
  });

  it('fixes a gap of two partitions with equal weights whatever the tolerance (Kafka’s contract)', () => {
    const pair = [member('a', 'A', ['t']), member('b', 'B', ['t'])];
    const partitions = uniform('t', 20, 1);
    const previous = new Map([
      ['a', partitions.slice(0, 11)],
      ['b', partitions.slice(11)],
    ]);
    const result = balance({ members: pair, partitions, previous }, { moveTolerance: 0.5 });
    expect(result.movedCount).toBe(1);
    expect(result.maxInstanceLoad).toBe(10);
  });

  it('never moves more than maxMovesPerRebalance partitions away from a still-valid owner', () => {
    // Everything on A, B idle: the balanced placement moves half of it.
    const pair = [member('a', 'A', ['t']), member('b', 'B', ['t'])];
    const all = weighted('t', spread(30));
    const previous = new Map([['a', all]]);
    expect(balance({ members: pair, partitions: all, previous }, { maxMovesPerRebalance: 0 }).movedCount).toBe(0);
    const bounded = balance({ members: pair, partitions: all, previous }, { maxMovesPerRebalance: 4 });
    expect(bounded.movedCount).toBe(4);
    expect(bounded.instances[1]!.load).toBeGreaterThan(0);
    const free = balance({ members: pair, partitions: all, previous });
    expect(free.optimalityRatio).toBeLessThan(1.05);
  });

  it('still places partitions whose owner left, whatever maxMovesPerRebalance says', () => {
    const trio = [member('a', 'A', ['t']), member('b', 'B', ['t'])];
    const six = uniform('t', 6, 1);
    const previous = new Map([
      ['a', six.slice(0, 2)],
      ['b', six.slice(2, 4)],
      ['gone', six.slice(4)],
    ]);
    const result = balance({ members: trio, partitions: six, previous }, { maxMovesPerRebalance: 0 });
    expect(result.partitionCount).toBe(6);
    expect(result.forcedMoveCount).toBe(2);
    expect(result.movedCount).toBe(2);
    expect(result.instances.map((i) => i.load)).toEqual([3, 3]);
  });

  it('keeps the partitions of a member that restarted with a new id on its instance when previousInstances names it', () => {
    const before = [member('a-old', 'A', ['t']), member('b', 'B', ['t'])];
    const parts = weighted('t', spread(20));
    const first = balance({ members: before, partitions: parts });
    const after = [member('a-new', 'A', ['t']), member('b', 'B', ['t'])];
    const previousInstances = new Map([['a-old', 'A']]);
    const result = balance({ members: after, partitions: parts, previous: first.assignments, previousInstances });
    expect(labels(result.assignments)['a-new']).toEqual(labels(first.assignments)['a-old']);
    expect(result.forcedMoveCount).toBe(first.assignments.get('a-old')!.length);
  });

  it('ignores unusable previous entries: unknown members, vanished partitions, unsubscribed topics, duplicates', () => {
    const duo = [member('a', 'A', ['t']), member('b', 'B', ['t', 'u'])];
    const parts = [...uniform('t', 4, 1), ...uniform('u', 2, 1)];
    const previous = new Map<string, TopicPartition[]>([
      [
        'a',
        [
          { topic: 't', partition: 0 },
          { topic: 'u', partition: 0 },
          { topic: 't', partition: 99 },
        ],
      ],
      [
        'b',
        [
          { topic: 't', partition: 0 },
          { topic: 't', partition: 1 },
        ],
      ],
      ['ghost', [{ topic: 't', partition: 2 }]],
    ]);
    const result = balance({ members: duo, partitions: parts, previous });
    expect([...result.assignments.values()].flat().length).toBe(6);
    for (const p of result.assignments.get('a')!) expect(p.topic).toBe('t');
    // t-0 is claimed by both a and b (a wins, smaller id); u-0 by a, which does not subscribe to u;
    // t-2 by a member that left; t-99 does not exist.
    expect(result.previouslyOwnedCount).toBe(4);
    expect(result.forcedMoveCount).toBe(2);
  });

  it('gives the same result whatever the order of members, partitions and previous entries', () => {
    const shuffledPrevious = new Map([...first.assignments].reverse().map(([m, ps]) => [m, [...ps].reverse()]));
    const input = { members, partitions: noisy(partitions, 11), previous: first.assignments };
    const reordered = {
      members: [...members].reverse(),
      partitions: [...input.partitions].reverse(),
      previous: shuffledPrevious,
    };
    expect(balance(reordered)).toEqual(balance(input));
  });
});

describe('balance after a leave, on a small group', () => {
  // A rolling restart's step, as pnpm bench:rolling recorded it: 24 partitions at their measured
  // rates (msg/s), four instances of 1/1/2/2 members, and the one of 1 member ("c", 6 and 4,9
  // before its second member too) leaving. Five partitions had to move: c's three, and two more to
  // bring a and d within the tolerance. The search alone moved seven at the instance level.
  const rates = [61, 41, 71, 23, 26, 49, 258, 30, 35, 148, 21, 33, 54, 28, 20, 38, 85, 44, 22, 31, 107, 27, 24, 23];
  const partitions: WeightedPartition[] = rates.map((weight, partition) => ({ topic: 't', partition, weight }));
  const owners: Record<string, number[]> = {
    c1: [6],
    c2: [4, 9],
    d1: [1, 2, 7, 13, 17],
    d2: [0, 8, 10, 12, 14, 19],
    a1: [3, 5, 11, 15, 18, 21, 23],
    b1: [16, 20, 22],
  };
  const instanceOf = (m: string): string => m.slice(0, 1);
  const members: BalanceMember[] = ['a1', 'b1', 'd1', 'd2'].map((m) => ({
    memberId: m,
    instanceId: instanceOf(m),
    topics: ['t'],
    capacity: m.startsWith('d') ? 2 : 1,
  }));
  const previous = new Map(
    Object.entries(owners).map(([m, ps]) => [m, ps.map((partition) => ({ topic: 't', partition }))] as const),
  );

  const instanceMovesOf = (result: BalanceResult): { count: number; weight: number } => {
    const before = new Map<string, string>();
    for (const [m, ps] of previous) for (const p of ps) before.set(keyOf(p), instanceOf(m));
    let count = 0;
    let weight = 0;
    for (const [m, ps] of result.assignments) {
      for (const p of ps) {
        if (before.get(keyOf(p)) === instanceOf(m)) continue;
        count++;
        weight += rates[p.partition]!;
      }
    }
    return { count, weight };
  };

  it('moves only what reaches its balance at the fewest instance moves', () => {
    const result = balance({ members, partitions, previous });
    // c's three partitions and two more: the fewest any placement needs to bring a, b and d
    // within 5 % of the ideal 325 msg/s per member (an exhaustive search says so; 4 reach 10 %).
    expect(instanceMovesOf(result).count).toBe(5);
    expect(result.optimalityRatio).toBeLessThan(1.05);
  });

  it('by weight: moves no more weight across instances than that fewest-moves placement', () => {
    const result = balance({ members, partitions, previous });
    // Those five moves carry 514 msg/s (c's three carry 432). The by-weight core weighs moves by
    // what they carry, so it may move more partitions, never more weight.
    expect(instanceMovesOf(result).weight).toBeLessThanOrEqual(514);
    expect(result.optimalityRatio).toBeLessThan(1.05);
  });
});

describe('by weight: an orphan heavier than any room', () => {
  // Four instances of one 12 msg/s partition and six of 1 each; a fifth holding one partition of
  // 18 leaves. The best placement has its busiest at 24 (18 + 6, 12 + 12, 12 + 9, 12 + 9), and
  // half the tolerance above it (24.6) no instance has room for the orphan, nor can its receiver
  // shed its own 12 directly: the receiver passes its 12 on and keeps its six, the instance
  // taking the 12 sheds six light partitions, and the two least busy take three each (up to
  // half the tolerance below their 21). 18 of orphan and 18 of sticky partitions: twice what
  // the departed instance held, the least any placement within half the tolerance moves.
  const partitions: WeightedPartition[] = [];
  const previous = new Map<string, { topic: string; partition: number }[]>();
  const members: BalanceMember[] = [];
  for (const instance of ['a', 'b', 'c', 'd']) {
    const held: { topic: string; partition: number }[] = [];
    for (let k = 0; k < 7; k++) {
      const partition = partitions.length;
      partitions.push({ topic: 't', partition, weight: k === 0 ? 12 : 1 });
      held.push({ topic: 't', partition });
    }
    previous.set(`${instance}1`, held);
    members.push({ memberId: `${instance}1`, instanceId: instance, topics: ['t'] });
  }
  previous.set('e1', [{ topic: 't', partition: partitions.length }]);
  partitions.push({ topic: 't', partition: partitions.length, weight: 18 });

  it('moves at most twice the weight the departed instance held', () => {
    const result = balance({ members, partitions, previous });
    const moved = movedWeight(previous, result.assignments, partitions);
    // Before the homeless were placed first (orphans/orphans.ts), this core moved 38.
    expect(moved).toBeLessThanOrEqual(36);
    expect(result.maxInstanceLoad).toBeLessThanOrEqual(24 * 1.025);
  });
});

describe('by weight: a homeless partition placed within the tolerance but above its aim', () => {
  // a holds one partition of 100, the lower bound; b, c and d hold 97 each (40, 40, 14, 3). e
  // leaves with one partition of 7, which fits nowhere below 100: wherever it lands, that
  // instance is at 104, within the 5% tolerance of 100. Kept so, the next leave starts 4% above
  // the best; one light move (a 3 to another instance) brings it to 101, within half the tolerance.
  const input = heavyAndThreeAfterLeave([40, 40, 14, 3], 7);
  const { members, partitions } = input;

  it('sheds the busiest instance to half the tolerance, moving one light partition', () => {
    const result = balance(input);
    expect(result.maxInstanceLoad).toBeLessThanOrEqual(102.5);
    // The orphan, plus one sticky partition of 3.
    expect(result.movedCount).toBe(2);
    expect(result.forcedMoveCount).toBe(1);
  });

  it('moves nothing once placed: the next rebalance keeps it', () => {
    const first = balance(input);
    const again = balance({ members, partitions, previous: first.assignments });
    expect(again.movedCount).toBe(0);
  });
});

describe('by weight: a homeless partition placed within half the tolerance', () => {
  // a holds one partition of 100; b, c and d hold 98 each (40, 40, 16.5, 1.5). e leaves with one
  // partition of 4, which fits nowhere below 100: wherever it lands, that instance is at 102. The
  // best placement has its busiest at 100.5 (the three 16.5s cannot go two to a bin, and 16.5 + 4
  // is the smallest third bin), so 102 is within half the 5% tolerance (103.0) but above a quarter
  // of it (101.76). Moving one 1.5 away costs less than the orphan weighs, so the core takes it.
  const { members, partitions, previous } = heavyAndThreeAfterLeave([40, 40, 16.5, 1.5], 4);

  it('sheds the busiest instance to a quarter of the tolerance for one light move', () => {
    const result = balance({ members, partitions, previous });
    expect(result.maxInstanceLoad).toBeLessThanOrEqual(100.5 * 1.0125);
    // The orphan, plus one sticky partition of 1.5: within the orphan's own weight beyond it.
    expect(result.movedCount).toBe(2);
    expect(movedWeight(previous, result.assignments, partitions)).toBeCloseTo(5.5, 9);
  });

  it('keeps the orphan where it landed with orphanAim at half the tolerance: 102 is within it', () => {
    const result = balance({ members, partitions, previous }, { orphanAim: 0.5 });
    expect(result.maxInstanceLoad).toBeCloseTo(102, 9);
    expect(result.movedCount).toBe(1);
  });

  it('keeps it there with orphanAim 1 as well: nothing is spent on an aim at the tolerance', () => {
    const result = balance({ members, partitions, previous }, { orphanAim: 1 });
    expect(result.maxInstanceLoad).toBeCloseTo(102, 9);
    expect(result.movedCount).toBe(1);
  });

  it.each([-0.1, 1.5, Number.NaN, '0.5'])('rejects orphanAim %p naming the option', (orphanAim) => {
    expect(() => balance({ members, partitions, previous }, { orphanAim: orphanAim as number })).toThrow(/orphanAim/);
  });
});

describe('by weight: a leave where the aim costs more than the orphan weighs', () => {
  // b holds 18.3 and 1.4, c 1.9, 15.2 and 2, d 13.7 and 11.4; a leaves with one partition of
  // 19.3. The best placement of the three has its busiest at 29.7 (18.3 + 11.4), and the one
  // placement at half the tolerance above it that the core finds moves 28 beyond the orphan
  // (11.4, 15.2 and 1.4). At the tolerance's edge the orphan goes to d, d's 13.7 to c and two light
  // partitions of c to b: 17.6 beyond the orphan, with the busiest at 30.7, 3.4% above the best.
  const members = ['b', 'c', 'd'].map((i) => member(`${i}1`, i, ['t']));
  const weights = [18.3, 1.9, 19.3, 1.4, 15.2, 13.7, 11.4, 2];
  const partitions: WeightedPartition[] = weights.map((weight, partition) => ({ topic: 't', partition, weight }));
  const previous = new Map([
    ['a1', tp(2)],
    ['b1', tp(0, 3)],
    ['c1', tp(1, 4, 7)],
    ['d1', tp(5, 6)],
  ]);

  it('stays within the tolerance for at most twice the orphan’s weight instead of reaching the aim', () => {
    const result = balance({ members, partitions, previous });
    const moved = movedWeight(previous, result.assignments, partitions);
    expect(moved).toBeLessThanOrEqual(2 * 19.3);
    expect(result.maxInstanceLoad).toBeLessThanOrEqual(29.7 * 1.05);
  });
});

/**
 * Instance a holds one partition of 100; b, c and d each hold partitions of the weights `held`;
 * e, gone from `members`, held one partition of `orphan`: the leave the aim's tests start from.
 */
function heavyAndThreeAfterLeave(
  held: ReadonlyArray<number>,
  orphan: number,
): { members: BalanceMember[]; partitions: WeightedPartition[]; previous: Map<string, TopicPartition[]> } {
  const members = ['a', 'b', 'c', 'd'].map((i) => member(`${i}1`, i, ['t']));
  const partitions: WeightedPartition[] = [{ topic: 't', partition: 0, weight: 100 }];
  const previous = new Map<string, TopicPartition[]>([['a1', [{ topic: 't', partition: 0 }]]]);
  for (const i of ['b', 'c', 'd']) {
    const owned: TopicPartition[] = [];
    for (const weight of held) {
      owned.push({ topic: 't', partition: partitions.length });
      partitions.push({ topic: 't', partition: partitions.length, weight });
    }
    previous.set(`${i}1`, owned);
  }
  previous.set('e1', [{ topic: 't', partition: partitions.length }]);
  partitions.push({ topic: 't', partition: partitions.length, weight: orphan });
  return { members, partitions, previous };
}

/** The weight of the partitions (of one topic, numbered from 0) whose owner changed from `previous`. */
function movedWeight(
  previous: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
  assignments: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
  partitions: ReadonlyArray<WeightedPartition>,
): number {
  const before = new Map<string, string>();
  for (const [m, ps] of previous) for (const p of ps) before.set(keyOf(p), m);
  let moved = 0;
  for (const [m, ps] of assignments)
    for (const p of ps) if (before.get(keyOf(p)) !== m) moved += partitions[p.partition]!.weight!;
  return moved;
}

describe('by weight: members of one instance, a closer aim that costs moves', () => {
  // One instance of three members: a1 holds 5, 6 and 7.5 (18.5), a2 3.5, 2 and 1.5 (7), a3 9. The
  // best split has its busiest member at 12.5, so a1 is outside the members' 10% tolerance. One move
  // (the 6 to a2) leaves the busiest at 13, within half the tolerance (13.125); three moves
  // (weight 20) reach 12.5, a quarter of it (12.8). Member balance ranks after moves, so the core
  // takes the one move; ranked first, as the instances' busiest is, the aim took the three.
  const weights = [3.5, 9, 5, 6, 7.5, 2, 1.5];
  const partitions = weighted('t', weights);
  const previous = new Map([
    ['a1', tp(2, 3, 4)],
    ['a2', tp(0, 5, 6)],
    ['a3', tp(1)],
  ]);
  const members = ['a1', 'a2', 'a3'].map((id) => member(id, 'A', ['t']));

  it('moves one partition into half the tolerance instead of three to reach a quarter of it', () => {
    const result = balance({ members, partitions, previous });
    expect(result.movedCount).toBe(1);
    expect(movedWeight(previous, result.assignments, partitions)).toBeCloseTo(6, 9);
    const loads = [...result.assignments.values()].map((ps) => ps.reduce((sum, p) => sum + weights[p.partition]!, 0));
    expect(Math.max(...loads)).toBeLessThanOrEqual(12.5 * 1.05);
  });
});

describe('by weight: members of one instance, the least busy one', () => {
  // One instance of three members: a1 holds 3, 2 and 0.5, a2 the same, a3 one partition of 4.
  // The busiest members (5.5) are within twice the tolerance of the best split (5 each); a3 is
  // 20% below the mean. Members share their instance's process, so a lighter member costs no
  // latency: only one left with nothing is worth a move.
  const weights = [3, 3, 2, 2, 0.5, 0.5, 4];
  const partitions = weighted('t', weights);
  const previous = new Map([
    ['a1', tp(0, 2, 4)],
    ['a2', tp(1, 3, 5)],
    ['a3', tp(6)],
  ]);
  const membersOf = (ids: string[]): BalanceMember[] => ids.map((id) => member(id, 'A', ['t']));

  it('leaves a lighter member as it is (the core before this one moved two partitions to lift it)', () => {
    const members = membersOf(['a1', 'a2', 'a3']);
    expect(balance({ members, partitions, previous }).movedCount).toBe(0);
  });

  it('gives a member that joins the instance its share', () => {
    const result = balance({ members: membersOf(['a1', 'a2', 'a3', 'a4']), partitions, previous });
    const joined = result.members.find((m) => m.memberId === 'a4')!;
    expect(joined.load).toBeGreaterThanOrEqual(3.5);
  });
});

describe('by weight: instances, the least busy one', () => {
  // a holds one partition of 100, the lower bound of any placement. b, c, d and e hold 20, 20
  // and 10 each; f leaves with 30 and 20. Wherever the orphans go, the busiest stays at a's 100,
  // and two of b–e stay at 50, 0.71 of the new mean (70). The core before this one lifted them
  // with two sticky partitions; the objective ranks the least busy instance nowhere, so only the
  // orphans move. A joining instance holds nothing and would waste a consumer: it is lifted.
  const weights = [100, 20, 20, 10, 20, 20, 10, 20, 20, 10, 20, 20, 10, 30, 20];
  const partitions = weighted('t', weights);
  const previous = new Map([
    ['a1', tp(0)],
    ['b1', tp(1, 2, 3)],
    ['c1', tp(4, 5, 6)],
    ['d1', tp(7, 8, 9)],
    ['e1', tp(10, 11, 12)],
    ['f1', tp(13, 14)],
  ]);
  const membersOf = (instances: string[]): BalanceMember[] => instances.map((i) => member(`${i}1`, i, ['t']));

  it('moves only the orphans after a leave', () => {
    const result = balance({ members: membersOf(['a', 'b', 'c', 'd', 'e']), partitions, previous });
    expect(result.movedCount).toBe(2);
    expect(result.forcedMoveCount).toBe(2);
    expect(result.maxInstanceLoad).toBe(100);
  });

  it('gives an instance that joins its share', () => {
    const result = balance({ members: membersOf(['a', 'b', 'c', 'd', 'e', 'f', 'g']), partitions, previous });
    const joined = result.instances.find((i) => i.instanceId === 'g')!;
    // 350 over seven instances is 50 each; partitions of 10 and 20 leave the newcomer 40. Four
    // moves, as many as the core before this one made.
    expect(joined.load).toBeGreaterThanOrEqual(40);
    expect(result.movedCount).toBe(4);
  });
});

describe('by weight: a leave onto instances of several members', () => {
  // Instances a–d have three members each, every member holding three partitions of 1.1–2 (about
  // 4.5 a member, 13.5 an instance); h holds one partition of 20, the lower bound. x leaves with
  // three partitions of about 1.5. One newcomer on an instance ends a member a third above the
  // others, beyond the members' tolerance, and two partitions trade places inside that instance
  // to absorb it; the greedy sticky start spread the three over a, b and c that way (6 sticky
  // partitions moved). All three on one instance, one a member, need no trade, and the busiest
  // instance stays at h's 20.
  const split = [
    [1.99, 1.08, 1.44],
    [1.38, 1.79, 1.29],
    [1.54, 1.26, 1.74],
  ];
  const weights = [...Array.from({ length: 4 }, () => split.flat()).flat(), 20, 1.44, 1.59, 1.63];
  const partitions = weighted('t', weights);
  const members: BalanceMember[] = [];
  const previous = new Map<string, TopicPartition[]>();
  ['a', 'b', 'c', 'd'].forEach((instance, i) => {
    split.forEach((_, k) => {
      members.push(member(`${instance}${String(k)}`, instance, ['t']));
      previous.set(`${instance}${String(k)}`, tp(9 * i + 3 * k, 9 * i + 3 * k + 1, 9 * i + 3 * k + 2));
    });
  });
  members.push(member('h0', 'h', ['t']));
  previous.set('h0', tp(36));

  it('moves only the orphans, all onto one instance whose members each take one', () => {
    const result = balance({ members, partitions, previous });
    expect(changed(previous, result.assignments)).toBe(0);
    expect(result.maxInstanceLoad).toBeCloseTo(20, 9);
    const receivers = result.instances.filter((i) => i.partitionCount > 9);
    expect(receivers.map((i) => i.partitionCount)).toEqual([12]);
  });
});
