import { Kafka, logLevel, type Admin, type RetryOptions } from 'kafkajs';

/**
 * A quiet KafkaJS client on `brokers` with its admin connected: `retry` set for tests that lose
 * brokers on purpose (KafkaJS retries while leaders and the coordinator move).
 */
export async function connectAdminClient(
  clientId: string,
  brokers: string[],
  retry: RetryOptions,
): Promise<{ kafka: Kafka; admin: Admin }> {
  const kafka = new Kafka({ clientId, brokers, logLevel: logLevel.NOTHING, retry });
  const admin = kafka.admin();
  await admin.connect();
  return { kafka, admin };
}

/** Retries for clients of a cluster that loses a broker: enough to span a leader and coordinator move. */
export const FAILOVER_RETRY: RetryOptions = { retries: 10, initialRetryTime: 300, maxRetryTime: 2000 };
