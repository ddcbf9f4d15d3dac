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
