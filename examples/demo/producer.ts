import { setTimeout as sleep } from 'node:timers/promises';
import type { Message, Producer } from 'kafkajs';

/** Largest number of messages in one produce request. */
const CHUNK = 4000;

function message(partition: number, sequence: number, timestamp?: number): Message {
  // About 80 bytes, like a small event; the sequence makes every value distinct.
  const value = `{"partition":${String(partition)},"seq":${String(sequence)},"pad":"${'x'.repeat(40)}"}`;
  return timestamp === undefined ? { partition, value } : { partition, value, timestamp: String(timestamp) };
}

async function sendAll(producer: Producer, topic: string, messages: Message[]): Promise<void> {
  for (let i = 0; i < messages.length; i += CHUNK) {
    await producer.send({ topic, acks: 1, messages: messages.slice(i, i + CHUNK) });
  }
}

/** Writes `seconds` worth of traffic at `rates` at once: the backlog consumers find when they start. */
export async function produceBacklog(
  producer: Producer,
  topic: string,
  rates: readonly number[],
  seconds: number,
): Promise<number> {
  const messages = rates.flatMap((rate, partition) =>
    Array.from({ length: Math.round(rate * seconds) }, (_, i) => message(partition, i)),
  );
  await sendAll(producer, topic, messages);
  return messages.length;
}

/** Options of {@link runSteadyProducer}. */
export interface SteadyProducerOptions {
  topic: string;
  /** Events/s per partition before the hotspot moves, and after. */
  before: readonly number[];
  after: readonly number[];
  /** Wall-clock times (ms) of the move and of the end. */
  moveAt: number;
  endAt: number;
  /** How often a produce request goes out. */
  tickMs: number;
  signal: AbortSignal;
  /**
   * When set, every message of a tick carries the tick's time as its record timestamp (instead
   * of KafkaJS's send time), and is counted here once sent: what a latency measure needs to know
   * was produced in each second.
   */
  onSent?: (messages: number, timestampMs: number) => void;
}

/**
 * Produces at the given per-partition rates until `endAt` (or abort), switching to the `after`
 * rates at `moveAt`. Each partition tracks the events it owes (rate × time, fractions carried
 * over), so rates are exact on average and a slow request is caught up on the next tick.
 * Resolves with the number of messages sent.
 */
export async function runSteadyProducer(producer: Producer, options: SteadyProducerOptions): Promise<number> {
  const { topic, before, after, moveAt, endAt, tickMs, signal, onSent } = options;
  const owed = before.map(() => 0);
  const sequence = before.map(() => 1_000_000);
  let sent = 0;
  let last = Date.now();
  while (!signal.aborted) {
    const now = Math.min(Date.now(), endAt);
    const rates = now < moveAt ? before : after;
    const messages: Message[] = [];
    rates.forEach((rate, partition) => {
      owed[partition]! += (rate * (now - last)) / 1000;
      const count = Math.floor(owed[partition]!);
      owed[partition]! -= count;
      const stamp = onSent === undefined ? undefined : now;
      for (let i = 0; i < count; i++) messages.push(message(partition, sequence[partition]!++, stamp));
    });
    last = now;
    await sendAll(producer, topic, messages);
    sent += messages.length;
    onSent?.(messages.length, now);
    if (now >= endAt) break;
    await sleep(Math.max(0, Math.min(tickMs, endAt - Date.now())));
  }
  return sent;
}
