import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger, PartitionWeight } from '@load-aware/assignor';

/** One recorded log call. */
export interface RecordedLog {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

/** A logger that keeps every line, for asserting on what the source logged. */
export function recordingLogger(): Logger & { readonly records: RecordedLog[] } {
  const records: RecordedLog[] = [];
  const at =
    (level: RecordedLog['level']) =>
    (fields: Record<string, unknown>, message?: string): void => {
      records.push({ level, fields, message: message ?? '' });
    };
  return { records, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** Weights keyed "topic:partition". */
export function weightMap(weights: ReadonlyArray<PartitionWeight>): Record<string, number> {
  return Object.fromEntries(weights.map((w) => [`${w.topic}:${String(w.partition)}`, w.weight]));
}

/** Polls `probe` every `intervalMs` until it returns a value, or throws after `timeoutMs`. */
export async function pollFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${String(timeoutMs)} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** `|actual - expected| <= tolerance × expected` */
export function within(actual: number | undefined, expected: number, tolerance: number): boolean {
  return actual !== undefined && Math.abs(actual - expected) <= tolerance * expected;
}
