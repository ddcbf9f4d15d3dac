import type { Problem } from '../model/problem.js';
import type { MoveLedger } from './ledger.js';

/**
 * Renames the bins of a from-scratch placement so that as many items as possible stay home. Bins with
 * the same capacity, base load and groups are interchangeable: exchanging their contents changes no
 * eligibility and no level. Within each such class bins are matched greedily by how many counted items
 * they share (largest overlap first, ties by index), so adopting the placement moves only what it must.
 */
export function relabel(problem: Problem, bin: Int32Array, ledger: MoveLedger): Int32Array {
  const { binCount } = problem;
  const classOf = binClasses(problem);
  const overlap = new Map<number, number>();
  for (let item = 0; item < bin.length; item++) {
    const home = ledger.home[item]!;
    const b = bin[item]!;
    if (ledger.counted[item] === 0 || home < 0 || classOf[home] !== classOf[b]) continue;
    const key = b * binCount + home;
    overlap.set(key, (overlap.get(key) ?? 0) + 1);
  }
  const pairs = [...overlap].sort(([ka, na], [kb, nb]) => nb - na || ka - kb);
  const rename = new Int32Array(binCount).fill(-1);
  const taken = new Uint8Array(binCount);
  for (const [key] of pairs) {
    const from = Math.floor(key / binCount);
    const to = key % binCount;
    if (rename[from] !== -1 || taken[to] === 1) continue;
    rename[from] = to;
    taken[to] = 1;
  }
  // Bins left over in a class take the class's remaining names in index order.
  for (let from = 0; from < binCount; from++) {
    if (rename[from] !== -1) continue;
    for (let to = 0; to < binCount; to++) {
      if (taken[to] === 0 && classOf[to] === classOf[from]) {
        rename[from] = to;
        taken[to] = 1;
        break;
      }
    }
  }
  return bin.map((b) => rename[b]!);
}

/** A class id per bin: equal ids for interchangeable bins (same capacity, base load and groups). */
export function binClasses(problem: Problem): Int32Array {
  const { binCount, capacity, baseLoad, baseTie, groupBins, eligible } = problem;
  const ids = new Map<string, number>();
  const classOf = new Int32Array(binCount);
  for (let b = 0; b < binCount; b++) {
    const groups: number[] = [];
    for (let g = 0; g < groupBins.length; g++) if (eligible[g * binCount + b] === 1) groups.push(g);
    const key = `${String(capacity[b])}|${String(baseLoad[b])}|${String(baseTie[b])}|${groups.join(',')}`;
    let id = ids.get(key);
    if (id === undefined) ids.set(key, (id = ids.size));
    classOf[b] = id;
  }
  return classOf;
}
