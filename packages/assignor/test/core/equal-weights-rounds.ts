import type { BalanceInput, BalanceMember, BalanceResult, WeightedPartition } from '@load-aware/assignor';
import { createRandom, type Random } from '@load-aware/test-support';
import { member, uniform } from './fixtures';

/**
 * A generator of rebalance sequences with unit weights, each member its own instance: random
 * subscriptions, then one random change per round (a member joins, leaves or resubscribes, a
 * topic grows, or everyone resubscribes at once). It is written here rather than built from
 * fast-check arbitraries so that a sequence is a plain function of one seed: a failing seed is
 * a reproduction, and rounds stay cheap enough to run ten thousand of them in the unit suite.
 */

/** The group as the next rebalance sees it. */
export interface Round {
  readonly change: string;
  readonly input: BalanceInput;
}

const MAX_TOPICS = 10;

/** A random non-empty subset of `topics` (each kept with probability `p`). */
function subset(random: Random, topics: ReadonlyArray<string>, p: number): string[] {
  const picked = topics.filter(() => random.next() < p);
  return picked.length > 0 ? picked : [topics[random.int(topics.length)]!];
}

/**
 * The rounds of one sequence: the first from scratch, every later one carrying the previous
 * round's assignment in `previous` (so each call sees the owners `balance()` itself chose).
 * `rebalance` is called once per round and returns that round's result.
 */
export function* rounds(
  seed: number,
  count: number,
  rebalance: (input: BalanceInput) => BalanceResult,
): Generator<Round & { readonly result: BalanceResult }> {
  const random = createRandom(seed);
  const topicCount = 2 + random.int(MAX_TOPICS - 1);
  const topics = Array.from({ length: topicCount }, (_, t) => `t${String(t).padStart(2, '0')}`);
  const sizes = topics.map(() => 1 + random.int(12));
  // Dense subscriptions make one big group; sparse ones many overlapping small ones.
  const density = 0.2 + 0.7 * random.next();
  let next = 0;
  const members = new Map<string, string[]>();
  const join = (): string => {
    const id = `c${String(next++).padStart(3, '0')}`;
    members.set(id, subset(random, topics, density));
    return id;
  };
  const initial = 2 + random.int(9);
  for (let i = 0; i < initial; i++) join();

  let previous: BalanceResult['assignments'] | undefined;
  let change = 'from scratch';
  for (let r = 0; r < count; r++) {
    const partitions: WeightedPartition[] = topics.flatMap((t, i) => uniform(t, sizes[i]!, 1));
    const group: BalanceMember[] = [...members].map(([id, subscribed]) => member(id, id, subscribed));
    const input: BalanceInput =
      previous === undefined ? { members: group, partitions } : { members: group, partitions, previous };
    const result = rebalance(input);
    yield { change, input, result };
    previous = result.assignments;
    change = mutate(random, members, topics, sizes, join);
  }
}

/** Applies one random change and names it. */
function mutate(
  random: Random,
  members: Map<string, string[]>,
  topics: ReadonlyArray<string>,
  sizes: number[],
  join: () => string,
): string {
  const ids = [...members.keys()];
  const roll = random.next();
  if (roll < 0.25 && members.size < 14) return `${join()} joins`;
  if (roll < 0.5 && members.size > 1) {
    const id = ids[random.int(ids.length)]!;
    members.delete(id);
    return `${id} leaves`;
  }
  if (roll < 0.8) {
    const id = ids[random.int(ids.length)]!;
    members.set(id, subset(random, topics, 0.2 + 0.7 * random.next()));
    return `${id} resubscribes to ${members.get(id)!.join(',')}`;
  }
  if (roll < 0.92) {
    const t = random.int(topics.length);
    sizes[t] = sizes[t]! + 1 + random.int(4);
    return `${topics[t]!} grows to ${String(sizes[t])}`;
  }
  const density = 0.2 + 0.7 * random.next();
  for (const id of ids) members.set(id, subset(random, topics, density));
  return 'everyone resubscribes';
}
