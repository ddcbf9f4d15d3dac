/** Consumer lag per partition from the group's committed offsets and the topics' end offsets. Pure. */
import { partitionKey } from '@load-aware/assignor/internal';

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
      const offset = Number(p.offset);
      const end = high.get(key);
      if (end === undefined || !Number.isFinite(offset) || offset < 0) continue;
      lags.set(key, Math.max(0, end - offset));
    }
  }
  return lags;
}
