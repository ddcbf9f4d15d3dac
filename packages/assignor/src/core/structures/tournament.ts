/**
 * A tournament tree over a fixed set of bins: the root is the bin with the smallest (load,
 * secondary tally, index), and one bin's change costs one walk up the tree. The greedy placement
 * uses one per eligibility group so that placing 100k partitions on 100 instances is
 * 100k·log(100) steps instead of 100k·100.
 */
export interface Tournament {
  /** The winning bin: smallest load, then smallest secondary tally, then smallest index. */
  winner(): number;
  /** Re-plays the matches of `bin` after its tallies changed; bins outside the tree are ignored. */
  update(bin: number): void;
}

/** Builds a tournament over `bins` reading the live `load` and `tie` arrays. */
export function createTournament(bins: Int32Array, load: Float64Array, tie: Float64Array): Tournament {
  let size = 1;
  while (size < bins.length) size *= 2;
  // Leaves at [size, 2·size), each holding a bin or -1; internal node k holds the winner of 2k, 2k+1.
  const node = new Int32Array(2 * size).fill(-1);
  // Leaf of each bin (0 when outside the tree): an array, as update() runs once per placed item.
  let top = 0;
  for (const bin of bins) top = Math.max(top, bin + 1);
  const leafOf = new Int32Array(top);
  bins.forEach((bin, k) => {
    node[size + k] = bin;
    leafOf[bin] = size + k;
  });
  for (let k = size - 1; k >= 1; k--) node[k] = lighter(node[2 * k]!, node[2 * k + 1]!, load, tie);
  return {
    winner: () => node[1]!,
    update(bin) {
      const leaf = bin < top ? leafOf[bin]! : 0;
      if (leaf === 0) return;
      for (let k = leaf >> 1; k >= 1; k >>= 1) node[k] = lighter(node[2 * k]!, node[2 * k + 1]!, load, tie);
    },
  };
}

/**
 * The tournament's match, shared with the greedy's inline walk in placement.ts: smaller load,
 * then smaller tie tally, then smaller index; -1 is no bin.
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
