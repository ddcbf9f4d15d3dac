/**
 * What the trigger reads of a group besides its description, through the platformatic `Admin` the
 * user hands `triggerTarget(consumer, admin)`: fresh partition lists (for partitions no member
 * holds) and the group's progress (for its lag, and for static members that are away). A platformatic consumer
 * has no Metadata, OffsetFetch or ListOffsets of its own to lend, and its metadata cache must not
 * be disturbed; an `Admin` of the same cluster has all three.
 */
import {
  errorMessageOf,
  withTimeout,
  type ListedTopic,
  type PartitionProgress,
  type TopicPartition,
  type TopicPartitionsReading,
} from '@load-aware/assignor/portable';

/** What the partition lists are read with: platformatic's `Admin.metadata` fits as it is. */
export interface MetadataReader {
  /** Platformatic's `metadata()`: the topics' partition counts, as the broker lists them. */
  metadata(options: {
    topics: string[];
    autocreateTopics?: boolean;
    forceUpdate?: boolean;
    retries?: number;
  }): Promise<{ readonly topics: ReadonlyMap<string, { readonly partitionsCount: number }> }>;
}

/** What progress is read with: platformatic's `Admin` fits as it is. */
export interface ProgressReader {
  /** Platformatic's `listConsumerGroupOffsets()`: the group's committed offsets. */
  listConsumerGroupOffsets(options: {
    groups: Array<{ groupId: string; topics: Array<{ name: string; partitionIndexes: number[] }> }>;
  }): Promise<
    ReadonlyArray<{
      readonly groupId: string;
      readonly topics: ReadonlyArray<{
        readonly name: string;
        readonly partitions: ReadonlyArray<{ readonly partitionIndex: number; readonly committedOffset: bigint }>;
      }>;
    }>
  >;
  /** Platformatic's `listOffsets()`: with timestamp -1, each partition's end offset. */
  listOffsets(options: {
    topics: Array<{ name: string; partitions: Array<{ partitionIndex: number; timestamp: bigint }> }>;
  }): Promise<
    ReadonlyArray<{
      readonly name: string;
      readonly partitions: ReadonlyArray<{ readonly partitionIndex: number; readonly offset: bigint }>;
    }>
  >;
}

/** How many single-topic reads run at once when a combined read was refused. */
const SINGLE_READS_AT_ONCE = 8;

/** ListOffsets' "latest" timestamp: the offset the next message will get. */
const LATEST = -1n;

/**
 * Reads the partition lists of `topics` fresh, within `timeoutMs`. Never creates a topic
 * (`autocreateTopics: false`: a check every few seconds must not bring back a topic an operator
 * just deleted), and asks once (`retries: 0`: the trigger's next check is the retry). Platformatic
 * fails a whole answer for one unknown topic, so when the combined read is refused each topic is
 * read on its own: a deleted topic must not hide the partitions added to another. Rejects only
 * when the time runs out.
 */
export function readTopicPartitions(
  admin: MetadataReader,
  topics: ReadonlyArray<string>,
  timeoutMs: number,
): Promise<TopicPartitionsReading> {
  const read = async (): Promise<TopicPartitionsReading> => {
    const names = [...new Set(topics)].sort();
    if (names.length === 0) return { listed: [], unlisted: [] };
    try {
      return { listed: listedTopics(await metadataOf(admin, names), names), unlisted: [] };
    } catch {
      // Which topic failed the combined answer is not reliably said: ask each one alone.
    }
    const listed: ListedTopic[] = [];
    const unlisted: Array<{ topic: string; reason: string }> = [];
    for (let i = 0; i < names.length; i += SINGLE_READS_AT_ONCE) {
      const chunk = names.slice(i, i + SINGLE_READS_AT_ONCE);
      const answers = await Promise.allSettled(chunk.map((t) => metadataOf(admin, [t])));
      answers.forEach((answer, j) => {
        const topic = chunk[j]!;
        const found = answer.status === 'fulfilled' ? listedTopics(answer.value, [topic]) : [];
        if (found.length > 0) listed.push(...found);
        else
          unlisted.push({ topic, reason: answer.status === 'rejected' ? errorMessageOf(answer.reason) : 'not listed' });
      });
    }
    return { listed, unlisted };
  };
  return withTimeout(read(), timeoutMs, () => new Error(`topic metadata not read within ${String(timeoutMs)} ms`));
}

/**
 * Reads the committed and end offsets of `partitions` for `groupId` within `timeoutMs`: the
 * group's lag (end − committed), and what tells a static member that is away (its partitions'
 * committed offsets stop while their end offsets grow). Partitions either answer leaves out are left out; a partition without a commit comes back
 * with `committed: -1`, as the KafkaJS reader returns it.
 */
export function readProgress(
  admin: ProgressReader,
  groupId: string,
  partitions: ReadonlyArray<TopicPartition>,
  timeoutMs: number,
): Promise<PartitionProgress[]> {
  const read = async (): Promise<PartitionProgress[]> => {
    if (partitions.length === 0) return [];
    const byTopic = new Map<string, number[]>();
    for (const p of partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
    const [committed, ends] = await Promise.all([
      admin.listConsumerGroupOffsets({
        groups: [{ groupId, topics: [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })) }],
      }),
      admin.listOffsets({
        topics: [...byTopic].map(([name, ps]) => ({
          name,
          partitions: ps.map((partitionIndex) => ({ partitionIndex, timestamp: LATEST })),
        })),
      }),
    ]);
    const committedOf = new Map<string, number>();
    for (const g of committed) {
      if (g.groupId !== groupId) continue;
      for (const t of g.topics) {
        for (const p of t.partitions) committedOf.set(keyOf(t.name, p.partitionIndex), Number(p.committedOffset));
      }
    }
    const out: PartitionProgress[] = [];
    for (const t of ends) {
      for (const p of t.partitions) {
        const c = committedOf.get(keyOf(t.name, p.partitionIndex));
        const end = Number(p.offset);
        if (c === undefined || !Number.isFinite(c) || !Number.isFinite(end)) continue;
        out.push({ topic: t.name, partition: p.partitionIndex, committed: c, end });
      }
    }
    return out;
  };
  return withTimeout(read(), timeoutMs, () => new Error(`progress not read within ${String(timeoutMs)} ms`));
}

const keyOf = (topic: string, partition: number): string => `${topic}\u0000${String(partition)}`;

/** Metadata of `topics` as the broker lists them now, without creating any, asked once. */
function metadataOf(admin: MetadataReader, topics: string[]) {
  // A copy: platformatic sorts the array it is given in place.
  return admin.metadata({ topics: [...topics], autocreateTopics: false, forceUpdate: true, retries: 0 });
}

/** The asked topics an answer lists, each with its partitions ascending. */
function listedTopics(
  answer: { readonly topics: ReadonlyMap<string, { readonly partitionsCount: number }> },
  asked: ReadonlyArray<string>,
): ListedTopic[] {
  return asked.flatMap((topic) => {
    const count = answer.topics.get(topic)?.partitionsCount ?? 0;
    return count > 0 ? [{ topic, partitions: Array.from({ length: count }, (_, p) => p) }] : [];
  });
}
