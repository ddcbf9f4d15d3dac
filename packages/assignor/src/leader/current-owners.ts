import type { TopicPartition } from '../core/types.js';
import type { RememberedAssignment } from './assignment-memory.js';
import type { DecodedMember } from '../protocol/members.js';
import { PartitionMap } from '../core/structures/partition-map.js';

/** The `previous` the leader hands to `balance()`, and where it came from. */
export interface CurrentOwners {
  /** Member id → the partitions it owns now (each partition under one member at most). */
  readonly previous: Map<string, TopicPartition[]>;
  /** Member id → instance id, for current members and for members the memory saw that left. */
  readonly previousInstances: Map<string, string>;
  /** Members whose owned partitions came from their own report. */
  readonly reportingMembers: number;
  /** Members whose owned partitions came from this process's memory instead. */
  readonly rememberedMembers: number;
}

interface Claim {
  readonly memberId: string;
  readonly generation: number;
}

/**
 * Who owns what, from the members' own reports first and the leader's memory second.
 *
 * - A member that reports (userData version 2) is believed about itself; the memory is not
 *   consulted for it, since the report is at least as recent.
 * - A member that reports nothing keeps what the memory says it was given, claimed at the
 *   memory's generation.
 * - Members of the memory that are gone keep their claims too (at the memory's generation):
 *   `balance()` uses them to keep a departed member's partitions on its instance.
 * - Two claims on one partition: the higher generation wins (a member that missed a rebalance
 *   still reports what it lost), then the smaller member id, so the answer does not depend on
 *   the order members arrive in.
 */
export function currentOwners(
  members: ReadonlyArray<DecodedMember>,
  remembered: RememberedAssignment | undefined,
): CurrentOwners {
  // One claim per claiming member, and per partition only the index of the claim that holds it:
  // this runs over every owned partition of the group, 100k of them at a time.
  const claims: Claim[] = [];
  const winners = new PartitionMap<number>();
  const claim = (memberId: string, generation: number, partitions: ReadonlyArray<TopicPartition>): void => {
    const index = claims.push({ memberId, generation }) - 1;
    const claimed = claims[index]!;
    for (const { topic, partition } of partitions) {
      const held = winners.get(topic, partition);
      if (held === undefined || beats(claimed, claims[held]!)) winners.set(topic, partition, index);
    }
  };

  const previousInstances = new Map<string, string>();
  const present = new Set<string>();
  let reportingMembers = 0;
  let rememberedMembers = 0;
  // Unknown generation: older than anything a member reports, so reports win conflicts.
  const memoryGeneration = remembered?.generation ?? -1;
  for (const m of members) {
    present.add(m.memberId);
    previousInstances.set(m.memberId, m.instanceId);
    if (m.owned !== undefined) {
      reportingMembers++;
      claim(m.memberId, m.owned.generation, m.owned.partitions);
      continue;
    }
    const fromMemory = remembered?.assignments.get(m.memberId);
    if (fromMemory !== undefined) {
      rememberedMembers++;
      claim(m.memberId, memoryGeneration, fromMemory);
    }
  }
  if (remembered !== undefined) {
    for (const [memberId, partitions] of remembered.assignments) {
      if (present.has(memberId)) continue;
      const instanceId = remembered.instanceOf.get(memberId);
      if (instanceId !== undefined) previousInstances.set(memberId, instanceId);
      claim(memberId, memoryGeneration, partitions);
    }
  }

  const previous = new Map<string, TopicPartition[]>();
  // Each claim's list, found once per claim rather than once per partition.
  const listOf: Array<TopicPartition[] | undefined> = [];
  winners.forEach((topic, partition, index) => {
    let list = listOf[index];
    if (list === undefined) {
      const { memberId } = claims[index]!;
      list = previous.get(memberId);
      if (list === undefined) previous.set(memberId, (list = []));
      listOf[index] = list;
    }
    list.push({ topic, partition });
  });
  return { previous, previousInstances, reportingMembers, rememberedMembers };
}

function beats(a: Claim, b: Claim): boolean {
  if (a.generation !== b.generation) return a.generation > b.generation;
  return a.memberId < b.memberId;
}
