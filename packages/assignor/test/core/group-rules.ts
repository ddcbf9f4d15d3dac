import type { BalanceInput, BalanceResult, TopicPartition, WeightedPartition } from '@load-aware/assignor';
import { keyOf, label } from './fixtures';

/**
 * The rules Kafka's sticky assignors are tested against, restated on `balance()`'s shapes (each
 * member its own instance). Every function returns the offending cases, so a failing assertion
 * shows what broke rather than `false`.
 */

/** Partitions placed twice, left out, or given to a member that does not subscribe to their topic. */
export function invalidPlacements(input: BalanceInput, result: BalanceResult): string[] {
  const topicsOf = new Map(input.members.map((m) => [m.memberId, new Set(m.topics)]));
  const subscribed = new Set(input.members.flatMap((m) => m.topics));
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const [memberId, partitions] of result.assignments) {
    for (const p of partitions) {
      if (seen.has(keyOf(p))) problems.push(`${label(p)} placed twice`);
      seen.add(keyOf(p));
      if (topicsOf.get(memberId)?.has(p.topic) !== true) problems.push(`${label(p)} on ${memberId}, not subscribed`);
    }
  }
  for (const p of input.partitions) {
    if (subscribed.has(p.topic) && !seen.has(keyOf(p))) problems.push(`${label(p)} not placed`);
  }
  return problems;
}

/**
 * Kafka's balance rule: no member holds a partition of a topic that another subscriber of it,
 * holding two or more fewer partitions, could take.
 */
export function countImbalances(input: BalanceInput, result: BalanceResult): string[] {
  const count = new Map([...result.assignments].map(([m, ps]) => [m, ps.length]));
  return pairImbalances(input, result, (from, to) => count.get(from)! >= count.get(to)! + 2);
}

/**
 * The weighted analogue: no partition could move to another subscriber of its topic and leave
 * the pair's larger load smaller than it is.
 */
export function loadImbalances(input: BalanceInput, result: BalanceResult): string[] {
  const load = new Map(result.members.map((m) => [m.memberId, m.load]));
  const weight = new Map(input.partitions.map((p) => [keyOf(p), p.weight ?? 1]));
  return pairImbalances(input, result, (from, to, p) => {
    const after = load.get(to)! + weight.get(keyOf(p))!;
    return after < load.get(from)! * (1 - 1e-9);
  });
}

function pairImbalances(
  input: BalanceInput,
  result: BalanceResult,
  improvable: (from: string, to: string, p: TopicPartition) => boolean,
): string[] {
  const problems: string[] = [];
  for (const [from, partitions] of result.assignments) {
    for (const p of partitions) {
      for (const other of input.members) {
        if (other.memberId === from || !other.topics.includes(p.topic)) continue;
        if (improvable(from, other.memberId, p)) problems.push(`${label(p)} could move ${from} → ${other.memberId}`);
      }
    }
  }
  return problems;
}

/**
 * Topics with two equally heavy partitions moved both ways between the same two members in one
 * rebalance (Kafka's "sticky" check; with unit weights, any two of a topic). Keeping both home
 * would give the same loads, so such a pair is churn; partitions of different weights may cross.
 * Moves away from members that left do not count. `partitions` gives the weights (1 if absent).
 */
export function twoWayMoves(
  previous: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
  result: BalanceResult,
  partitions: ReadonlyArray<WeightedPartition> = [],
): string[] {
  const weight = new Map(partitions.map((p) => [keyOf(p), p.weight ?? 1]));
  const ownerBefore = new Map<string, string>();
  for (const [memberId, held] of previous) for (const p of held) ownerBefore.set(keyOf(p), memberId);
  const moves = new Set<string>();
  for (const [memberId, held] of result.assignments) {
    for (const p of held) {
      const before = ownerBefore.get(keyOf(p));
      if (before !== undefined && before !== memberId && result.assignments.has(before)) {
        moves.add(JSON.stringify([p.topic, weight.get(keyOf(p)) ?? 1, before, memberId]));
      }
    }
  }
  return [...moves].filter((m) => {
    const [topic, w, from, to] = JSON.parse(m) as [string, number, string, string];
    return from < to && moves.has(JSON.stringify([topic, w, to, from]));
  });
}

/** Each member's partition count per topic. */
export function topicCounts(result: BalanceResult): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const [memberId, partitions] of result.assignments) {
    const counts = new Map<string, number>();
    for (const p of partitions) counts.set(p.topic, (counts.get(p.topic) ?? 0) + 1);
    out.set(memberId, counts);
  }
  return out;
}
