/**
 * The few KafkaJS 2.2.4 internals this package relies on, typed and checked at runtime.
 *
 * Why internals at all: KafkaJS's public `admin.fetchTopicOffsets(topic)` sends two ListOffsets
 * requests (latest, then earliest) per leader broker *per topic*, and the admin keeps its
 * `Cluster` in a closure. The only way to send one ListOffsets per leader broker covering every
 * topic is a `Cluster` of our own, built by the same private factory `kafka.admin()` uses, so
 * the user's brokers, TLS, SASL, socket factory, retry and logger settings all apply. The
 * factory is found by its symbol's description; when it is missing (another KafkaJS version)
 * the source falls back to a per-topic admin reader, with a warning.
 */
import type { Kafka } from 'kafkajs';

/** `Cluster#findTopicPartitionMetadata` entries (as in KafkaJS's `PartitionMetadata`). */
export interface InternalPartitionMetadata {
  readonly partitionId: number;
  readonly leader: number | null | undefined;
}

/** A ListOffsets request as `Broker#listOffsets` takes it. */
export interface ListOffsetsRequest {
  readonly isolationLevel: number;
  readonly topics: ReadonlyArray<{
    readonly topic: string;
    readonly partitions: ReadonlyArray<{ readonly partition: number; readonly timestamp: number }>;
  }>;
}

/**
 * `Broker#listOffsets`'s answer, normalised by KafkaJS to one `offset` per partition. From
 * ListOffsets v1 on, KafkaJS also keeps each partition's `timestamp`: for a lookup by timestamp,
 * the timestamp of the record found (-1 with offset -1 when none was); v0 has no such field.
 */
export interface ListOffsetsResponse {
  readonly responses: ReadonlyArray<{
    readonly topic: string;
    readonly partitions: ReadonlyArray<{
      readonly partition: number;
      readonly offset?: string;
      readonly timestamp?: string;
    }>;
  }>;
}

/** The part of a KafkaJS `Broker` used here (`listOffsets` is not in KafkaJS's typings). */
export interface InternalBroker {
  listOffsets(request: ListOffsetsRequest): Promise<ListOffsetsResponse>;
}

/** The part of a KafkaJS `Cluster` used here. */
export interface InternalCluster {
  /** Topics the cluster keeps metadata for; replaced wholesale before each refresh. */
  targetTopics: Set<string>;
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  refreshMetadata(): Promise<void>;
  refreshMetadataIfNecessary(): Promise<void>;
  /** Metadata of every topic of the cluster (KafkaJS sends an empty topic list, meaning all). */
  metadata(): Promise<{ readonly topicMetadata: ReadonlyArray<{ readonly topic: string }> } | null>;
  findTopicPartitionMetadata(topic: string): ReadonlyArray<InternalPartitionMetadata>;
  findBroker(options: { nodeId: string }): Promise<InternalBroker>;
}

/** Options KafkaJS's private cluster factory understands. */
interface ClusterFactoryOptions {
  allowAutoTopicCreation: boolean;
  metadataMaxAge?: number;
  instrumentationEmitter: null;
}

type ClusterFactory = (options: ClusterFactoryOptions) => unknown;

/** Description of the symbol under which KafkaJS 2.2.4's `Kafka` keeps its cluster factory. */
const CREATE_CLUSTER = 'private:Kafka:createCluster';

/** `isolationLevel` READ_UNCOMMITTED in KafkaJS: ListOffsets answers the high watermark. */
export const READ_UNCOMMITTED = 0;

/** `timestamp` -1 in ListOffsets: the latest offset. */
export const LATEST_OFFSET = -1;

/**
 * Builds a private `Cluster` from the user's `Kafka` exactly as `kafka.admin()` does (no topic
 * auto-creation), or returns undefined when this KafkaJS has no such factory.
 */
export function createInternalCluster(kafka: Kafka, metadataMaxAgeMs: number): InternalCluster | undefined {
  const holder = kafka as unknown as Record<symbol, unknown>;
  const symbol = Object.getOwnPropertySymbols(kafka).find((s) => s.description === CREATE_CLUSTER);
  const factory = symbol === undefined ? undefined : holder[symbol];
  if (typeof factory !== 'function') return undefined;
  try {
    const cluster = (factory as ClusterFactory)({
      allowAutoTopicCreation: false,
      metadataMaxAge: metadataMaxAgeMs,
      instrumentationEmitter: null,
    });
    return isInternalCluster(cluster) ? cluster : undefined;
  } catch {
    // A factory with another signature: the caller falls back to the public admin API.
    return undefined;
  }
}

function isInternalCluster(value: unknown): value is InternalCluster {
  if (typeof value !== 'object' || value === null) return false;
  const c = value as Record<string, unknown>;
  return (
    c['targetTopics'] instanceof Set &&
    ['connect', 'disconnect', 'refreshMetadata', 'refreshMetadataIfNecessary', 'metadata'].every(
      (m) => typeof c[m] === 'function',
    ) &&
    typeof c['findTopicPartitionMetadata'] === 'function' &&
    typeof c['findBroker'] === 'function'
  );
}

/** The KafkaJS error `type` of `err` (e.g. `UNKNOWN_TOPIC_OR_PARTITION`), if it has one. */
export function kafkaErrorType(err: unknown): string | undefined {
  // KafkaJS wraps errors that exhausted their retries; the protocol error is in the cause chain.
  let current: unknown = err;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { type, cause } = current as { type?: unknown; cause?: unknown };
    if (typeof type === 'string') return type;
    current = cause;
  }
  return undefined;
}

/**
 * Protocol errors KafkaJS raises for a whole response when one topic or partition in it is bad:
 * a deleted topic, a moved leader. Worth isolating, unlike connection errors.
 */
export function isTopicScopedError(err: unknown): boolean {
  const type = kafkaErrorType(err);
  return (
    type === 'UNKNOWN_TOPIC_OR_PARTITION' ||
    type === 'NOT_LEADER_FOR_PARTITION' ||
    type === 'LEADER_NOT_AVAILABLE' ||
    type === 'REPLICA_NOT_AVAILABLE' ||
    type === 'TOPIC_AUTHORIZATION_FAILED' ||
    type === 'INVALID_TOPIC_EXCEPTION' ||
    type === 'FENCED_LEADER_EPOCH' ||
    type === 'UNKNOWN_LEADER_EPOCH' ||
    type === 'OFFSET_NOT_AVAILABLE' ||
    type === 'UNSUPPORTED_FOR_MESSAGE_FORMAT'
  );
}
