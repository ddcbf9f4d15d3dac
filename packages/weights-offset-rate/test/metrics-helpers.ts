import type { Registry } from 'prom-client';

async function valuesOf(registry: Registry, name: string) {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`metric ${name} not registered`);
  return (await metric.get()).values;
}

/** The value of one series of counter or gauge `name` (0 when the series does not exist yet). */
export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const values = await valuesOf(registry, name);
  return values.find((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))?.value ?? 0;
}

/** How many observations histogram `name` holds. */
export async function histogramCount(registry: Registry, name: string): Promise<number> {
  const values = await valuesOf(registry, name);
  return values.find((v) => (v as { metricName?: string }).metricName === `${name}_count`)?.value ?? 0;
}
