import type { TopicPartition } from '@load-aware/assignor';

/** The first offset whose record timestamp is at or after a target, as ListOffsets answers it. */
export interface OffsetAtTime {
  /** -1n when no record has a timestamp at or after the target. */
  readonly offset: bigint;
  /**
   * The found record's timestamp in ms since the epoch (-1 with offset -1). Undefined when the
   * broker's answer carries none (ListOffsets v0: no time index behind it).
   */
  readonly timestamp: number | undefined;
}

/** What a partition's log says at one instant: enough for a rate without any sampled history. */
export interface TimeIndexReading {
  /** The end offset (high watermark). */
  readonly latest: bigint;
  /** The first record at or after the window's start. */
  readonly windowStart: OffsetAtTime;
  /** The first record at or after now + the clock skew tolerance: none unless timestamps run ahead. */
  readonly future: OffsetAtTime;
}

/** One partition's reading, or why it could not be read. */
export type TimeIndexAnswer =
  (TopicPartition & { readonly reading: TimeIndexReading }) | (TopicPartition & { readonly error: unknown });

/** The two timestamps a lookup asks about, in ms since the epoch. */
export interface TimeIndexTargets {
  readonly windowStartMs: number;
  readonly futureMs: number;
}

/**
 * Reads the time index. Implemented by the cluster reader only: it needs ListOffsets by timestamp
 * with the found record's timestamp, which KafkaJS's admin API does not return.
 */
export interface TimeIndexReader {
  /**
   * Answers one entry per partition, within `timeoutMs` (each broker's requests time-boxed on
   * their own). Rejecting means nothing could be read.
   */
  lookup(
    partitions: ReadonlyArray<TopicPartition>,
    targets: TimeIndexTargets,
    timeoutMs: number,
  ): Promise<TimeIndexAnswer[]>;
}
