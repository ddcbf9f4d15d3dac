import {
  errorMessageOf,
  PartitionMap,
  withTimeout,
  type Logger,
  type TopicPartition,
} from '@load-aware/assignor/internal';
import { groupByTopic, type EndOffsetResult, type OwnedEndOffsetsReader } from './end-offsets-reader.js';
import { OffsetRateErrorCodes, PartitionReadError, SampleTimeoutError } from '../base/errors.js';
import {
  isTopicScopedError,
  kafkaErrorType,
  LATEST_OFFSET,
  READ_UNCOMMITTED,
  type InternalCluster,
  type InternalPartitionMetadata,
  type ListOffsetsResponse,
} from './kafkajs-internals.js';
import type { OffsetAtTime, TimeIndexAnswer, TimeIndexReader, TimeIndexTargets } from '../base/time-index.js';
import { InflightWork } from '../base/inflight-work.js';
import { nextTask } from '../base/clock.js';

/**
 * Partitions per time-index request. A lookup of more than this sends its requests in batches,
 * each encoded, and its answers joined, in a task of its own, so the caller's deadline timer can
 * fire between them however many partitions there are.
 */
const LOOKUP_BATCH_PARTITIONS = 1000;

/** Batches of one broker in flight at a time (three requests each); see {@link LOOKUP_BATCH_PARTITIONS}. */
const LOOKUP_BATCHES_IN_FLIGHT = 2;

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
 * - Metadata syncs run one at a time: KafkaJS shares one refresh between concurrent callers
 *   even when they set different target topics, so a sample and a time-index lookup running
 *   together could otherwise each act on metadata loaded for the other's topics.
 *
 * It also reads the time index ({@link TimeIndexReader}): per leader broker, three ListOffsets
 * requests sent together, one per target (window start, latest, future), each covering every
 * partition of that broker, up to {@link LOOKUP_BATCH_PARTITIONS} of them (more go in batches).
 * One request cannot carry them all: a partition may appear only once per ListOffsets request
 * (the broker answers INVALID_REQUEST otherwise).
 */
