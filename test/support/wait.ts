import { setTimeout as sleep } from 'node:timers/promises';
import type { TopicPartition, WeightSource } from '@load-aware/assignor';

/**
 * Polls `probe` every `intervalMs` until it returns something other than undefined, and returns
 * that; throws naming `what` after `timeoutMs`. A probe that throws ends the wait at once. The
 * one polling loop of the tests: `pollFor` and `eventually` are this with their own argument order.
 */
export async function waitUntil<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs: number,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`Timed out after ${String(timeoutMs)} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** Polls `condition` every 100 ms until it holds; throws naming `what` after `timeoutMs` ({@link waitUntil}). */
export async function eventually(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  await waitUntil(() => Promise.resolve(condition() ? true : undefined), what, timeoutMs);
}

/**
 * Waits until `source` answers a weight for every partition of `topic` (0..partitions-1), polling
 * every `intervalMs`; throws naming `what` after `timeoutMs`. Returns those partitions.
 */
export async function waitForEveryWeight(
  source: WeightSource,
  topic: string,
  partitions: number,
  what: string,
  intervalMs: number,
  timeoutMs = 30_000,
): Promise<TopicPartition[]> {
  const all = Array.from({ length: partitions }, (_, partition) => ({ topic, partition }));
  await waitUntil(
    async () => ((await source.getWeights(all)).length === partitions ? true : undefined),
    what,
    timeoutMs,
    intervalMs,
  );
  return all;
}
