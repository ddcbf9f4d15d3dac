import type { Consumer, EachMessageHandler, Kafka, PartitionAssigner } from 'kafkajs';

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
  await consumer.subscribe({ topic: options.topic, fromBeginning: options.fromBeginning ?? true });
  await consumer.run({ eachMessage: options.eachMessage ?? (() => Promise.resolve()) });
  return consumer;
}
