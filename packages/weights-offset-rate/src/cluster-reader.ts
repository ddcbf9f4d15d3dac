import { withTimeout, type Logger, type TopicPartition } from '@load-aware/assignor';
import { groupByTopic, type EndOffsetResult, type OwnedEndOffsetsReader } from './end-offsets-reader.js';
import { OffsetRateErrorCodes, PartitionReadError, SampleTimeoutError } from './errors.js';
import {
  isTopicScopedError,
  kafkaErrorType,
  LATEST_OFFSET,
  READ_UNCOMMITTED,
  type InternalCluster,
  type InternalPartitionMetadata,
  type ListOffsetsResponse,
} from './kafkajs-internals.js';

/**
 * Reads end offsets through a private KafkaJS `Cluster`: one metadata refresh when needed, then
 * one ListOffsets request per leader broker covering every topic, all brokers in parallel.
 *
 * - Isolation READ_UNCOMMITTED: the answer is the high watermark, which grows with every record
 *   produced. The LSO (read_committed, KafkaJS's default) stands still while a transaction is
 *   open and then jumps, so rates would spike and, behind a hanging transaction, read 0 while
 *   the partition is busy. Without transactions both are equal.
 * - A bad topic makes KafkaJS fail a broker's whole response (its parser throws on the first
 *   partition error), so on such an error that broker is asked again topic by topic: the other
 *   topics still get their sample. Requests are time-boxed per broker.
 * - A tracked topic that no longer exists makes KafkaJS fail the whole metadata refresh; the
 *   reader then lists the cluster's topics, drops the missing ones from its target topics and
 *   reports their partitions as unknown, so the others keep being sampled.
 * - Any error forces a metadata refresh before the next read (moved leaders, new partitions).
 */
