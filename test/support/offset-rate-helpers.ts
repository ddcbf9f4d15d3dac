import type { Registry } from 'prom-client';
import type { Logger, PartitionWeight } from '@load-aware/assignor';
import { waitUntil } from './wait';

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

/** {@link waitUntil} with the description first and a 250 ms default interval. */
export function pollFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 250,
): Promise<T> {
  return waitUntil(probe, what, timeoutMs, intervalMs);
}

/** The value of the first series of metric `name` on `registry` whose labels include `labels` (0 when none). */
export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const { values } = await registry.getSingleMetric(name)!.get();
  return values.find((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))?.value ?? 0;
}

/** `|actual - expected| <= tolerance × expected` */
export function within(actual: number | undefined, expected: number, tolerance: number): boolean {
  return actual !== undefined && Math.abs(actual - expected) <= tolerance * expected;
}
