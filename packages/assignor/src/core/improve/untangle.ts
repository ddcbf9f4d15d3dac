import type { Problem } from '../model/problem.js';
import type { MoveLedger } from '../place/ledger.js';

/**
 * Candidates looked at per partition of a two-way pair when trading. Equal weights put a whole
 * topic in one class, and those pairs go home at no cost in load anyway; the cap keeps a trade
 * from turning into a scan of every partition of a large topic.
 */
const MAX_CANDIDATES = 64;

/**
 * Removes two-way pairs: two equally heavy partitions of one topic that a placement moves both
 * ways between the same two bins (see `Crossings` for why only equal weights count). Cheapest
 * first:
 *
 * 1. A partition of such a pair trades places with an equally heavy partition of its topic
 *    elsewhere, adding no move: the loads and each topic's spread stay exactly as they are.
 * 2. What is left goes home in pairs: two moves fewer, the loads unchanged.
 *
 * Returns the placement (a copy); no level changes. A from-scratch placement renamed onto the
 * previous owners is where such pairs come from: it knows nothing of where partitions were, only
 * how many of a topic each bin should hold, and equally heavy partitions of a topic are
 * interchangeable in it.
 */
export function untangle(problem: Problem, bin: Int32Array, ledger: MoveLedger): Int32Array {
  const out = Int32Array.from(bin);
  trade(problem, out, ledger);
  sendHome(problem, out, ledger);
  return out;
}

/**
 * Sends equally heavy two-way pairs home, each unordered pair of bins once, in ascending key
 * order (deterministic).
 */
function sendHome(problem: Problem, bin: Int32Array, ledger: MoveLedger): void {
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
  for (const key of [...away.keys()].sort((x, y) => x - y)) {
    const at = key % binCount;
    const home = Math.floor(key / binCount) % binCount;
    if (home > at) continue;
    const reverse = away.get(key - at - home * binCount + at * binCount + home);
    if (reverse === undefined) continue;
    const forth = away.get(key)!;
    // Lists are in index order, heaviest first: a merge finds the equal weights.
    for (let i = 0, j = 0; i < forth.length && j < reverse.length;) {
      const p = forth[i]!;
      const q = reverse[j]!;
      if (weight[p] !== weight[q]) {
        if (weight[p]! > weight[q]!) i++;
        else j++;
        continue;
      }
      bin[p] = home;
      bin[q] = at;
      i++;
      j++;
    }
  }
}

/**
 * For each counted partition in a two-way pair, in index order, the equally heavy partition of
 * its topic elsewhere to trade places with that adds no move (the most moves saved, ties by
 * index) and makes no new two-way pair. Edits `bin` in place.
 */
function trade(problem: Problem, bin: Int32Array, ledger: MoveLedger): void {
  const minGain = 0;
  const { binCount, kind, weight } = problem;
  const { home, counted } = ledger;
  const isAway = (item: number, at: number): boolean => counted[item] === 1 && home[item]! >= 0 && at !== home[item];
  // Keyed by topic, home, current bin and weight: only equally heavy partitions make a pair.
  const away = new Map<string, number>();
  const keyOf = (item: number, from: number, at: number): string =>
    `${String((kind[item]! * binCount + from) * binCount + at)}/${String(weight[item])}`;
  let moves = 0;
  const tally = (item: number, at: number, by: number): void => {
    if (!isAway(item, at)) return;
    const key = keyOf(item, home[item]!, at);
    away.set(key, (away.get(key) ?? 0) + by);
    moves += by;
  };
  // `item` at `at` is half of a two-way pair: another of its topic and weight left `at` for `item`'s home.
  const twoWay = (item: number, at: number): boolean =>
    isAway(item, at) && (away.get(keyOf(item, at, home[item]!)) ?? 0) > 0;
  for (let item = 0; item < bin.length; item++) tally(item, bin[item]!, 1);
  const tangled: number[] = [];
  for (let item = 0; item < bin.length; item++) if (twoWay(item, bin[item]!)) tangled.push(item);
  if (tangled.length === 0) return;
  // Interchangeable partitions: same topic (hence same subscribers) and the very same weight.
  const classOf = (item: number): string => `${String(kind[item])}/${String(weight[item])}`;
  const classes = new Map<string, number[]>();
  for (let item = 0; item < bin.length; item++) {
    const list = classes.get(classOf(item));
    if (list === undefined) classes.set(classOf(item), [item]);
    else list.push(item);
  }
  const cost = (item: number, at: number): number => (isAway(item, at) ? 1 : 0);
  for (const p of tangled) {
    const b = bin[p]!;
    if (!twoWay(p, b)) continue; // an earlier trade untangled it
    let best = -1;
    let bestGain = minGain - 1;
    let looked = 0;
    for (const r of classes.get(classOf(p))!) {
      const c = bin[r]!;
      if (r === p || c === b) continue;
      if (looked++ >= MAX_CANDIDATES) break;
      const gain = cost(p, b) + cost(r, c) - cost(p, c) - cost(r, b);
      if (gain <= bestGain || moves - gain > ledger.limit) continue;
      tally(p, b, -1);
      tally(r, c, -1);
      tally(p, c, 1);
      const clean = !twoWay(p, c) && !twoWay(r, b);
      tally(p, c, -1);
      tally(r, c, 1);
      tally(p, b, 1);
      if (!clean) continue;
      best = r;
      bestGain = gain;
    }
    if (best < 0) continue;
    const c = bin[best]!;
    tally(p, b, -1);
    tally(best, c, -1);
    bin[p] = c;
    bin[best] = b;
    tally(p, c, 1);
    tally(best, b, 1);
  }
}
