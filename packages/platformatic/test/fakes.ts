import { EventEmitter } from 'node:events';
import { encodeUserData, type OwnedPartitions, type WeightSource } from '@load-aware/assignor/portable';
import type { LoadAwareGroupOptions, MemberSubscription, TopicsMetadata } from '@load-aware/platformatic/internal';

/** A weight source answering from a "topic:partition" → weight table (unknown ones omitted). */
export function staticWeights(weights: Record<string, number>): WeightSource {
  return {
    getWeights: (partitions) =>
      Promise.resolve(
        partitions.flatMap((p) => {
          const weight = weights[`${p.topic}:${String(p.partition)}`];
          return weight === undefined ? [] : [{ topic: p.topic, partition: p.partition, weight }];
        }),
      ),
  };
}

/** A subscription as platformatic hands it to the leader, carrying a load-aware record. */
export function subscription(
  memberId: string,
  instanceId: string,
  options: {
    topics?: string[];
    version?: number;
    owned?: OwnedPartitions;
    /** Native cooperative fields (what platformatic sends under cooperative-sticky). */
    native?: { generationId: number; ownedPartitions: Array<{ topic: string; partitions: number[] }> };
    capacity?: number;
  } = {},
): MemberSubscription {
  return {
    memberId,
    version: options.version ?? 0,
    topics: options.topics ?? ['orders'],
    metadata: encodeUserData({ instanceId, capacity: options.capacity ?? 1, epoch: 0, owned: options.owned }),
    ownedPartitions: options.native?.ownedPartitions ?? [],
    generationId: options.native?.generationId ?? -1,
  };
}

/** Cluster metadata with the given partition counts per topic. */
export function topicsMetadata(counts: Record<string, number>): TopicsMetadata {
  return { topics: new Map(Object.entries(counts).map(([topic, partitionsCount]) => [topic, { partitionsCount }])) };
}

/** "topic:partition" labels of one member's assignment in platformatic's shape, sorted. */
export function labelsOf(assignment: { assignments: Map<string, { topic: string; partitions: number[] }> }): string[] {
  return [...assignment.assignments.values()]
    .flatMap(({ topic, partitions }) => partitions.map((p) => `${topic}:${String(p)}`))
    .sort();
}

/** Node lines @platformatic/kafka 2.12.1 supports (its `engines`: >= 22.22 or >= 24.6). */
export function platformaticRuns(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return (major === 22 && minor >= 22) || (major === 24 && minor >= 6) || major > 24;
}

/** Stands in for platformatic's client, which keeps its options under a symbol of its own. */
export const kOptions = Symbol('fake.options');

export class FakeConsumer extends EventEmitter {
  memberId: string | null = null;
  generationId = 0;
  assignments: Array<{ topic: string; partitions: number[] }> | null = null;
  joins = 0;
  /** Whether the next `joined()` reports this member as the leader. */
  leader = false;
  [kOptions]: Partial<LoadAwareGroupOptions> & { assignmentUserData?: Buffer };
  constructor(
    readonly groupId: string,
    options: Partial<LoadAwareGroupOptions>,
  ) {
    super();
    this[kOptions] = { ...options };
  }
  joinGroup(): Promise<string> {
    this.joins++;
    return Promise.resolve(this.memberId ?? '');
  }
  closed = false;
  isActive(): boolean {
    return !this.closed && this.memberId !== null;
  }
  /** What platformatic's close() does once its connections are gone. */
  close(): void {
    this.closed = true;
    this.emit('client:close');
  }
  /** What platformatic emits after a successful heartbeat. */
  heartbeat(): void {
    this.emit('consumer:heartbeat:end', {
      groupId: this.groupId,
      memberId: this.memberId,
      generationId: this.generationId,
    });
  }
  /** What platformatic does after a SyncGroup. */
  joined(memberId: string, generationId: number, partitions: number[]): void {
    this.memberId = memberId;
    this.generationId = generationId;
    this.assignments = [{ topic: 'orders', partitions }];
    this.emit('consumer:group:join', {
      groupId: this.groupId,
      memberId,
      generationId,
      isLeader: this.leader,
      assignments: this.assignments,
    });
  }
}
