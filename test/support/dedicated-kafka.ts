import { startKafka, type KafkaCluster, type StartKafkaOptions } from './kafka-broker';

/**
 * A Kafka cluster of this test file's own, for tests that stop, kill or restart brokers (doing
 * that to the shared broker would break every other test file): started in `beforeAll`, stopped
 * in `afterAll` after `beforeStop` (e.g. clients that must go before their brokers), both bounded
 * by `timeoutMs`. Returns a getter for use inside tests.
 */
export function useDedicatedKafka(
  options: StartKafkaOptions,
  timeoutMs: number,
  beforeStop?: () => Promise<void>,
): () => KafkaCluster {
  let cluster: KafkaCluster | undefined;
  beforeAll(async () => {
    cluster = await startKafka(options);
  }, timeoutMs);
  afterAll(async () => {
    await beforeStop?.();
    await cluster?.stop();
  }, timeoutMs);
  return () => {
    if (cluster === undefined) throw new Error('the dedicated Kafka cluster has not started');
    return cluster;
  };
}
