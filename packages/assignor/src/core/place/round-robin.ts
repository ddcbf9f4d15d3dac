import type { BalanceMember, TopicPartition } from '../types.js';
import { compareStrings, comparePartitions } from '../structures/order.js';
import { partitionKey } from '../structures/partition-key.js';

/**
 * The safety net: deals partitions out one by one, in topic/partition order, to the members subscribed
 * to each partition's topic, cycling through them in member-id order. Unlike KafkaJS's round-robin it
 * honours each member's subscription. It needs no weights and cannot fail on well-formed input, which
 * is why the adapter falls back to it whenever weighing or balancing goes wrong. Partitions of topics
 * nobody subscribes to are left out; every member appears in the result.
 */
export function roundRobin(
  members: ReadonlyArray<BalanceMember>,
  partitions: ReadonlyArray<TopicPartition>,
): Map<string, TopicPartition[]> {
  // Sorted first, then the first entry of a duplicated member id wins: input order never matters.
  const sorted = [...members]
    .sort((a, b) => compareStrings(a.memberId, b.memberId) || compareStrings(a.instanceId, b.instanceId))
    .filter((m, i, all) => i === 0 || all[i - 1]!.memberId !== m.memberId);
  const assignments = new Map<string, TopicPartition[]>(sorted.map((m) => [m.memberId, []]));
  const subscribersByTopic = new Map<string, string[]>();
  for (const member of sorted) {
    for (const topic of new Set(member.topics)) {
      const list = subscribersByTopic.get(topic);
      if (list === undefined) subscribersByTopic.set(topic, [member.memberId]);
      else list.push(member.memberId);
    }
  }
  const seen = new Set<string>();
  let turn = 0;
  for (const p of [...partitions].sort(comparePartitions)) {
    const key = partitionKey(p.topic, p.partition);
    const subscribers = subscribersByTopic.get(p.topic);
    if (subscribers === undefined || seen.has(key)) continue;
    seen.add(key);
    assignments.get(subscribers[turn % subscribers.length]!)!.push({ topic: p.topic, partition: p.partition });
    turn++;
  }
  return assignments;
}
