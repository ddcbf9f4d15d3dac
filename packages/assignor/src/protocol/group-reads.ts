import type { TopicPartition } from '../core/types.js';

/**
 * What the trigger reads of a group besides its description, whatever the client reads it with:
 * progress (committed and end offsets) and fresh partition lists. Data shapes only, so adapters
 * that load no KafkaJS can name them.
 */

/** How far a group has read one partition. */
export interface PartitionProgress extends TopicPartition {
  /** The group's committed offset; -1 when it has none. */
  readonly committed: number;
  /** The partition's end offset (the next offset to be written). */
  readonly end: number;
}

/** One topic as the broker lists it now. */
export interface ListedTopic {
  readonly topic: string;
  /** Its partition numbers, ascending. */
  readonly partitions: ReadonlyArray<number>;
}

/** What one read of topic metadata found. */
export interface TopicPartitionsReading {
  /** Topics the broker listed, with their partitions. */
  readonly listed: ReadonlyArray<ListedTopic>;
  /** Topics it did not list, with why: unknown, not authorised, a partition without a leader yet. */
  readonly unlisted: ReadonlyArray<{ readonly topic: string; readonly reason: string }>;
}
