import type { QualityCase } from './suite.js';

/** Cases up to this many weighted partitions get a proven optimum to compare against. */
export const EXACT_LIMIT = 14;

/**
 * The optimal max instance load (per unit of capacity) of a small case, by exhaustive branch and
 * bound over instances (on top of `baseLoad` per instance id, when given): written independently of the core's own exact search so that "best
 * known" is not the core grading itself. Returns undefined for cases that are too big.
 */
export function optimum(c: QualityCase, baseLoad?: ReadonlyMap<string, number>): number | undefined {
  const weighted = c.partitions.filter((p) => p.weight > 0).sort((a, b) => b.weight - a.weight);
  if (weighted.length > EXACT_LIMIT) return undefined;
  const instances = [...new Set(c.members.map((m) => m.instanceId))].sort();
  const capacity = instances.map((id) => c.members.find((m) => m.instanceId === id)?.capacity ?? 1);
  const eligible = weighted.map((p) =>
    instances.flatMap((id, i) => (c.members.some((m) => m.instanceId === id && m.topics.includes(p.topic)) ? [i] : [])),
  );
  // Base loads (cross-group): each instance starts with the load it already carries.
  const load = instances.map((id) => baseLoad?.get(id) ?? 0);
  let best = Infinity;
  const visit = (k: number, level: number): void => {
    if (level >= best) return;
    if (k === weighted.length) {
      best = level;
      return;
    }
    const w = weighted[k]!.weight;
    for (const i of eligible[k]!) {
      load[i]! += w;
      visit(k + 1, Math.max(level, load[i]! / capacity[i]!));
      load[i]! -= w;
    }
  };
  visit(
    0,
    load.reduce((max, l, i) => Math.max(max, l / capacity[i]!), 0),
  );
  return best;
}
