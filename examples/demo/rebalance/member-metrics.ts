/**
 * Reads the rebalance pause histogram (`load_aware_rebalance_pause_seconds`, issue 25 item 1)
 * from the registry the member gave its assigner. A checkout without that metric (or a
 * round-robin member, whose registry nobody registers on) answers `available: false`, and the
 * report leaves the column out.
 */
import type { Registry } from 'prom-client';
import type { PauseSeries } from './protocol.js';

/** The histogram's name, as item 1 of issue 25 specifies it. */
export const PAUSE_METRIC = 'load_aware_rebalance_pause_seconds';

/** The histogram's count and sum per label set (the `le` buckets are not needed for the report). */
export async function readPauseMetric(registry: Registry): Promise<{ available: boolean; series: PauseSeries[] }> {
  const metric = registry.getSingleMetric(PAUSE_METRIC);
  if (metric === undefined) return { available: false, series: [] };
  const { values } = await metric.get();
  const byLabels = new Map<string, PauseSeries>();
  for (const v of values) {
    const name = (v as { metricName?: string }).metricName ?? '';
    const isCount = name.endsWith('_count');
    if (!isCount && !name.endsWith('_sum')) continue;
    const labels: Record<string, string> = {};
    for (const [k, value] of Object.entries(v.labels)) if (k !== 'le') labels[k] = String(value);
    const key = JSON.stringify(Object.entries(labels).sort());
    const series = byLabels.get(key) ?? { labels, count: 0, sumSeconds: 0 };
    if (isCount) series.count += v.value;
    else series.sumSeconds += v.value;
    byLabels.set(key, series);
  }
  return { available: true, series: [...byLabels.values()] };
}

/** One member's reading of the histogram, as {@link readPauseMetric} gives it. */
export interface PauseReading {
  available: boolean;
  series: PauseSeries[];
}

/** The pause observations of a window: how many, their total, and how many per `cause` label. */
export interface PauseObservations {
  count: number;
  sumSeconds: number;
  byCause: Record<string, number>;
}

/**
 * The observations made between each member's reading before and after a window, summed over
 * the members; undefined unless every member has the histogram by the end. A reading before
 * without it counts as none yet (a histogram registered at its first observation).
 */
export function pauseObservationsBetween(
  readings: ReadonlyArray<readonly [PauseReading | undefined, PauseReading | undefined]>,
): PauseObservations | undefined {
  const key = (labels: Record<string, string>): string => JSON.stringify(Object.entries(labels).sort());
  let count = 0;
  let sumSeconds = 0;
  const byCause: Record<string, number> = {};
  for (const [before, after] of readings) {
    if (after?.available !== true) return undefined;
    const old = new Map((before?.series ?? []).map((s) => [key(s.labels), s]));
    for (const s of after.series) {
      const prior = old.get(key(s.labels));
      const added = s.count - (prior?.count ?? 0);
      if (added <= 0) continue;
      count += added;
      sumSeconds += s.sumSeconds - (prior?.sumSeconds ?? 0);
      const cause = s.labels['cause'] ?? '-';
      byCause[cause] = (byCause[cause] ?? 0) + added;
    }
  }
  return { count, sumSeconds, byCause };
}
