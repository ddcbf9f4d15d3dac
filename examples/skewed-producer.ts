/**
 * A load generator for trying the assigner: produces to every partition of a topic at a total
 * rate, skewed Zipf-like (partition rank r gets a share ∝ 1/r^ZIPF_EXPONENT), and rotates the
 * ranking every HOTSPOT_MOVE_SECONDS so the hotspot moves and the trigger has work to do.
 * Runs for DURATION_SECONDS (default: until Ctrl-C).
 *
 *   BROKERS=localhost:9092 TOPIC=orders RATE=2000 node examples/.build/skewed-producer.js
 */
import { Kafka, logLevel } from 'kafkajs';
import { brokersFromEnv } from './run-until';

const TICK_MS = 100;

/** Messages per partition for one tick, ranks rotated by `shift`. */
export function zipfCounts(partitions: number, perTick: number, exponent: number, shift: number): number[] {
  const raw = Array.from({ length: partitions }, (_, p) => 1 / (((p + shift) % partitions) + 1) ** exponent);
  const sum = raw.reduce((a, b) => a + b, 0);
  return raw.map((w) => Math.round((perTick * w) / sum));
}

async function main(): Promise<void> {
  const topic = process.env['TOPIC'] ?? 'orders';
  const rate = Number(process.env['RATE'] ?? 2000);
  const exponent = Number(process.env['ZIPF_EXPONENT'] ?? 1.1);
  const moveEveryMs = Number(process.env['HOTSPOT_MOVE_SECONDS'] ?? 300) * 1000;
  const durationMs = Number(process.env['DURATION_SECONDS'] ?? 0) * 1000;
  const kafka = new Kafka({ clientId: 'skewed-producer', brokers: brokersFromEnv(), logLevel: logLevel.WARN });
  const admin = kafka.admin();
  await admin.connect();
  const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
  await admin.disconnect();
  const partitions = metadata.topics[0]?.partitions.length ?? 0;
  if (partitions === 0) throw new Error(`topic ${topic} has no partitions`);

  const producer = kafka.producer();
  await producer.connect();
  const signal = { stopping: false };
  process.once('SIGINT', () => (signal.stopping = true));
  process.once('SIGTERM', () => (signal.stopping = true));
  const started = Date.now();
  const payload = Buffer.alloc(200, 'x');
  while (!signal.stopping && (durationMs === 0 || Date.now() - started < durationMs)) {
    const tickStarted = Date.now();
    const shift = Math.floor((tickStarted - started) / moveEveryMs);
    const counts = zipfCounts(partitions, (rate * TICK_MS) / 1000, exponent, shift);
    const messages = counts.flatMap((n, partition) => Array.from({ length: n }, () => ({ partition, value: payload })));
    await producer.send({ topic, messages });
    await new Promise((r) => setTimeout(r, Math.max(0, TICK_MS - (Date.now() - tickStarted))));
  }
  await producer.disconnect();
}

if (require.main === module) void main();
