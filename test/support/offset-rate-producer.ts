import { setTimeout as sleep } from 'node:timers/promises';
import { Partitioners, type Kafka } from 'kafkajs';
import { runInBackground, type BackgroundLoop } from './background-loop';

/** One partition to produce to, and how fast. */
export interface RateTarget {
  readonly topic: string;
  readonly partition: number;
  /** Messages per second. */
  readonly perSecond: number;
}

/** What a {@link produceAtRates} run did. */
export interface ProduceReport {
  /** Messages acknowledged per "topic:partition". */
  readonly sent: Record<string, number>;
  /** Sends that failed (the messages are sent again on the next tick). */
  readonly failedSends: number;
  /** How long the loop ran. */
  readonly elapsedMs: number;
}

/** A production loop in the background: `done` resolves when its duration ran out; `stop()` ends it early and disconnects the producer. */
export type RateProducer = BackgroundLoop<ProduceReport>;

/**
 * Produces to each target at its rate for at most `durationMs`. Every `tickMs` it sends what is
 * due by then (rate × elapsed − sent), so the rate holds over time even when a send is slow or
 * fails; each partition's total is capped at rate × duration. Send errors are counted, never
 * thrown, so a broker restart does not end the loop. Bounded in time and in count. Each value is
 * the message's sequence number, padded to `valueBytes` when given so that bytes follow counts.
 */
export function produceAtRates(
  kafka: Kafka,
  targets: ReadonlyArray<RateTarget>,
  durationMs: number,
  tickMs = 100,
  valueBytes = 0,
): RateProducer {
  const producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    allowAutoTopicCreation: false,
  });
  const key = (t: RateTarget): string => `${t.topic}:${String(t.partition)}`;
  const sent: Record<string, number> = Object.fromEntries(targets.map((t) => [key(t), 0]));
  let failedSends = 0;
  let startedAt = Date.now();

  return runInBackground(async (stopped) => {
    await producer.connect();
    startedAt = Date.now();
    try {
      const maxTicks = Math.ceil(durationMs / tickMs) + 1;
      for (let tick = 0; tick < maxTicks && !stopped(); tick++) {
        const elapsed = Date.now() - startedAt;
        if (elapsed >= durationMs) break;
        const batches = new Map<string, Array<{ partition: number; value: string }>>();
        const due = new Map<string, number>();
        for (const t of targets) {
          const target = Math.floor((t.perSecond * Math.min(elapsed, durationMs)) / 1000);
          const n = Math.max(0, target - sent[key(t)]!);
          if (n === 0) continue;
          due.set(key(t), n);
          const list = batches.get(t.topic) ?? [];
          for (let i = 0; i < n; i++)
            list.push({ partition: t.partition, value: String(sent[key(t)]! + i).padEnd(valueBytes, '.') });
          batches.set(t.topic, list);
        }
        if (batches.size > 0) {
          try {
            await producer.sendBatch({
              acks: 1,
              topicMessages: [...batches].map(([topic, messages]) => ({ topic, messages })),
            });
            for (const [k, n] of due) sent[k] = sent[k]! + n;
          } catch {
            failedSends++;
          }
        }
        await sleep(Math.max(0, startedAt + (tick + 1) * tickMs - Date.now()));
      }
    } finally {
      await producer.disconnect().catch(() => undefined);
    }
    return { sent: { ...sent }, failedSends, elapsedMs: Date.now() - startedAt };
  });
}
