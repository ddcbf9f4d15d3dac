import { randomBytes } from 'node:crypto';

export { DEFAULT_KAFKA_VERSION, KAFKA_39_VERSION, startKafka } from './kafka-broker';
export type { KafkaCluster, KafkaNode, StartKafkaOptions } from './kafka-broker';
export { createTopicsWithLeaders } from './reliability-topics';
export { resolveKafkaJars, type KafkaJars } from './kafka-jars';
export { platformaticNode } from './platformatic-node';

/**
 * Bootstrap addresses of the broker the integration project's global setup started.
 *
 * @throws when `KAFKA_BROKERS` is unset, which means the test ran outside the integration project.
 */
export function kafkaBrokersFromEnv(): string[] {
  const value = process.env['KAFKA_BROKERS'];
  if (value === undefined || value.trim() === '') {
    throw new Error(
      'KAFKA_BROKERS is not set: run integration tests with `jest --selectProjects integration`, whose ' +
        'globalSetup (test/support/global-setup.ts) starts Kafka, or set it to host:port[,host:port]',
    );
  }
  return value.split(',').map((broker) => broker.trim());
}

/**
 * `prefix` plus a random suffix, for topic and group names: tests share one broker, so fixed
 * names would collide across test files, repeated runs and retries.
 */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}
