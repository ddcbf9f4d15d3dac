import type { Admin } from 'kafkajs';

/**
 * The lag of a group as a KafkaJS admin reads it on its own (OffsetFetch and ListOffsets), to check
 * the trigger's lag gauges against, whichever client the group's members run.
 */

/** Lag per partition of `topic` for `groupId`: end − committed, undefined without a commit. */
export async function adminLags(
  admin: Admin,
  groupId: string,
  topic: string,
): Promise<Map<number, number | undefined>> {
  const [committed, ends] = await Promise.all([
    admin.fetchOffsets({ groupId, topics: [topic] }),
    admin.fetchTopicOffsets(topic),
  ]);
  const commitOf = new Map(committed[0]!.partitions.map((p) => [p.partition, Number(p.offset)]));
  return new Map(
    ends.map((e) => {
      const c = commitOf.get(e.partition) ?? -1;
      return [e.partition, c < 0 ? undefined : Math.max(0, Number(e.high) - c)];
    }),
  );
}

/** The lag of `partitions` (default: all) in `lags`, partitions without a commit counted as 0. */
export const sumOf = (lags: ReadonlyMap<number, number | undefined>, partitions?: ReadonlyArray<number>): number =>
  [...lags].filter(([p]) => partitions?.includes(p) ?? true).reduce((s, [, l]) => s + (l ?? 0), 0);
