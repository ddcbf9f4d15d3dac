import type { Cluster } from 'kafkajs';
import type { TopicPartition } from '../core/types.js';
import type { PartitionProgress } from '../protocol/group-reads.js';

export type { PartitionProgress };

/** Reads the committed and end offsets of some of a group's partitions. */
export type ReadProgress = (partitions: ReadonlyArray<TopicPartition>) => Promise<PartitionProgress[]>;

interface OffsetFetchAnswer {
  readonly responses?: ReadonlyArray<{
    readonly topic: string;
    readonly partitions: ReadonlyArray<{ readonly partition: number; readonly offset: string }>;
  }>;
}

/**
 * Progress of `groupId` read through one consumer's own cluster: OffsetFetch from the group's
 * coordinator and ListOffsets (latest) from each partition's leader, so the consumer's TLS, SASL
 * and ACL settings apply. Used by the trigger to see a static member that is away: its partitions'
 * committed offsets stop while their end offsets grow. Partitions either answer leaves out.
 */
export function progressThrough(cluster: Cluster, groupId: string): ReadProgress {
  return async (partitions) => {
    if (partitions.length === 0) return [];
    const byTopic = new Map<string, number[]>();
    for (const p of partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
    const topics = [...byTopic].map(([topic, ps]) => ({ topic, partitions: ps.map((partition) => ({ partition })) }));
    const coordinator = (await cluster.findGroupCoordinator({ groupId })) as unknown as {
      offsetFetch(request: { groupId: string; topics: typeof topics }): Promise<OffsetFetchAnswer>;
    };
    const [committed, ends] = await Promise.all([
      coordinator.offsetFetch({ groupId, topics }),
      cluster.fetchTopicsOffset(topics.map((t) => ({ ...t, fromBeginning: false }))),
    ]);
    const committedOf = new Map<string, number>();
    for (const t of committed.responses ?? []) {
      for (const p of t.partitions) committedOf.set(`${t.topic}\u0000${String(p.partition)}`, Number(p.offset));
    }
    const out: PartitionProgress[] = [];
    for (const t of ends) {
      for (const p of t.partitions) {
        const c = committedOf.get(`${t.topic}\u0000${String(p.partition)}`);
        const end = Number(p.offset);
        if (c === undefined || !Number.isFinite(c) || !Number.isFinite(end)) continue;
        out.push({ topic: t.topic, partition: p.partition, committed: c, end });
      }
    }
    return out;
  };
}
