/** Digits of the radix sort: 16 bits, so a 64-bit key takes at most four passes. */
const DIGIT_BITS = 16;
const DIGIT_MASK = (1 << DIGIT_BITS) - 1;

/** Up to this many weights a comparison sort is cheaper (the trigger balances each instance alone). */
const SMALL = 4096;

/** True on little-endian machines, where a double's low word comes first in memory. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Positions `0..n-1` ordered by weight, heaviest first, ties by position: the order every level places in.
 * Weights must be finite and non-negative (resolved weights are).
 *
 * Already ordered weights (the usual unweighted case) cost one pass; a few thousand are sorted by comparison.
 * Otherwise a stable LSD radix sort runs on the bit patterns, which for non-negative doubles order like the
 * numbers, sparing a comparator call per comparison. Only the high 32 bits (sign, exponent, 20 mantissa
 * bits) are sorted first, two passes instead of four, and runs sharing a high word are then sorted by
 * comparison; if those hold many weights (a band narrower than a millionth), the full four-pass sort runs,
 * so no input degrades to a large comparison sort.
 */
export function orderHeaviestFirst(weight: Float64Array): Int32Array {
  const n = weight.length;
  const order = new Int32Array(n);
  let sorted = true;
  for (let c = 0; c < n; c++) {
    order[c] = c;
    if (c > 0 && weight[c - 1]! < weight[c]!) sorted = false;
  }
  if (sorted) return order;
  // Below this the radix sort's passes over its 64k counters cost more than comparing.
  if (n <= SMALL) return order.sort((a, b) => weight[b]! - weight[a]! || a - b);

  // The weights' memory read as words (a Float64Array view is always 8-byte aligned).
  const words = new Uint32Array(weight.buffer, weight.byteOffset, 2 * n);
  const byHigh = radixPasses(order, [complementedWords(words, n, HIGH_AT)]);
  if (settleHighWordTies(byHigh, words, weight)) return byHigh;
  return radixPasses(order, [complementedWords(words, n, LOW_AT), complementedWords(words, n, HIGH_AT)]);
}

/** Position of a double's high and low word within its two (little- or big-endian). */
const HIGH_AT = LITTLE_ENDIAN ? 1 : 0;
const LOW_AT = 1 - HIGH_AT;

/** Word `at` of every weight, complemented: ascending order of these is descending order of the weights. */
function complementedWords(words: Uint32Array, n: number, at: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let c = 0; c < n; c++) out[c] = ~words[2 * c + at]! >>> 0;
  return out;
}

/**
 * Stable LSD radix sort of `initial` (left untouched) by 32-bit `keys`, least significant first, 16 bits a
 * pass; a pass whose digit is the same for every key (low bits of integer weights) is skipped.
 */
function radixPasses(initial: Int32Array, keys: ReadonlyArray<Uint32Array>): Int32Array {
  const n = initial.length;
  let order = Int32Array.from(initial);
  let nextOrder = new Int32Array(n);
  // Each key array travels with the order, so every pass reads its keys sequentially.
  let current = keys.map((k) => Uint32Array.from(k));
  let next = keys.map(() => new Uint32Array(n));
  const count = new Int32Array(DIGIT_MASK + 2);
  for (let pass = 0; pass < 2 * keys.length; pass++) {
    const key = current[pass >> 1]!;
    const shift = (pass % 2) * DIGIT_BITS;
    count.fill(0);
    for (let k = 0; k < n; k++) {
      const d = (key[k]! >>> shift) & DIGIT_MASK;
      count[d + 1] = count[d + 1]! + 1;
    }
    if (count[((key[0]! >>> shift) & DIGIT_MASK) + 1] === n) continue; // one digit for all: nothing to do
    for (let d = 1; d <= DIGIT_MASK + 1; d++) count[d] = count[d]! + count[d - 1]!;
    scatter(order, nextOrder, current, next, key, shift, count);
    [order, nextOrder] = [nextOrder, order];
    [current, next] = [next, current];
  }
  return order;
}

/** One counting pass: moves every entry (and its one or two keys) to its digit's next free position. */
function scatter(
  order: Int32Array,
  nextOrder: Int32Array,
  current: ReadonlyArray<Uint32Array>,
  next: ReadonlyArray<Uint32Array>,
  key: Uint32Array,
  shift: number,
  count: Int32Array,
): void {
  for (let k = 0; k < order.length; k++) {
    const d = (key[k]! >>> shift) & DIGIT_MASK;
    const to = count[d]!;
    count[d] = to + 1;
    nextOrder[to] = order[k]!;
    next[0]![to] = current[0]![k]!;
    if (current.length === 2) next[1]![to] = current[1]![k]!;
  }
}

/**
 * Sorts by comparison each run of `order` sharing a high word but not a low one. False, leaving `order`
 * partly sorted, when such runs hold over a sixteenth of the weights: a full radix sort is cheaper then.
 */
function settleHighWordTies(order: Int32Array, words: Uint32Array, weight: Float64Array): boolean {
  const n = order.length;
  let unsettled = 0;
  for (let start = 0; start < n;) {
    const high = words[2 * order[start]! + HIGH_AT]!;
    const low = words[2 * order[start]! + LOW_AT]!;
    let end = start + 1;
    let lowsDiffer = false;
    while (end < n && words[2 * order[end]! + HIGH_AT] === high) {
      if (words[2 * order[end]! + LOW_AT] !== low) lowsDiffer = true;
      end++;
      if (lowsDiffer && unsettled + end - start > n >> 4) return false;
    }
    if (lowsDiffer) {
      // The loop above already returned if this run took the total past the limit.
      unsettled += end - start;
      order.subarray(start, end).sort((a, b) => weight[b]! - weight[a]! || a - b);
    }
    start = end;
  }
  return true;
}
