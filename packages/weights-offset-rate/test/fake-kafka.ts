import type { Admin, Kafka } from 'kafkajs';

/** A KafkaJS protocol error as KafkaJS raises it (only `type` matters to the readers). */
export function protocolError(type: string): Error {
  return Object.assign(new Error(`protocol error ${type}`), { name: 'KafkaJSProtocolError', type });
}

interface FakePartition {
  partitionId: number;
  leader: number | null;
  /** The end offset. */
  offset: bigint;
  /** Records with known timestamps, in offset order: what the time index answers from. */
  records: Array<{ offset: bigint; timestamp: number }>;
}

/** One ListOffsets request a fake broker received. */
export interface RecordedRequest {
  nodeId: number;
  isolationLevel: number;
  topics: Array<{ topic: string; partitions: Array<{ partition: number; timestamp: number }> }>;
}

/**
 * A stand-in for KafkaJS 2.2.4's internal Cluster, with KafkaJS's sharp edges: a metadata refresh
 * naming a topic that does not exist fails as a whole, and a ListOffsets response with one bad
 * partition fails as a whole. ListOffsets by timestamp answers like a broker's time index: the
 * first record (in offset order) stamped at or after the target, with its timestamp, or offset
 * -1 and timestamp -1 when there is none; records added by `produce()` carry no timestamp.
 */
export class FakeCluster {
  targetTopics = new Set<string>();
  /** What exists in the cluster. */
  readonly topics = new Map<string, FakePartition[]>();
  /** What the client last loaded (may be stale). */
  private loaded = new Map<string, FakePartition[]>();
  readonly requests: RecordedRequest[] = [];
  readonly downBrokers = new Set<number>();
  /** Topics the brokers answer UNKNOWN_TOPIC_OR_PARTITION for even if present in metadata. */
  readonly unknownToBrokers = new Set<string>();
  /** Per topic, the protocol error a lookup by timestamp fails with (latest offsets still work). */
  readonly timestampErrors = new Map<string, string>();
  /** false: answers carry no timestamp at all, like ListOffsets v0 (no time index). */
  timeIndex = true;
  /** While set, ListOffsets requests wait until {@link FakeCluster.release} (metadata still answers). */
  hold = false;
  private held: Array<() => void> = [];
  refreshes = 0;
  connects = 0;
  disconnects = 0;

  addTopic(topic: string, leaders: Array<number | null>, offsets: bigint[] = []): void {
    this.topics.set(
      topic,
      leaders.map((leader, partitionId) => ({ partitionId, leader, offset: offsets[partitionId] ?? 0n, records: [] })),
    );
  }

  /** Appends one record per timestamp (in this order) at the end of the partition. */
  append(topic: string, partition: number, timestamps: ReadonlyArray<number>): void {
    const p = this.partitionOf(topic, partition);
    for (const timestamp of timestamps) {
      p.records.push({ offset: p.offset, timestamp });
      p.offset++;
    }
  }

  /** Appends records at `perSecond`, evenly spaced over [fromMs, toMs). */
  produceSteadily(topic: string, partition: number, perSecond: number, fromMs: number, toMs: number): void {
    const count = Math.floor((perSecond * (toMs - fromMs)) / 1000);
    this.append(
      topic,
      partition,
      Array.from({ length: count }, (_, i) => fromMs + Math.floor((i * 1000) / perSecond)),
    );
  }

  /** Removes the records `keep` rejects, as the log cleaner does: offsets never change. */
  compact(topic: string, partition: number, keep: (offset: bigint) => boolean): void {
    const p = this.partitionOf(topic, partition);
    p.records = p.records.filter((r) => keep(r.offset));
  }

  /** Lets held ListOffsets requests go on. */
  release(): void {
    const held = this.held;
    this.held = [];
    for (const go of held) go();
  }

  private partitionOf(topic: string, partition: number): FakePartition {
    const p = this.topics.get(topic)?.[partition];
    if (p === undefined) throw new Error(`no ${topic}:${String(partition)}`);
    return p;
  }

  produce(topic: string, partition: number, count: bigint): void {
    this.partitionOf(topic, partition).offset += count;
  }

  connect(): Promise<void> {
    this.connects++;
    return Promise.resolve();
  }

  disconnect(): Promise<void> {
    this.disconnects++;
    return Promise.resolve();
  }

  refreshMetadata(): Promise<void> {
    this.refreshes++;
    for (const topic of this.targetTopics) {
      if (!this.topics.has(topic)) return Promise.reject(protocolError('UNKNOWN_TOPIC_OR_PARTITION'));
    }
    this.loaded = new Map([...this.targetTopics].map((t) => [t, this.topics.get(t)!.map((p) => ({ ...p }))]));
    return Promise.resolve();
  }

