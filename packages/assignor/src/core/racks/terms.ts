import type { BalanceModel } from '../model/model.js';

/** Equal weights among the weighted partitions, equal capacities and no base loads: Kafka's terms. */
export function equalTerms(model: BalanceModel, split: number): boolean {
  const first = model.weight[0];
  for (let p = 1; p < split; p++) if (model.weight[p] !== first) return false;
  const capacity = model.instanceCapacity[0];
  for (const c of model.instanceCapacity) if (c !== capacity) return false;
  for (const base of model.instanceBaseLoad) if (base !== 0) return false;
  return true;
}
