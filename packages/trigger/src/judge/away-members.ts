import type { ObservedMember } from '@load-aware/assignor/internal';

/** How far the group has read one partition, as the assigner's `readProgress()` answers. */
export interface ProgressReading {
  readonly topic: string;
  readonly partition: number;
  /** The group's committed offset; -1 when it has none. */
  readonly committed: number;
  /** The partition's end offset. */
  readonly end: number;
}

/** A member judged away: messages wait on its partitions and none of them moved. */
export interface AwayMember {
  readonly memberId: string;
  readonly instanceId: string;
  /** Its partitions with messages waiting whose committed offset stood still. */
  readonly stalledPartitions: number;
}

const keyOf = (p: { topic: string; partition: number }): string => `${p.topic}\u0000${String(p.partition)}`;

/**
 * The members that are away, from two readings of the group's progress taken a little apart.
 *
 * Why: a static member whose process is down keeps its place until its session times out, and
 * nothing in DescribeGroups tells it apart from a live one. A rebalance started then waits at
 * the join barrier for it, and every member stops meanwhile. What does show is its partitions:
 * messages wait on them (end offset past the committed one) and their committed offsets stand
 * still. A live member commits after every batch (KafkaJS's auto-commit), an overloaded one too,
 * only more slowly; so a member counts as away when at least one of its partitions has messages
 * waiting and none of its partitions' committed offsets moved between the readings.
 *
 * A member whose partitions have nothing waiting cannot be told apart from an idle one; a
 * handler stuck for the whole probe looks away too, which is right here: a rebalance would wait
 * for it as well.
 */
export function awayMembers(
  members: ReadonlyArray<ObservedMember>,
  before: ReadonlyArray<ProgressReading>,
  after: ReadonlyArray<ProgressReading>,
): AwayMember[] {
  const earlier = new Map(before.map((p) => [keyOf(p), p.committed]));
  const later = new Map(after.map((p) => [keyOf(p), p]));
  const away: AwayMember[] = [];
  for (const m of members) {
    let stalled = 0;
    let moved = false;
    for (const p of m.assigned) {
      const key = keyOf(p);
      const now = later.get(key);
      const then = earlier.get(key);
      if (now === undefined || then === undefined) continue;
      if (now.committed !== then) moved = true;
      else if (now.end > Math.max(now.committed, 0)) stalled++;
    }
    if (stalled > 0 && !moved)
      away.push({ memberId: m.memberId, instanceId: m.instanceId, stalledPartitions: stalled });
  }
  return away;
}
