import type { Admin, Kafka } from 'kafkajs';
import { uniqueName } from './index';
import { createTopicsWithLeaders } from './reliability-topics';

/** Options of {@link SharedBrokerAdmin.createTopic}. */
export interface TopicOptions {
  /** Default: a unique name from the file's topic prefix. An existing name is recreated under it. */
  readonly name?: string;
  /** Topic configs, e.g. `{ 'message.timestamp.type': 'LogAppendTime' }`. */
  readonly config?: Record<string, string>;
}

/** One admin on the broker for a whole test file, and the topics it created. */
export interface SharedBrokerAdmin {
  readonly admin: Admin;
  /** Creates a single-replica topic, waits for its leaders and returns its name. */
  readonly createTopic: (partitions: number, options?: TopicOptions) => Promise<string>;
  /**
   * Registers a closer (consumers, producers) that the file's `afterAll` awaits before it deletes
   * the topics. Jest runs `afterAll` hooks in the order they were declared, and this file's hook
   * is declared first: a consumer still running when its topic goes crashes, and KafkaJS's
   * restart then outlives the file (a `require` after teardown, or a jest that never exits).
   */
  readonly closeBeforeCleanup: (closer: () => Promise<unknown>) => void;
}

/**
 * Registers the hooks of a test file that works on the shared broker through one admin: it
 * connects in `beforeAll`; in `afterAll` it runs the file's closers, deletes every topic
 * `createTopic` made (when `deleteTopicsAfterAll`) and disconnects.
 */
export function useSharedBrokerAdmin(
  kafka: Kafka,
  topicPrefix: string,
  options: { readonly deleteTopicsAfterAll: boolean },
): SharedBrokerAdmin {
  const admin = kafka.admin();
  const topics: string[] = [];
  const closers: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    await admin.connect();
  });
  afterAll(async () => {
    await Promise.allSettled(closers.splice(0).map((close) => close()));
    if (options.deleteTopicsAfterAll) {
      await admin.deleteTopics({ topics: topics.splice(0), timeout: 10_000 }).catch(() => undefined);
    }
    await admin.disconnect();
  });
  return {
    admin,
    closeBeforeCleanup(closer) {
      closers.push(closer);
    },
    async createTopic(partitions, { name = uniqueName(topicPrefix), config = {} } = {}) {
      // Not KafkaJS's `waitForLeaders`: under parallel files it gave up on the
      // UNKNOWN_TOPIC_OR_PARTITION a busy broker still answers right after the create.
      const configEntries = Object.entries(config).map(([configName, value]) => ({ name: configName, value }));
      await createTopicsWithLeaders(admin, [
        { topic: name, numPartitions: partitions, replicationFactor: 1, configEntries },
      ]);
      if (!topics.includes(name)) topics.push(name);
      return name;
    },
  };
}
