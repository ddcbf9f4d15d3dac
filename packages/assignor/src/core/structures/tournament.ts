/**
 * The match of the greedy placement's tournament trees (fast-greedy.ts, one per eligibility group): a tree's
 * root is the bin with the smallest (load, tie tally, index), and a bin's change is one walk up, so P
 * partitions on B bins take P·log(B) steps, not P·B. Smaller load, then tie tally, then index; -1 is no bin.
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
