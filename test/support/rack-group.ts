import type { Consumer, Kafka, PartitionAssigner } from 'kafkajs';
import { meterFetchBytes, type FetchBytesMeter } from './fetch-bytes';

/** One consumer of a {@link RackGroup}: the only member of the instance in its rack. */
export interface RackMember {
  /** The consumer's `rackId` (and the load-aware `rack` of its assigner). */
  readonly rack: string;
  readonly consumer: Consumer;
  /** What it fetched, per broker address. */
  readonly fetched: FetchBytesMeter;
  /** Partitions of the group's topic it was handed in its latest join. */
  assigned(): readonly number[];
}

/** A consumer group with one member per rack, as started by {@link startRackGroup}. */
export interface RackGroup {
  readonly groupId: string;
  readonly members: readonly RackMember[];
  /** Disconnects every member and stops the meters. */
  stop(): Promise<void>;
}

/** Options of {@link startRackGroup}. */
export interface RackGroupOptions {
  readonly groupId: string;
  readonly topic: string;
  /** The racks, one member each. */
  readonly racks: readonly string[];
  /** The assigners the member in `rack` offers, in order of preference. */
  readonly assigners: (rack: string) => PartitionAssigner[];
}

/**
 * Starts one consumer per rack in `groupId`, each with KafkaJS's `rackId` set to its rack so the
 * brokers point it at the replica in that rack (follower fetching), reading `topic` from its
 * latest offsets and counting fetched bytes from the first request on. Resolves once every
 * consumer runs; the group settles in the background (wait with waitForStableGroup).
 */
export async function startRackGroup(kafka: Kafka, options: RackGroupOptions): Promise<RackGroup> {
  const members: RackMember[] = [];
  const stop = async (): Promise<void> => {
    await Promise.allSettled(members.map((m) => m.consumer.disconnect()));
    for (const m of members) m.fetched.stop();
  };
  try {
    for (const rack of options.racks) {
      const consumer = kafka.consumer({
        groupId: options.groupId,
        rackId: rack,
        partitionAssigners: options.assigners(rack),
        sessionTimeout: 10_000,
        heartbeatInterval: 500,
        maxWaitTimeInMs: 500,
      });
      let assigned: number[] = [];
      consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
        assigned = [...(payload.memberAssignment[options.topic] ?? [])].sort((a, b) => a - b);
      });
      members.push({ rack, consumer, fetched: meterFetchBytes(consumer), assigned: () => assigned });
      await consumer.connect();
      await consumer.subscribe({ topic: options.topic, fromBeginning: false });
      await consumer.run({ eachMessage: () => Promise.resolve() });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { groupId: options.groupId, members, stop };
}
