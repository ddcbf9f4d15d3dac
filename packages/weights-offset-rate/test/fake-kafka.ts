import type { Admin, Kafka } from 'kafkajs';

/** A KafkaJS protocol error as KafkaJS raises it (only `type` matters to the readers). */
export function protocolError(type: string): Error {
  return Object.assign(new Error(`protocol error ${type}`), { name: 'KafkaJSProtocolError', type });
}

interface FakePartition {
  partitionId: number;
  leader: number | null;
  offset: bigint;
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
 * partition fails as a whole.
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
  refreshes = 0;
  connects = 0;
  disconnects = 0;

  addTopic(topic: string, leaders: Array<number | null>, offsets: bigint[] = []): void {
    this.topics.set(
      topic,
      leaders.map((leader, partitionId) => ({ partitionId, leader, offset: offsets[partitionId] ?? 0n })),
    );
  }

  produce(topic: string, partition: number, count: bigint): void {
    const p = this.topics.get(topic)?.[partition];
    if (p === undefined) throw new Error(`no ${topic}:${String(partition)}`);
    p.offset += count;
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
      listOffsets: (request) => {
        this.requests.push({ nodeId: id, ...request });
        const responses = request.topics.map(({ topic, partitions }) => {
          const existing = this.unknownToBrokers.has(topic) ? undefined : this.topics.get(topic);
          return {
            topic,
            partitions: partitions.map(({ partition }) => {
              const p = existing?.[partition];
              if (p === undefined) throw protocolError('UNKNOWN_TOPIC_OR_PARTITION');
              if (p.leader !== id) throw protocolError('NOT_LEADER_FOR_PARTITION');
              return { partition, offset: p.offset.toString() };
            }),
          };
        });
        return Promise.resolve({ responses });
      },
    });
  }
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
