import {
  balance,
  explain,
  type BalanceInput,
  type BalanceMember,
  type BalanceOptions,
  type UnevennessFactor,
} from '@load-aware/assignor/internal';
import { member, uniform, weighted, HAND_COMPUTED_EXAMPLE } from '../core/fixtures';

type Code = UnevennessFactor['code'];

function factorsOf(input: BalanceInput, options: BalanceOptions = {}): ReadonlyArray<UnevennessFactor> {
  return explain(balance(input, options), options.defaultWeight ?? 1).factors;
}

function codesOf(input: BalanceInput, options: BalanceOptions = {}): Code[] {
  return factorsOf(input, options).map((f) => f.code);
}

function factor(input: BalanceInput, code: Code, options: BalanceOptions = {}): UnevennessFactor {
  const found = factorsOf(input, options).find((f) => f.code === code);
  if (found === undefined) throw new Error(`expected factor ${code}`);
  return found;
}

/** Two single-member instances, both subscribed to `t`: nothing about the group itself is uneven. */
const pair: BalanceMember[] = [member('a1', 'A', ['t']), member('b1', 'B', ['t'])];

describe('explain unevenness factors', () => {
  it('reports no factor for an evenly weighted group with equal instances', () => {
    expect(codesOf({ members: pair, partitions: uniform('t', 4, 1) })).toEqual([]);
  });

  it('reports no_usable_weights exactly when every placed partition is defaulted', () => {
    expect(codesOf({ members: pair, partitions: uniform('t', 4, undefined) })).toEqual(['no_usable_weights']);
    expect(codesOf({ members: pair, partitions: weighted('t', [1, null, null, null]) })).not.toContain(
      'no_usable_weights',
    );
    expect(codesOf({ members: pair, partitions: [] })).not.toContain('no_usable_weights');
  });

  it('judges usable weights among the placed partitions only, ignoring unassignable ones', () => {
    const codes = codesOf({
      members: pair,
      partitions: [...uniform('t', 2, 1), ...uniform('ghost', 2, undefined)],
    });
    expect(codes).not.toContain('no_usable_weights');
    expect(codes).not.toContain('some_weights_defaulted');
  });

  it('reports some_weights_defaulted with the counts when only some weights are defaulted', () => {
    const input = { members: pair, partitions: weighted('t', [1, 1, 1, null]) };
    expect(codesOf(input)).toEqual(['some_weights_defaulted']);
    const text = factor(input, 'some_weights_defaulted').text;
    expect(text).toContain('1 of 4');
    expect(codesOf({ members: pair, partitions: uniform('t', 4, 1) })).not.toContain('some_weights_defaulted');
  });

  it('reports defaulted_nearly_free when the default weight is below a tenth of the median measured weight', () => {
    const input = { members: pair, partitions: weighted('t', [100, 100, 100, null]) };
    expect(codesOf(input)).toEqual(['some_weights_defaulted', 'defaulted_nearly_free']);
    const text = factor(input, 'defaulted_nearly_free').text;
    expect(text).toContain('1');
    expect(text).toContain('100');
    // Exactly a tenth is not "below".
    expect(codesOf({ members: pair, partitions: weighted('t', [10, 10, 10, null]) })).not.toContain(
      'defaulted_nearly_free',
    );
    // A larger default weight is not nearly free.
    expect(
      codesOf({ members: pair, partitions: weighted('t', [100, 100, 100, null]) }, { defaultWeight: 50 }),
    ).not.toContain('defaulted_nearly_free');
    // Without a defaulted partition there is nothing placed as if free.
    expect(codesOf({ members: pair, partitions: weighted('t', [100, 100, 100, 0.5]) })).not.toContain(
      'defaulted_nearly_free',
    );
    // Without any measured weight there is no median to compare with.
    expect(codesOf({ members: pair, partitions: uniform('t', 4, undefined) }, { defaultWeight: 0 })).not.toContain(
      'defaulted_nearly_free',
    );
  });

  it('reports all_weights_zero exactly when partitions are placed and every weight is zero', () => {
    expect(codesOf({ members: pair, partitions: uniform('t', 4, 0) })).toEqual(['all_weights_zero']);
    expect(codesOf({ members: pair, partitions: uniform('t', 4, undefined) }, { defaultWeight: 0 })).toEqual([
      'no_usable_weights',
      'all_weights_zero',
    ]);
    expect(codesOf({ members: pair, partitions: weighted('t', [0, 0, 0, 1]) })).not.toContain('all_weights_zero');
    expect(codesOf({ members: pair, partitions: [] })).not.toContain('all_weights_zero');
  });

  it('reports partition_heavier_than_share when one partition outweighs an instance’s ideal share', () => {
    const input = { members: pair, partitions: weighted('t', [10, 1, 1]) };
    expect(codesOf(input)).toEqual(['partition_heavier_than_share']);
    const text = factor(input, 'partition_heavier_than_share').text;
    expect(text).toContain('10');
    expect(text).toContain('6');
    // Exactly the ideal share is not heavier.
    expect(codesOf({ members: pair, partitions: weighted('t', [6, 3, 3]) })).toEqual([]);
    // A single instance has nothing to be uneven with.
    expect(codesOf({ members: [member('a1', 'A', ['t'])], partitions: weighted('t', [10, 1]) })).toEqual([]);
  });

  it('judges partition_heavier_than_share against the largest instance’s capacity-weighted share', () => {
    const members = [member('a1', 'A', ['t'], 3), member('b1', 'B', ['t'])];
    // Total 8 over capacity 4: A's share is 6, so a partition of 5 fits on A.
    expect(codesOf({ members, partitions: weighted('t', [5, 1, 1, 1]) })).not.toContain('partition_heavier_than_share');
    // A partition of 7 (total 8, A's share 6) does not.
    const input = { members, partitions: weighted('t', [7, 1]) };
    expect(codesOf(input)).toContain('partition_heavier_than_share');
    expect(factor(input, 'partition_heavier_than_share').text).toContain('(7)');
  });

  it('reports restricted_topics, naming them, when a topic is subscribed on only some instances', () => {
    const input = {
      members: [member('a1', 'A', ['t', 'z', 'y']), member('b1', 'B', ['t'])],
      partitions: [...uniform('t', 2, 1), ...uniform('y', 1, 1), ...uniform('z', 1, 1)],
    };
    expect(codesOf(input)).toEqual(['restricted_topics']);
    expect(factor(input, 'restricted_topics').text).toContain('y, z');
    // A topic subscribed on every instance, though not by every member, is not restricted.
    expect(
      codesOf({
        members: [
          member('a1', 'A', ['t']),
          member('a2', 'A', ['u']),
          member('b1', 'B', ['t']),
          member('b2', 'B', ['u']),
        ],
        partitions: [...uniform('t', 2, 1), ...uniform('u', 2, 1)],
      }),
    ).toEqual([]);
  });

  it('reports more_instances_than_partitions exactly when instances outnumber placed partitions', () => {
    const trio = [member('a1', 'A', ['t']), member('b1', 'B', ['t']), member('c1', 'C', ['t'])];
    const input = { members: trio, partitions: uniform('t', 2, 1) };
    expect(codesOf(input)).toContain('more_instances_than_partitions');
    const text = factor(input, 'more_instances_than_partitions').text;
    expect(text).toContain('3');
    expect(text).toContain('2');
    expect(codesOf({ members: trio, partitions: uniform('t', 3, 1) })).not.toContain('more_instances_than_partitions');
    // Unassignable partitions do not count.
    expect(codesOf({ members: trio, partitions: [...uniform('t', 2, 1), ...uniform('ghost', 5, 1)] })).toContain(
      'more_instances_than_partitions',
    );
  });

  it('reports uneven_member_counts, listing the counts, when instances run different numbers of members', () => {
    const input = {
      members: [member('a1', 'A', ['t']), member('a2', 'A', ['t']), member('b1', 'B', ['t'])],
      partitions: uniform('t', 4, 1),
    };
    expect(codesOf(input)).toEqual(['uneven_member_counts']);
    expect(factor(input, 'uneven_member_counts').text).toContain('(1, 2)');
    expect(
      codesOf({
        members: [
          member('a1', 'A', ['t']),
          member('a2', 'A', ['t']),
          member('b1', 'B', ['t']),
          member('b2', 'B', ['t']),
        ],
        partitions: uniform('t', 4, 1),
      }),
    ).toEqual([]);
  });
});

