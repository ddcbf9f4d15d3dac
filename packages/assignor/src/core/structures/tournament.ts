/**
 * The match of the greedy placement's tournament trees (fast-greedy.ts keeps the trees, one per
 * eligibility group, in flat arrays): the root of a tree is the bin with the smallest (load,
 * secondary tally, index), and one bin's change costs one walk up it, so placing 100k partitions
 * on 100 instances is 100k·log(100) steps instead of 100k·100.
 *
 * Smaller load, then smaller tie tally, then smaller index; -1 is no bin.
 */
export function lighter(a: number, b: number, load: Float64Array, tie: Float64Array): number {
  if (a < 0) return b;
  if (b < 0) return a;
  const la = load[a]!;
  const lb = load[b]!;
  if (la !== lb) return la < lb ? a : b;
  const ta = tie[a]!;
  const tb = tie[b]!;
  if (ta !== tb) return ta < tb ? a : b;
  return a < b ? a : b;
}
