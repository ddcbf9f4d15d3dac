import { errorMessageOf, withTimeout, type Logger, type TopicPartition } from '@load-aware/assignor/internal';
import { combine, type Failed, type Found } from './kafkajs-cluster-reader.js';
import { groupByTopic, type EndOffsetResult, type OwnedEndOffsetsReader } from './end-offsets-reader.js';
import { OffsetRateErrorCodes, PartitionReadError } from '../base/errors.js';
import { InflightWork } from '../base/inflight-work.js';
import type { TimeIndexAnswer, TimeIndexReader, TimeIndexTargets } from '../base/time-index.js';

/**
 * The parts of a @platformatic/kafka `Admin` this reader uses (a real one fits as it is). Typed
 * here rather than imported, so this package's types do not need platformatic installed.
 */
export interface PlatformaticAdmin {
  /** ListOffsets for the given partitions and target timestamps (-1n: the end offset). */
  listOffsets(options: {
    topics: Array<{ name: string; partitions: Array<{ partitionIndex: number; timestamp: bigint }> }>;
  }): Promise<
    Array<{ name: string; partitions: Array<{ partitionIndex: number; offset: bigint; timestamp: bigint }> }>
  >;
  /** The names of the cluster's topics. */
  listTopics(): Promise<string[]>;
  /** Closes the admin's connections. */
  close(): Promise<void>;
}

/** ListOffsets' "latest" target: the end offset (high watermark, platformatic's isolation default). */
const LATEST = -1n;

/**
 * True for a platformatic `Admin`: `listOffsets` taking timestamps, `listTopics`, `close`, and none
 * of KafkaJS's admin methods (a KafkaJS admin has `fetchTopicOffsets` and `disconnect`).
 */
export function isPlatformaticAdmin(value: unknown): value is PlatformaticAdmin {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v['listOffsets'] === 'function' &&
    typeof v['listTopics'] === 'function' &&
    typeof v['close'] === 'function' &&
    typeof v['fetchTopicOffsets'] !== 'function'
  );
}

/**
 * Reads end offsets and the time index through a @platformatic/kafka `Admin`: platformatic's
 * `listOffsets` sends one ListOffsets per leader broker for all topics and answers the found
 * record's timestamp, so this reader also gives instant rates (a fresh leader weighs at once).
 * Platformatic fails the whole call when one broker or topic fails, so a failed read fails every
 * partition of it; the next read then lists the cluster's topics first and leaves out deleted ones,
 * so one deleted topic cannot fail every sample after it. The admin is the caller's: never closed
 * here (requests in flight are awaited by `close()`).
 */
export function createPlatformaticAdminReader(
  admin: PlatformaticAdmin,
  logger: Logger,
): OwnedEndOffsetsReader & TimeIndexReader {
  let verifyTopics = false;
  const inflight = new InflightWork();

  /** The partitions of topics that still exist; the others as failed, when a read failed before. */
  async function existing(partitions: ReadonlyArray<TopicPartition>, timeoutMs: number) {
    if (!verifyTopics) return { present: partitions, gone: [] as Failed[] };
    const topics = new Set(
      await withTimeout(inflight.track(admin.listTopics()), timeoutMs, () => new Error('topics not listed in time')),
    );
    verifyTopics = false;
    const gone = partitions
      .filter((p) => !topics.has(p.topic))
      .map((p) => failed(p, OffsetRateErrorCodes.unknownPartition, 'topic not found in the cluster'));
    return { present: partitions.filter((p) => topics.has(p.topic)), gone };
  }

  /** One `listOffsets` at `timestamp` for every partition: found, or failed with the reason. */
  async function at(
    partitions: ReadonlyArray<TopicPartition>,
    timestamp: bigint,
    timeoutMs: number,
  ): Promise<Array<Found | Failed>> {
    if (partitions.length === 0) return [];
    const topics = [...groupByTopic(partitions)].map(([name, ids]) => ({
      name,
      partitions: ids.map((partitionIndex) => ({ partitionIndex, timestamp })),
    }));
    try {
      const answer = await withTimeout(
        inflight.track(admin.listOffsets({ topics })),
        timeoutMs,
        () => new Error(`no ListOffsets answer within ${String(timeoutMs)} ms`),
      );
      const byKey = new Map(
        answer.flatMap((t) => t.partitions.map((p) => [`${t.name}\u0000${String(p.partitionIndex)}`, p] as const)),
      );
      return partitions.map((p): Found | Failed => {
        const entry = byKey.get(`${p.topic}\u0000${String(p.partition)}`);
        return entry === undefined
          ? failed(p, OffsetRateErrorCodes.noAnswer, 'missing from the ListOffsets answer')
          : {
              topic: p.topic,
              partition: p.partition,
              offset: String(entry.offset),
              timestamp: String(entry.timestamp),
            };
      });
    } catch (err) {
      verifyTopics = true;
      const reason = `listOffsets failed: ${errorMessageOf(err)}`;
      return partitions.map((p) => failed(p, OffsetRateErrorCodes.listOffsetsFailed, reason, err));
    }
  }

  return {
    kind: 'platformatic-admin',
    async read(partitions, timeoutMs): Promise<EndOffsetResult[]> {
      const deadline = Date.now() + timeoutMs;
      const { present, gone } = await existing(partitions, timeoutMs);
      const results = await at(present, LATEST, Math.max(1, deadline - Date.now()));
      logger.debug({ partitions: partitions.length }, 'end offsets read through the platformatic admin client');
      return [...gone, ...results].map((r) =>
        'error' in r ? r : { topic: r.topic, partition: r.partition, offset: r.offset },
      );
    },
    async lookup(partitions, targets: TimeIndexTargets, timeoutMs): Promise<TimeIndexAnswer[]> {
      const deadline = Date.now() + timeoutMs;
      const { present, gone } = await existing(partitions, timeoutMs);
      const left = Math.max(1, deadline - Date.now());
      const [windowStart, latest, future] = await Promise.all(
        [BigInt(targets.windowStartMs), LATEST, BigInt(targets.futureMs)].map((ts) => at(present, ts, left)),
      );
      return [...gone, ...combine(windowStart!, latest!, future!)];
    },
    close: () => inflight.settled(),
  };
}

function failed(
  p: TopicPartition,
  code: ConstructorParameters<typeof PartitionReadError>[0],
  reason: string,
  cause?: unknown,
): Failed {
  return {
    topic: p.topic,
    partition: p.partition,
    error: new PartitionReadError(code, p.topic, p.partition, reason, cause === undefined ? undefined : { cause }),
  };
}