describe('explain lines', () => {
  const example = HAND_COMPUTED_EXAMPLE;

  it('summarises instances, members, partitions, total weight and defaulted count', () => {
    expect(explain(balance(example), 1).summary).toBe(
      '2 instances, 3 members, 6 partitions, total weight 23, 1 defaulted',
    );
  });

  it('uses the singular for a single instance, member and partition', () => {
    const result = balance({ members: [member('m', 'A', ['t'])], partitions: weighted('t', [2.5]) });
    const e = explain(result, 1);
    expect(e.summary).toBe('1 instance, 1 member, 1 partition, total weight 2.50, 0 defaulted');
    expect(e.instanceLines).toEqual(['instance A: load 2.50 (100.0%), 1 partition, 1 member']);
  });

  it('writes one line per instance with its load, share of the total, partitions and members', () => {
    expect(explain(balance(example), 1).instanceLines).toEqual([
      'instance A: load 11 (47.8%), 3 partitions, 2 members',
      'instance B: load 12 (52.2%), 3 partitions, 1 member',
    ]);
  });

  it('adds the capacity and the load per unit of capacity to the line of an instance whose capacity is not 1', () => {
    const result = balance({
      members: [member('a1', 'A', ['t'], 2), member('b1', 'B', ['t'])],
      partitions: uniform('t', 3, 1),
    });
    expect(explain(result, 1).instanceLines).toEqual([
      'instance A: load 2 (66.7%), 2 partitions, 1 member, capacity 2 (1 per unit)',
      'instance B: load 1 (33.3%), 1 partition, 1 member',
    ]);
  });

  it('writes the skew line as max instance load against the ideal share and their ratio', () => {
    const e = explain(balance(example), 1);
    expect(e.skew).toBe('skew: max instance load 12 vs ideal 11.50 (1.04x)');
    expect(e.skewRatio).toBeCloseTo(12 / 11.5, 12);
  });

  it('writes the optimality line as max instance load against the lower bound, saying when it is provably optimal', () => {
    expect(explain(balance(example), 1).optimality).toBe(
      'optimality: max instance load 12 vs lower bound 12 (1.00x: optimal)',
    );
    // Three instances, 2.5, 2.5, 2, 1.5, 1.5: the third and fourth heaviest make 3.5, but every
    // split has an instance at 4.
    const trio = [member('a1', 'A', ['t']), member('b1', 'B', ['t']), member('c1', 'C', ['t'])];
    const fractional = balance({ members: trio, partitions: weighted('t', [2.5, 2.5, 2, 1.5, 1.5]) });
    expect(explain(fractional, 1).optimality).toBe('optimality: max instance load 4 vs lower bound 3.50 (1.14x)');
    expect(explain(balance({ members: pair, partitions: [] }), 1).optimality).toBe(
      'optimality: max instance load 0 vs lower bound 0 (1.00x)',
    );
  });

  it('writes the moves line from the previous owners, counting moves forced by a departed owner', () => {
    expect(explain(balance(example), 1).moves).toBe('moves: no previous owner known for any partition');
    const first = balance(example);
    expect(explain(balance({ ...example, previous: first.assignments }), 1).moves).toBe(
      'moves: 0 of 6 previously owned partitions changed owner',
    );
    const withoutB = { ...example, members: example.members.filter((m) => m.memberId !== 'b1') };
    expect(explain(balance({ ...withoutB, previous: first.assignments }), 1).moves).toBe(
      'moves: 3 of 6 previously owned partitions changed owner (3 because their owner left or unsubscribed)',
    );
  });

  it('reports a skew ratio of 1 when there is no load at all', () => {
    const e = explain(balance({ members: pair, partitions: [] }), 1);
    expect(e.skewRatio).toBe(1);
    expect(e.skew).toBe('skew: max instance load 0 vs ideal 0 (1.00x)');
    expect(e.instanceLines).toEqual([
      'instance A: load 0 (0.0%), 0 partitions, 1 member',
      'instance B: load 0 (0.0%), 0 partitions, 1 member',
    ]);
  });

  it('writes one member line per member with its instance, load and partitions', () => {
    expect(explain(balance(example), 1).memberLines).toEqual([
      'member a1 @ A: load 3, 2 partitions',
      'member a2 @ A: load 8, 1 partition',
      'member b1 @ B: load 12, 3 partitions',
    ]);
  });

  it('lists the factors of the example: a defaulted weight, a topic only one instance subscribes to, uneven member counts', () => {
    expect(explain(balance(example), 1).factors.map((f) => f.code)).toEqual([
      'some_weights_defaulted',
      'restricted_topics',
      'uneven_member_counts',
    ]);
  });
});
