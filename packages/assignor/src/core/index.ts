/** The pure balancing core: plain data in, plain data out; no I/O, clock or randomness. */
export { balance, referenceBalance } from './balance.js';
export { roundRobin } from './place/round-robin.js';
export { isUsableWeight, PartitionWeightTable, weightTable } from './model/weights.js';
export { PartitionMap } from './structures/partition-map.js';
export { partitionKey, keyOfPartition, partitionLabel } from './structures/partition-key.js';
export { usableCapacity, instanceCapacities } from './model/capacity.js';
export { RELATIVE_EPS, median } from './structures/numbers.js';
export {
  DEFAULT_PARTITION_WEIGHT,
  DEFAULT_MOVE_TOLERANCE,
  DEFAULT_ORPHAN_AIM,
  DEFAULT_SEARCH_BUDGET,
} from './model/tuning.js';
export type * from './types.js';
