/**
 * The benchmark's steady traffic: the same rate on every partition, sent every `tickMs` (so a
 * member's normal gaps stay near one tick), tolerant of failed sends (a broker that stops is
 * part of a scenario; the lost tick is counted, not retried). `grow()` starts producing to
 * partitions added to the topic, through a fresh KafkaJS producer whose metadata knows them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Partitioners, type Kafka, type Message, type Producer } from 'kafkajs';

/** Options of {@link startSteadyProducer}. */
export interface SteadyProducerOptions {
  topic: string;
  partitions: number;
  eventsPerSecondPerPartition: number;
  tickMs: number;
}

/** A running producer loop. */
export interface SteadyProducer {
  /** Produces to `partitions` partitions from now on (only ever more). */
  grow(partitions: number): Promise<void>;
  /** When each successful send completed (ms), ascending: shows whether a stall was the producer's. */
  sendTimes(): readonly number[];
  /** Stops the loop and disconnects; resolves with what was sent and how many sends failed. */
  stop(): Promise<{ sent: number; failedSends: number }>;
}

function message(partition: number, sequence: number): Message {
  // About 80 bytes, like a small event.
  return { partition, value: `{"partition":${String(partition)},"seq":${String(sequence)},"pad":"${'x'.repeat(40)}"}` };
}

async function connected(kafka: Kafka): Promise<Producer> {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  return producer;
}

/** Connects a producer and starts the loop. */
export async function startSteadyProducer(kafka: Kafka, options: SteadyProducerOptions): Promise<SteadyProducer> {
  const { topic, eventsPerSecondPerPartition: rate, tickMs } = options;
  let producer = await connected(kafka);
  let partitions = options.partitions;
  const owed: number[] = [];
  const sequence: number[] = [];
  let sent = 0;
  let failedSends = 0;
  const sendTimes: number[] = [];
  // An object, not a local: the loop condition would narrow a local to true for the checker.
  const state = { running: true };
  let last = Date.now();
  const loop = (async () => {
    while (state.running) {
      const at = Date.now();
      const messages: Message[] = [];
      for (let p = 0; p < partitions; p++) {
        owed[p] = (owed[p] ?? 0) + (rate * (at - last)) / 1000;
        const count = Math.floor(owed[p]!);
        owed[p]! -= count;
        for (let i = 0; i < count; i++) {
          sequence[p] = (sequence[p] ?? 0) + 1;
          messages.push(message(p, sequence[p]!));
        }
      }
      last = at;
      try {
        if (messages.length > 0) await producer.send({ topic, acks: 1, messages });
        sent += messages.length;
        sendTimes.push(Date.now());
      } catch {
        failedSends++;
      }
      await sleep(Math.max(0, at + tickMs - Date.now()));
    }
  })();
  return {
    sendTimes: () => sendTimes,
    async grow(count) {
      if (count <= partitions) return;
      const fresh = await connected(kafka);
      // Its first send loads metadata and connects to the new partitions' leaders; done here,
      // while the old producer keeps the traffic going, a swap does not stall the traffic.
      await fresh.send({ topic, acks: 1, messages: [message(partitions, 0)] }).catch(() => undefined);
      const old = producer;
      producer = fresh;
      // New partitions owe nothing from before they existed.
      for (let p = partitions; p < count; p++) owed[p] = 0;
      partitions = count;
      await old.disconnect().catch(() => undefined);
    },
    async stop() {
      state.running = false;
      await loop;
      await producer.disconnect().catch(() => undefined);
      return { sent, failedSends };
    },
  };
}
