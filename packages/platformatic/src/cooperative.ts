import {
  PartitionMap,
  type BalanceMember,
  type CurrentOwners,
  type TopicPartition,
} from '@load-aware/assignor/portable';

/**
 * Kafka's cooperative contract (KIP-429, `CooperativeStickyAssignor`) for a placement computed in
 * one go: a partition that changes owner is only taken from its owner in this round, and given
 * to its new owner in the follow-up round that the owner's rejoin starts. Platformatic pauses,
 * commits and rejoins when its assignment lost partitions, and keeps every other partition
 * flowing, so at no moment do two members hold one partition.
 */

/** A partition taken from its owner this round, promised to `to` in the next. */
export interface Transfer {
  readonly topic: string;
  readonly partition: number;
  readonly from: string;
  readonly to: string;
}

/**
 * What this round hands out: `target` without the partitions another present member owns now.
 * Partitions nobody present owns (new, or of a member that left) go to their target at once.
 */
export function cooperativeRound(
  target: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
  owners: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
): { handed: Map<string, TopicPartition[]>; withheld: Transfer[] } {
  const ownerOf = new PartitionMap<string>();
  for (const [memberId, partitions] of owners) {
    if (!target.has(memberId)) continue; // a member that left holds nothing any more
    for (const p of partitions) ownerOf.set(p.topic, p.partition, memberId);
  }
  const handed = new Map<string, TopicPartition[]>();
  const withheld: Transfer[] = [];
  for (const [memberId, partitions] of target) {
    const kept: TopicPartition[] = [];
    for (const p of partitions) {
      const from = ownerOf.get(p.topic, p.partition);
      if (from === undefined || from === memberId) kept.push(p);
      else withheld.push({ topic: p.topic, partition: p.partition, from, to: memberId });
    }
    handed.set(memberId, kept);
  }
  return { handed, withheld };
}

/**
 * The owners of the follow-up round, with last round's promises kept: a withheld partition that
 * nobody owns now counts as its promised member's, so that `balance()`, sticky, hands it exactly
 * there rather than re-deciding it from scratch (which could move it a second time). A promise
 * to a member that left, or no longer subscribes to the topic, is dropped.
 */
export function withPromises(
  owners: CurrentOwners,
  promises: ReadonlyArray<Transfer>,
  members: ReadonlyArray<BalanceMember>,
): CurrentOwners {
  if (promises.length === 0) return owners;
  const owned = new PartitionMap<true>();
  for (const partitions of owners.previous.values()) for (const p of partitions) owned.set(p.topic, p.partition, true);
  const subscribed = new Map(members.map((m) => [m.memberId, new Set(m.topics)]));
  const previous = new Map([...owners.previous].map(([id, list]) => [id, [...list]]));
  for (const t of promises) {
    if (owned.get(t.topic, t.partition) === true || subscribed.get(t.to)?.has(t.topic) !== true) continue;
    const list = previous.get(t.to);
    if (list === undefined) previous.set(t.to, [{ topic: t.topic, partition: t.partition }]);
    else list.push({ topic: t.topic, partition: t.partition });
  }
  return { ...owners, previous };
}
