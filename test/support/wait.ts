import { setTimeout as sleep } from 'node:timers/promises';

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
