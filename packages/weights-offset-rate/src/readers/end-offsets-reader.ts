import type { TopicPartition } from '@load-aware/assignor';

/** One partition's end offset as read in one sample, or why it could not be read. */
export type EndOffsetResult =
  | { readonly topic: string; readonly partition: number; readonly offset: bigint | string | number }
  | { readonly topic: string; readonly partition: number; readonly error: unknown };

/**
 * Reads end offsets (the offset the next produced record will get). The source ships readers
 * for a KafkaJS `Kafka` and a KafkaJS `Admin`; give your own to sample through another client.
 *
 * Contract: answer within `timeoutMs`, one entry per partition asked for, and time-box each
 * request on its own so that one slow broker fails only its own partitions. Rejecting means
 * "nothing could be read" and fails every partition of the sample.
 */
export interface EndOffsetsReader {
  /** Reads the end offsets of `partitions`, one result per partition, within `timeoutMs`. */
  read(partitions: ReadonlyArray<TopicPartition>, timeoutMs: number): Promise<ReadonlyArray<EndOffsetResult>>;
}

/** A reader this package created: it owns connections, which {@link OwnedEndOffsetsReader.close} releases. */
export interface OwnedEndOffsetsReader extends EndOffsetsReader {
  /** Short name for logs: how offsets are read. */
  readonly kind: string;
  /** Closes every connection the reader opened, once requests in flight have settled. */
  close(): Promise<void>;
}

/** True for anything usable as an {@link EndOffsetsReader}. */
export function isEndOffsetsReader(value: unknown): value is EndOffsetsReader {
  return typeof value === 'object' && value !== null && typeof (value as EndOffsetsReader).read === 'function';
}

/** Groups partitions by topic, keeping first-seen order, partitions ascending. */
export function groupByTopic(partitions: ReadonlyArray<TopicPartition>): Map<string, number[]> {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition } of partitions) {
    let list = byTopic.get(topic);
    if (list === undefined) byTopic.set(topic, (list = []));
    list.push(partition);
  }
  for (const list of byTopic.values()) list.sort((a, b) => a - b);
  return byTopic;
}
