import { setTimeout as sleep } from 'node:timers/promises';
import type { Kafka } from 'kafkajs';
import { runInBackground, type BackgroundLoop } from './background-loop';

/** What a {@link produceSequences} run acknowledged. */
export interface SequenceReport {
  /** Acknowledged messages per "topic:partition": values 0..n-1 were acknowledged. */
  readonly sent: Record<string, number>;
  /** Sends that failed after KafkaJS's own retries (sent again on the next tick). */
  readonly failedSends: number;
}

/** A production loop in the background. */
export interface SequenceProducer extends BackgroundLoop<SequenceReport> {
  /**
   * Ends production early: nothing more becomes due after this call, what is already due is
   * still sent (caught up), and the report resolves as with `done`.
   */
  finish(): Promise<SequenceReport>;
}

/**
 * Produces `perSecond` messages to every partition of `topic` for `durationMs`, with `acks: -1`
 * (all in-sync replicas), each partition's values counting up from 0, so that every acknowledged
 * message can be accounted for by value. A failed send is retried with the same values on the
 * next tick: a send that failed but landed shows up as the same value at two offsets. After
 * `durationMs` (or `finish()`) it only catches up on what is due, for at most another minute.
 */
export function produceSequences(
  kafka: Kafka,
  topic: string,
  partitions: number,
  perSecond: number,
  durationMs: number,
  tickMs = 100,
): SequenceProducer {
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  const sent: Record<string, number> = {};
  for (let p = 0; p < partitions; p++) sent[`${topic}:${String(p)}`] = 0;
  let failedSends = 0;
  let startedAt = Date.now();
  let productionMs = durationMs;
  const loop = runInBackground(async (stopped) => {
    await producer.connect();
    startedAt = Date.now();
    try {
      while (!stopped()) {
        const elapsed = Math.min(Date.now() - startedAt, productionMs);
        const due = Math.floor((perSecond * elapsed) / 1000);
        let pending = 0;
        // One send per partition (one leader per request): KafkaJS 2.2.4's sendMessages skips, on
        // retry, every broker that already answered in the same send, even when a failed broker's
        // partitions moved to it, and then resolves without having written them (kafkajs#1303).
        const sends = Array.from({ length: partitions }, async (_, p) => {
          const key = `${topic}:${String(p)}`;
          const from = sent[key]!;
          if (from >= due) return;
          pending++;
          const messages = Array.from({ length: due - from }, (_, i) => ({ partition: p, value: String(from + i) }));
          try {
            await producer.send({ topic, acks: -1, messages });
            sent[key] = due;
          } catch {
            failedSends++;
          }
        });
        await Promise.all(sends);
        if (elapsed >= productionMs && pending === 0) break;
        // Bounded: a cluster that never comes back ends the loop a minute after its duration.
        if (Date.now() - startedAt > productionMs + 60_000) break;
        await sleep(tickMs);
      }
    } finally {
      await producer.disconnect().catch(() => undefined);
    }
    return { sent: { ...sent }, failedSends };
  });
  return {
    ...loop,
    finish: () => {
      productionMs = Math.min(productionMs, Date.now() - startedAt);
      return loop.done;
    },
  };
}

/**
 * Every `<partition>:<value>@<offset>` in `topic` up to its current end offsets, read by a fresh
 * consumer group from the beginning: what the log itself holds, to tell a message the cluster lost
 * from one the consumers skipped.
 */
export async function readWholeTopic(
  kafka: Kafka,
  topic: string,
  groupId: string,
  timeoutMs = 60_000,
): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  const ends = new Map<number, bigint>();
  try {
    for (const o of await admin.fetchTopicOffsets(topic)) ends.set(o.partition, BigInt(o.high));
  } finally {
    await admin.disconnect();
  }
  const values: string[] = [];
  const positions = new Map<number, bigint>([...ends.keys()].map((p) => [p, 0n]));
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 200 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: ({ partition, message }) => {
        values.push(`${String(partition)}:${message.value?.toString() ?? ''}@${message.offset}`);
        positions.set(partition, BigInt(message.offset) + 1n);
        return Promise.resolve();
      },
    });
    const deadline = Date.now() + timeoutMs;
    while ([...ends].some(([p, end]) => (positions.get(p) ?? 0n) < end)) {
      if (Date.now() > deadline) throw new Error(`${topic} not read to its end offsets in ${String(timeoutMs)} ms`);
      await sleep(200);
    }
  } finally {
    await consumer.disconnect();
  }
  return values;
}
