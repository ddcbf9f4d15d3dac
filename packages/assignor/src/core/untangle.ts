import type { Problem } from './problem.js';
import type { MoveLedger } from './ledger.js';

/**
 * Sends home, in pairs, partitions of one topic that a placement moves both ways between the
 * same two bins: for a topic with partitions moved from `a` to `b` and others from `b` to `a`,
 * the heaviest of each direction go back together, then the next two, and so on. Each pair
 * saves two moves; with equal weights the levels do not change at all, otherwise by the
 * difference of the pair's weights, which pairing by weight rank keeps small.
 *
 * Returns the placement (a copy) and whether any level changed. A from-scratch placement renamed
 * onto the previous owners is where such pairs come from: it knows nothing of where partitions
 * were, only how many of a topic each bin should hold.
 */
export function untangle(
  problem: Problem,
  bin: Int32Array,
  ledger: MoveLedger,
): { bin: Int32Array; levelsChanged: boolean } {
  const { binCount, kind, weight } = problem;
  const away = new Map<number, number[]>();
  for (let item = 0; item < bin.length; item++) {
    const home = ledger.home[item]!;
    if (ledger.counted[item] === 0 || home < 0 || bin[item] === home) continue;
    const key = (kind[item]! * binCount + home) * binCount + bin[item]!;
    const list = away.get(key);
    if (list === undefined) away.set(key, [item]);
    else list.push(item);
  }
  const out = Int32Array.from(bin);
  let levelsChanged = false;
  // Keys in ascending order, each unordered pair of bins handled once: deterministic.
  for (const key of [...away.keys()].sort((x, y) => x - y)) {
    const at = key % binCount;
    const home = Math.floor(key / binCount) % binCount;
    if (home > at) continue;
    const reverse = away.get(key - at - home * binCount + at * binCount + home);
    if (reverse === undefined) continue;
    const forth = away.get(key)!;
    const pairs = Math.min(forth.length, reverse.length);
    // Lists are in index order, heaviest first: pairing by rank keeps weight differences small.
    for (let k = 0; k < pairs; k++) {
      const p = forth[k]!;
      const q = reverse[k]!;
      out[p] = home;
      out[q] = at;
      if (weight[p] !== weight[q]) levelsChanged = true;
    }
  }
  return { bin: out, levelsChanged };
}
