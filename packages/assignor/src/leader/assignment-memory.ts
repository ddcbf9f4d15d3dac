import type { TopicPartition } from '../core/types.js';

/** The assignment a leader computed last for one group, as `balance()` takes it back. */
export interface RememberedAssignment {
  /** Member id → the partitions it was given. */
  readonly assignments: ReadonlyMap<string, ReadonlyArray<TopicPartition>>;
  /** Member id → its instance id, so partitions of a member that left can stay on its instance. */
  readonly instanceOf: ReadonlyMap<string, string>;
  /** The group generation the assignment was computed for, when known. */
  readonly generation?: number | undefined;
  /** Member id → the rebalance epoch it advertised, to tell a fire from other causes. */
  readonly epochs?: ReadonlyMap<string, number> | undefined;
  /** Topic → partition count at that assignment, to tell a metadata change. */
  readonly partitionCounts?: ReadonlyMap<string, number> | undefined;
}

/**
 * The leader's memory of its last assignment per group. Members report the partitions they own
 * in their userData, and those reports are the first source of `previous`; this memory fills in
 * for members that report nothing (older versions, sets too large to carry) and remembers the
 * instance of members that left. It lives in the `LoadAwareAssigner` object, which every consumer
 * of the process shares.
 */
export interface AssignmentMemory {
  /** The last assignment remembered for the group, if any. */
  recall(groupId: string): RememberedAssignment | undefined;
  /** Remembers the group's new assignment, replacing the previous one. */
  remember(groupId: string, assignment: RememberedAssignment): void;
  /** Drops what is remembered for the group (its assignment could not be trusted). */
  forget(groupId: string): void;
}

/** How many groups one memory holds; a process rarely leads more than a few. */
const MAX_GROUPS = 64;

/** Creates an empty memory; the least recently written group is dropped beyond 64 groups. */
export function createAssignmentMemory(): AssignmentMemory {
  const byGroup = new Map<string, RememberedAssignment>();
  return {
    recall: (groupId) => byGroup.get(groupId),
    remember(groupId, assignment) {
      // Re-inserting moves the group to the end, so the first key is the least recently written.
      byGroup.delete(groupId);
      byGroup.set(groupId, assignment);
      if (byGroup.size > MAX_GROUPS) byGroup.delete(byGroup.keys().next().value!);
    },
    forget: (groupId) => {
      byGroup.delete(groupId);
    },
  };
}
