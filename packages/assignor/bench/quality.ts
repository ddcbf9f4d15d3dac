import type { TopicPartition } from '@load-aware/assignor';
import type { Scenario } from '@load-aware/test-support';

/** How good (and how valid) one assignment of a scenario is, judged by the scenario's weights. */
export interface AssignmentQuality {
  /** Heaviest instance load ÷ (total weight ÷ instances); 1 is a perfect split. */
  readonly maxToIdeal: number;
  /** Partitions handed to a member that does not subscribe to their topic (KafkaJS drops them). */
  readonly toNonSubscribers: number;
  /** Partitions assigned to nobody. */
  readonly missing: number;
  /** Extra copies of partitions assigned more than once. */
  readonly duplicated: number;
}

/** Sums the scenario's weights per instance over `assignments` and checks every partition once. */
export function judge(
  scenario: Scenario,
  assignments: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
): AssignmentQuality {
  const memberById = new Map(scenario.members.map((m) => [m.memberId, m]));
  const topicIndex = new Map(scenario.topics.map((t, i) => [t, i]));
  const seen = scenario.topics.map(() => new Uint8Array(scenario.partitionsPerTopic));
  const instanceLoad = new Map<string, number>();
  let toNonSubscribers = 0;
  let duplicated = 0;
  for (const [memberId, partitions] of assignments) {
    const member = memberById.get(memberId);
    if (member === undefined) throw new Error(`Assignment names an unknown member: ${memberId}`);
    const subscribed = new Set(member.topics);
    let load = instanceLoad.get(member.instanceId) ?? 0;
    for (const { topic, partition } of partitions) {
      const t = topicIndex.get(topic);
      if (t === undefined) throw new Error(`Assignment names an unknown topic: ${topic}`);
      if (seen[t]![partition] === 1) duplicated++;
      seen[t]![partition] = 1;
      if (!subscribed.has(topic)) toNonSubscribers++;
      load += scenario.weights[t]![partition]!;
    }
    instanceLoad.set(member.instanceId, load);
  }
  const missing = seen.reduce((sum, flags) => sum + flags.length - flags.reduce((n, f) => n + f, 0), 0);
  const total = scenario.weights.reduce((sum, w) => sum + w.reduce((s, x) => s + x, 0), 0);
  const maxLoad = Math.max(0, ...instanceLoad.values());
  return { maxToIdeal: maxLoad / (total / scenario.instanceCount), toNonSubscribers, missing, duplicated };
}
