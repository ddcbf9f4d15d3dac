import { errorMessageOf, withTimeout, type Logger, type TopicPartition } from '@load-aware/assignor/internal';
import type { Admin } from 'kafkajs';
import { groupByTopic, type EndOffsetResult, type OwnedEndOffsetsReader } from './end-offsets-reader.js';
import { OffsetRateErrorCodes, PartitionReadError } from '../base/errors.js';
import { kafkaErrorType } from './kafkajs-internals.js';
import { InflightWork } from '../base/inflight-work.js';

/** Topics asked for at once: each costs KafkaJS two ListOffsets per leader broker. */
const TOPIC_CONCURRENCY = 4;

/**
 * Reads end offsets through a KafkaJS `Admin`, one `fetchTopicOffsets(topic)` per topic. The
 * fallback when a private cluster cannot be built, and the path for an admin the caller passed
 * in, whose cluster KafkaJS keeps out of reach. Costlier than the cluster reader (two requests
 * per leader broker per topic), and the offset is the admin's default, the LSO (read_committed):
 * equal to the high watermark unless the topic has open transactions.
 *
 * After a failed topic the next read first lists the cluster's topics, so that a deleted topic
 * fails at once instead of sending KafkaJS into its retry loop (which would blow the sample's
 * whole time budget and fail every topic).
 *
 * `owned`: the reader created the admin, so it disconnects it on close (KafkaJS connects it on
 * first use); an admin passed in by the caller is never disconnected.
 */
export function createAdminReader(admin: Admin, owned: boolean, logger: Logger): OwnedEndOffsetsReader {
  let verifyTopics = false;
  // Abandoned work keeps running: close() waits for it before the last disconnect.
  const inflight = new InflightWork();

  async function readTopic(topic: string, partitions: number[], deadline: number): Promise<EndOffsetResult[]> {
    try {
      const offsets = await withTimeout(
        inflight.track(admin.fetchTopicOffsets(topic)),
        Math.max(1, deadline - Date.now()),
        () => new Error(`no answer for topic ${topic} in time`),
      );
      const byId = new Map(offsets.map((o) => [o.partition, o.high]));
      return partitions.map((partition): EndOffsetResult => {
        const offset = byId.get(partition);
        return offset === undefined
          ? {
              topic,
              partition,
              error: new PartitionReadError(
                OffsetRateErrorCodes.unknownPartition,
                topic,
                partition,
                'partition not in the topic',
              ),
            }
          : { topic, partition, offset };
      });
    } catch (err) {
      verifyTopics = true;
      const code =
        kafkaErrorType(err) === 'UNKNOWN_TOPIC_OR_PARTITION'
          ? OffsetRateErrorCodes.unknownPartition
          : OffsetRateErrorCodes.listOffsetsFailed;
      const reason = `fetchTopicOffsets failed: ${errorMessageOf(err)}`;
      return partitions.map((partition) => ({
        topic,
        partition,
        error: new PartitionReadError(code, topic, partition, reason, { cause: err }),
      }));
    }
  }

  async function read(partitions: ReadonlyArray<TopicPartition>, timeoutMs: number): Promise<EndOffsetResult[]> {
    const deadline = Date.now() + timeoutMs;
    const byTopic = groupByTopic(partitions);
    const results: EndOffsetResult[] = [];
    let existing: Set<string> | undefined;
    if (verifyTopics) {
      existing = new Set(
        await withTimeout(inflight.track(admin.listTopics()), timeoutMs, () => new Error('topics not listed in time')),
      );
      verifyTopics = false;
    }
    const queue = [...byTopic].filter(([topic, ids]) => {
      if (existing === undefined || existing.has(topic)) return true;
      for (const id of ids) {
        const error = new PartitionReadError(
          OffsetRateErrorCodes.unknownPartition,
          topic,
          id,
          'topic not found in the cluster',
        );
        results.push({ topic, partition: id, error });
      }
      verifyTopics = true;
      return false;
    });
    const worker = async (): Promise<void> => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        results.push(...(await readTopic(next[0], next[1], deadline)));
      }
    };
    await Promise.all(Array.from({ length: Math.min(TOPIC_CONCURRENCY, queue.length) }, worker));
    logger.debug(
      { partitions: partitions.length, topics: byTopic.size, requests: byTopic.size },
      'end offsets read through the admin client',
    );
    return results;
  }

  return {
    kind: owned ? 'admin' : 'caller-admin',
    read,
    async close() {
      if (!owned) {
        await inflight.settled();
        return;
      }
      await admin.disconnect();
      await inflight.settled();
      await admin.disconnect();
    },
  };
}
