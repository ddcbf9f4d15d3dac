import type { Admin } from 'kafkajs';
import { describeGroup } from './group';

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

/** What the coordinator's gauges should read, worked out from two admin reads around them. */
export interface ExpectedLag {
  /** The group's lag at the second read. */
  readonly messages: number;
  /** Seconds behind: the largest partition lag ÷ the rate each partition is produced at. */
  readonly seconds: number;
  /** The slowest member's lag ÷ its spare capacity (declared capacity − what it receives). */
  readonly drain: number;
  /** How much the lag moved between the reads (produced and committed meanwhile): the slack. */
  readonly drift: number;
  /** The partitions each member held at the second read. */
  readonly held: ReadonlyArray<ReadonlyArray<number>>;
}

/**
 * The figures the lag gauges should show for `groupId`, from admin reads taken `before` and
 * `after` reading the gauges, at `perSecond` produced to each partition and a declared member
 * capacity of `memberCapacity`.
 */
export async function expectedLag(
  admin: Admin,
  groupId: string,
  reads: { before: ReadonlyMap<number, number | undefined>; after: ReadonlyMap<number, number | undefined> },
  rates: { perSecond: number; memberCapacity: number },
): Promise<ExpectedLag> {
  const { before, after } = reads;
  const members = (await describeGroup(admin, groupId)).members.map((m) =>
    m.assigned.map((label) => Number(label.slice(label.lastIndexOf(':') + 1))),
  );
  return {
    messages: sumOf(after),
    seconds: Math.max(...[...after.values()].map((l) => (l ?? 0) / rates.perSecond)),
    drain: Math.max(...members.map((ps) => sumOf(after, ps) / (rates.memberCapacity - rates.perSecond * ps.length))),
    drift: Math.abs(sumOf(after) - sumOf(before)),
    held: members,
  };
}
