/**
 * The two consumer configurations the rebalance benchmark compares: what a new user gets from
 * KafkaJS 2.2.4, and what the demo runs (phase.ts `instanceSpec`, instance-main.ts).
 */
import type { ConsumerTuning } from './protocol.js';

/** The tunings by name, in report order. */
export type TuningName = 'defaults' | 'tuned';

/** KafkaJS 2.2.4's own consumer defaults (src/consumer/index.js). */
export const KAFKAJS_DEFAULTS: Readonly<ConsumerTuning> = Object.freeze({
  heartbeatInterval: 3000,
  maxWaitTimeInMs: 5000,
  sessionTimeout: 30_000,
  rebalanceTimeout: 60_000,
  maxBytesPerPartition: undefined,
  maxBytes: undefined,
});

/**
 * The demo's settings: heartbeats every 500 ms so a rebalance is noticed quickly, a 250 ms
 * long-poll so an idle fetcher comes back soon, a 10 s session and rebalance timeout, and small
 * fetches so no member sits on a long batch.
 */
export const DEMO_TUNING: Readonly<ConsumerTuning> = Object.freeze({
  heartbeatInterval: 500,
  maxWaitTimeInMs: 250,
  sessionTimeout: 10_000,
  rebalanceTimeout: 10_000,
  maxBytesPerPartition: 16_384,
  maxBytes: 16_384 * 8,
});

/** The settings of a tuning name. */
export function tuningOf(name: TuningName): Readonly<ConsumerTuning> {
  return name === 'defaults' ? KAFKAJS_DEFAULTS : DEMO_TUNING;
}

/** One line naming a tuning's settings, for report headings. */
export function describeTuning(name: TuningName): string {
  const t = tuningOf(name);
  const s = (ms: number): string => `${String(ms / 1000)} s`;
  const bytes =
    t.maxBytesPerPartition === undefined
      ? 'default fetch sizes'
      : `maxBytesPerPartition ${String(t.maxBytesPerPartition / 1024)} KiB, maxBytes ${String((t.maxBytes ?? 0) / 1024)} KiB`;
  const label = name === 'defaults' ? 'KafkaJS defaults' : "the demo's tuning";
  return (
    `${label}: heartbeatInterval ${s(t.heartbeatInterval)}, maxWaitTimeInMs ${s(t.maxWaitTimeInMs)}, ` +
    `sessionTimeout ${s(t.sessionTimeout)}, rebalanceTimeout ${s(t.rebalanceTimeout)}, ${bytes}`
  );
}
