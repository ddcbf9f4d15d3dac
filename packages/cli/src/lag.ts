/** Consumer lag per partition from the group's committed offsets and the topics' end offsets. Pure. */
import { lagOf, partitionKey } from '@load-aware/assignor/internal';

/** A committed offset as `admin.fetchOffsets` reports it ("-1" when nothing is committed). */
export interface CommittedOffsets {
  readonly topic: string;
  readonly partitions: ReadonlyArray<{ readonly partition: number; readonly offset: string }>;
}

/** End offsets of one topic as `admin.fetchTopicOffsets` reports them. */
export interface TopicEndOffsets {
  readonly topic: string;
  readonly partitions: ReadonlyArray<{ readonly partition: number; readonly high: string }>;
}

/**
 * Records between each committed offset and the partition's end, keyed by `partitionKey`.
 * Partitions without a commit have no lag entry: how far behind they are depends on the
 * consumers' `fromBeginning`, which the group does not tell.
 */
export function partitionLags(
  committed: ReadonlyArray<CommittedOffsets>,
  ends: ReadonlyArray<TopicEndOffsets>,
): Map<string, number> {
  const high = new Map<string, number>();
  for (const t of ends) for (const p of t.partitions) high.set(partitionKey(t.topic, p.partition), Number(p.high));
  const lags = new Map<string, number>();
  for (const t of committed) {
    for (const p of t.partitions) {
      const key = partitionKey(t.topic, p.partition);
      const end = high.get(key);
      // The assignor's own rule (the trigger's lag gauges use it too): none without a commit.
      const lag = end === undefined ? undefined : lagOf(Number(p.offset), end);
      if (lag !== undefined) lags.set(key, lag);
    }
  }
  return lags;
}
