import { samePartitions, type OwnedPartitions, type TopicPartition } from '@load-aware/assignor/portable';

/**
 * What one platformatic consumer knows about its own membership. Platformatic calls
 * `protocolsMetadata` and `partitionAssigner` without saying which consumer they serve, so each
 * consumer gets its own pair (`groupOptions()`), and `attach(consumer)` ties the pair to the
 * consumer: its group, generation and the partitions it was given, which its next JoinGroup
 * reports in the load-aware record (so any leader, also one that took over a second ago, knows
 * the current owners).
 */

/** The parts of a platformatic `Consumer` this package uses (a real one fits as it is). */
export interface AttachableConsumer {
  /** The consumer's group. */
  readonly groupId: string;
  /** The member id the coordinator gave it; null before the first join. */
  readonly memberId: string | null;
  /** The generation of its latest join. */
  readonly generationId: number;
  /** The partitions it holds, per topic; null before the first assignment. */
  readonly assignments: ReadonlyArray<{ readonly topic: string; readonly partitions: ReadonlyArray<number> }> | null;
  /** Called after each join with the generation and the partitions it was given. */
  on(
    event: 'consumer:group:join',
    listener: (payload: {
      generationId?: number | undefined;
      assignments?: ReadonlyArray<{ topic: string; partitions: number[] }> | undefined;
    }) => void,
  ): unknown;
  /** Called when the consumer leaves its group, or (`client:close`) once it is closed. */
  on(event: 'consumer:group:leave' | 'client:close', listener: () => void): unknown;
  /** Platformatic's own (re)join path: sends JoinGroup with the consumer's group options. */
  joinGroup(): Promise<unknown>;
  /** False once the consumer is closed. */
  isActive(): boolean;
}

/** One consumer's membership, once attached. */
export interface Membership {
  /** The attached consumer; undefined until `attach()`. */
  consumer(): AttachableConsumer | undefined;
  /** The partitions the consumer owns, with the generation in which that set last changed. */
  owned(): OwnedPartitions | undefined;
  /** The generation of the consumer's latest JoinGroup answer. */
  generation(): number | undefined;
  /**
   * Ties this membership to `consumer` and starts following its join and leave events. `options`
   * is the consumer's own options object (where platformatic reads `assignmentUserData` from).
   */
  attach(consumer: AttachableConsumer, options: { assignmentUserData?: unknown }): void;
  /**
   * Sets the assignment userData this consumer sends, as leader, to every member, unless the user
   * configured one: the rebalance's cause, the same for every member.
   */
  noteForMembers(note: Buffer): void;
}

/** A membership not attached to any consumer yet. */
export function createMembership(): Membership {
  let consumer: AttachableConsumer | undefined;
  let owned: OwnedPartitions | undefined;
  let options: { assignmentUserData?: unknown } | undefined;
  // The user's own assignmentUserData is theirs: only a note this membership wrote is replaced.
  let ours: Buffer | undefined;

  // Keeps the generation of the last *change*, so the record stays byte-identical across joins
  // that changed nothing: the broker rebalances a Stable group when a follower's metadata changes.
  const received = (
    generation: number,
    assignments: ReadonlyArray<{ topic: string; partitions: ReadonlyArray<number> }>,
  ) => {
    const partitions: TopicPartition[] = assignments.flatMap(({ topic, partitions: list }) =>
      list.map((partition) => ({ topic, partition })),
    );
    if (owned === undefined || !samePartitions(owned.partitions, partitions)) owned = { generation, partitions };
  };

  return {
    consumer: () => consumer,
    owned: () => owned,
    generation: () => (consumer === undefined || consumer.memberId === null ? undefined : consumer.generationId),
    noteForMembers(note) {
      if (options === undefined || (options.assignmentUserData !== undefined && options.assignmentUserData !== ours))
        return;
      options.assignmentUserData = ours = note;
    },
    attach(target, targetOptions) {
      consumer = target;
      options = targetOptions;
      if (target.memberId !== null && target.assignments !== null) received(target.generationId, target.assignments);
      target.on('consumer:group:join', ({ generationId, assignments }) => {
        if (generationId !== undefined && assignments !== undefined) received(generationId, assignments);
      });
      target.on('consumer:group:leave', () => {
        owned = undefined;
      });
    },
  };
}
