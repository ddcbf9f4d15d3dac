/** Digits of the radix sort: 16 bits, so a 64-bit key takes at most four passes. */
const DIGIT_BITS = 16;
const DIGIT_MASK = (1 << DIGIT_BITS) - 1;

/** Up to this many weights a comparison sort is cheaper (the trigger balances each instance alone). */
const SMALL = 4096;

/** True on little-endian machines, where a double's low word comes first in memory. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Positions `0..n-1` ordered by weight, heaviest first, ties by position: the order every level
 * places in. Weights must be finite and non-negative (resolved weights are).
 *
 * Already ordered weights (equal ones, the usual unweighted case) are detected and cost one
 * pass; a few thousand are sorted by comparison. Otherwise a stable least-significant-digit radix sort runs on the weights' bit patterns,
 * which order like the numbers themselves for non-negative doubles: four counting passes instead
 * of a comparison sort calling back into JavaScript 1.7 million times for 100k partitions. Passes
 * whose digit is the same for every weight (the low bits of integer weights) are skipped.
 */
export function orderHeaviestFirst(weight: Float64Array): Int32Array {
  const n = weight.length;
  let order = new Int32Array(n);
  let sorted = true;
  for (let c = 0; c < n; c++) {
    order[c] = c;
    if (c > 0 && weight[c - 1]! < weight[c]!) sorted = false;
  }
  if (sorted) return order;
  // Below this the radix sort's four passes over its 64k counters cost more than comparing.
  if (n <= SMALL) return order.sort((a, b) => weight[b]! - weight[a]! || a - b);

  // Complemented bit patterns: ascending order of these is descending order of the weights, and
  // a stable sort keeps equal weights in position order.
  const words = new Uint32Array(Float64Array.from(weight).buffer);
  const lowAt = LITTLE_ENDIAN ? 0 : 1;
  let low = new Uint32Array(n);
  let high = new Uint32Array(n);
  for (let c = 0; c < n; c++) {
    low[c] = ~words[2 * c + lowAt]! >>> 0;
    high[c] = ~words[2 * c + 1 - lowAt]! >>> 0;
  }
  let nextOrder = new Int32Array(n);
  let nextLow = new Uint32Array(n);
  let nextHigh = new Uint32Array(n);
  const count = new Int32Array(DIGIT_MASK + 2);
  for (let pass = 0; pass < 4; pass++) {
    const key = pass < 2 ? low : high;
    const shift = (pass % 2) * DIGIT_BITS;
    count.fill(0);
    for (let k = 0; k < n; k++) {
      const d = (key[k]! >>> shift) & DIGIT_MASK;
      count[d + 1] = count[d + 1]! + 1;
    }
    if (count[((key[0]! >>> shift) & DIGIT_MASK) + 1] === n) continue; // one digit for all: nothing to do
    for (let d = 1; d <= DIGIT_MASK + 1; d++) count[d] = count[d]! + count[d - 1]!;
    for (let k = 0; k < n; k++) {
      const d = (key[k]! >>> shift) & DIGIT_MASK;
      const to = count[d]!;
      count[d] = to + 1;
      nextOrder[to] = order[k]!;
      nextLow[to] = low[k]!;
      nextHigh[to] = high[k]!;
    }
    [order, nextOrder] = [nextOrder, order];
    [low, nextLow] = [nextLow, low];
    [high, nextHigh] = [nextHigh, high];
  }
  return order;
}