  refreshMetadataIfNecessary(): Promise<void> {
    return [...this.targetTopics].every((t) => this.loaded.has(t)) ? Promise.resolve() : this.refreshMetadata();
  }

  metadata(): Promise<{ topicMetadata: Array<{ topic: string }> }> {
    return Promise.resolve({ topicMetadata: [...this.topics.keys()].map((topic) => ({ topic })) });
  }

  findTopicPartitionMetadata(topic: string): FakePartition[] {
    return this.loaded.get(topic) ?? [];
  }

  findBroker({
    nodeId,
  }: {
    nodeId: string;
  }): Promise<{ listOffsets: (r: Omit<RecordedRequest, 'nodeId'>) => Promise<unknown> }> {
    const id = Number(nodeId);
    if (this.downBrokers.has(id)) {
      return Promise.reject(
        Object.assign(new Error('Connection error: ECONNREFUSED'), { name: 'KafkaJSConnectionError' }),
      );
    }
    return Promise.resolve({
      listOffsets: async (request) => {
        this.requests.push({ nodeId: id, ...request });
        if (this.hold) await new Promise<void>((resolve) => this.held.push(resolve));
        const responses = request.topics.map(({ topic, partitions }) => {
          const existing = this.unknownToBrokers.has(topic) ? undefined : this.topics.get(topic);
          return {
            topic,
            partitions: partitions.map(({ partition, timestamp }) => {
              const p = existing?.[partition];
              if (p === undefined) throw protocolError('UNKNOWN_TOPIC_OR_PARTITION');
              if (p.leader !== id) throw protocolError('NOT_LEADER_FOR_PARTITION');
              const error = this.timestampErrors.get(topic);
              if (timestamp >= 0 && error !== undefined) throw protocolError(error);
              const found = lookUp(p, timestamp);
              return this.timeIndex ? found : { partition, offset: found.offset };
            }),
          };
        });
        return { responses };
      },
    });
  }
}

/** A partition's ListOffsets answer for `timestamp` (-1 latest, -2 earliest, else by timestamp). */
function lookUp(p: FakePartition, timestamp: number): { partition: number; offset: string; timestamp: string } {
  const none = { partition: p.partitionId, offset: '-1', timestamp: '-1' };
  if (timestamp === -1) return { ...none, offset: p.offset.toString() };
  if (timestamp === -2) return { ...none, offset: (p.records[0]?.offset ?? p.offset).toString() };
  const found = p.records.find((r) => r.timestamp >= timestamp);
  return found === undefined
    ? none
    : { partition: p.partitionId, offset: found.offset.toString(), timestamp: String(found.timestamp) };
}

/** A `Kafka` whose private cluster factory (found by its symbol's description) returns `cluster`. */
export function fakeKafka(cluster: FakeCluster | undefined, admin?: Admin): Kafka & { factoryCalls: unknown[] } {
  const factoryCalls: unknown[] = [];
  const kafka: Record<string | symbol, unknown> = {
    factoryCalls,
    admin: () => admin ?? fakeAdmin(new FakeCluster()),
    consumer: () => {
      throw new Error('not in this fake');
    },
    producer: () => {
      throw new Error('not in this fake');
    },
  };
  if (cluster !== undefined) {
    kafka[Symbol('private:Kafka:createCluster')] = (options: unknown) => {
      factoryCalls.push(options);
      return cluster;
    };
  }
  return kafka as unknown as Kafka & { factoryCalls: unknown[] };
}

/** An admin over a fake cluster's topics, with KafkaJS's `fetchTopicOffsets` result shape. */
export function fakeAdmin(cluster: FakeCluster): Admin & { calls: string[]; disconnects: number; listed: number } {
  const admin = {
    calls: [] as string[],
    disconnects: 0,
    listed: 0,
    fetchTopicOffsets: (topic: string) => {
      admin.calls.push(topic);
      const partitions = cluster.topics.get(topic);
      if (partitions === undefined) return Promise.reject(protocolError('UNKNOWN_TOPIC_OR_PARTITION'));
      return Promise.resolve(
        partitions.map((p) => ({
          partition: p.partitionId,
          offset: p.offset.toString(),
          high: p.offset.toString(),
          low: '0',
        })),
      );
    },
    listTopics: () => {
      admin.listed++;
      return Promise.resolve([...cluster.topics.keys()]);
    },
    connect: () => Promise.resolve(),
    disconnect: () => {
      admin.disconnects++;
      return Promise.resolve();
    },
  };
  return admin as unknown as Admin & { calls: string[]; disconnects: number; listed: number };
}
