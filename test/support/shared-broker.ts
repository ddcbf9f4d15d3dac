import type { Admin, Kafka } from 'kafkajs';
import { uniqueName } from './index';

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
}

/**
 * Registers the hooks of a test file that works on the shared broker through one admin: it
 * connects in `beforeAll`; in `afterAll` it deletes every topic `createTopic` made (when
 * `deleteTopicsAfterAll`) and disconnects.
 */
export function useSharedBrokerAdmin(
  kafka: Kafka,
  topicPrefix: string,
  options: { readonly deleteTopicsAfterAll: boolean },
): SharedBrokerAdmin {
  const admin = kafka.admin();
  const topics: string[] = [];
  beforeAll(async () => {
    await admin.connect();
  });
  afterAll(async () => {
    if (options.deleteTopicsAfterAll) {
      await admin.deleteTopics({ topics: topics.splice(0), timeout: 10_000 }).catch(() => undefined);
    }
    await admin.disconnect();
  });
  return {
    admin,
    async createTopic(partitions, { name = uniqueName(topicPrefix), config = {} } = {}) {
      await admin.createTopics({
        topics: [
          {
            topic: name,
            numPartitions: partitions,
            replicationFactor: 1,
            configEntries: Object.entries(config).map(([configName, value]) => ({ name: configName, value })),
          },
        ],
        waitForLeaders: true,
      });
      if (!topics.includes(name)) topics.push(name);
      return name;
    },
  };
}