export function createClusterReader(cluster: InternalCluster, logger: Logger): OwnedEndOffsetsReader {
  let forceRefresh = false;
  const inflight = new Set<Promise<unknown>>();

  // Work abandoned by a timeout keeps running; close() waits for it before the last disconnect,
  // because a KafkaJS retry could otherwise reconnect after we disconnected.
  const tracked = <T>(work: Promise<T>): Promise<T> => {
    inflight.add(work);
    work.then(
      () => inflight.delete(work),
      () => inflight.delete(work),
    );
    return work;
  };

  async function syncMetadata(topics: string[]): Promise<Set<string>> {
    await cluster.connect();
    cluster.targetTopics = new Set(topics);
    try {
      if (forceRefresh) await cluster.refreshMetadata();
      else await cluster.refreshMetadataIfNecessary();
      forceRefresh = false;
      return new Set();
    } catch (err) {
      forceRefresh = true;
      if (!isTopicScopedError(err)) throw err;
      const all = await cluster.metadata();
      if (all === null) throw err;
      const existing = new Set(all.topicMetadata.map((t) => t.topic));
      const missing = topics.filter((t) => !existing.has(t));
      if (missing.length === 0) throw err;
      cluster.targetTopics = new Set(topics.filter((t) => existing.has(t)));
      if (cluster.targetTopics.size > 0) await cluster.refreshMetadata();
      return new Set(missing);
    }
  }

  async function listOffsets(nodeId: number, topics: ReadonlyMap<string, number[]>): Promise<ListOffsetsResponse> {
    const broker = await cluster.findBroker({ nodeId: String(nodeId) });
    return broker.listOffsets({
      isolationLevel: READ_UNCOMMITTED,
      topics: [...topics].map(([topic, partitions]) => ({
        topic,
        partitions: partitions.map((partition) => ({ partition, timestamp: LATEST_OFFSET })),
      })),
    });
  }

  async function readBroker(
    nodeId: number,
    topics: ReadonlyMap<string, number[]>,
    deadline: number,
    counter: { requests: number },
  ): Promise<EndOffsetResult[]> {
    counter.requests++;
    try {
      const response = await withTimeout(
        tracked(listOffsets(nodeId, topics)),
        Math.max(1, deadline - Date.now()),
        () => new Error(`no answer from broker ${String(nodeId)} in time`),
      );
      return resultsOf(topics, response);
    } catch (err) {
      forceRefresh = true;
      if (topics.size > 1 && isTopicScopedError(err)) {
        const single = [...topics].map(([topic, partitions]) =>
          readBroker(nodeId, new Map([[topic, partitions]]), deadline, counter),
        );
        return (await Promise.all(single)).flat();
      }
      const code =
        kafkaErrorType(err) === 'UNKNOWN_TOPIC_OR_PARTITION'
          ? OffsetRateErrorCodes.unknownPartition
          : OffsetRateErrorCodes.listOffsetsFailed;
      const reason = `ListOffsets to broker ${String(nodeId)} failed: ${messageOf(err)}`;
      return [...topics].flatMap(([topic, partitions]) =>
        partitions.map((partition) => ({
          topic,
          partition,
          error: new PartitionReadError(code, topic, partition, reason, { cause: err }),
        })),
      );
    }
  }

  async function read(partitions: ReadonlyArray<TopicPartition>, timeoutMs: number): Promise<EndOffsetResult[]> {
    const deadline = Date.now() + timeoutMs;
    const byTopic = groupByTopic(partitions);
    const missing = await withTimeout(
      tracked(syncMetadata([...byTopic.keys()])),
      timeoutMs,
      () => new SampleTimeoutError(timeoutMs),
    );
    const results: EndOffsetResult[] = [];
    const byLeader = new Map<number, Map<string, number[]>>();
    for (const [topic, ids] of byTopic) {
      const fail = (id: number, code: PartitionReadErrorCode, reason: string): void => {
        results.push({ topic, partition: id, error: new PartitionReadError(code, topic, id, reason) });
      };
      if (missing.has(topic)) {
        for (const id of ids) fail(id, OffsetRateErrorCodes.unknownPartition, 'topic not found in the cluster');
        continue;
      }
      let metadata: Map<number, InternalPartitionMetadata>;
      try {
        metadata = new Map(cluster.findTopicPartitionMetadata(topic).map((m) => [m.partitionId, m]));
      } catch (err) {
        // No metadata loaded at all (KafkaJS throws): fail this topic, refresh next time.
        forceRefresh = true;
        for (const id of ids) fail(id, OffsetRateErrorCodes.unknownPartition, `no metadata: ${messageOf(err)}`);
        continue;
      }
      for (const id of ids) {
        const leader = metadata.get(id)?.leader;
        if (!metadata.has(id)) {
          forceRefresh = true;
          fail(id, OffsetRateErrorCodes.unknownPartition, 'partition not in the metadata');
        } else if (leader === null || leader === undefined || leader < 0) {
          forceRefresh = true;
          fail(id, OffsetRateErrorCodes.noLeader, 'partition has no leader');
        } else {
          let topicsOfLeader = byLeader.get(leader);
          if (topicsOfLeader === undefined) byLeader.set(leader, (topicsOfLeader = new Map<string, number[]>()));
          let list = topicsOfLeader.get(topic);
          if (list === undefined) topicsOfLeader.set(topic, (list = []));
          list.push(id);
        }
      }
    }
    const counter = { requests: 0 };
    const perBroker = await Promise.all(
      [...byLeader].map(([nodeId, topics]) => readBroker(nodeId, topics, deadline, counter)),
    );
    for (const list of perBroker) results.push(...list);
    logger.debug(
      { partitions: partitions.length, topics: byTopic.size, brokers: byLeader.size, requests: counter.requests },
      'offset-rate: end offsets read',
    );
    return results;
  }

  return {
    kind: 'cluster',
    read,
    async close() {
      await cluster.disconnect();
      await Promise.allSettled([...inflight]);
      await cluster.disconnect();
    },
  };
}

type PartitionReadErrorCode = ConstructorParameters<typeof PartitionReadError>[0];

function resultsOf(topics: ReadonlyMap<string, number[]>, response: ListOffsetsResponse): EndOffsetResult[] {
  const offsets = new Map<string, Map<number, string | undefined>>();
  for (const { topic, partitions } of response.responses) {
    let byId = offsets.get(topic);
    if (byId === undefined) offsets.set(topic, (byId = new Map<number, string | undefined>()));
    for (const p of partitions) byId.set(p.partition, p.offset);
  }
  return [...topics].flatMap(([topic, partitions]) =>
    partitions.map((partition): EndOffsetResult => {
      const offset = offsets.get(topic)?.get(partition);
      return offset === undefined
        ? {
            topic,
            partition,
            error: new PartitionReadError(
              OffsetRateErrorCodes.noAnswer,
              topic,
              partition,
              'missing from the ListOffsets answer',
            ),
          }
        : { topic, partition, offset };
    }),
  );
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
