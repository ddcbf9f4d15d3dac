import type { Consumer, EachMessageHandler, Kafka, PartitionAssigner } from 'kafkajs';
import { waitUntil } from './wait';

/** How long a subscribe may keep meeting a topic that is not yet known to every broker. */
const SUBSCRIBE_PROPAGATION_MS = 30_000;

/** Options of {@link startGroupConsumer}. */
export interface GroupConsumerOptions {
  readonly groupId: string;
  readonly topic: string;
  /** The assigners the consumer offers, in order of preference. */
  readonly partitionAssigners: PartitionAssigner[];
  /** Subscribe from the earliest offset. Default true. */
  readonly fromBeginning?: boolean;
  /** Default: every message is ignored. */
  readonly eachMessage?: EachMessageHandler;
  /**
   * Commit what was processed at least this often (ms), instead of once per fetched batch: a slow
   * handler's committed offsets then follow its progress.
   */
  readonly autoCommitInterval?: number;
  /**
   * Called with the consumer before it connects: record it for clean-up (so a `finally` can
   * disconnect it even when joining fails), attach event listeners or a trigger controller.
   */
  readonly created: (consumer: Consumer) => void;
}

/**
 * Starts one consumer of `groupId` with the tests' quick group timings (10 s session, 500 ms
 * heartbeat, 200 ms max wait), subscribed to `topic` and running; resolves once `run()` returned
 * (the join itself happens in the background: wait for the group with waitForStableGroup).
 */
export async function startGroupConsumer(kafka: Kafka, options: GroupConsumerOptions): Promise<Consumer> {
  const consumer = kafka.consumer({
    groupId: options.groupId,
    partitionAssigners: options.partitionAssigners,
    sessionTimeout: 10_000,
    heartbeatInterval: 500,
    maxWaitTimeInMs: 200,
  });
  options.created(consumer);
  await consumer.connect();
  await subscribeOnceKnown(consumer, options.topic, options.fromBeginning ?? true);
  await consumer.run({
    eachMessage: options.eachMessage ?? (() => Promise.resolve()),
    ...(options.autoCommitInterval === undefined ? {} : { autoCommitInterval: options.autoCommitInterval }),
  });
  return consumer;
}

/**
 * `subscribe()`, repeated while the broker it asks still answers UNKNOWN_TOPIC_OR_PARTITION. On a
 * multi-node cluster a topic whose leaders one broker already reports can be unknown to another
 * for a moment, and KafkaJS's subscribe gives up on the first such answer.
 */
async function subscribeOnceKnown(consumer: Consumer, topic: string, fromBeginning: boolean): Promise<void> {
  await waitUntil(
    async () => {
      try {
        await consumer.subscribe({ topic, fromBeginning });
        return true;
      } catch (error) {
        if (isUnknownTopic(error)) return undefined;
        throw error;
      }
    },
    `topic ${topic} to be known to the broker the consumer asks`,
    SUBSCRIBE_PROPAGATION_MS,
    250,
  );
}

/** The protocol error itself, or KafkaJS's retry wrapper around it (`originalError`). */
function isUnknownTopic(error: unknown): boolean {
  const { type, originalError } = (error ?? {}) as { type?: unknown; originalError?: { type?: unknown } };
  return type === 'UNKNOWN_TOPIC_OR_PARTITION' || originalError?.type === 'UNKNOWN_TOPIC_OR_PARTITION';
}
