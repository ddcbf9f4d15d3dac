/** The pure balancing core: plain data in, plain data out; no I/O, clock or randomness. */
export { balance, referenceBalance } from './balance.js';
export { roundRobin } from './round-robin.js';
export { explain, type AssignmentExplanation, type UnevennessFactor } from './explain.js';
export { isUsableWeight } from './weights.js';
export { DEFAULT_PARTITION_WEIGHT } from './model.js';
export { DEFAULT_MOVE_TOLERANCE, DEFAULT_SEARCH_BUDGET } from './tuning.js';
export type * from './types.js';