export function createClusterReader(cluster: InternalCluster, logger: Logger): OwnedEndOffsetsReader & TimeIndexReader {
  let forceRefresh = false;
  let metadataQueue: Promise<unknown> = Promise.resolve();
  // Abandoned work keeps running: close() waits for it before the last disconnect.
  const inflight = new InflightWork();

  /** Runs {@link syncMetadataNow} after every sync queued before it has settled. */
  function syncMetadata(topics: string[]): Promise<Set<string>> {
    const next = metadataQueue.then(
      () => syncMetadataNow(topics),
      () => syncMetadataNow(topics),
    );
    metadataQueue = next.catch(() => undefined);
    return next;
  }

  async function syncMetadataNow(topics: string[]): Promise<Set<string>> {
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

  /**
   * Syncs metadata for `topics` and groups their partitions by leader broker. Partitions that
   * cannot be asked for (unknown topic or partition, no leader) come back as failed results.
   */
  async function plan(
    partitions: ReadonlyArray<TopicPartition>,
    topics: string[],
    timeoutMs: number,
  ): Promise<{ byLeader: Map<number, Map<string, number[]>>; failed: Failed[]; topics: number }> {
    const byTopic = groupByTopic(partitions);
    const missing = await withTimeout(
      inflight.track(syncMetadata(topics)),
      timeoutMs,
      () => new SampleTimeoutError(timeoutMs),
    );
    // Grouping thousands of partitions by leader is a task of its own, not part of the one that
    // decoded their metadata (see LOOKUP_BATCH_PARTITIONS).
    if (partitions.length > LOOKUP_BATCH_PARTITIONS) await nextTask();
    const failed: Failed[] = [];
    const byLeader = new Map<number, Map<string, number[]>>();
    for (const [topic, ids] of byTopic) {
      const fail = (id: number, code: PartitionReadErrorCode, reason: string): void => {
        // Fresh or deleted topics fail every partition the same way: no stack each (see withoutStacks).
        failed.push({
          topic,
          partition: id,
          error: withoutStacks(() => new PartitionReadError(code, topic, id, reason)),
        });
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
        for (const id of ids) fail(id, OffsetRateErrorCodes.unknownPartition, `no metadata: ${errorMessageOf(err)}`);
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
    return { byLeader, failed, topics: byTopic.size };
  }

  async function listOffsets(
    nodeId: number,
    topics: ReadonlyMap<string, number[]>,
    timestamp: number,
  ): Promise<ListOffsetsResponse> {
    const broker = await cluster.findBroker({ nodeId: String(nodeId) });
    return broker.listOffsets({
      isolationLevel: READ_UNCOMMITTED,
      topics: [...topics].map(([topic, partitions]) => ({
        topic,
        partitions: partitions.map((partition) => ({ partition, timestamp })),
      })),
    });
  }

  /** One ListOffsets at `timestamp` to one broker, split topic by topic on a topic-scoped error. */
  async function readBroker(
    nodeId: number,
    topics: ReadonlyMap<string, number[]>,
    timestamp: number,
    deadline: number,
    counter: { requests: number },
  ): Promise<Array<Found | Failed>> {
    counter.requests++;
    try {
      const response = await withTimeout(
        inflight.track(listOffsets(nodeId, topics, timestamp)),
        Math.max(1, deadline - Date.now()),
        () => new Error(`no answer from broker ${String(nodeId)} in time`),
      );
      return resultsOf(topics, response);
    } catch (err) {
      forceRefresh = true;
      if (topics.size > 1 && isTopicScopedError(err)) {
        const single = [...topics].map(([topic, partitions]) =>
          readBroker(nodeId, new Map([[topic, partitions]]), timestamp, deadline, counter),
        );
        return (await Promise.all(single)).flat();
      }
      const code =
        kafkaErrorType(err) === 'UNKNOWN_TOPIC_OR_PARTITION'
          ? OffsetRateErrorCodes.unknownPartition
          : OffsetRateErrorCodes.listOffsetsFailed;
      const reason = `ListOffsets to broker ${String(nodeId)} failed: ${errorMessageOf(err)}`;
      // One failed request fails every partition it carried: thousands of errors whose stacks
      // would all be this one. Capturing them cost hundreds of milliseconds at 10,000 partitions,
      // on the event loop, inside the caller's time box; the cause keeps the stack that matters.
      return withoutStacks(() =>
        [...topics].flatMap(([topic, partitions]) =>
          partitions.map((partition) => ({
            topic,
            partition,
            error: new PartitionReadError(code, topic, partition, reason, { cause: err }),
          })),
        ),
      );
    }
  }

  async function read(partitions: ReadonlyArray<TopicPartition>, timeoutMs: number): Promise<EndOffsetResult[]> {
    const deadline = Date.now() + timeoutMs;
    const { byLeader, failed, topics } = await plan(partitions, [...groupByTopic(partitions).keys()], timeoutMs);
    const results: EndOffsetResult[] = [...failed];
    const counter = { requests: 0 };
    const perBroker = await Promise.all(
      [...byLeader].map(([nodeId, topicsOfLeader]) =>
        readBroker(nodeId, topicsOfLeader, LATEST_OFFSET, deadline, counter),
      ),
    );
    for (const list of perBroker) {
      for (const r of list)
        results.push('error' in r ? r : { topic: r.topic, partition: r.partition, offset: r.offset });
    }
    logger.debug(
      { partitions: partitions.length, topics, brokers: byLeader.size, requests: counter.requests },
      'end offsets read',
    );
    return results;
  }

  async function lookup(
    partitions: ReadonlyArray<TopicPartition>,
    targets: TimeIndexTargets,
    timeoutMs: number,
  ): Promise<TimeIndexAnswer[]> {
    const deadline = Date.now() + timeoutMs;
    // Keep the sampler's topics loaded: metadata is replaced wholesale on every refresh.
    const topics = new Set([...cluster.targetTopics, ...groupByTopic(partitions).keys()]);
    const { byLeader, failed, topics: topicCount } = await plan(partitions, [...topics], timeoutMs);
    const answers: TimeIndexAnswer[] = [...failed];
    const counter = { requests: 0 };
    // A lookup of more partitions than fit one batch is split so that no piece of synchronous
    // work grows with it: with every partition in one request, encoding 10,000 partitions three
    // times, and joining their answers, were single stretches long enough on a busy machine to
    // hold the caller's deadline timer well past its time.
    const split = partitions.length > LOOKUP_BATCH_PARTITIONS;
    /** One batch's three requests (window start, latest, future), joined once all are answered. */
    const readBatch = async (nodeId: number, batch: ReadonlyMap<string, number[]>): Promise<TimeIndexAnswer[]> => {
      const [windowStart, latest, future] = await Promise.all(
        [targets.windowStartMs, LATEST_OFFSET, targets.futureMs].map((timestamp) =>
          readBroker(nodeId, batch, timestamp, deadline, counter),
        ),
      );
      // Joined in a task of its own, not in the one that decoded the last answer.
      if (split) await nextTask();
      return combine(windowStart!, latest!, future!);
    };
    /**
     * A broker's batches, {@link LOOKUP_BATCHES_IN_FLIGHT} at a time: answers that pile up in
     * the socket while this process waits for a CPU are all decoded in one go when it runs again,
     * before any timer, so how many can pile up is bounded too. Each batch's requests are encoded
     * in a task of their own.
     */
    const readBatchesOf = async (nodeId: number, topicsOfLeader: ReadonlyMap<string, number[]>) => {
      const batches = batchesOf(topicsOfLeader, LOOKUP_BATCH_PARTITIONS);
      const read: TimeIndexAnswer[][] = [];
      let next = 0;
      // Each lane sends one batch at a time, and the next once it is answered.
      const lane = async (): Promise<void> => {
        for (let i = next++; i < batches.length; i = next++) {
          if (split) await nextTask();
          read[i] = await readBatch(nodeId, batches[i]!);
        }
      };
      await Promise.all(Array.from({ length: Math.min(LOOKUP_BATCHES_IN_FLIGHT, batches.length) }, lane));
      return read.flat();
    };
    const perBroker = await Promise.all(
      [...byLeader].map(([nodeId, topicsOfLeader]) => readBatchesOf(nodeId, topicsOfLeader)),
    );
    for (const list of perBroker) answers.push(...list);
    logger.debug(
      { partitions: partitions.length, topics: topicCount, brokers: byLeader.size, requests: counter.requests },
      'time index read',
    );
    return answers;
  }

  return {
    kind: 'cluster',
    read,
    lookup,
    async close() {
      await cluster.disconnect();
      await inflight.settled();
      await cluster.disconnect();
    },
  };
}

type PartitionReadErrorCode = ConstructorParameters<typeof PartitionReadError>[0];

/** A partition's offset from one ListOffsets answer, with the found record's timestamp if any. */
export interface Found extends TopicPartition {
  readonly offset: string;
  readonly timestamp: string | undefined;
}

/** A partition one ListOffsets answer has no offset for, and why. */
export interface Failed extends TopicPartition {
  readonly error: unknown;
}

function resultsOf(topics: ReadonlyMap<string, number[]>, response: ListOffsetsResponse): Array<Found | Failed> {
  type Entry = ListOffsetsResponse['responses'][number]['partitions'][number];
  const byTopic = new Map<string, Map<number, Entry>>();
  for (const { topic, partitions } of response.responses) {
    let byId = byTopic.get(topic);
    if (byId === undefined) byTopic.set(topic, (byId = new Map<number, Entry>()));
    for (const p of partitions) byId.set(p.partition, p);
  }
  return [...topics].flatMap(([topic, partitions]) =>
    partitions.map((partition): Found | Failed => {
      const entry = byTopic.get(topic)?.get(partition);
      return entry?.offset === undefined
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
        : { topic, partition, offset: entry.offset, timestamp: entry.timestamp };
    }),
  );
}

/**
 * Joins one broker's three answers per partition; any failed part fails the partition. Shared with
 * the platformatic admin reader, whose answers take the same shape.
 */
export function combine(
  windowStart: ReadonlyArray<Found | Failed>,
  latest: ReadonlyArray<Found | Failed>,
  future: ReadonlyArray<Found | Failed>,
): TimeIndexAnswer[] {
  // The three answers are read over the same partitions in the same order, so they normally pair
  // by position; maps pair them otherwise. Keyed maps of 10,000 partitions each were most of the
  // time this took, and it runs as one piece of synchronous work inside a caller's time box.
  if (aligned(windowStart, latest) && aligned(windowStart, future))
    return windowStart.map((start, i) => joined(start, latest[i], future[i]));
  const latestOf = new PartitionMap<Found | Failed>();
  for (const r of latest) latestOf.set(r.topic, r.partition, r);
  const futureOf = new PartitionMap<Found | Failed>();
  for (const r of future) futureOf.set(r.topic, r.partition, r);
  return windowStart.map((start) =>
    joined(start, latestOf.get(start.topic, start.partition), futureOf.get(start.topic, start.partition)),
  );
}

/** True when both lists name the same partitions in the same order. */
function aligned(a: ReadonlyArray<TopicPartition>, b: ReadonlyArray<TopicPartition>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.partition !== y.partition || x.topic !== y.topic) return false;
  }
  return true;
}

/** One partition's reading from its three parts, or why there is none. */
function joined(
  start: Found | Failed,
  latest: Found | Failed | undefined,
  future: Found | Failed | undefined,
): TimeIndexAnswer {
  const { topic, partition } = start;
  if ('error' in start) return { topic, partition, error: start.error };
  if (latest !== undefined && 'error' in latest) return { topic, partition, error: latest.error };
  if (future !== undefined && 'error' in future) return { topic, partition, error: future.error };
  if (latest === undefined || future === undefined) {
    const reason = 'missing from the ListOffsets answer';
    return { topic, partition, error: new PartitionReadError(OffsetRateErrorCodes.noAnswer, topic, partition, reason) };
  }
  const latestOffset = toBigInt(latest.offset);
  const startAt = atTime(start);
  const futureAt = atTime(future);
  if (latestOffset === undefined || latestOffset < 0n || startAt === undefined || futureAt === undefined) {
    const reason = 'the ListOffsets answer has an offset that is not an integer';
    return {
      topic,
      partition,
      error: new PartitionReadError(OffsetRateErrorCodes.invalidOffset, topic, partition, reason),
    };
  }
  return { topic, partition, reading: { latest: latestOffset, windowStart: startAt, future: futureAt } };
}

/** Splits one broker's partitions (by topic) into batches of at most `size`; one batch when they fit. */
function batchesOf(topics: ReadonlyMap<string, number[]>, size: number): Array<Map<string, number[]>> {
  const batches: Array<Map<string, number[]>> = [];
  let batch = new Map<string, number[]>();
  let count = 0;
  for (const [topic, partitions] of topics) {
    for (let from = 0; from < partitions.length;) {
      const taken = partitions.slice(from, from + size - count);
      batch.set(topic, taken);
      count += taken.length;
      from += taken.length;
      if (count === size) {
        batches.push(batch);
        batch = new Map<string, number[]>();
        count = 0;
      }
    }
  }
  if (count > 0 || batches.length === 0) batches.push(batch);
  return batches;
}

function atTime(found: Found): OffsetAtTime | undefined {
  const offset = toBigInt(found.offset);
  if (offset === undefined) return undefined;
  // Record timestamps are ms since the epoch: exact as numbers.
  const timestamp = found.timestamp === undefined ? undefined : Number(found.timestamp);
  if (timestamp !== undefined && !Number.isSafeInteger(timestamp)) return undefined;
  return { offset, timestamp };
}

function toBigInt(value: string): bigint | undefined {
  return /^-?\d{1,19}$/.test(value) ? BigInt(value) : undefined;
}

/** Runs `build` with V8's stack capture off, for errors made in bulk that would share one stack. */
function withoutStacks<T>(build: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return build();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
