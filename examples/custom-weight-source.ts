/**
 * A custom weight source: anything with `getWeights(partitions)`. Here the weight of a partition
 * is the average processing time of its messages as measured by this very consumer, a good fit
 * when messages cost very different amounts of work. Partitions it has not seen yet are left
 * out, so the assignor gives them its default weight (and says so in its log).
 *
 *   BROKERS=localhost:9092 TOPIC=orders node examples/.build/custom-weight-source.js
 */
import { Kafka, PartitionAssigners } from 'kafkajs';
import pino from 'pino';
import { LoadAwareAssigner, type PartitionWeight, type TopicPartition, type WeightSource } from '@load-aware/assignor';
import { brokersFromEnv, runUntilStopped } from './run-until';

/** Keeps a running sum of processing milliseconds per partition. */
class ProcessingCost implements WeightSource {
  private readonly millis = new Map<string, number>();

  record(topic: string, partition: number, ms: number): void {
    const key = `${topic}:${String(partition)}`;
    this.millis.set(key, (this.millis.get(key) ?? 0) + ms);
  }

  getWeights(partitions: ReadonlyArray<TopicPartition>): Promise<ReadonlyArray<PartitionWeight>> {
    const known = partitions.flatMap((p) => {
      const weight = this.millis.get(`${p.topic}:${String(p.partition)}`);
      return weight === undefined ? [] : [{ ...p, weight }];
    });
    return Promise.resolve(known);
  }
}

async function main(): Promise<void> {
  const logger = pino({ level: process.env['LOG_LEVEL'] ?? 'info' });
  const cost = new ProcessingCost();
  const kafka = new Kafka({ clientId: 'custom-weights-example', brokers: brokersFromEnv() });
  const consumer = kafka.consumer({
    groupId: process.env['GROUP_ID'] ?? 'custom-weights-example',
    partitionAssigners: [LoadAwareAssigner({ weights: cost, logger }), PartitionAssigners.roundRobin],
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [process.env['TOPIC'] ?? 'orders'], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ topic, partition, message }) => {
      const started = performance.now();
      await handle(message.value);
      cost.record(topic, partition, performance.now() - started);
    },
  });
  await runUntilStopped(() => consumer.disconnect());
}

/** Stands in for real work. */
async function handle(value: Buffer | null): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, (value?.length ?? 0) % 5));
}

void main();
