/** The pure balancing core: plain data in, plain data out; no I/O, clock or randomness. */
export { balance, referenceBalance } from './balance.js';
export { roundRobin } from './round-robin.js';
export { explain, type AssignmentExplanation, type UnevennessFactor } from './explain.js';
export { isUsableWeight, PartitionWeightTable, weightTable } from './weights.js';
export { PartitionMap } from './partition-map.js';
export { partitionKey, keyOfPartition, partitionLabel } from './partition-key.js';
export { usableCapacity, instanceCapacities } from './capacity.js';
export { RELATIVE_EPS, median } from './numbers.js';
export { DEFAULT_PARTITION_WEIGHT, DEFAULT_MOVE_TOLERANCE, DEFAULT_SEARCH_BUDGET } from './tuning.js';
export type * from './types.js';
